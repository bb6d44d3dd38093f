import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ExchangeError } from "../../sim/core/errors.ts";
import { formatUnits } from "../../sim/core/amounts.ts";
import { validateOrderFields } from "../../sim/core/preview.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry, type MarketInfo } from "../../sim/core/registry.ts";
import { checkDistinctMarkets, floorLots, maxLotsWithin, needForLots } from "../../sim/core/vl.ts";
import { ALICE, BOB, EXECUTOR_ID, body, fund, setup, vlBodies, type Env } from "./helpers.ts";

function err(fn: () => unknown): ExchangeError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ExchangeError) return e;
    throw e;
  }
  throw new Error("expected an ExchangeError");
}

/** Alice spends USDC: bids on EURC/USDC, GBPT/USDC, XCHF/USDC (all quote USDC). */
function legs(env: Env, amounts: string[] = ["10", "10", "10"]) {
  const symbols = ["EURC/USDC", "GBPT/USDC", "XCHF/USDC"];
  return vlBodies(
    env,
    amounts.map((amount, i) => ({ owner: ALICE, side: "bid" as const, amount, price: "1", symbol: symbols[i]! })),
  );
}

function make(usdc: bigint, over: Parameters<typeof setup>[0] = {}) {
  const env = setup(over);
  fund(env, ALICE, "USDC", usdc);
  fund(env, BOB, "EURC", 1_000_000000n);
  return env;
}

describe("VL batches", () => {
  it("places every leg when the budget covers them; ids in submission order; vl_group summary", () => {
    const env = make(100_000000n);
    const bodies = legs(env);
    const r = env.engine.placeVlBatch(bodies);
    expect(r.order_ids).toEqual(bodies.map((b) => b.order_id));
    expect(r).toMatchObject({ amendments: [], cancelled: [], fills: [] });
    expect(r.vl_group).toEqual({ primary_id: bodies[0]!.order_id, max_budget: "100", budget_consumed: "30", spent_token: "USDC" });
    for (const id of r.order_ids) {
      const o = env.engine.getOrder(id);
      expect(o.vl_batch_id).toBe(bodies[0]!.order_id);
      expect(o.status).toBe("pending");
    }
  });

  it("a budget that exactly covers the legs reports no amendment: the last leg fits with nothing left", () => {
    const env = make(30_000000n);
    const bodies = legs(env);
    const r = env.engine.placeVlBatch(bodies);
    expect(r).toMatchObject({ amendments: [], cancelled: [], fills: [] });
    expect(r.vl_group).toEqual({ primary_id: bodies[0]!.order_id, max_budget: "30", budget_consumed: "30", spent_token: "USDC" });
    for (const id of r.order_ids) {
      const o = env.engine.getOrder(id);
      expect([o.status, o.amount, o.remaining_amount]).toEqual(["pending", "10", "10"]);
    }
    const usdc = env.engine.ledger.peek(ALICE.toLowerCase(), env.engine.getOrder(bodies[2]!.order_id as string).from_token);
    expect([usdc.available, usdc.frozen]).toEqual([0n, 30_000000n]);
  });

  it("budget_clip: the leg that no longer fits is clipped to what is left", () => {
    const env = make(25_000000n);
    const bodies = legs(env);
    const r = env.engine.placeVlBatch(bodies);
    expect(r.amendments).toEqual([{ order_id: bodies[2]!.order_id, original_amount: "10", actual_amount: "5", reason: "budget_clip" }]);
    expect(r.cancelled).toEqual([]);
    expect(r.vl_group).toMatchObject({ max_budget: "25", budget_consumed: "25" });
    const clipped = env.engine.getOrder(bodies[2]!.order_id as string);
    expect([clipped.amount, clipped.remaining_amount]).toEqual(["5", "5"]);
    // The signed amounts do not change; only the working size does.
    expect(clipped.from_amount).toBe("10000000");
    const usdc = env.engine.ledger.peek(ALICE.toLowerCase(), clipped.from_token);
    expect([usdc.available, usdc.frozen]).toEqual([0n, 25_000000n]);
  });

  it("quota_exceeded: legs after the budget is gone (or clipped below the floor) are cancelled", () => {
    const env = make(23_000000n);
    const bodies = legs(env);
    const r = env.engine.placeVlBatch(bodies);
    expect(r.amendments).toEqual([]);
    expect(r.cancelled).toEqual([{ order_id: bodies[2]!.order_id, reason: "quota_exceeded" }]);
    expect(r.order_ids).toHaveLength(3);
    expect(env.engine.getOrder(bodies[2]!.order_id as string).status).toBe("cancelled");
    expect(r.vl_group.budget_consumed).toBe("20");
  });

  it("immediate fills are reported as success with trades and remaining", () => {
    const env = make(100_000000n);
    const ask = env.engine.placeOrder(body(env, { owner: BOB, side: "ask", amount: "6", price: "0.9" })).orderId;
    const bodies = legs(env);
    const r = env.engine.placeVlBatch(bodies);
    expect(r.fills).toHaveLength(1);
    expect(r.fills[0]).toMatchObject({ order_id: bodies[0]!.order_id, remaining: "4" });
    expect(r.fills[0]!.trades).toEqual([{ quantity: "6", price: "0.9", counterparty_order_id: ask, ts: env.clock.iso() }]);
  });

  it("no budget at all → 400 INSUFFICIENT_EQUITY and nothing changes", () => {
    const env = make(1n);
    const hash = env.engine.eventHash();
    const e = err(() => env.engine.placeVlBatch(legs(env)));
    expect([e.status, e.code]).toEqual([400, "INSUFFICIENT_EQUITY"]);
    expect(env.engine.eventHash()).toBe(hash);
    expect(env.engine.listOrders(ALICE)).toEqual([]);
  });

  it("rejects batch-shape violations with 400 VALIDATION, leaving no trace", () => {
    const env = make(100_000000n, { vlBatch: { min: 2, max: 3 } });
    const hash = env.engine.eventHash();
    const check = (bodies: unknown, code = "VALIDATION", status = 400) => {
      const e = err(() => env.engine.placeVlBatch(bodies as never));
      expect([e.status, e.code]).toEqual([status, code]);
      expect(env.engine.eventHash()).toBe(hash);
    };
    check(legs(env, ["10"])); // too few
    check(legs(env, ["10", "10", "10", "10"].slice(0, 3)).concat(legs(env, ["10"]))); // too many (4 > 3)
    // two owners
    const twoOwners = legs(env, ["10", "10"]);
    twoOwners[1] = { ...twoOwners[1]!, owner_address: BOB };
    check(twoOwners);
    // different spent token: an ask on EURC/USDC spends EURC
    const mixed = vlBodies(env, [
      { owner: ALICE, side: "bid", amount: "10", price: "1", symbol: "EURC/USDC" },
      { owner: ALICE, side: "ask", amount: "10", price: "1", symbol: "GBPT/USDC" },
    ]);
    check(mixed);
    // duplicate market
    check(vlBodies(env, [
      { owner: ALICE, side: "bid", amount: "10", price: "1", symbol: "EURC/USDC" },
      { owner: ALICE, side: "bid", amount: "10", price: "1.1", symbol: "EURC/USDC" },
    ]));
    // leg ids out of order: swap two legs' uuid_int
    const swapped = legs(env, ["10", "10"]);
    const [u0, u1] = [swapped[0]!.uuid_int, swapped[1]!.uuid_int];
    swapped[0] = { ...swapped[0]!, uuid_int: u1 };
    swapped[1] = { ...swapped[1]!, uuid_int: u0 };
    check(swapped, "UUID_INT_MISMATCH");
    // a standalone id (own group) on leg 1
    const ownGroup = legs(env, ["10", "10"]);
    ownGroup[1] = { ...ownGroup[1]!, uuid_int: body(env, { owner: ALICE, side: "bid", amount: "10", price: "1", orderId: ownGroup[1]!.order_id as string }).uuid_int };
    check(ownGroup, "UUID_INT_MISMATCH");
    // a leg's own field error surfaces with the POST /orders code
    const badPrice = legs(env, ["10", "10"]);
    badPrice[1] = { ...badPrice[1]!, price: "1.0000001" };
    check(badPrice, "INVALID_PRECISION");
    // Exactly the bounds: max (3) legs and min (2) legs are accepted.
    expect(env.engine.placeVlBatch(legs(env)).order_ids).toHaveLength(3);
    expect(env.engine.placeVlBatch(legs(env, ["10", "10"])).order_ids).toHaveLength(2);
  });

  it("a clipped leg gets the largest lot count whose need fits what is left, on any decimals (coarse quote tokens too)", () => {
    const grid = fc
      .record({ baseDecimals: fc.integer({ min: 0, max: 18 }), quoteDecimals: fc.integer({ min: 0, max: 18 }), quantityPrecision: fc.integer({ min: 0, max: 8 }), tickPrecision: fc.integer({ min: 0, max: 8 }) })
      .filter((m) => m.quantityPrecision <= m.baseDecimals);
    fc.assert(
      fc.property(grid, fc.constantFrom("bid" as const, "ask" as const), fc.bigInt({ min: 1n, max: 10n ** 9n }), fc.bigInt({ min: 1n, max: 10n ** 24n }), (m, side, ticks, budget) => {
        const market = m as unknown as MarketInfo;
        const lots = maxLotsWithin(market, side, ticks, budget);
        expect(lots >= 0n).toBe(true);
        if (lots > 0n) expect(needForLots(market, side, lots, ticks) <= budget).toBe(true);
        expect(needForLots(market, side, lots + 1n, ticks) > budget).toBe(true);
        expect(maxLotsWithin(market, side, ticks, 0n)).toBe(0n); // no budget, no lots (even where a lot's floored need is 0)
      }),
      { numRuns: 2000 },
    );
    // A worked coarse case: a 2-decimal quote token on a grid of 4 + 4 decimals; a lot at
    // price 1.5 needs 0.015 raw units before the floor: with 1 unit left, 133 lots need
    // 1.995 → 1 and 134 need 2.01 → 2.
    const coarse = { baseDecimals: 18, quoteDecimals: 2, quantityPrecision: 4, tickPrecision: 4 } as unknown as MarketInfo;
    expect(maxLotsWithin(coarse, "bid", 15_000n, 0n)).toBe(0n);
    expect(maxLotsWithin(coarse, "bid", 15_000n, 1n)).toBe(133n);
    expect(needForLots(coarse, "bid", 133n, 15_000n)).toBe(1n);
    expect(needForLots(coarse, "bid", 134n, 15_000n)).toBe(2n);
  });

  it("floorLots is the smallest lot count the shared validator accepts at a price, on every market and side (off-grid floors too)", () => {
    // Default markets, plus floors that are not whole lots: EURC/USDC asks at 5.000001 EURC, bids at 5.000001 USDC.
    const custom = new Registry({
      ...DEFAULT_REGISTRY_CONFIG,
      markets: DEFAULT_REGISTRY_CONFIG.markets.map((mk) => (mk.base === "EURC" && mk.quote === "USDC" ? { ...mk, min_ask_amount_raw: "5000001", min_bid_quote_amount_raw: "5000001" } : mk)),
    });
    const env = setup();
    let checked = 0;
    for (const registry of [env.registry, custom]) {
      const ctx = { registry, nowSec: env.clock.nowSec(), executorId: EXECUTOR_ID };
      const verdict = (mk: MarketInfo, side: "bid" | "ask", lots: bigint, ticks: bigint) => {
        const b = { ...body(env, { owner: ALICE, side, amount: "1", price: "1", symbol: mk.symbol }), amount: formatUnits(lots, mk.quantityPrecision), price: formatUnits(ticks, mk.tickPrecision) };
        try {
          validateOrderFields(b, ctx);
          return "OK";
        } catch (e) {
          return (e as ExchangeError).code;
        }
      };
      for (const mk of registry.markets().filter((x) => x.active)) {
        // A tiny price (where a quote leg of one raw unit can bind), price 1, and an uneven one.
        for (const ticks of [1n, 7n, 10n ** BigInt(mk.tickPrecision), 1_234_567n]) {
          for (const side of ["bid", "ask"] as const) {
            const lots = floorLots(mk, side, ticks);
            expect(verdict(mk, side, lots, ticks), `${mk.symbol} ${side} ${lots} lots at ${ticks} ticks`).toBe("OK");
            if (lots > 1n) expect(verdict(mk, side, lots - 1n, ticks), `${mk.symbol} ${side} ${lots - 1n} lots at ${ticks} ticks`).toBe("AMOUNT_BELOW_MIN");
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(40);
  });

  it("the duplicate / inverse market rule", () => {
    expect(() => checkDistinctMarkets([{ fromToken: "a", toToken: "b" }, { fromToken: "b", toToken: "a" }])).toThrow(/inverse market/);
    expect(() => checkDistinctMarkets([{ fromToken: "a", toToken: "b" }, { fromToken: "a", toToken: "b" }])).toThrow(/duplicates/);
    expect(() => checkDistinctMarkets([{ fromToken: "a", toToken: "b" }, { fromToken: "a", toToken: "c" }])).not.toThrow();
  });

  it("cancel of a whole batch: 429 inside any leg's cooldown (nothing changes), then every pending leg cancelled", () => {
    const env = make(100_000000n);
    const bodies = legs(env);
    env.engine.placeVlBatch(bodies);
    const id = bodies[0]!.order_id as string;
    const e = err(() => env.engine.cancelVlBatch({ owner: ALICE, vlBatchId: id }));
    expect([e.status, e.code]).toEqual([429, "CANCEL_COOLDOWN"]);
    expect(env.engine.listOrders(ALICE).every((o) => o.status === "pending")).toBe(true);
    env.clock.advanceSec(300);
    expect(env.engine.cancelVlBatch({ owner: ALICE, vlBatchId: id })).toEqual({ status: "ok" });
    expect(env.engine.listOrders(ALICE).map((o) => o.status)).toEqual(["cancelled", "cancelled", "cancelled"]);
    const usdc = env.engine.ledger.peek(ALICE.toLowerCase(), env.registry.tokenBySymbol("USDC")!.address);
    expect([usdc.available, usdc.frozen]).toEqual([100_000000n, 0n]);
    const e404 = err(() => env.engine.cancelVlBatch({ owner: ALICE, vlBatchId: "0b0b0b0b-0b0b-4b0b-8b0b-0b0b0b0b0b0b" }));
    expect([e404.status, e404.code]).toEqual([404, "NOT_FOUND"]);
    const e403 = err(() => env.engine.cancelVlBatch({ owner: BOB, vlBatchId: id }));
    expect([e403.status, e403.code]).toEqual([403, "FORBIDDEN"]);
  });

  it("cancel of a batch takes its id in any letter case, and answers ok with nothing left to cancel", () => {
    const env = make(100_000000n);
    const bodies = legs(env);
    env.engine.placeVlBatch(bodies);
    const id = bodies[0]!.order_id as string;
    env.clock.advanceSec(300);
    expect(env.engine.cancelVlBatch({ owner: ALICE, vlBatchId: id.toUpperCase() })).toEqual({ status: "ok" });
    expect(env.engine.listOrders(ALICE).map((o) => o.status)).toEqual(["cancelled", "cancelled", "cancelled"]);
    // Every leg is final now: a repeated cancel changes nothing and is not an error.
    const hash = env.engine.eventHash();
    expect(env.engine.cancelVlBatch({ owner: ALICE, vlBatchId: id })).toEqual({ status: "ok" });
    expect(env.engine.eventHash()).toBe(hash);
  });

  it("cancel of a batch with a leg already matched cancels the pending legs only; the matched leg keeps its funds for settlement", () => {
    const env = make(100_000000n);
    env.engine.placeOrder(body(env, { owner: BOB, side: "ask", amount: "10", price: "0.9" }));
    const bodies = legs(env);
    env.engine.placeVlBatch(bodies);
    const ids = bodies.map((b) => b.order_id as string);
    expect(env.engine.getOrder(ids[0]!).status).toBe("matched");
    env.clock.advanceSec(300);
    expect(env.engine.cancelVlBatch({ owner: ALICE, vlBatchId: ids[0]! })).toEqual({ status: "ok" });
    expect(ids.map((id) => env.engine.getOrder(id).status)).toEqual(["matched", "cancelled", "cancelled"]);
    // Leg 0 bought 10 EURC at the maker's 0.9: 9 USDC stay frozen until its fill settles.
    const usdc = env.engine.ledger.peek(ALICE.toLowerCase(), env.registry.tokenBySymbol("USDC")!.address);
    expect([usdc.available, usdc.frozen]).toEqual([91_000000n, 9_000000n]);
  });
});
