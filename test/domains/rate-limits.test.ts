import { describe, expect, it } from "vitest";
import { VirtualClock } from "../../sim/core/clock.ts";
import { ExchangeError } from "../../sim/core/errors.ts";
import { DEFAULT_RATE_LIMITS, RateLimiter, type RateGroup } from "../../sim/core/rate-limits.ts";

const W = "0xAaAaaAaaaAaaAaaAaaAAAAAAaaaaAaAaaAaAaAAa";
const V = "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

function caught(f: () => unknown): ExchangeError {
  try {
    f();
  } catch (e) {
    if (e instanceof ExchangeError) return e;
    throw e;
  }
  throw new Error("expected an ExchangeError");
}

describe("RateLimiter", () => {
  it("has the spec's defaults", () => {
    expect(DEFAULT_RATE_LIMITS).toEqual({ read: 10, trade: 5, cancel: 2, transfer: 2 });
  });

  it.each([
    ["read", 10],
    ["trade", 5],
    ["cancel", 2],
    ["transfer", 2],
  ] as [RateGroup, number][])("admits %s up to %i per second, then 429 RATE_LIMITED", (group, limit) => {
    const clock = new VirtualClock();
    const rl = new RateLimiter(clock);
    for (let i = 0; i < limit; i++) rl.hit(W, group);
    const e = caught(() => rl.hit(W, group));
    expect(e.status).toBe(429);
    expect(e.code).toBe("RATE_LIMITED");
    expect(e.detail).toBe("Rate limit exceeded");
    expect(e.extra).toMatchObject({ group, limit, retry_after_ms: 1000 });
  });

  it("drops the windows of wallets that went quiet as new wallets arrive (a soak run's fresh wallets hold no memory for good), and counts the rest on", () => {
    const clock = new VirtualClock();
    const rl = new RateLimiter(clock);
    const wallet = (i: number) => `0x${i.toString(16).padStart(40, "0")}`;
    for (let i = 0; i < 5000; i++) rl.hit(wallet(i), "read");
    expect(rl.windowCount).toBeGreaterThan(1000);
    // A wallet still inside its window keeps its count through the sweeps.
    clock.advanceMs(1000);
    for (let i = 0; i < 10; i++) rl.hit(W, "read");
    for (let i = 5000; i < 10_000; i++) rl.hit(wallet(i), "read");
    expect(rl.windowCount).toBeLessThan(6000);
    expect(caught(() => rl.hit(W, "read")).status).toBe(429);
  });

  it("keeps wallets and groups apart, and wallet case does not matter", () => {
    const rl = new RateLimiter(new VirtualClock());
    rl.hit(W, "cancel");
    rl.hit(W.toLowerCase(), "cancel");
    expect(caught(() => rl.hit(W, "cancel")).status).toBe(429);
    expect(() => rl.hit(V, "cancel")).not.toThrow();
    expect(() => rl.hit(W, "transfer")).not.toThrow();
    expect(rl.remaining(W, "read")).toBe(10);
  });

  it("slides: a request leaves the window exactly 1000 ms after it was admitted", () => {
    const clock = new VirtualClock();
    const rl = new RateLimiter(clock);
    rl.hit(W, "cancel"); // t=0
    clock.advanceMs(600);
    rl.hit(W, "cancel"); // t=600
    clock.advanceMs(399); // t=999: both still inside (t-1000, t]
    const e = caught(() => rl.hit(W, "cancel"));
    expect(e.extra.retry_after_ms).toBe(1);
    clock.advanceMs(1); // t=1000: the first left
    expect(() => rl.hit(W, "cancel")).not.toThrow();
    expect(caught(() => rl.hit(W, "cancel")).status).toBe(429); // t=1000: 600 and 1000 inside
  });

  it("a burst across a second boundary cannot double the rate (not a fixed window)", () => {
    const clock = new VirtualClock();
    const rl = new RateLimiter(clock);
    clock.advanceMs(900);
    for (let i = 0; i < 5; i++) rl.hit(W, "trade");
    clock.advanceMs(200); // next calendar second
    expect(caught(() => rl.hit(W, "trade")).status).toBe(429);
  });

  it("rejected requests are not counted", () => {
    const clock = new VirtualClock();
    const rl = new RateLimiter(clock);
    rl.hit(W, "cancel");
    rl.hit(W, "cancel");
    for (let i = 0; i < 5; i++) expect(() => rl.hit(W, "cancel")).toThrow(ExchangeError);
    clock.advanceMs(1000);
    expect(rl.remaining(W, "cancel")).toBe(2);
  });

  it("can be switched off for load tests and back on", () => {
    const rl = new RateLimiter(new VirtualClock());
    rl.setEnabled(false);
    expect(rl.isEnabled()).toBe(false);
    for (let i = 0; i < 1000; i++) rl.hit(W, "cancel");
    expect(rl.remaining(W, "cancel")).toBe(Number.POSITIVE_INFINITY);
    rl.setEnabled(true);
    rl.hit(W, "cancel");
    rl.hit(W, "cancel");
    expect(caught(() => rl.hit(W, "cancel")).status).toBe(429);
  });

  it("is configurable, validating the values", () => {
    const rl = new RateLimiter(new VirtualClock(), { trade: 1 });
    rl.hit(W, "trade");
    expect(caught(() => rl.hit(W, "trade")).status).toBe(429);
    rl.configure({ trade: 3 });
    expect(rl.config()).toEqual({ read: 10, trade: 3, cancel: 2, transfer: 2 });
    expect(() => rl.hit(W, "trade")).not.toThrow();
    expect(() => rl.configure({ read: 0 })).toThrow(RangeError);
    expect(() => new RateLimiter(new VirtualClock(), { cancel: 1.5 })).toThrow(RangeError);
  });

  it("snapshot/restore round-trips windows, limits and the switch; reset clears counts", () => {
    const clock = new VirtualClock();
    const rl = new RateLimiter(clock);
    rl.hit(W, "cancel");
    const snap = rl.snapshot();
    expect(snap).toEqual({ enabled: true, limits: DEFAULT_RATE_LIMITS, windows: [[`${W.toLowerCase()}|cancel`, [clock.nowMs()]]] });
    rl.hit(W, "cancel");
    rl.configure({ cancel: 1 });
    rl.setEnabled(false);
    rl.restore(snap);
    expect(rl.isEnabled()).toBe(true);
    expect(rl.remaining(W, "cancel")).toBe(1);
    rl.reset();
    expect(rl.remaining(W, "cancel")).toBe(2);
    // entries that aged out are not part of a snapshot
    rl.hit(W, "read");
    clock.advanceMs(1000);
    expect(rl.snapshot().windows).toEqual([]);
  });
});
