// BookSide keeps its levels in blocks (sim/core/book.ts): against a plain sorted model,
// for any order of prices (ladders that only ever add worse or better prices, and
// shuffles), enough levels to split blocks many times, and best() dropping exhausted
// levels at the best end, the side must read the same best-first: best(), depth(),
// levelAt(i) for every i, and levelCount.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BookSide } from "../../sim/core/book.ts";
import { instantAt } from "../../sim/core/instant.ts";
import { newOrderRecord, type OrderRecord } from "../../sim/core/orders.ts";
import type { MarketInfo } from "../../sim/core/registry.ts";

const MARKET = { symbol: "T/Q" } as MarketInfo;

function resting(i: number, side: "bid" | "ask", ticks: bigint): OrderRecord {
  return newOrderRecord(`o${i}`, "owner", i + 1, MARKET, side, ticks, 1n, "from", "to", 1n, 1n, 1n, 2_000_000_000, 0, null, null, "limit", instantAt(0), 1n);
}

/** The model: live orders by price, best first, FIFO within a price. */
function modelDepth(orders: OrderRecord[], isBid: boolean): { ticks: bigint; ids: string[] }[] {
  const byPrice = new Map<bigint, string[]>();
  for (const o of orders) if (o.inBook) byPrice.set(o.priceTicks, [...(byPrice.get(o.priceTicks) ?? []), o.id]);
  return [...byPrice.entries()].sort(([a], [b]) => (isBid ? (a > b ? -1 : 1) : a < b ? -1 : 1)).map(([ticks, ids]) => ({ ticks, ids }));
}

function read(side: BookSide): { ticks: bigint; ids: string[] }[] {
  return side.depth().map((l) => ({ ticks: l.ticks, ids: l.orders.map((o) => o.id) }));
}

const prices = fc.oneof(
  // A ladder of ever worse (or ever better) prices: every new level at one end.
  fc.tuple(fc.integer({ min: 1, max: 1_500 }), fc.boolean()).map(([n, up]) => Array.from({ length: n }, (_, i) => BigInt(up ? 1_000 + i : 10_000 - i))),
  // Any order, repeats included (several orders on one level).
  fc.array(fc.bigInt({ min: 1n, max: 3_000n }), { minLength: 1, maxLength: 1_500 }),
  // Hundreds of levels (blocks split), each price used again and again: orders land on
  // levels at block edges too.
  fc.array(fc.bigInt({ min: 1n, max: 700n }), { minLength: 600, maxLength: 2_500 }),
);

describe("BookSide in blocks", () => {
  it("reads like one sorted list after any inserts, and after best() drops exhausted best levels", () => {
    fc.assert(
      fc.property(fc.boolean(), prices, fc.integer({ min: 0, max: 600 }), (isBid, ticks, exhaust) => {
        const sideName = isBid ? "bid" : "ask";
        const side = new BookSide(isBid);
        const orders = ticks.map((t, i) => resting(i, sideName, t));
        for (const o of orders) side.add(o);
        const check = () => {
          const want = modelDepth(orders, isBid);
          // best() first: it drops the exhausted levels at the best end, as the matcher calls it.
          expect(side.best()?.ticks).toBe(want[0]?.ticks);
          expect(read(side)).toEqual(want);
          expect(side.levelCount).toBe(want.length);
          const walked: bigint[] = [];
          for (let i = 0; side.levelAt(i) !== undefined; i++) walked.push(side.levelAt(i)!.ticks);
          expect(walked).toEqual(want.map((w) => w.ticks));
        };
        check();
        // Take orders from the best end (as fills do), then ask for the best level again.
        const bestFirst = modelDepth(orders, isBid).flatMap((l) => l.ids);
        for (const id of bestFirst.slice(0, exhaust)) orders.find((o) => o.id === id)!.inBook = false;
        check();
      }),
      { numRuns: 60 },
    );
  });
});
