// GET /health. Clients refuse to trade unless status is healthy, signature_ready
// is true and relayer_executor_id equals executor_id (when not null), so each of
// those is a switch a test can flip.
//
// Rules (spec "Health rules"): healthy when signature verification is ready and
// executor_id equals the chain-side probe (relayer_executor_id); degraded when
// verification is not ready or the two ids disagree. A null relayer id alone is
// not degradation. A backing dependency marked unavailable makes the endpoint 503.

import { isoOf, type Clock } from "./clock.ts";
import { ExchangeError } from "./errors.ts";
import { MAX_EXECUTOR_ID } from "./uuid-int.ts";

export interface HealthState {
  executorId: number;
  relayerExecutorId: number | null;
  signatureReady: boolean;
  dependencyUnavailable: boolean;
}

export interface HealthResponse {
  status: "healthy" | "degraded";
  version: "v1";
  timestamp: string;
  executor_id: number;
  relayer_executor_id: number | null;
  signature_ready: boolean;
}

/**
 * Whoever owns the executor id (the engine, which stamps and checks uuid_int).
 * Health reads it through this so GET /health, preview, verify-signature, order
 * entry and swaps can never disagree after a rotation.
 */
export interface ExecutorIdSource {
  readonly executorId: number;
  setExecutorId(id: number): void;
}

/** A stand-alone holder, for a Health that is not wired to an engine. */
class OwnExecutorId implements ExecutorIdSource {
  constructor(public executorId: number) {}
  setExecutorId(id: number): void {
    this.executorId = id;
  }
}

export class Health {
  private readonly executor: ExecutorIdSource;
  /** The relayer's id when it does not simply follow the executor (lagging, or null = unknown). */
  private relayerPinned: { id: number | null } | null;
  private signatureReady: boolean;
  /** The test switch (control API): 503 while set. */
  private dependencyUnavailable: boolean;
  /**
   * The chain node is gone (its process exited): 503 whatever the switch says, since clearing
   * the switch must not make a dead exchange look healthy. A fact of the process, not of the
   * run's state: snapshots neither keep nor clear it.
   */
  private nodeDown = false;
  /** The state directory cannot be written (a full disk): no change is taken. Also a fact of the process. */
  private stateDirDown = false;

  /**
   * `executor` given: the id lives there (`initial.executorId` must then be absent or
   * equal). Without it Health keeps its own id (unit tests of Health alone).
   */
  constructor(
    private readonly clock: Clock,
    initial: Partial<HealthState> = {},
    executor?: ExecutorIdSource,
  ) {
    if (executor && initial.executorId !== undefined && initial.executorId !== executor.executorId) {
      throw new RangeError(`Health: executorId ${initial.executorId} differs from the source's ${executor.executorId}`);
    }
    const executorId = executor ? executor.executorId : (initial.executorId ?? 0);
    checkExecutorId(executorId, "executorId");
    if (initial.relayerExecutorId !== undefined && initial.relayerExecutorId !== null) checkExecutorId(initial.relayerExecutorId, "relayerExecutorId");
    this.executor = executor ?? new OwnExecutorId(executorId);
    // Unless told otherwise the relayer agrees with the executor, as on a healthy live deployment.
    this.relayerPinned = initial.relayerExecutorId === undefined || initial.relayerExecutorId === executorId ? null : { id: initial.relayerExecutorId };
    this.signatureReady = initial.signatureReady ?? true;
    this.dependencyUnavailable = initial.dependencyUnavailable ?? false;
  }

  /** The executor id uuid_int must carry right now (read from the source on every call). */
  get executorId(): number {
    return this.executor.executorId;
  }

  get relayerExecutorId(): number | null {
    return this.relayerPinned ? this.relayerPinned.id : this.executor.executorId;
  }

  /**
   * Rotate the executor id (in the source, so order entry sees it too). Outstanding
   * uuid_ints carrying the old id stop validating at once. The relayer id moves
   * with it unless `relayerFollows` is false (to simulate a lagging relayer); a
   * null relayer id stays null.
   */
  setExecutorId(id: number, relayerFollows = true): void {
    checkExecutorId(id, "executorId");
    const relayer = this.relayerExecutorId;
    if (!relayerFollows || relayer === null) this.relayerPinned = { id: relayer };
    else this.relayerPinned = null;
    if (id !== this.executor.executorId) this.executor.setExecutorId(id);
  }

  setRelayerExecutorId(id: number | null): void {
    if (id !== null) checkExecutorId(id, "relayerExecutorId");
    this.relayerPinned = { id };
  }

  setSignatureReady(ready: boolean): void {
    this.signatureReady = ready;
  }

  setDependencyUnavailable(unavailable: boolean): void {
    this.dependencyUnavailable = unavailable;
  }

  /** The chain node died: GET /health answers 503 from now on. */
  setNodeDown(): void {
    this.nodeDown = true;
  }

  /** The --state-dir's log could not be written, or its lock was taken over: GET /health answers 503 from now on. */
  setStateDirDown(): void {
    this.stateDirDown = true;
  }

  /** Whether GET /health answers 503 (the switch, a dead node, or a state directory that cannot be written). */
  get unavailable(): boolean {
    return this.dependencyUnavailable || this.nodeDown || this.stateDirDown;
  }

  isHealthy(): boolean {
    const relayer = this.relayerExecutorId;
    return this.signatureReady && (relayer === null || relayer === this.executorId);
  }

  /** The GET /health body, or 503 UNAVAILABLE when a backing dependency is down. */
  view(): HealthResponse {
    const s = this.snapshot();
    if (this.unavailable) {
      throw new ExchangeError("UNAVAILABLE", 503, "Service temporarily unavailable; please retry");
    }
    return {
      status: this.isHealthy() ? "healthy" : "degraded",
      version: "v1",
      timestamp: isoOf(this.clock.nowMs()),
      executor_id: s.executorId,
      relayer_executor_id: s.relayerExecutorId,
      signature_ready: s.signatureReady,
    };
  }

  snapshot(): HealthState {
    return {
      executorId: this.executorId,
      relayerExecutorId: this.relayerExecutorId,
      signatureReady: this.signatureReady,
      dependencyUnavailable: this.dependencyUnavailable,
    };
  }

  /** Restores the executor id into the source too (a no-op when the engine restored it already). */
  restore(state: HealthState): void {
    checkExecutorId(state.executorId, "executorId");
    if (state.executorId !== this.executor.executorId) this.executor.setExecutorId(state.executorId);
    this.relayerPinned = state.relayerExecutorId === state.executorId ? null : { id: state.relayerExecutorId };
    this.signatureReady = state.signatureReady;
    this.dependencyUnavailable = state.dependencyUnavailable;
  }
}

function checkExecutorId(id: number, name: string): void {
  if (!Number.isInteger(id) || id < 0 || id > MAX_EXECUTOR_ID) {
    throw new RangeError(`${name} must be an integer 0-${MAX_EXECUTOR_ID}, got ${id}`);
  }
}
