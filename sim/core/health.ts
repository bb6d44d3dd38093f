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

export class Health {
  private state: HealthState;

  constructor(
    private readonly clock: Clock,
    initial: Partial<HealthState> = {},
  ) {
    const executorId = initial.executorId ?? 0;
    // Unless told otherwise the relayer agrees with the executor, as on a healthy live deployment.
    const s: HealthState = {
      executorId,
      relayerExecutorId: initial.relayerExecutorId === undefined ? executorId : initial.relayerExecutorId,
      signatureReady: initial.signatureReady ?? true,
      dependencyUnavailable: initial.dependencyUnavailable ?? false,
    };
    checkExecutorId(s.executorId, "executorId");
    if (s.relayerExecutorId !== null) checkExecutorId(s.relayerExecutorId, "relayerExecutorId");
    this.state = s;
  }

  /** The executor id uuid_int must carry right now. */
  get executorId(): number {
    return this.state.executorId;
  }

  /**
   * Rotate the executor id. Outstanding uuid_ints carrying the old id stop
   * validating at once (checks always read the current id). The relayer id moves
   * with it unless `relayerFollows` is false (to simulate a lagging relayer).
   */
  setExecutorId(id: number, relayerFollows = true): void {
    checkExecutorId(id, "executorId");
    this.state.executorId = id;
    if (relayerFollows && this.state.relayerExecutorId !== null) this.state.relayerExecutorId = id;
  }

  setRelayerExecutorId(id: number | null): void {
    if (id !== null) checkExecutorId(id, "relayerExecutorId");
    this.state.relayerExecutorId = id;
  }

  setSignatureReady(ready: boolean): void {
    this.state.signatureReady = ready;
  }

  setDependencyUnavailable(unavailable: boolean): void {
    this.state.dependencyUnavailable = unavailable;
  }

  isHealthy(): boolean {
    const s = this.state;
    return s.signatureReady && (s.relayerExecutorId === null || s.relayerExecutorId === s.executorId);
  }

  /** The GET /health body, or 503 UNAVAILABLE when a backing dependency is down. */
  view(): HealthResponse {
    const s = this.state;
    if (s.dependencyUnavailable) {
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
    return { ...this.state };
  }

  restore(state: HealthState): void {
    this.state = { ...state };
  }
}

function checkExecutorId(id: number, name: string): void {
  if (!Number.isInteger(id) || id < 0 || id > MAX_EXECUTOR_ID) {
    throw new RangeError(`${name} must be an integer 0-${MAX_EXECUTOR_ID}, got ${id}`);
  }
}
