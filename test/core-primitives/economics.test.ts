// The per-match money rules, worked by hand: the maker's need is mulDiv rounded up,
// each side pays its own order's fee on what it receives, and a positive spread is
// split by the given shares (limit orders 25/25/50, the Router's legs all to the maker).
import { describe, expect, it } from "vitest";
import { matchMoves, maxGiveFor, minReceive } from "../../sim/core/economics.ts";

describe("match economics", () => {
  it("minReceive rounds up, maxGiveFor rounds down", () => {
    const rate = { fromAmount: 3n, toAmount: 10n, feeBps: 0 };
    expect(minReceive(rate, 1n)).toBe(4n); // ⌈10 / 3⌉
    expect(minReceive(rate, 3n)).toBe(10n); // exact
    expect(minReceive(rate, 0n)).toBe(0n);
    expect(maxGiveFor(rate, 4n)).toBe(1n); // ⌊4 · 3 / 10⌋
  });

  it("each side pays its own order's fee on what it receives", () => {
    // The maker sells 100 base for 200 quote; the taker gives exactly the maker's need.
    const maker = { fromAmount: 100n, toAmount: 200n, feeBps: 10 };
    const taker = { fromAmount: 200n, toAmount: 100n, feeBps: 30 };
    const m = matchMoves(maker, taker, 50_000n, 100_000n);
    expect([m.makerNeed, m.spread]).toEqual([100_000n, 0n]);
    expect([m.makerGross, m.makerFee, m.makerCredit]).toEqual([100_000n, 100n, 99_900n]); // 0.1 %
    expect([m.takerGross, m.takerFee, m.takerCredit]).toEqual([50_000n, 150n, 49_850n]); // 0.3 %
    expect([m.makerDebit, m.takerDebit]).toEqual([50_000n, 100_000n]);
  });

  it("a positive spread is split by the shares: 25/25/50 for limit orders, all to the maker on a Router leg", () => {
    const maker = { fromAmount: 100n, toAmount: 200n, feeBps: 0 };
    const taker = { fromAmount: 300n, toAmount: 100n, feeBps: 0 };
    // The maker needs 100 000 for its 50 000; the taker gives 101 000: a spread of 1 000.
    const limit = matchMoves(maker, taker, 50_000n, 101_000n);
    expect([limit.spread, limit.makerSpread, limit.takerRefund, limit.protocolSpread]).toEqual([1000n, 250n, 250n, 500n]);
    expect([limit.makerGross, limit.takerDebit]).toEqual([100_250n, 100_750n]);
    const router = matchMoves(maker, taker, 50_000n, 101_000n, { makerBps: 10_000, takerBps: 0 });
    expect([router.makerSpread, router.takerRefund, router.protocolSpread]).toEqual([1000n, 0n, 0n]);
    expect([router.makerGross, router.takerDebit]).toEqual([101_000n, 101_000n]);
    // Uneven shares round down for the maker and the taker; the protocol keeps the rest.
    const odd = matchMoves(maker, taker, 50_000n, 100_007n, { makerBps: 3000, takerBps: 1000 });
    expect([odd.makerSpread, odd.takerRefund, odd.protocolSpread]).toEqual([2n, 0n, 5n]);
  });
});
