// Forced failures and latency on chosen /api/v1 routes, set through the control
// API: one middleware in front of the exchange app. A rule matches a method (or
// any) and a path under /api/v1 (exact, or a prefix when it ends in "*"); it
// delays the request by `latency_ms` of real time (this is the HTTP edge, not the
// simulator: the virtual clock does not move) and/or fails it with `fail`:
// 503 (true is 503), "timeout", "reset" or "truncate" (route-faults-outcome.ts).
//
// `after_commit: true` is the ambiguous outcome: the request is served in full
// (orders placed, quotes consumed, withdrawals co-signed, all in the event log)
// and only then is its answer lost to the fault. Without it the fault comes
// before any effect.
//
// `times` limits how many requests a rule affects; `fraction` affects each
// matching request with that probability, drawn from a seeded Rng (the same
// seed and request sequence pick the same requests), as are latency
// distributions (route-faults-latency.ts). A request the fraction spares does
// not count against `times`.
import { clearTimeout, setTimeout } from "node:timers";
import type { RequestHandler, Response } from "express";
import { ExchangeError } from "../core/errors.ts";
import { Rng, type RngState } from "../core/rng.ts";
import { drawLatency, isZeroLatency, parseLatency, type LatencySpec } from "./route-faults-latency.ts";
import { FAIL_KINDS, answerWithFault, faultHooks, swallowResponse, type CommittedResponse, type FailKind, type HeaderSnapshot } from "./route-faults-outcome.ts";
import { noteDelayed, noteFault } from "./journal-notes.ts";
import { readBodyAhead } from "./body-ahead.ts";
import { SERVICE_UNAVAILABLE_DETAIL } from "./errors.ts";
import { DEFAULT_BODY_LIMIT_BYTES, readUnroutedBody } from "./body.ts";

export { MAX_FAULT_LATENCY_MS } from "./route-faults-latency.ts";

export interface RouteFaultRule {
  /** HTTP method, upper case; absent = any. */
  method?: string;
  /** Path under /api/v1 ("/orders", "/swap/quote"); a trailing "*" makes it a prefix ("/orders*"). */
  path: string;
  /** How the request fails: true or 503 (Retry-After: 1), "timeout", "reset", "truncate"; false/absent: it does not. */
  fail?: boolean | FailKind;
  /** Fail after the request took full effect (its committed answer is lost), not before. */
  after_commit?: boolean;
  /** Real delay before the request is served (or failed): ms, or a seeded distribution. */
  latency_ms?: LatencySpec;
  /** How many matching requests the rule applies to; absent = until cleared. */
  times?: number;
  /** Probability (0-1] that a matching request is affected, drawn from the seeded Rng; absent = 1. */
  fraction?: number;
}

export interface RouteFaultsState {
  rules: RouteFaultRule[];
  rng: RngState;
}

const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);
const KEYS = ["method", "path", "fail", "after_commit", "latency_ms", "times", "fraction"];

function invalid(detail: string): ExchangeError {
  return new ExchangeError("VALIDATION", 400, `route faults: ${detail}`);
}

/** The failure a rule asks for, or null. */
export function failKind(rule: RouteFaultRule): FailKind | null {
  if (rule.fail === undefined || rule.fail === false) return null;
  return rule.fail === true ? 503 : rule.fail;
}

/** Validate a list of rules from JSON; returns normalised copies. */
export function parseRouteFaultRules(input: unknown): RouteFaultRule[] {
  if (!Array.isArray(input)) throw invalid("rules must be an array");
  return input.map((r: unknown, i) => {
    if (r === null || typeof r !== "object" || Array.isArray(r)) throw invalid(`rules[${i}] must be an object`);
    const o = r as Record<string, unknown>;
    for (const k of Object.keys(o)) if (!KEYS.includes(k)) throw invalid(`rules[${i}]: unknown key ${k}`);
    if (typeof o.path !== "string" || !o.path.startsWith("/") || o.path.length > 200) throw invalid(`rules[${i}].path must be a path starting with "/"`);
    // Rule paths are under /api/v1 already; one that holds the prefix (in any case, after a
    // pool id, doubled slashes) could never match: say which path to write.
    const prefix = o.path.toLowerCase().lastIndexOf("/api/v1");
    if (prefix >= 0) {
      const rest = o.path.slice(prefix + "/api/v1".length);
      throw invalid(`rules[${i}].path is relative to /api/v1: write ${JSON.stringify(rest.startsWith("/") ? rest : `/${rest}`)}`);
    }
    const rule: RouteFaultRule = { path: o.path };
    if (o.method !== undefined) {
      if (typeof o.method !== "string" || !METHODS.has(o.method.toUpperCase())) throw invalid(`rules[${i}].method must be an HTTP method`);
      rule.method = o.method.toUpperCase();
    }
    if (o.fail !== undefined) {
      if (typeof o.fail !== "boolean" && !FAIL_KINDS.includes(o.fail as FailKind)) {
        throw invalid(`rules[${i}].fail must be true, false, 503, "timeout", "reset" or "truncate"`);
      }
      rule.fail = o.fail as RouteFaultRule["fail"];
    }
    if (o.after_commit !== undefined) {
      if (typeof o.after_commit !== "boolean") throw invalid(`rules[${i}].after_commit must be true or false`);
      if (o.after_commit && failKind(rule) === null) throw invalid(`rules[${i}].after_commit needs a fail`);
      rule.after_commit = o.after_commit;
    }
    if (o.latency_ms !== undefined) rule.latency_ms = parseLatency(o.latency_ms, `rules[${i}].latency_ms`);
    if (o.times !== undefined) {
      if (!Number.isInteger(o.times) || (o.times as number) < 1) throw invalid(`rules[${i}].times must be an integer >= 1`);
      rule.times = o.times as number;
    }
    if (o.fraction !== undefined) {
      if (typeof o.fraction !== "number" || !(o.fraction > 0) || o.fraction > 1) throw invalid(`rules[${i}].fraction must be a number in (0, 1]`);
      rule.fraction = o.fraction;
    }
    if (failKind(rule) === null && isZeroLatency(rule.latency_ms)) throw invalid(`rules[${i}] needs fail (true, 503, "timeout", "reset" or "truncate") or a positive latency_ms`);
    return rule;
  });
}

export class RouteFaults {
  private rules: RouteFaultRule[] = [];

  /** `rng` draws fractions and latencies: seed it (createFakeExchange does, from its seed). */
  constructor(private readonly rng: Rng = new Rng("route-faults")) {}

  /**
   * Wall clock: brings the virtual clock to real time. A delayed request runs it again when
   * its delay ends, so it is served at the time it is served (a quote can expire meanwhile),
   * not at the time it arrived. A durable log in front does this itself (FaultHooks.delayed).
   */
  private moveClock: (() => Promise<unknown>) | null = null;

  followWallClock(move: () => Promise<unknown>): void {
    this.moveClock = move;
  }

  set(rules: readonly RouteFaultRule[]): void {
    this.rules = rules.map((r) => ({ ...r }));
  }

  clear(): void {
    this.rules = [];
  }

  list(): RouteFaultRule[] {
    return this.rules.map((r) => ({ ...r }));
  }

  snapshot(): RouteFaultsState {
    return { rules: this.list(), rng: this.rng.snapshot() };
  }

  /**
   * Also takes the bare rule list older snapshots and state files hold. The requests the run
   * being left still holds or delays end first (dropPending): served after the restore, a
   * delayed one would land its effect in the restored state (a pool id's reset, a fixture's
   * restore between tests).
   */
  restore(state: RouteFaultsState | readonly RouteFaultRule[]): void {
    this.dropPending();
    if (Array.isArray(state)) return this.set(state as readonly RouteFaultRule[]);
    const s = state as RouteFaultsState;
    this.set(s.rules);
    this.rng.restore(s.rng);
  }

  private takenCount = 0;

  /** Requests that matched a rule (each moved `times` or the Rng, or may have): a durable log records them. */
  get taken(): number {
    return this.takenCount;
  }

  /** The rule for this request (first match, if its fraction picks it), counting it against `times`. */
  take(method: string, path: string): RouteFaultRule | undefined {
    const i = this.rules.findIndex((r) => (r.method === undefined || r.method === method) && matches(r.path, path));
    if (i < 0) return undefined;
    this.takenCount++;
    const rule = this.rules[i]!;
    if (rule.fraction !== undefined && rule.fraction < 1 && !this.rng.chance(rule.fraction)) return undefined;
    if (rule.times !== undefined) {
      if (rule.times <= 1) this.rules.splice(i, 1);
      else this.rules[i] = { ...rule, times: rule.times - 1 };
    }
    return rule;
  }

  /** One delay for this rule (ms), drawn now so draws follow request order. */
  latencyOf(rule: RouteFaultRule): number {
    return rule.latency_ms === undefined ? 0 : drawLatency(rule.latency_ms, this.rng);
  }

  /** Requests a "timeout" rule holds right now (until their client gives up). */
  private readonly held = new Set<Response>();
  /** Set by dropHeld: the exchange is going, so a timeout answered later is not held either. */
  private released = false;
  /** Requests waiting out a rule's latency, by their timer. */
  private readonly delayed = new Map<NodeJS.Timeout, Response>();

  private answer(res: Response, kind: FailKind, committed: CommittedResponse | null, edge: HeaderSnapshot): void {
    answerWithFault(res, kind, committed, edge);
    if (kind !== "timeout") return;
    // A client gone already (it gave up while its body was read), or an exchange released
    // meanwhile: nothing to hold.
    if (res.closed || res.destroyed || this.released) {
      res.socket?.destroy();
      return;
    }
    this.held.add(res);
    res.on("close", () => this.held.delete(res));
  }

  /**
   * End every held request (their clients see the connection drop). A standalone server
   * does this by closing its connections; a pool instance has no server of its own, so
   * releasing it calls this, or its held requests would outlive it.
   */
  dropHeld(): void {
    this.released = true;
    this.dropPending();
  }

  /** End what is held (the connection drops) or delayed (503, never served) now; later requests are served as usual. */
  dropPending(): void {
    for (const res of this.held) res.socket?.destroy();
    this.held.clear();
    // Requests still in their latency delay are never served: a closed exchange neither
    // runs them nor keeps the process alive for them (a pool instance's 503 names the release).
    for (const [timer, res] of this.delayed) {
      clearTimeout(timer);
      refuseClosing(res);
    }
    this.delayed.clear();
  }

  /**
   * Express middleware, mounted at the API prefix (req.path is relative to it). A durable
   * log in front (FaultHooks) records the effect before a fault loses the answer.
   */
  middleware(): RequestHandler {
    return (req, res, next) => {
      // The exchange is closing: a request that reaches its routes now (one a durable log held
      // back behind a delayed one) is not served either, nor delayed: 503, as dropHeld answers.
      if (this.released) return refuseClosing(res);
      if (this.rules.length === 0) return next();
      const rule = this.take(req.method, req.path);
      if (!rule) return next();
      const kind = failKind(rule);
      // Headers the middleware in front set (CORS): a fault's answer keeps them.
      const edge = { ...res.getHeaders() };
      const hooks = faultHooks(res);
      const act = () => {
        noteDelayed(false);
        if (kind === null) return next();
        if (hooks.replay) {
          // Applying a logged request again: the answer that was logged goes to the replay;
          // the journal still records the fault (the committed status is read as it ends).
          noteFault({ kind: String(kind), after_commit: rule.after_commit === true, committed_status: null }, true);
          return rule.after_commit ? next() : answerWithFault(res, 503, null, edge);
        }
        if (!rule.after_commit) {
          noteFault({ kind: String(kind), after_commit: false, committed_status: null });
          // The route never reads the body: read it here, so the journal (and a durable log's
          // record) show what the client sent.
          // At most the default body limit: a route would take no more.
          readUnroutedBody(req, DEFAULT_BODY_LIMIT_BYTES, () => {
            // Logged as a 503: nothing took effect.
            const lose = () => this.answer(res, kind, null, edge);
            if (hooks.committed) hooks.committed(503).then(lose, lose);
            else lose();
          });
          return;
        }
        swallowResponse(res, (committed) => {
          noteFault({ kind: String(kind), after_commit: true, committed_status: committed.status });
          const lose = () => this.answer(res, kind, committed, edge);
          if (hooks.committed) hooks.committed(committed.status).then(lose, lose);
          else lose();
        });
        next();
      };
      // Drawn in every case (the Rng moves the same way when a logged request is applied again).
      const delay = this.latencyOf(rule);
      if (delay > 0 && !hooks.replay) {
        const moveClock = hooks.delayed ?? this.moveClock;
        noteDelayed(true);
        // The body is read before the delay, as a server has it before its slow part: a client
        // that gives up while it waits has still sent its request, which is then served (and
        // after_commit takes effect); read after the delay, it was refused as cut short.
        readBodyAhead(req, DEFAULT_BODY_LIMIT_BYTES, () => {
          if (this.released) return refuseClosing(res);
          const timer = setTimeout(() => {
            this.delayed.delete(timer);
            if (moveClock) void moveClock().then(act, next);
            else act();
          }, delay);
          this.delayed.set(timer, res);
        });
      } else act();
    };
  }
}

/**
 * A request the closing exchange will not serve: a durable log in front is told it took no
 * effect (which lets the requests queued behind it go the same way, and its closing
 * checkpoint be taken: the record, a 503, is folded into it and never replayed). Its client
 * gets 503 with Retry-After at once, before the server closes its connection: nothing took
 * effect, so the answer need not wait for the record.
 */
const NEVER_SERVED = Symbol("fakex.neverServed");

/**
 * Whether the request was answered 503 without its route ever running (a restore or a close
 * ended its latency delay): it changed nothing, so a durable log has nothing to replay.
 */
export function wasNeverServed(res: object): boolean {
  return (res as { [NEVER_SERVED]?: boolean })[NEVER_SERVED] === true;
}

function refuseClosing(res: Response): void {
  (res as unknown as { [NEVER_SERVED]?: boolean })[NEVER_SERVED] = true;
  void faultHooks(res).committed?.(503);
  if (res.headersSent || res.destroyed) res.socket?.destroy();
  else res.status(503).set("Retry-After", "1").json({ detail: SERVICE_UNAVAILABLE_DETAIL });
}

function matches(pattern: string, path: string): boolean {
  const p = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  return pattern.endsWith("*") ? p.startsWith(pattern.slice(0, -1)) : p === pattern;
}
