import { describe, expect, it } from "vitest";
import { minReceive } from "../../sim/core/economics.ts";
import { bookLiquidity, findRoute, hasPath, intermediates, type Route, type RouteRequest } from "../../sim/core/routing.ts";
import { intentLegs, simulateIntent, NO_GAS } from "../../sim/core/swap-intent.ts";
import type { Address } from "../../sim/core/typed-data.ts";
import { MAKER2, TAKER, caught, rest, setupDesk, token, type DeskEnv } from "./helpers.ts";

function req(env: DeskEnv, from: string, to: string, amountIn: bigint): RouteRequest {
  return { inputToken: token(env, from).address, outputToken: token(env, to).address, amountIn, taker: TAKER.toLowerCase(), nowSec: env.clock.nowSec() };
}
const route = (env: DeskEnv, r: RouteRequest) => findRoute(env.registry, bookLiquidity(env.books), r);

/**
 * What Router.executeIntent (the memory chain's simulateIntent) makes of a route's legs
 * with no gas, bounds or deposit in the way and every vault funded: its input and output,
 * or its revert reason.
 */
function routerTotals(env: DeskEnv, r: Route, inputToken = r.inputToken, outputToken = r.outputToken): { input: bigint; output: bigint } {
  const fx = simulateIntent(
    {
      intent: {
        taker: TAKER.toLowerCase() as Address,
        inputToken: inputToken as Address,
        outputToken: outputToken as Address,
        maxInputAmount: 2n ** 255n,
        minOutputAmount: 0n,
        recipient: "0x0000000000000000000000000000000000000000",
        initialDepositAmount: 0n,
        uuid: 1n,
        deadline: BigInt(env.clock.nowSec() + 60),
      },
      takerSignature: "0x",
      legs: intentLegs(r),
      permit: null,
      gas: NO_GAS,
    },
    {
      nowSec: BigInt(env.clock.nowSec()),
      vault: () => 2n ** 200n,
      wallet: () => 0n,
      filled: () => 0n,
      intentUsed: () => false,
      whitelisted: () => true,
      feeRecipient: "0x000000000000000000000000000000000000fee1",
      maxFeeBps: 1000n,
    },
  );
  return { input: fx.input, output: fx.output };
}

describe("routing: direct market", () => {
  it("input as quote walks the asks best price first, in whole lots, leaving dust below one lot", () => {
    const env = setupDesk();
    const worse = rest(env, "EURC/USDC", "ask", "10", "1.09", { owner: MAKER2 });
    const better = rest(env, "EURC/USDC", "ask", "10", "1.08");
    const r = route(env, req(env, "USDC", "EURC", 15_000000n))!;
    expect(r.kind).toBe("direct");
    expect(r.legs.map((l) => [l.maker.id, l.lots, l.makerAmount, l.takerAmount])).toEqual([
      [better.id, 1000n, 10_000000n, 10_800000n],
      [worse.id, 385n, 3_850000n, 4_196500n],
    ]);
    expect(r.output).toBe(13_850000n);
    expect(r.input).toBe(14_996500n);
    expect(routerTotals(env, r)).toEqual({ input: r.input, output: r.output });
  });

  it("input as base walks the bids, highest first", () => {
    const env = setupDesk();
    rest(env, "EURC/USDC", "bid", "10", "1.06", { owner: MAKER2 });
    rest(env, "EURC/USDC", "bid", "10", "1.07");
    const r = route(env, req(env, "EURC", "USDC", 12_000000n))!;
    expect(r.legs.map((l) => [l.makerAmount, l.takerAmount])).toEqual([
      [10_700000n, 10_000000n],
      [2_120000n, 2_000000n],
    ]);
    expect(r.output).toBe(12_820000n);
    expect(r.input).toBe(12_000000n);
  });

  it("returns null when the book cannot absorb the amount, and when it is empty", () => {
    const env = setupDesk();
    expect(route(env, req(env, "USDC", "EURC", 5_000000n))).toBeNull();
    rest(env, "EURC/USDC", "ask", "20", "1.08");
    expect(route(env, req(env, "USDC", "EURC", 30_000000n))).toBeNull();
    expect(route(env, req(env, "USDC", "EURC", 21_600000n))!.output).toBe(20_000000n);
  });

  it("dust is what is left below one lot at the last price taken: one lot's worth or more is a shortage (input as quote)", () => {
    const env = setupDesk();
    // 20 EURC at 1.08 cost 21.6 USDC; one more lot (0.01 EURC) would cost 0.0108 USDC.
    rest(env, "EURC/USDC", "ask", "20", "1.08");
    const r = route(env, req(env, "USDC", "EURC", 21_600000n + 10_799n))!;
    expect([r.input, r.output]).toEqual([21_600000n, 20_000000n]);
    expect(route(env, req(env, "USDC", "EURC", 21_600000n + 10_800n))).toBeNull();
  });

  it("dust is what is left below one lot (input as base): one whole lot left over is a shortage", () => {
    const env = setupDesk();
    rest(env, "EURC/USDC", "bid", "10", "1.07");
    const r = route(env, req(env, "EURC", "USDC", 10_000000n + 9_999n))!;
    expect([r.input, r.output]).toEqual([10_000000n, 10_700000n]);
    expect(route(env, req(env, "EURC", "USDC", 10_000000n + 10_000n))).toBeNull();
  });

  it("does not take a bid whose lot is worth less than one raw unit of its quote token (a zero-amount leg)", () => {
    const env = setupDesk();
    // JPYS has 2 decimals: the whole bid is worth 0.01 JPYS, a lot of 0.01 USDC 0.00001 JPYS (floored to 0).
    rest(env, "USDC/JPYS", "bid", "10", "0.001");
    expect(route(env, req(env, "USDC", "JPYS", 10_000n))).toBeNull();
    const whole = route(env, req(env, "USDC", "JPYS", 10_000000n))!;
    expect(whole.legs.map((l) => [l.makerAmount, l.takerAmount])).toEqual([[1n, 10_000000n]]);
  });

  it("skips expired makers", () => {
    const env = setupDesk();
    rest(env, "EURC/USDC", "ask", "10", "1.05", { expiration: env.clock.nowSec() + 10 });
    const live = rest(env, "EURC/USDC", "ask", "10", "1.08");
    env.clock.advanceSec(10);
    const r = route(env, req(env, "USDC", "EURC", 5_400000n))!;
    expect(r.legs.map((l) => l.maker.id)).toEqual([live.id]);
  });

  it("the taker's own resting order blocks the route with STP_BLOCKED 409", async () => {
    const env = setupDesk();
    rest(env, "EURC/USDC", "ask", "10", "1.08", { owner: TAKER });
    const e = await caught(() => route(env, req(env, "USDC", "EURC", 5_000000n)));
    expect([e.status, e.code]).toEqual([409, "STP_BLOCKED"]);
  });
});

describe("routing: two hops", () => {
  it("goes through the common token when no direct market exists, netting the intermediate to zero", () => {
    const env = setupDesk();
    rest(env, "USDT/USDC", "bid", "100", "0.9999");
    rest(env, "EURC/USDC", "ask", "100", "1.08", { owner: MAKER2 });
    const r = route(env, req(env, "USDT", "EURC", 50_000000n))!;
    expect(r.kind).toBe("two_hop");
    expect(r.intermediate).toBe(token(env, "USDC").address);
    expect(r.legs.map((l) => [l.hop, l.makerAmount, l.takerAmount])).toEqual([
      [0, 49_995000n, 50_000000n],
      // 4629 lots cost 49_993_200; the 1_800 USDC below one lot is paid on top.
      [1, 46_290000n, 49_995000n],
    ]);
    expect(r.input).toBe(50_000000n);
    expect(r.output).toBe(46_290000n);
    expect(routerTotals(env, r)).toEqual({ input: 50_000000n, output: 46_290000n });
    for (const l of r.legs) expect(l.takerAmount >= minReceive(l.maker, l.makerAmount)).toBe(true);
  });

  it("is null when the second hop cannot absorb the intermediate", () => {
    const env = setupDesk();
    rest(env, "USDT/USDC", "bid", "100", "0.9999");
    rest(env, "EURC/USDC", "ask", "10", "1.08", { owner: MAKER2 });
    expect(route(env, req(env, "USDT", "EURC", 50_000000n))).toBeNull();
  });

  it("two intermediates with the same output: the lower intermediate address is taken", () => {
    const usd = (symbol: string) => ({ symbol, currency: "USD", decimals: 6, min_trade_amount_raw: "1000000", permit: false });
    const market = (base: string, quote: string) => ({ base, quote, tick_precision: 4, quantity_precision: 2, min_ask_amount_raw: "1000000", min_bid_quote_amount_raw: "1000000" });
    const env = setupDesk({}, { tokens: ["AAA", "BBB", "XXX", "YYY"].map(usd), markets: [market("AAA", "XXX"), market("BBB", "XXX"), market("AAA", "YYY"), market("BBB", "YYY")], fee_bps: 0 });
    // The same books through either: sell AAA for the intermediate at 1, buy BBB with it at 1.
    for (const x of ["XXX", "YYY"]) {
      rest(env, `AAA/${x}`, "bid", "100", "1");
      rest(env, `BBB/${x}`, "ask", "100", "1", { owner: MAKER2 });
    }
    const [lower, higher] = [token(env, "XXX").address, token(env, "YYY").address].sort();
    expect(intermediates(env.registry, token(env, "AAA").address, token(env, "BBB").address)).toEqual([lower, higher]);
    const r = route(env, req(env, "AAA", "BBB", 10_000000n))!;
    expect(r.output).toBe(10_000000n);
    expect(r.intermediate).toBe(lower);
  });

  it("treats an inactive direct market as absent", () => {
    const env = setupDesk();
    expect(intermediates(env.registry, token(env, "EURC").address, token(env, "JPYS").address)).toEqual([token(env, "USDC").address]);
    rest(env, "EURC/USDC", "bid", "100", "1.07");
    rest(env, "USDC/JPYS", "bid", "200", "152.1", { owner: MAKER2 });
    const r = route(env, req(env, "EURC", "JPYS", 10_000000n))!;
    expect(r.kind).toBe("two_hop");
    expect(r.legs.every((l) => l.takerAmount >= minReceive(l.maker, l.makerAmount))).toBe(true);
    expect(routerTotals(env, r).output).toBe(r.output);
  });

  it("hasPath is false for a token with no market", () => {
    const env = setupDesk({}, {
      tokens: [
        { symbol: "AAA", currency: "USD", decimals: 6, min_trade_amount_raw: "0" },
        { symbol: "BBB", currency: "USD", decimals: 6, min_trade_amount_raw: "0" },
        { symbol: "CCC", currency: "USD", decimals: 6, min_trade_amount_raw: "0" },
      ],
      markets: [{ base: "AAA", quote: "BBB", tick_precision: 4, quantity_precision: 2, min_ask_amount_raw: "0", min_bid_quote_amount_raw: "0" }],
    });
    expect(hasPath(env.registry, token(env, "AAA").address, token(env, "CCC").address)).toBe(false);
    expect(hasPath(env.registry, token(env, "AAA").address, token(env, "BBB").address)).toBe(true);
  });

  it("the Router's rules refuse legs the route finder would never make", () => {
    const env = setupDesk();
    rest(env, "EURC/USDC", "ask", "10", "1.08");
    const r = route(env, req(env, "USDC", "EURC", 5_400000n))!;
    const short = { ...r, legs: [{ ...r.legs[0]!, takerAmount: r.legs[0]!.takerAmount - 1n }] };
    expect(() => routerTotals(env, short)).toThrow("PRICE_MISMATCH");
    expect(() => routerTotals(env, r, r.outputToken, token(env, "JPYS").address)).toThrow("BAD_ROUTE");
  });
});
