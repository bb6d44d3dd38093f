// Per-wallet rate limits on the virtual clock (spec "Limits"): read 10/s,
// trade 5/s, cancel 2/s, transfer 2/s.
//
// Window: SLIDING, one second, exact. A request at time t (ms) is admitted when
// fewer than `limit` requests of that wallet and group were admitted in
// (t - 1000, t]. Rejected requests do not count. A sliding log (not a fixed
// bucket) means a burst straddling a second boundary cannot get 2x through,
// which is the stricter reading, and it is exact and deterministic on the
// virtual clock. The cancel cooldown is a per-order rule and lives with orders.

import type { Clock } from "./clock.ts";
import { ExchangeError } from "./errors.ts";

export type RateGroup = "read" | "trade" | "cancel" | "transfer";
export const RATE_GROUPS: readonly RateGroup[] = ["read", "trade", "cancel", "transfer"];

export type RateLimitConfig = Record<RateGroup, number>;

/** Requests per second per wallet. */
export const DEFAULT_RATE_LIMITS: RateLimitConfig = { read: 10, trade: 5, cancel: 2, transfer: 2 };
export const RATE_WINDOW_MS = 1000;

export interface RateLimiterState {
  enabled: boolean;
  limits: RateLimitConfig;
  /** `${wallet}|${group}` → admission times (ms), oldest first, all inside the window. */
  windows: [string, number[]][];
}

const MIN_SWEEP_AT = 1024;

export class RateLimiter {
  private enabled = true;
  private limits: RateLimitConfig;
  private windows = new Map<string, number[]>();
  /** Window count at which a new key first sweeps out the windows of wallets that went quiet. */
  private sweepAt = MIN_SWEEP_AT;

  constructor(
    private readonly clock: Clock,
    limits: Partial<RateLimitConfig> = {},
  ) {
    this.limits = checkedLimits({ ...DEFAULT_RATE_LIMITS, ...limits });
  }

  /**
   * Count one request of `wallet` in `group`, or throw 429 RATE_LIMITED
   * ("Rate limit exceeded", the live service's text) without counting it.
   * When disabled this is a no-op.
   */
  hit(wallet: string, group: RateGroup): void {
    if (!this.enabled) return;
    const now = this.clock.nowMs();
    const key = `${wallet.toLowerCase()}|${group}`;
    const times = this.fresh(key, now);
    if (times.length >= this.limits[group]) {
      throw new ExchangeError("RATE_LIMITED", 429, "Rate limit exceeded", {
        group,
        limit: this.limits[group],
        retry_after_ms: times[0]! + RATE_WINDOW_MS - now,
      });
    }
    times.push(now);
    if (times.length === 1) this.addWindow(key, times, now);
  }

  /** How many more requests would be admitted right now. */
  remaining(wallet: string, group: RateGroup): number {
    if (!this.enabled) return Number.POSITIVE_INFINITY;
    return Math.max(0, this.limits[group] - this.fresh(`${wallet.toLowerCase()}|${group}`, this.clock.nowMs()).length);
  }

  /** Load tests switch limiting off entirely. */
  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
  }

  isEnabled(): boolean {
    return this.enabled;
  }

  /** How many wallet-and-group windows are held (memory diagnostics; emptied ones go in sweeps). */
  get windowCount(): number {
    return this.windows.size;
  }

  configure(limits: Partial<RateLimitConfig>): void {
    this.limits = checkedLimits({ ...this.limits, ...limits });
  }

  config(): RateLimitConfig {
    return { ...this.limits };
  }

  /** Forget all counted requests (limits and the switch stay). */
  reset(): void {
    this.windows.clear();
  }

  snapshot(): RateLimiterState {
    const now = this.clock.nowMs();
    const windows: [string, number[]][] = [];
    for (const key of [...this.windows.keys()].sort()) {
      const times = this.fresh(key, now);
      if (times.length > 0) windows.push([key, [...times]]);
    }
    return { enabled: this.enabled, limits: { ...this.limits }, windows };
  }

  restore(state: RateLimiterState): void {
    this.enabled = state.enabled;
    this.limits = checkedLimits({ ...state.limits });
    this.windows = new Map(state.windows.map(([k, t]) => [k, [...t]]));
  }

  /**
   * A wallet's first request in a while: a window of its own. A wallet that never comes back
   * would keep its (emptied) window for good, so once their number doubles, the windows
   * with nothing left inside are dropped: amortised O(1) per new window, however many
   * wallets a soak run makes.
   */
  private addWindow(key: string, times: number[], now: number): void {
    this.windows.set(key, times);
    if (this.windows.size < this.sweepAt) return;
    for (const k of [...this.windows.keys()]) this.fresh(k, now);
    this.sweepAt = Math.max(MIN_SWEEP_AT, 2 * this.windows.size);
  }

  /** Admission times still inside (now - window, now]; drops the rest. */
  private fresh(key: string, now: number): number[] {
    const times = this.windows.get(key);
    if (!times) return [];
    let i = 0;
    while (i < times.length && times[i]! <= now - RATE_WINDOW_MS) i++;
    if (i > 0) times.splice(0, i);
    if (times.length === 0) this.windows.delete(key);
    return times;
  }
}

function checkedLimits(l: RateLimitConfig): RateLimitConfig {
  for (const g of RATE_GROUPS) {
    const v = l[g];
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`rate limit for ${g} must be a positive integer, got ${v}`);
  }
  return { read: l.read, trade: l.trade, cancel: l.cancel, transfer: l.transfer };
}
