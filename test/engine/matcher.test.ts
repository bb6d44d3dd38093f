// planMatches on its own: the fill amounts and the stop decision on a coarse
// market (quote decimals too few for exact products) against the signed-rate
// rules written out with minReceive / maxGiveFor, and the bigint sharing that
// keeps fill records small.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BookSide } from "../../sim/core/book.ts";
import { maxGiveFor, minReceive } from "../../sim/core/economics.ts";
import { ExchangeError } from "../../sim/core/errors.ts";
import { instantAt } from "../../sim/core/instant.ts";
import { planMatches, type MarketUnits } from "../../sim/core/matcher.ts";
import { newOrderRecord, type OrderRecord } from "../../sim/core/orders.ts";
import type { MarketInfo } from "../../sim/core/registry.ts";

const MARKET = { symbol: "T/Q" } as MarketInfo;
const BASE_UNIT = 10_000n; // raw base per lot
const COARSE: MarketUnits = { baseUnit: BASE_UNIT, quoteUnit: null };
const NOW_SEC = 1_000;

/** A signed limit order: base = lots × BASE_UNIT, quote floored from an arbitrary rate (coarse decimals). */
function order(id: string, owner: string, side: "bid" | "ask", ticks: bigint, lots: bigint, quoteRaw: bigint): OrderRecord {
  const base = lots * BASE_UNIT;
  const [fromAmount, toAmount] = side === "ask" ? [base, quoteRaw] : [quoteRaw, base];
  return newOrderRecord(id, owner, 1, MARKET, side, ticks, lots, "from", "to", fromAmount, toAmount, 1n, NOW_SEC + 60, 0, null, null, "limit", instantAt(0), fromAmount);
}

/** The rules as the engine stated them before the cross-multiplied form. */
function reference(taker: OrderRecord, makers: OrderRecord[]): { lots: bigint; baseRaw: bigint; quoteRaw: bigint }[] {
  const out: { lots: bigint; baseRaw: bigint; quoteRaw: bigint }[] = [];
  let left = taker.remainingLots;
  for (const maker of makers) {
    if (left === 0n) break;
    const lots = left < maker.remainingLots ? left : maker.remainingLots;
    const baseRaw = lots * BASE_UNIT;
    const isBid = taker.side === "bid";
    const quoteRaw = isBid ? minReceive(maker, baseRaw) : maxGiveFor(maker, baseRaw);
    const ok = isBid ? quoteRaw > 0n && quoteRaw <= maxGiveFor(taker, baseRaw) : quoteRaw > 0n && quoteRaw >= minReceive(taker, baseRaw);
    if (!ok) break;
    out.push({ lots, baseRaw, quoteRaw });
    left -= lots;
  }
  return out;
}

const amount = fc.bigInt({ min: 1n, max: 10n ** 12n });
const lots = fc.bigInt({ min: 1n, max: 5_000n });

describe("planMatches on a coarse market", () => {
  it("agrees with minReceive / maxGiveFor on every fill amount and on where the walk stops", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("bid" as const, "ask" as const),
        lots,
        amount,
        fc.array(fc.tuple(lots, amount), { minLength: 1, maxLength: 6 }),
        (takerSide, takerLots, takerQuote, makerSpecs) => {
          const makerSide = takerSide === "bid" ? "ask" : "bid";
          // One price level, so the walk order is the FIFO order and every maker is reachable.
          const side = new BookSide(makerSide === "bid");
          const makers = makerSpecs.map(([l, q], i) => order(`m${i}`, "maker", makerSide, 100n, l, q));
          for (const m of makers) side.add(m);
          const taker = order("t", "taker", takerSide, 100n, takerLots, takerQuote);
          const plan = planMatches(side, COARSE, taker, NOW_SEC).plan;
          expect(plan.map((p) => ({ lots: p.lots, baseRaw: p.baseRaw, quoteRaw: p.quoteRaw }))).toEqual(reference(taker, makers));
          plan.forEach((p, i) => expect(p.maker).toBe(makers[i]));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("a fill of a maker's whole signed size takes the maker's own bigints; a partial one computes them", () => {
    const side = new BookSide(false);
    const whole = order("m0", "maker", "ask", 100n, 7n, 77_777n);
    const part = order("m1", "maker", "ask", 100n, 10n, 99_999n);
    side.add(whole);
    side.add(part);
    // The taker's limit leaves room for both makers' rates (1 quote raw per 900 base raw at most is asked).
    const taker = order("t", "taker", "bid", 100n, 12n, 10n ** 9n);
    const [f0, f1] = planMatches(side, COARSE, taker, NOW_SEC).plan;
    expect(f0!.baseRaw).toBe(whole.fromAmount);
    expect(f0!.quoteRaw).toBe(whole.toAmount);
    expect(f1!.lots).toBe(5n);
    expect(f1!.baseRaw).toBe(50_000n);
    expect(f1!.quoteRaw).toBe(minReceive(part, 50_000n)); // ⌈50 000 · 99 999 / 100 000⌉ = 50 000
  });

  it("the taker's own resting order inside its reach is STP_BLOCKED (409), and nothing is planned", () => {
    const side = new BookSide(false);
    side.add(order("m0", "maker", "ask", 100n, 5n, 50_000n));
    side.add(order("m1", "taker", "ask", 100n, 5n, 50_000n));
    const taker = order("t", "taker", "bid", 100n, 8n, 10n ** 9n);
    try {
      planMatches(side, COARSE, taker, NOW_SEC);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ExchangeError);
      expect([(e as ExchangeError).status, (e as ExchangeError).code]).toEqual([409, "STP_BLOCKED"]);
    }
  });
});
