import { describe, expect, it } from "vitest";
import { formatUnits } from "../../sim/core/amounts.ts";
import { swapMarket, swapOrderTerms } from "../../sim/core/swap-orders.ts";
import { MAKER2, TAKER, quoteBody, rest, setVault, setupDesk, token, validSwap } from "./helpers.ts";

describe("swap order terms", () => {
  it("a direct swap shows under its market, spending the quote as a bid, freezing only what the deposit does not bring", async () => {
    const env = setupDesk();
    rest(env, "EURC/USDC", "ask", "10", "1.08");
    setVault(env, TAKER, "USDC", 5_000000n);
    const q = await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n));
    const t = swapOrderTerms(env.desk.accept(validSwap(q)), env.registry);
    expect(t.market.symbol).toBe("EURC/USDC");
    expect(t.side).toBe("bid");
    expect([t.fromToken, t.toToken]).toEqual([token(env, "USDC").address, token(env, "EURC").address]);
    expect([t.fromAmount, t.toAmount]).toEqual([5_400000n, 4_768518n]);
    expect(formatUnits(t.priceTicks, t.market.tickPrecision)).toBe("1.08");
    expect(formatUnits(t.amountLots, t.market.quantityPrecision)).toBe("5");
    expect([t.deposit, t.freeze]).toEqual([400000n, 5_000000n]);
    expect(t.uuidInt.toString()).toBe(q.route_params.uuid);
    expect(t.tradeId).toBe(env.desk.quoteRecord(q.uuid)!.tradeId);
  });

  it("pay_more: the gas the Router charges in the input token is frozen on top of the route's input", async () => {
    const env = setupDesk();
    rest(env, "EURC/USDC", "ask", "10", "1.08");
    setVault(env, TAKER, "USDC", 10_000000n);
    const q = await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n, { gas_mode: "pay_more" }));
    const t = swapOrderTerms(env.desk.accept(validSwap(q)), env.registry);
    expect(t.gas).toEqual({ token: token(env, "USDC").address, amount: 250000n });
    // Equity covers it all: no deposit, 5.40 USDC of route plus 0.25 USDC of gas frozen.
    expect([t.deposit, t.freeze]).toEqual([0n, 5_650000n]);
  });

  it("a pair whose direct market is inactive shows under the display pair, as a pair with no market does", () => {
    const env = setupDesk();
    const [eurc, jpys] = [token(env, "EURC"), token(env, "JPYS")];
    expect(env.registry.market(eurc.address, jpys.address)?.active).toBe(false);
    const m = swapMarket(env.registry, eurc.address, jpys.address);
    const [base, quote] = eurc.address < jpys.address ? [eurc, jpys] : [jpys, eurc];
    expect([m.symbol, m.active]).toEqual([`${base.symbol}/${quote.symbol}`, true]);
    expect([m.quantityPrecision, m.tickPrecision]).toEqual([base.decimals, Math.max(quote.decimals, 8)]);
    expect([m.minAskAmountRaw, m.minBidQuoteAmountRaw]).toEqual([0n, 0n]);
  });

  it("a two-hop swap shows under the canonical display pair of its two tokens", async () => {
    const env = setupDesk();
    rest(env, "USDT/USDC", "bid", "100", "0.9999");
    rest(env, "EURC/USDC", "ask", "100", "1.08", { owner: MAKER2 });
    setVault(env, TAKER, "USDT", 100_000000n);
    const q = await env.desk.quote(quoteBody(env, "USDT", "EURC", 50_000000n));
    const t = swapOrderTerms(env.desk.accept(validSwap(q)), env.registry);
    expect(t.market.symbol).toBe("EURC/USDT");
    expect(t.side).toBe("bid");
    expect(formatUnits(t.amountLots, t.market.quantityPrecision)).toBe("46.29");
    // 50 / 46.29 = 1.0801468999..., floored to 8 places
    expect(formatUnits(t.priceTicks, t.market.tickPrecision)).toBe("1.08014689");
    expect([t.deposit, t.freeze]).toEqual([0n, 50_000000n]);
  });
});
