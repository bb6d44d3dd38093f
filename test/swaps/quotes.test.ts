import { describe, expect, it } from "vitest";
import { EXPIRATION_MAX_AHEAD_SEC } from "../../sim/core/expiration.ts";
import { rejectionCategoryOf } from "../../sim/core/quotes.ts";
import { ExchangeError } from "../../sim/core/errors.ts";
import { decodeUuidInt, groupIdOf, isUuid4 } from "../../sim/core/uuid-int.ts";
import { fixedUsdPrice } from "../../sim/core/swap-gas.ts";
import { CHAIN_ID, EXECUTOR, TAKER, VAULT, caught, validSwap, quoteBody, rest, setVault, setupDesk, token, type DeskEnv } from "./helpers.ts";

const RECIPIENT = "0xDdDd00000000000000000000000000000000dDdD";

function eurcBook(env: DeskEnv): void {
  rest(env, "EURC/USDC", "ask", "10", "1.08");
}

describe("POST /swap/quote: shape and gas modes", () => {
  it("returns every field of the spec's swap quote, numerics as decimal strings and deadline an integer", async () => {
    const env = setupDesk();
    eurcBook(env);
    const exp = env.clock.nowSec() + 3600;
    const q = await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n, { recipient: RECIPIENT, expiration: exp }));
    expect(Object.keys(q).sort()).toEqual(["expires_at", "fee_breakdown", "permit", "quote_breakdown", "route_params", "uuid"]);
    expect(isUuid4(q.uuid)).toBe(true);
    const usdc = token(env, "USDC").address;
    const eurc = token(env, "EURC").address;
    expect(q.route_params).toEqual({
      taker: TAKER.toLowerCase(),
      inputToken: usdc,
      outputToken: eurc,
      maxInputAmount: "5400000",
      minOutputAmount: "4768518",
      recipient: RECIPIENT.toLowerCase(),
      initialDepositAmount: "5400000",
      uuid: q.route_params.uuid,
      deadline: exp,
    });
    expect(q.fee_breakdown).toEqual({ gas_cost_usd: "0.25", gas_cost_from_token: "0.25" });
    expect(q.quote_breakdown).toEqual({
      gas_mode: "receive_less",
      input_token: usdc,
      output_token: eurc,
      input_amount_before_gas: "5400000",
      input_amount_after_gas: "5400000",
      output_amount_before_gas: "5000000",
      output_amount_after_gas: "4768518",
      gas_cost_input_token: "250000",
      // 0.25 USD at 1.08 USD per EURC, rounded up: 231481.48 → 231482
      gas_cost_output_token: "231482",
      gas_cost_usd: "0.25",
    });
    expect(q.expires_at).toBe(env.clock.nowSec() + 30);
  });

  it("route_params.uuid is a standalone composite id of the swap's trade id under the current executor", async () => {
    const env = setupDesk();
    eurcBook(env);
    const q = await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n));
    const rec = env.desk.quoteRecord(q.uuid)!;
    const d = decodeUuidInt(BigInt(q.route_params.uuid));
    expect(d.executorId).toBe(EXECUTOR);
    expect(d.orderId).toBe(rec.tradeId);
    expect(d.groupId).toBe(groupIdOf(rec.tradeId));
    expect(d.legId).toBe(0);
    expect(rec.tradeId).not.toBe(q.uuid);
  });

  it("receive_less: minOutputAmount equals output_amount_after_gas and the spend is kept", async () => {
    const env = setupDesk();
    eurcBook(env);
    const q = await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n, { gas_mode: "receive_less" }));
    const b = q.quote_breakdown!;
    expect(q.route_params.minOutputAmount).toBe(b.output_amount_after_gas);
    expect(q.route_params.maxInputAmount).toBe(b.input_amount_before_gas);
    expect(BigInt(b.output_amount_before_gas) - BigInt(b.gas_cost_output_token)).toBe(BigInt(b.output_amount_after_gas));
  });

  it("pay_more: maxInputAmount equals input_amount_after_gas and the output target is kept", async () => {
    const env = setupDesk();
    eurcBook(env);
    const q = await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n, { gas_mode: "pay_more" }));
    const b = q.quote_breakdown!;
    expect(b.gas_mode).toBe("pay_more");
    expect(q.route_params.maxInputAmount).toBe(b.input_amount_after_gas);
    expect(q.route_params.maxInputAmount).toBe("5650000");
    expect(q.route_params.minOutputAmount).toBe("5000000");
    expect(b.output_amount_after_gas).toBe(b.output_amount_before_gas);
  });

  it("a two-hop quote prices gas for every leg", async () => {
    const env = setupDesk();
    rest(env, "USDT/USDC", "bid", "100", "0.9999");
    rest(env, "EURC/USDC", "ask", "100", "1.08");
    setVault(env, TAKER, "USDT", 100_000000n);
    const q = await env.desk.quote(quoteBody(env, "USDT", "EURC", 50_000000n));
    expect(q.fee_breakdown.gas_cost_usd).toBe("0.3");
    expect(q.quote_breakdown!.output_amount_before_gas).toBe("46290000");
    expect(q.permit).toBeNull();
  });

  it("is informational (minOutputAmount \"0\") when no route exists at that size", async () => {
    const env = setupDesk();
    eurcBook(env);
    const q = await env.desk.quote(quoteBody(env, "USDC", "EURC", 50_000000n));
    expect(q.route_params.minOutputAmount).toBe("0");
    expect(q.quote_breakdown!.output_amount_before_gas).toBe("0");
    expect(env.desk.quoteRecord(q.uuid)!.informational).toBe(true);
  });
});

describe("POST /swap/quote: rejections", () => {
  it("AMOUNT_BELOW_MIN 400 with the minimum in raw and decimal form", async () => {
    const env = setupDesk();
    eurcBook(env);
    const e = await caught(env.desk.quote(quoteBody(env, "USDC", "EURC", 999_999n)));
    expect([e.status, e.code]).toEqual([400, "AMOUNT_BELOW_MIN"]);
    expect(e.extra).toMatchObject({ min_amount_raw: "1000000", min_amount: "1" });
    // Exactly the floor passes.
    await expect(env.desk.quote(quoteBody(env, "USDC", "EURC", 1_000000n))).resolves.toBeTruthy();
  });

  it.each([
    ["bad address", { from_token: "0x1234" }],
    ["same token both sides", "same"],
    ["bad gas_mode", { gas_mode: "cheap" }],
    ["zero from_amount", { from_amount: "0" }],
    ["non-canonical from_amount", { from_amount: "1.5" }],
    ["missing expiration", { expiration: undefined }],
    ["missing recipient", { recipient: undefined }],
  ])("field validation fails with 422: %s", async (_name, over) => {
    const env = setupDesk();
    const body = over === "same" ? quoteBody(env, "USDC", "USDC", 5_000000n) : quoteBody(env, "USDC", "EURC", 5_000000n, over as Record<string, unknown>);
    const e = await caught(env.desk.quote(body));
    expect([e.status, e.code]).toEqual([422, "VALIDATION"]);
  });

  it("a past Intent deadline is INTENT_DEADLINE_EXPIRED 400; one past the window is EXPIRATION_INVALID 400", async () => {
    const env = setupDesk();
    eurcBook(env);
    const past = await caught(env.desk.quote(quoteBody(env, "USDC", "EURC", 5_000000n, { expiration: env.clock.nowSec() })));
    expect([past.status, past.code]).toEqual([400, "INTENT_DEADLINE_EXPIRED"]);
    const far = await caught(env.desk.quote(quoteBody(env, "USDC", "EURC", 5_000000n, { expiration: env.clock.nowSec() + EXPIRATION_MAX_AHEAD_SEC + 1 })));
    expect([far.status, far.code]).toEqual([400, "EXPIRATION_INVALID"]);
  });

  it("an unlisted token is 400; a pair with no path is NO_LIQUIDITY 400", async () => {
    const env = setupDesk();
    const e = await caught(env.desk.quote(quoteBody(env, "USDC", "EURC", 5_000000n, { to_token: "0x9999999999999999999999999999999999999999" })));
    expect([e.status, e.code]).toEqual([400, "VALIDATION"]);
    const iso = isolatedDesk();
    const n = await caught(iso.desk.quote(quoteBody(iso, "AAA", "CCC", 5_000000n)));
    expect([n.status, n.code]).toEqual([400, "NO_LIQUIDITY"]);
  });

  it("a quote that exceeds its time budget under the fault plan is 503", async () => {
    const env = setupDesk();
    eurcBook(env);
    env.faults.quoteTimeouts = { fraction: 1 };
    const e = await caught(env.desk.quote(quoteBody(env, "USDC", "EURC", 5_000000n)));
    expect([e.status, e.code]).toEqual([503, "UNAVAILABLE"]);
  });
});

function isolatedDesk(): DeskEnv {
  return setupDesk({}, {
    tokens: [
      { symbol: "AAA", currency: "USD", decimals: 6, min_trade_amount_raw: "0" },
      { symbol: "BBB", currency: "USD", decimals: 6, min_trade_amount_raw: "0" },
      { symbol: "CCC", currency: "USD", decimals: 6, min_trade_amount_raw: "0" },
    ],
    markets: [{ base: "AAA", quote: "BBB", tick_precision: 4, quantity_precision: 2, min_ask_amount_raw: "0", min_bid_quote_amount_raw: "0" }],
  });
}

describe("permit object", () => {
  it("is null for an equity-only swap (vault covers maxInputAmount)", async () => {
    const env = setupDesk();
    eurcBook(env);
    setVault(env, TAKER, "USDC", 5_400000n);
    const q = await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n));
    expect(q.route_params.initialDepositAmount).toBe("0");
    expect(q.permit).toBeNull();
  });

  it("covers the shortfall from the wallet, with the eip712 block exactly as the spec lists", async () => {
    const env = setupDesk();
    eurcBook(env);
    setVault(env, TAKER, "USDC", 5_000000n);
    const exp = env.clock.nowSec() + 600;
    const q = await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n, { expiration: exp }));
    const usdc = token(env, "USDC").address;
    expect(q.route_params.initialDepositAmount).toBe("400000");
    const domain = { name: "USDC token", version: "1", chainId: CHAIN_ID, verifyingContract: usdc };
    expect(q.permit).toEqual({
      permit_supported: true,
      permit_required: true,
      token: usdc,
      spender: VAULT.toLowerCase(),
      owner: TAKER.toLowerCase(),
      value_raw: "400000",
      current_allowance_raw: "7",
      nonce: 0,
      suggested_deadline: exp,
      domain,
      eip712: {
        domain,
        primaryType: "Permit",
        types: {
          Permit: [
            { name: "owner", type: "address" },
            { name: "spender", type: "address" },
            { name: "value", type: "uint256" },
            { name: "nonce", type: "uint256" },
            { name: "deadline", type: "uint256" },
          ],
        },
        message: { owner: TAKER.toLowerCase(), spender: VAULT.toLowerCase(), value: "400000", nonce: 0, deadline: exp },
      },
    });
  });

  it("pay_more sizes the deposit from the raised maxInputAmount", async () => {
    const env = setupDesk();
    eurcBook(env);
    setVault(env, TAKER, "USDC", 5_400000n);
    const q = await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n, { gas_mode: "pay_more" }));
    expect(q.route_params.initialDepositAmount).toBe("250000");
    expect(q.permit!.value_raw).toBe("250000");
  });

  it("a token without ERC-2612 gets permit_supported false and no eip712 block", async () => {
    const env = setupDesk();
    rest(env, "USDT/USDC", "bid", "100", "0.9999");
    const q = await env.desk.quote(quoteBody(env, "USDT", "USDC", 50_000000n));
    expect(q.permit).not.toBeNull();
    expect(q.permit!.permit_supported).toBe(false);
    expect(q.permit!.permit_required).toBe(false);
    expect(q.permit!.value_raw).toBe("50000000");
    expect("eip712" in q.permit!).toBe(false);
  });

  it("is fresh per quote, and its nonce counts this wallet's accepted-but-not-mined permit swaps", async () => {
    const env = setupDesk();
    rest(env, "EURC/USDC", "ask", "100", "1.08");
    const q1 = await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n));
    expect(q1.permit!.nonce).toBe(0);
    const accepted = env.desk.accept(validSwap(q1));
    const q2 = await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n));
    expect(q2.permit!.nonce).toBe(1);
    expect(q2.permit!.eip712!.message.nonce).toBe(1);
    expect(q2.permit).not.toBe(q1.permit);
    // Another token's nonce is not affected.
    rest(env, "EURC/USDC", "bid", "100", "1.07");
    const other = await env.desk.quote(quoteBody(env, "EURC", "USDC", 5_000000n));
    expect(other.permit!.nonce).toBe(0);
    // Mined: the chain nonce now carries it.
    env.desk.markMined(accepted.quote.tradeId);
    env.chainNonces.set(`${TAKER.toLowerCase()}|${token(env, "USDC").address}`, 1n);
    const q3 = await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n));
    expect(q3.permit!.nonce).toBe(1);
  });

  it("a quote whose permit read was in flight when another swap of the wallet was accepted is stale (409), not a permit with a spent nonce", async () => {
    const env = setupDesk();
    rest(env, "EURC/USDC", "ask", "200", "1.08");
    const q1 = await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n));
    // The second quote stops at its chain read of the permit nonce; the first swap is accepted meanwhile.
    const pending = env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n));
    env.desk.accept(validSwap(q1));
    const q2 = await pending;
    expect(q2.permit!.nonce).toBe(0);
    expect(await caught(() => env.desk.accept(validSwap(q2)))).toMatchObject({ status: 409, code: "QUOTE_STALE" });
    // A quote taken now counts the accepted swap.
    const q3 = await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n));
    expect(q3.permit!.nonce).toBe(1);
    env.desk.accept(validSwap(q3));
  });

  it("a permit swap mined but not yet processed counts once: the next nonce is past the chain's and the pending one's, not their sum", async () => {
    const env = setupDesk();
    rest(env, "EURC/USDC", "ask", "200", "1.08");
    const usdc = `${TAKER.toLowerCase()}|${token(env, "USDC").address}`;
    const first = env.desk.accept(validSwap(await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n))));
    const second = env.desk.accept(validSwap(await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n))));
    expect(second.quote.permit!.nonce).toBe(1);
    // The first swap is mined (the token's nonce moved) before its receipt reaches the desk.
    env.chainNonces.set(usdc, 1n);
    const q = await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n));
    expect(q.permit!.nonce).toBe(2);
    expect(q.permit!.eip712!.message.nonce).toBe(2);
    // Both mined, neither processed: still 2 past the chain's 2.
    env.chainNonces.set(usdc, 2n);
    expect((await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n))).permit!.nonce).toBe(2);
    env.desk.markMined(first.quote.tradeId);
    env.desk.markMined(second.quote.tradeId);
    expect((await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n))).permit!.nonce).toBe(2);
  });

  it("pending permit swaps restored from state saved before their nonces were kept still add to the chain's nonce", async () => {
    const env = setupDesk();
    rest(env, "EURC/USDC", "ask", "100", "1.08");
    env.desk.accept(validSwap(await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n))));
    const saved = env.desk.snapshot();
    // As an older fakex wrote it: no permitNonce on the pending swap.
    for (const [, p] of saved.pending) delete (p as { permitNonce?: number }).permitNonce;
    env.desk.restore(saved);
    expect((await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n))).permit!.nonce).toBe(1);
  });

  it("a swap funded from vault equity (no permit) does not count toward the next permit's nonce", async () => {
    const env = setupDesk();
    rest(env, "EURC/USDC", "ask", "100", "1.08");
    setVault(env, TAKER, "USDC", 5_400000n);
    const equity = await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n));
    expect(equity.permit).toBeNull();
    env.desk.accept(validSwap(equity));
    setVault(env, TAKER, "USDC", 0n);
    const next = await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n));
    expect(next.permit!.nonce).toBe(0);
  });
});

describe("POST /swap/quote/batch", () => {
  it("prices 1 to 50 items independently, each with a new uuid and no quote_breakdown", async () => {
    const env = setupDesk();
    rest(env, "EURC/USDC", "ask", "1000", "1.08");
    const one = await env.desk.quoteBatch({ quotes: [quoteBody(env, "USDC", "EURC", 5_400000n)] });
    expect(one.items).toHaveLength(1);
    expect(one.items[0]!.ok).toBe(true);
    expect(one.items[0]!.error).toBeNull();
    expect(one.items[0]!.quote!.quote_breakdown).toBeUndefined();
    const fifty = await env.desk.quoteBatch({ quotes: Array.from({ length: 50 }, () => quoteBody(env, "USDC", "EURC", 5_400000n)) });
    expect(fifty.items).toHaveLength(50);
    expect(new Set(fifty.items.map((i) => i.quote!.uuid)).size).toBe(50);
    expect(fifty.items.every((i) => i.ok && i.quote!.route_params.minOutputAmount === "4768518")).toBe(true);
  });

  it.each([
    ["no items", { quotes: [] }],
    ["51 items", "51"],
    ["quotes not an array", { quotes: "x" }],
    ["body not an object", null],
  ])("rejects the whole request with 422: %s", async (_n, body) => {
    const env = setupDesk();
    const b = body === "51" ? { quotes: Array.from({ length: 51 }, () => quoteBody(env, "USDC", "EURC", 5_400000n)) } : body;
    const e = await caught(env.desk.quoteBatch(b));
    expect([e.status, e.code]).toEqual([422, "VALIDATION"]);
  });

  it("one item failing field validation fails the whole request with 422 and issues nothing", async () => {
    const env = setupDesk();
    eurcBook(env);
    const good = quoteBody(env, "USDC", "EURC", 5_400000n);
    for (const bad of [{ ...good, gas_mode: "x" }, { ...good, to_token: good.from_token }, { ...good, owner_address: "nope" }]) {
      const e = await caught(env.desk.quoteBatch({ quotes: [good, bad] }));
      expect([e.status, e.code]).toEqual([422, "VALIDATION"]);
    }
    expect(env.desk.snapshot().quotes).toHaveLength(0);
  });

  it("reports per-item pricing failures with the spec's rejectionCategory vocabulary", async () => {
    const env = setupDesk({ usdPrice: fixedUsdPrice({}) });
    eurcBook(env);
    rest(env, "USDT/USDC", "bid", "100", "0.9999");
    const r = await env.desk.quoteBatch({
      quotes: [
        quoteBody(env, "USDT", "USDC", 50_000000n),
        quoteBody(env, "USDC", "EURC", 999_999n),
        quoteBody(env, "USDC", "EURC", 5_000000n, { expiration: env.clock.nowSec() - 1 }),
        quoteBody(env, "USDC", "EURC", 5_000000n, { to_token: "0x9999999999999999999999999999999999999999" }),
        // No USD price for EUR here: gas cannot be priced.
        quoteBody(env, "USDC", "EURC", 5_400000n),
      ],
    });
    expect(r.items.map((i) => [i.ok, i.error?.rejectionCategory ?? null])).toEqual([
      [true, null],
      [false, "AMOUNT_BELOW_MIN"],
      [false, "INTENT_DEADLINE_EXPIRED"],
      [false, "invalid_quote"],
      [false, "upstream_unavailable"],
    ]);
    expect(r.items[1]!.quote).toBeNull();
    expect(r.items[1]!.error!.message).toMatch(/minimum of 1 USDC/);
  });

  it("NO_LIQUIDITY is forwarded verbatim", async () => {
    const iso = isolatedDesk();
    const r = await iso.desk.quoteBatch({ quotes: [quoteBody(iso, "AAA", "CCC", 5_000000n)] });
    expect(r.items[0]!.error!.rejectionCategory).toBe("NO_LIQUIDITY");
  });

  it("quote_timeout comes from the fault plan, by position or by fraction under the seed", async () => {
    const env = setupDesk();
    rest(env, "EURC/USDC", "ask", "1000", "1.08");
    const body = { quotes: [0, 1, 2].map(() => quoteBody(env, "USDC", "EURC", 5_400000n)) };
    env.faults.quoteTimeouts = { items: [1] };
    const r = await env.desk.quoteBatch(body);
    expect(r.items.map((i) => i.error?.rejectionCategory ?? "ok")).toEqual(["ok", "quote_timeout", "ok"]);
    env.faults.quoteTimeouts = { fraction: 1 };
    const all = await env.desk.quoteBatch(body);
    expect(all.items.every((i) => !i.ok && i.error!.rejectionCategory === "quote_timeout")).toBe(true);
    env.faults.quoteTimeouts = { fraction: 0 };
    expect((await env.desk.quoteBatch(body)).items.every((i) => i.ok)).toBe(true);
  });

  it("maps unexpected errors to internal_error and other statuses to their categories", () => {
    expect(rejectionCategoryOf(new Error("boom"))).toBe("internal_error");
    expect(rejectionCategoryOf(new ExchangeError("QUOTE_STALE", 409, "x"))).toBe("QUOTE_STALE");
    expect(rejectionCategoryOf(new ExchangeError("SLIPPAGE_EXCEEDED", 400, "x"))).toBe("SLIPPAGE_EXCEEDED");
    expect(rejectionCategoryOf(new ExchangeError("STP_BLOCKED", 409, "x"))).toBe("invalid_quote");
  });
});
