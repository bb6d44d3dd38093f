// POST /swap/quote, /swap/quote/batch and /swap through the full app on the memory
// exchange, signed the way a client does: the Intent over route_params exactly as
// returned (numerics to bigint, deadline a number), the permit over quote.permit.eip712
// passed unchanged to viem.
import { describe, expect, it } from "vitest";
import request from "supertest";
import type { PrivateKeyAccount } from "viem/accounts";
import { hashTypedData } from "viem";
import { INTENT_TYPE, ZERO_ADDRESS, type Address, type Hex } from "../../sim/core/typed-data.ts";
import type { QuoteWire } from "../../sim/core/quotes.ts";
import { ALICE, BOB, CAROL, DECIMAL, DOMAIN, RAW, UUID, alice, apiKeyFor, bob, carol, exchange, place, type Ex } from "./exchange-harness.ts";
import { intentMessageOf } from "../../fixtures/signing.ts";

const USDC_5_4 = 5_400_000n;

function tok(ex: Ex, symbol: string): Address {
  return ex.registry.tokenBySymbol(symbol)!.address;
}

/** A POST /swap/quote body: spend `amount` raw of `from` for `to` (default USDC → EURC). */
function quoteBody(ex: Ex, owner: string, amount: bigint = USDC_5_4, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    from_token: tok(ex, "USDC"),
    to_token: tok(ex, "EURC"),
    from_amount: amount.toString(),
    owner_address: owner,
    recipient: owner,
    expiration: ex.clock.nowSec() + 3600,
    ...over,
  };
}

function postQuote(ex: Ex, body: unknown) {
  return request(ex.app).post("/api/v1/swap/quote").send(body as object);
}

function postBatch(ex: Ex, body: unknown) {
  return request(ex.app).post("/api/v1/swap/quote/batch").send(body as object);
}

function postSwap(ex: Ex, body: unknown) {
  return request(ex.app).post("/api/v1/swap").send(body as object);
}

async function quote(ex: Ex, body: Record<string, unknown>): Promise<QuoteWire> {
  const res = await postQuote(ex, body);
  if (res.status !== 200) throw new Error(`quote failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as QuoteWire;
}

/** Bob rests an ask of 10 EURC at 1.08 USDC: enough depth for two 5.4 USDC swaps. */
async function book(ex: Ex): Promise<string> {
  return place(ex, bob, { side: "ask", amount: "10", price: "1.08" });
}

/** The Intent signature over route_params exactly as returned. */
function signIntent(account: PrivateKeyAccount, q: QuoteWire): Promise<Hex> {
  const rp = q.route_params;
  return account.signTypedData({
    domain: DOMAIN,
    types: { Intent: INTENT_TYPE },
    primaryType: "Intent",
    message: intentMessageOf(rp),
  });
}

/** The EIP-2612 signature over quote.permit.eip712, handed to viem unchanged. */
function signPermit(account: PrivateKeyAccount, q: QuoteWire): Promise<Hex> {
  const e = q.permit!.eip712!;
  return account.signTypedData(e as unknown as Parameters<PrivateKeyAccount["signTypedData"]>[0]);
}

async function swapBody(account: PrivateKeyAccount, q: QuoteWire): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = { uuid: q.uuid, signature: await signIntent(account, q) };
  if (q.permit !== null) {
    body["permit_signature"] = await signPermit(account, q);
    body["permit_deadline"] = q.permit.eip712!.message.deadline;
  }
  return body;
}

const typed = (code: string) => ({ detail: { detail: expect.any(String), error_code: code } });

/** Carol: wallet USDC only, no vault equity, so her swaps deposit through a permit. */
function walletOnlyCarol(ex: Ex, raw = 10_000_000n): void {
  ex.chain.mint(CAROL, tok(ex, "USDC"), raw);
}

describe("POST /swap/quote", () => {
  it("returns every field of the spec's swap quote with its type (equity-only: permit null)", async () => {
    const ex = exchange();
    await book(ex);
    const now = ex.clock.nowSec();
    const body = quoteBody(ex, ALICE);
    const res = await postQuote(ex, body);
    expect(res.status).toBe(200);
    const q = res.body as Record<string, unknown>;
    expect(Object.keys(q).sort()).toEqual(["expires_at", "fee_breakdown", "permit", "quote_breakdown", "route_params", "uuid"]);
    expect(q["uuid"]).toMatch(UUID);

    const rp = q["route_params"] as Record<string, unknown>;
    expect(Object.keys(rp).sort()).toEqual(
      ["taker", "inputToken", "outputToken", "maxInputAmount", "minOutputAmount", "recipient", "initialDepositAmount", "uuid", "deadline"].sort(),
    );
    expect(rp).toMatchObject({
      taker: ALICE,
      inputToken: tok(ex, "USDC"),
      outputToken: tok(ex, "EURC"),
      recipient: ALICE,
      initialDepositAmount: "0",
      deadline: body["expiration"],
    });
    for (const k of ["maxInputAmount", "minOutputAmount", "initialDepositAmount", "uuid"]) expect(rp[k]).toMatch(RAW);
    expect(typeof rp["deadline"]).toBe("number");
    // Alice's vault covers the spend: receive_less keeps the spend, gas comes off the output.
    expect(rp["maxInputAmount"]).toBe("5400000");
    expect(BigInt(rp["minOutputAmount"] as string)).toBeGreaterThan(0n);
    expect(BigInt(rp["minOutputAmount"] as string)).toBeLessThan(5_000_000n);

    const fee = q["fee_breakdown"] as Record<string, unknown>;
    expect(Object.keys(fee).sort()).toEqual(["gas_cost_from_token", "gas_cost_usd"]);
    expect(fee["gas_cost_usd"]).toMatch(DECIMAL);
    expect(fee["gas_cost_from_token"]).toMatch(DECIMAL);

    const qb = q["quote_breakdown"] as Record<string, unknown>;
    expect(Object.keys(qb).sort()).toEqual(
      [
        "gas_mode", "input_token", "output_token", "input_amount_before_gas", "input_amount_after_gas", "output_amount_before_gas",
        "output_amount_after_gas", "gas_cost_input_token", "gas_cost_output_token", "gas_cost_usd",
      ].sort(),
    );
    expect(qb).toMatchObject({ gas_mode: "receive_less", input_token: tok(ex, "USDC"), output_token: tok(ex, "EURC") });
    for (const k of ["input_amount_before_gas", "input_amount_after_gas", "output_amount_before_gas", "output_amount_after_gas", "gas_cost_input_token", "gas_cost_output_token"]) {
      expect(qb[k]).toMatch(RAW);
    }
    expect(qb["gas_cost_usd"]).toBe(fee["gas_cost_usd"]);
    // receive_less: minOutputAmount equals output_amount_after_gas.
    expect(qb["output_amount_after_gas"]).toBe(rp["minOutputAmount"]);
    expect(qb["output_amount_before_gas"]).toBe("5000000");

    expect(typeof q["expires_at"]).toBe("number");
    expect(q["expires_at"]).toBe(now + 30);
    expect(q["permit"]).toBeNull();
  });

  it("gas in a non-USD token is the USD cost at the service's own FX rate (GET /fx/rate), rounded up, and follows that rate", async () => {
    const ex = exchange();
    await book(ex);
    /** ceil(usd / rate × 10^6): the EURC raw amount (6 decimals) worth `usd` at EUR/USD `rate`. */
    const atRate = (usd: string, rate: string) => {
      const [ui, uf = ""] = usd.split(".");
      const [ri, rf = ""] = rate.split(".");
      const n = BigInt(ui! + uf) * 10n ** 6n * 10n ** BigInt(rf.length);
      const d = 10n ** BigInt(uf.length) * BigInt(ri! + rf);
      return ((n + d - 1n) / d).toString();
    };
    const eurUsd = async () => ((await request(ex.app).get("/api/v1/fx/rate?base=EUR&quote=USD")).body as { rate: string }).rate;
    const q = await quote(ex, quoteBody(ex, ALICE));
    expect(q.quote_breakdown!.gas_cost_output_token).toBe(atRate(q.quote_breakdown!.gas_cost_usd, await eurUsd()));
    // Other FX data (as POST /__fakex/fx/quotes with replace: true), another gas amount at that rate.
    const ts = ex.clock.nowSec();
    ex.fx.clear();
    ex.fx.addQuotes(["p1", "p2", "p3"].map((provider) => ({ provider, base: "EUR", quote: "USD", rate: "1.25", ts })));
    expect(await eurUsd()).toBe("1.25");
    const again = await quote(ex, quoteBody(ex, ALICE));
    expect(again.quote_breakdown!.gas_cost_output_token).toBe(atRate(again.quote_breakdown!.gas_cost_usd, "1.25"));
  });

  it("no FX rate for a token's currency: its quote is the spec's 503 (Retry-After, fixed detail), a batch item upstream_unavailable; USD tokens still quote", async () => {
    const ex = exchange();
    await book(ex);
    ex.fx.clear();
    const res = await postQuote(ex, quoteBody(ex, ALICE));
    expect(res.status).toBe(503);
    expect(res.headers["retry-after"]).toBe("1");
    expect(res.body).toEqual({ detail: "Service temporarily unavailable; please retry" });
    const batch = await postBatch(ex, { quotes: [quoteBody(ex, ALICE)] });
    expect(batch.status).toBe(200);
    expect(batch.body.items[0]).toMatchObject({ ok: false, quote: null, error: { rejectionCategory: "upstream_unavailable" } });
    // Both tokens priced in USD: no FX needed.
    ex.fund(BOB, "USDT", 100_000_000n);
    await place(ex, bob, { symbol: "USDT/USDC", side: "ask", amount: "10", price: "1" });
    const usd = await postQuote(ex, quoteBody(ex, ALICE, 5_000_000n, { to_token: tok(ex, "USDT") }));
    expect(usd.status).toBe(200);
  });

  it("pay_more: maxInputAmount equals input_amount_after_gas and exceeds the spend", async () => {
    const ex = exchange();
    await book(ex);
    const q = await quote(ex, quoteBody(ex, ALICE, USDC_5_4, { gas_mode: "pay_more" }));
    expect(q.quote_breakdown!.gas_mode).toBe("pay_more");
    expect(q.route_params.maxInputAmount).toBe(q.quote_breakdown!.input_amount_after_gas);
    expect(BigInt(q.route_params.maxInputAmount)).toBeGreaterThan(USDC_5_4);
  });

  it("a wallet-funded swap carries a fresh permit with its EIP-712 block (spender the vault)", async () => {
    const ex = exchange();
    await book(ex);
    walletOnlyCarol(ex);
    const q = await quote(ex, quoteBody(ex, CAROL));
    expect(q.route_params.initialDepositAmount).toBe(q.route_params.maxInputAmount);
    const p = q.permit as unknown as Record<string, unknown>;
    expect(Object.keys(p).sort()).toEqual(
      ["permit_supported", "permit_required", "token", "spender", "owner", "value_raw", "current_allowance_raw", "nonce", "suggested_deadline", "domain", "eip712"].sort(),
    );
    expect(p).toMatchObject({
      permit_supported: true,
      permit_required: true,
      token: tok(ex, "USDC"),
      owner: CAROL,
      value_raw: q.route_params.initialDepositAmount,
      current_allowance_raw: expect.stringMatching(RAW),
      nonce: 0,
      suggested_deadline: q.route_params.deadline,
    });
    expect(p["spender"]).toMatch(/^0x[0-9a-f]{40}$/);
    expect(p["domain"]).toEqual({ name: expect.any(String), version: expect.any(String), chainId: 31337, verifyingContract: tok(ex, "USDC") });
    expect(p["eip712"]).toEqual({
      domain: p["domain"],
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
      message: { owner: CAROL, spender: p["spender"], value: q.route_params.initialDepositAmount, nonce: 0, deadline: q.route_params.deadline },
    });
    // A second quote gets a permit of its own (a fresh one per quote).
    const again = await quote(ex, quoteBody(ex, CAROL));
    expect(again.uuid).not.toBe(q.uuid);
    expect(again.permit).not.toBeNull();
  });

  it("AMOUNT_BELOW_MIN: 400 with detail.code and the minimum in raw and decimal form", async () => {
    const ex = exchange();
    await book(ex);
    const res = await postQuote(ex, quoteBody(ex, ALICE, 999_999n));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: { code: "AMOUNT_BELOW_MIN", detail: expect.any(String), min_amount_raw: "1000000", min_amount: "1" } });
  });

  it("field validation is 422 with a readable detail (same rule as the batch)", async () => {
    const ex = exchange();
    const cases: [string, Record<string, unknown>][] = [
      ["body.from_token", { from_token: "0x1234" }],
      ["body.to_token", { to_token: tok(ex, "USDC").toUpperCase().replace("0X", "0x") }],
      ["body.from_amount", { from_amount: "0" }],
      ["body.from_amount", { from_amount: "1.5" }],
      ["body.from_amount", { from_amount: 5400000 }],
      ["body.owner_address", { owner_address: undefined }],
      ["body.recipient", { recipient: "alice" }],
      ["body.expiration", { expiration: "1773480000" }],
      ["body.expiration", { expiration: 1.5 }],
      ["body.gas_mode", { gas_mode: "free" }],
    ];
    for (const [where, over] of cases) {
      const res = await postQuote(ex, quoteBody(ex, ALICE, USDC_5_4, over));
      expect(res.status, JSON.stringify(over)).toBe(422);
      expect(res.body.detail).toContain(where);
    }
    const notObject = await postQuote(ex, [1, 2]);
    expect(notObject.status).toBe(422);
  });

  it("pricing failures are 400: untyped (unlisted token) plain, typed codes as detail.code like AMOUNT_BELOW_MIN", async () => {
    const ex = exchange();
    const unlisted = await postQuote(ex, quoteBody(ex, ALICE, USDC_5_4, { to_token: "0x00000000000000000000000000000000000000ff" }));
    expect(unlisted.status).toBe(400);
    expect(unlisted.body).toEqual({ detail: expect.stringContaining("not listed") });
    const past = await postQuote(ex, quoteBody(ex, ALICE, USDC_5_4, { expiration: ex.clock.nowSec() }));
    expect(past.status).toBe(400);
    // The spec's keys only; the server time is in the text.
    expect(past.body).toEqual({ detail: { code: "INTENT_DEADLINE_EXPIRED", detail: expect.stringContaining(`server time is ${ex.clock.nowSec()}`) } });
    // The batch forwards the same code verbatim as rejectionCategory.
    const batch = await postBatch(ex, { quotes: [quoteBody(ex, ALICE, USDC_5_4, { expiration: ex.clock.nowSec() })] });
    expect(batch.status).toBe(200);
    expect(batch.body.items[0].error.rejectionCategory).toBe("INTENT_DEADLINE_EXPIRED");
  });

  it("pay_more on a from_amount whose gas pushes maxInputAmount past uint256: 400 (an Intent nobody can sign), invalid_quote in a batch", async () => {
    const ex = exchange();
    await book(ex);
    const huge = (1n << 256n) - 1000n;
    const res = await postQuote(ex, quoteBody(ex, ALICE, huge, { gas_mode: "pay_more" }));
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toEqual({ detail: expect.stringContaining("exceeds uint256") });
    const batch = await postBatch(ex, { quotes: [quoteBody(ex, ALICE, huge, { gas_mode: "pay_more" })] });
    expect(batch.status).toBe(200);
    expect(batch.body.items[0]).toEqual({ ok: false, quote: null, error: { rejectionCategory: "invalid_quote", message: expect.stringContaining("exceeds uint256") } });
    // receive_less takes the gas out of the output: the same size is quoted, within uint256.
    const less = await postQuote(ex, quoteBody(ex, ALICE, huge, { gas_mode: "receive_less" }));
    expect(less.status, JSON.stringify(less.body)).toBe(200);
    expect(less.body.route_params.maxInputAmount).toBe(huge.toString());
  });

  it("a route through the wallet's own resting order: 409 with a plain detail naming it (no typed quote code), invalid_quote in a batch", async () => {
    const ex = exchange();
    const own = await place(ex, alice, { side: "ask", amount: "10", price: "1.07" });
    const res = await postQuote(ex, quoteBody(ex, ALICE));
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body).toEqual({ detail: expect.stringContaining(own) });
    const batch = await postBatch(ex, { quotes: [quoteBody(ex, ALICE), quoteBody(ex, BOB)] });
    expect(batch.status).toBe(200);
    expect(batch.body.items[0]).toEqual({ ok: false, quote: null, error: { rejectionCategory: "invalid_quote", message: expect.stringContaining(own) } });
    expect(batch.body.items[1].ok).toBe(true);
  });

  it("two hops (EURC → USDC → JPYS, no active direct market) with a first hop too thin for the size: minOutputAmount \"0\"; POST /swap refuses it 400 NO_LIQUIDITY, not consumed", async () => {
    const ex = exchange();
    // EURC/JPYS is configured but inactive (GET /markets omits it): the pair goes through two hops.
    expect(ex.registry.market(tok(ex, "EURC"), tok(ex, "JPYS"))?.active ?? false).toBe(false);
    // Hop 1 (EURC → USDC): Bob bids for 5 EURC only. Hop 2 (USDC → JPYS): Bob bids for 100 USDC.
    await place(ex, bob, { side: "bid", amount: "5", price: "1.08" });
    await place(ex, bob, { symbol: "USDC/JPYS", side: "bid", amount: "100", price: "150" });
    const eurcToJpys = (amount: bigint) => quoteBody(ex, ALICE, amount, { from_token: tok(ex, "EURC"), to_token: tok(ex, "JPYS") });
    // The control: 5 EURC fit the first hop, so the two-hop route prices (5 × 1.08 × 150 = 810 JPYS before gas).
    const fits = await quote(ex, eurcToJpys(5_000_000n));
    expect(fits.quote_breakdown!.output_amount_before_gas).toBe("81000");
    expect(BigInt(fits.route_params.minOutputAmount)).toBeGreaterThan(0n);
    // 10 EURC: the first hop absorbs only 5, so no route exists at that size.
    const thin = await quote(ex, eurcToJpys(10_000_000n));
    expect(thin.route_params.minOutputAmount).toBe("0");
    expect(thin.quote_breakdown!.output_amount_before_gas).toBe("0");
    const body = await swapBody(alice, thin);
    for (let i = 0; i < 2; i++) {
      const res = await postSwap(ex, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: { detail: "quote is informational (minOutputAmount 0): no executable route at that size", error_code: "NO_LIQUIDITY" } });
    }
    expect(ex.engine.listOrders(ALICE)).toEqual([]);
  });

  it("GET /swap/quote is 405", async () => {
    const ex = exchange();
    const res = await request(ex.app).get("/api/v1/swap/quote");
    expect(res.status).toBe(405);
    expect(res.headers["allow"]).toBe("POST");
  });
});

describe("POST /swap/quote/batch", () => {
  it("items match quotes positionally; pricing failures are items of a 200; each success has its own uuid", async () => {
    const ex = exchange();
    await book(ex);
    const res = await postBatch(ex, {
      quotes: [
        quoteBody(ex, ALICE, 2_160_000n),
        quoteBody(ex, ALICE, 999_999n),
        quoteBody(ex, ALICE, USDC_5_4, { gas_mode: "pay_more" }),
        quoteBody(ex, ALICE, 2_160_000n),
      ],
    });
    expect(res.status).toBe(200);
    const items = res.body.items as Record<string, unknown>[];
    expect(items).toHaveLength(4);
    for (const it of items) expect(Object.keys(it).sort()).toEqual(["error", "ok", "quote"]);

    const [a, below, b, c] = items as [Record<string, any>, Record<string, any>, Record<string, any>, Record<string, any>];
    expect(a.ok).toBe(true);
    expect(a.error).toBeNull();
    expect(a.quote.route_params.maxInputAmount).toBe("2160000");
    expect(a.quote.quote_breakdown).toBeUndefined();
    expect(below).toEqual({ ok: false, quote: null, error: { rejectionCategory: "AMOUNT_BELOW_MIN", message: expect.any(String) } });
    expect(b.ok).toBe(true);
    expect(BigInt(b.quote.route_params.maxInputAmount)).toBeGreaterThan(USDC_5_4);
    expect(c.ok).toBe(true);
    expect(new Set([a.quote.uuid, b.quote.uuid, c.quote.uuid]).size).toBe(3);
  });

  it("a batch quote is executable by POST /swap", async () => {
    const ex = exchange();
    await book(ex);
    const res = await postBatch(ex, { quotes: [quoteBody(ex, ALICE)] });
    const q = res.body.items[0].quote as QuoteWire;
    const sw = await postSwap(ex, await swapBody(alice, q));
    expect(sw.status).toBe(200);
    expect(sw.body.success).toBe(true);
  });

  it("51 quotes, 0 quotes or no array → 422; 50 are accepted", async () => {
    const ex = exchange();
    await book(ex);
    const one = quoteBody(ex, ALICE, 1_080_000n);
    for (const body of [{ quotes: Array.from({ length: 51 }, () => one) }, { quotes: [] }, { quotes: one }, {}]) {
      const res = await postBatch(ex, body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ detail: expect.stringContaining("body.quotes") });
    }
    const fifty = await postBatch(ex, { quotes: Array.from({ length: 50 }, () => one) });
    expect(fifty.status).toBe(200);
    expect(fifty.body.items).toHaveLength(50);
  });

  it("any item failing field validation fails the whole request with 422 (no quote minted)", async () => {
    const ex = exchange();
    await book(ex);
    const bad: Record<string, unknown>[] = [
      { to_token: tok(ex, "USDC") },
      { gas_mode: "cheap" },
      { owner_address: "0xnot-an-address" },
    ];
    for (const over of bad) {
      const res = await postBatch(ex, { quotes: [quoteBody(ex, ALICE), quoteBody(ex, ALICE, USDC_5_4, over)] });
      expect(res.status, JSON.stringify(over)).toBe(422);
      expect(res.body.detail).toContain("body.quotes.1");
    }
  });
});

describe("POST /swap: accepted", () => {
  it("answers {success, trade_id, status pending, fee_breakdown}; GET /orders/{trade_id} shows a swap; settles with balances moved", async () => {
    const ex = exchange();
    const makerId = await book(ex);
    const q = await quote(ex, quoteBody(ex, ALICE, USDC_5_4, { recipient: ZERO_ADDRESS }));
    const res = await postSwap(ex, await swapBody(alice, q));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, trade_id: expect.stringMatching(UUID), status: "pending", fee_breakdown: q.fee_breakdown });
    const tradeId = res.body.trade_id as string;

    const key = apiKeyFor(ex, ALICE);
    const got = await request(ex.app).get(`/api/v1/orders/${tradeId}`).set("Authorization", key);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      trade_id: tradeId,
      owner_address: ALICE,
      order_type: "swap",
      from_token: tok(ex, "USDC"),
      to_token: tok(ex, "EURC"),
      from_amount: q.route_params.maxInputAmount,
      to_amount: q.route_params.minOutputAmount,
      uuid_int: q.route_params.uuid,
    });
    expect(["pending", "matched"]).toContain(got.body.status);
    const listed = await request(ex.app).get("/api/v1/orders").query({ owner_address: ALICE, type: "swap" }).set("Authorization", key);
    expect(listed.body.trades.map((t: { trade_id: string }) => t.trade_id)).toEqual([tradeId]);

    await ex.engine.settleAll();
    const settled = await request(ex.app).get(`/api/v1/orders/${tradeId}`).set("Authorization", key);
    expect(settled.body.status).toBe("settled");
    expect(ex.engine.getOrder(makerId).remaining_amount).toBe("5");

    // recipient zero: the 5 EURC less the quoted gas (receive_less) land in Alice's vault,
    // exactly the quote's output after gas; 5.4 USDC left it; Bob got the USDC.
    const gas = BigInt(q.quote_breakdown!.gas_cost_output_token);
    expect(BigInt(q.quote_breakdown!.output_amount_after_gas)).toBe(5_000_000n - gas);
    const bal = await ex.engine.balances(ALICE);
    const row = (sym: string) => bal.balances.find((r) => r.symbol === sym)!;
    expect(BigInt(row("USDC").vault_total)).toBe(1_000_000n * 10n ** 6n - USDC_5_4);
    expect(row("USDC").vault_frozen).toBe("0");
    expect(BigInt(row("EURC").vault_total)).toBe(1_000_000n * 10n ** 6n + 5_000_000n - gas);
    expect(settled.body.settlement_economics.fees_paid).toEqual([expect.objectContaining({ type: "gas", token: "EURC", amount_raw: gas.toString() })]);
    const bobUsdc = (await ex.engine.balances(BOB)).balances.find((r) => r.symbol === "USDC")!;
    expect(BigInt(bobUsdc.vault_total)).toBe(1_000_000n * 10n ** 6n + USDC_5_4);
  });

  it("with a permit: the wallet deposit is pulled, the output goes to the recipient's wallet", async () => {
    const ex = exchange();
    await book(ex);
    walletOnlyCarol(ex);
    const q = await quote(ex, quoteBody(ex, CAROL));
    const dep = BigInt(q.route_params.initialDepositAmount);
    const res = await postSwap(ex, await swapBody(carol, q));
    expect(res.status).toBe(200);
    await ex.engine.settleAll();
    expect(ex.engine.getOrder(res.body.trade_id).status).toBe("settled");
    expect(await ex.chain.walletBalance(CAROL, tok(ex, "USDC"))).toBe(10_000_000n - dep);
    // The recipient's wallet gets the quote's output after gas.
    expect(await ex.chain.walletBalance(CAROL, tok(ex, "EURC"))).toBe(BigInt(q.quote_breakdown!.output_amount_after_gas));
  });

  it("accepts a compact (64-byte) permit signature; refuses a v 0/1 Intent signature (Router's ecrecover would), quote not consumed", async () => {
    const ex = exchange();
    await book(ex);
    walletOnlyCarol(ex);
    const q = await quote(ex, quoteBody(ex, CAROL));
    const body = await swapBody(carol, q);
    const sig = body["signature"] as string;
    const refused = await postSwap(ex, { ...body, signature: `${sig.slice(0, 130)}${sig.slice(130) === "1b" ? "00" : "01"}` });
    expect(refused.status).toBe(400);
    const p = body["permit_signature"] as string;
    // EIP-2098: the y parity goes into the top bit of s.
    const parity = p.slice(130) === "1c" ? 1 : 0;
    const s = (BigInt(`0x${p.slice(66, 130)}`) | (BigInt(parity) << 255n)).toString(16).padStart(64, "0");
    body["permit_signature"] = `${p.slice(0, 66)}${s}`;
    const res = await postSwap(ex, body);
    expect(res.status).toBe(200);
  });
});

describe("POST /swap: rejections", () => {
  it("body shape: 400 typed, the catch-all code (missing uuid, missing or non-hex signature)", async () => {
    const ex = exchange();
    await book(ex);
    const q = await quote(ex, quoteBody(ex, ALICE));
    const sig = await signIntent(alice, q);
    for (const body of [{ signature: sig }, { uuid: q.uuid }, { uuid: q.uuid, signature: "nope" }, { uuid: 7, signature: sig }]) {
      const res = await postSwap(ex, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual(typed("TRANSIENT_SETTLEMENT_FAILURE"));
    }
    // None of those consumed the quote.
    expect((await postSwap(ex, await swapBody(alice, q))).status).toBe(200);
  });

  it("unknown quote uuid: 410 typed QUOTE_STALE (request a fresh quote), before any signature work", async () => {
    const ex = exchange();
    const res = await postSwap(ex, { uuid: "6f1c2a9e-0b7d-4c3e-9a51-2d4b8e7f6a10", signature: "0x1234" });
    expect(res.status).toBe(410);
    expect(res.body).toEqual(typed("QUOTE_STALE"));
  });

  it("expired: 410 after advancing the virtual clock 31 s", async () => {
    const ex = exchange();
    await book(ex);
    const q = await quote(ex, quoteBody(ex, ALICE));
    const body = await swapBody(alice, q);
    ex.clock.advanceSec(31);
    const res = await postSwap(ex, body);
    expect(res.status).toBe(410);
    expect(res.body).toEqual(typed("QUOTE_STALE"));
    expect(res.body.detail.detail).toContain("expired");
  });

  it("consumed: the second caller with the same quote gets 410", async () => {
    const ex = exchange();
    await book(ex);
    const q = await quote(ex, quoteBody(ex, ALICE));
    const body = await swapBody(alice, q);
    expect((await postSwap(ex, body)).status).toBe(200);
    const second = await postSwap(ex, body);
    expect(second.status).toBe(410);
    expect(second.body).toEqual(typed("QUOTE_STALE"));
  });

  it("wrong signer or altered route_params: 400 (catch-all code), quote not consumed", async () => {
    const ex = exchange();
    await book(ex);
    const q = await quote(ex, quoteBody(ex, ALICE));
    const byBob = await postSwap(ex, { uuid: q.uuid, signature: await signIntent(bob, q) });
    expect(byBob.status).toBe(400);
    expect(byBob.body).toEqual(typed("TRANSIENT_SETTLEMENT_FAILURE"));
    const altered: QuoteWire = { ...q, route_params: { ...q.route_params, minOutputAmount: "1" } };
    const tampered = await postSwap(ex, { uuid: q.uuid, signature: await signIntent(alice, altered) });
    expect(tampered.status).toBe(400);
    expect(tampered.body).toEqual(typed("TRANSIENT_SETTLEMENT_FAILURE"));
    expect((await postSwap(ex, await swapBody(alice, q))).status).toBe(200);
  });

  it("informational quote (minOutputAmount \"0\"): 400 NO_LIQUIDITY, not consumed (a retry is 400 again, not 410)", async () => {
    const ex = exchange();
    // No resting order: a market path exists but no depth at that size.
    const q = await quote(ex, quoteBody(ex, ALICE));
    expect(q.route_params.minOutputAmount).toBe("0");
    const body = await swapBody(alice, q);
    for (let i = 0; i < 2; i++) {
      const res = await postSwap(ex, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(typed("NO_LIQUIDITY"));
    }
  });

  it("a book that moved so that the output after gas misses minOutputAmount: 400 SLIPPAGE_EXCEEDED, not consumed", async () => {
    const ex = exchange();
    const ask = await book(ex);
    const q = await quote(ex, quoteBody(ex, ALICE));
    // 5 EURC quoted at 1.08; at 1.10 the 5.4 USDC buy ~4.9 EURC: above minOutputAmount (5 less ~0.23 gas), not once the gas is off.
    expect(BigInt(q.route_params.minOutputAmount)).toBeLessThan(4_900_000n);
    expect(ex.engine.cancelAgentOrder(ask)).toBe(true);
    await place(ex, bob, { side: "ask", amount: "10", price: "1.10" });
    const body = await swapBody(alice, q);
    for (let i = 0; i < 2; i++) {
      const res = await postSwap(ex, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(typed("SLIPPAGE_EXCEEDED"));
    }
  });

  it("missing or mismatched permit fields: 400 ALLOWANCE_INSUFFICIENT (re-permit), quote not consumed", async () => {
    const ex = exchange();
    await book(ex);
    walletOnlyCarol(ex);
    const q = await quote(ex, quoteBody(ex, CAROL));
    const full = await swapBody(carol, q);
    const variants: Record<string, unknown>[] = [
      { uuid: full["uuid"], signature: full["signature"] },
      { uuid: full["uuid"], signature: full["signature"], permit_signature: full["permit_signature"] },
      { uuid: full["uuid"], signature: full["signature"], permit_deadline: full["permit_deadline"] },
      { ...full, permit_deadline: (full["permit_deadline"] as number) + 1 },
      { ...full, permit_signature: "0x1234" },
    ];
    for (const body of variants) {
      const res = await postSwap(ex, body);
      expect(res.status, JSON.stringify(Object.keys(body))).toBe(400);
      expect(res.body).toEqual(typed("ALLOWANCE_INSUFFICIENT"));
    }
    // Five rejected calls used Carol's trade budget for this second.
    ex.clock.advanceSec(1);
    expect((await postSwap(ex, full)).status).toBe(200);
  });

  it("QUOTE_STALE: another swap of the same wallet accepted in between → 409, quote not consumed", async () => {
    const ex = exchange();
    await book(ex);
    const first = await quote(ex, quoteBody(ex, ALICE));
    const second = await quote(ex, quoteBody(ex, ALICE, 2_160_000n));
    const secondBody = await swapBody(alice, second);
    expect((await postSwap(ex, await swapBody(alice, first))).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const res = await postSwap(ex, secondBody);
      expect(res.status).toBe(409);
      expect(res.body).toEqual(typed("QUOTE_STALE"));
    }
    // A fresh quote goes through.
    const fresh = await quote(ex, quoteBody(ex, ALICE, 2_160_000n));
    expect((await postSwap(ex, await swapBody(alice, fresh))).status).toBe(200);
  });

  it("QUOTE_STALE: the taker's vault equity no longer covers an equity-only quote → 409 typed, quote not consumed, nothing frozen", async () => {
    const ex = exchange();
    await book(ex);
    const q = await quote(ex, quoteBody(ex, ALICE));
    expect(q.route_params.initialDepositAmount).toBe("0");
    expect(q.permit).toBeNull();
    const body = await swapBody(alice, q);
    // A bid below Bob's ask (no match) reserves all but 5 of Alice's 1,000,000 USDC: 5 < the 5.4 the quote spends.
    const bid = await place(ex, alice, { side: "bid", amount: "999995", price: "1" });
    const usdc = async () => (await ex.engine.balances(ALICE)).balances.find((r) => r.symbol === "USDC")!;
    const before = await usdc();
    expect(BigInt(before.vault_available)).toBeLessThan(USDC_5_4);
    for (let i = 0; i < 2; i++) {
      const res = await postSwap(ex, body);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ detail: { detail: "vault equity changed since the quote; re-quote and re-submit", error_code: "QUOTE_STALE" } });
    }
    // No swap order, nothing more frozen.
    expect(ex.engine.listOrders(ALICE).map((o) => o.trade_id)).toEqual([bid]);
    expect(await usdc()).toEqual(before);
    // Not consumed: once the equity is back, the same signed quote goes through.
    ex.fund(ALICE, "USDC", 1_000_000n);
    const ok = await postSwap(ex, body);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ success: true, status: "pending" });
  });

  it("QUOTE_STALE: the signed deadline passed before submission (quote still live) → 409 typed, quote not consumed", async () => {
    const ex = exchange();
    await book(ex);
    const q = await quote(ex, quoteBody(ex, ALICE, USDC_5_4, { expiration: ex.clock.nowSec() + 5 }));
    const body = await swapBody(alice, q);
    ex.clock.advanceSec(5);
    for (let i = 0; i < 2; i++) {
      const res = await postSwap(ex, body);
      expect(res.status).toBe(409);
      expect(res.body).toEqual(typed("QUOTE_STALE"));
    }
  });

  it("rate limit: the 6th POST /swap of the taker in one second is 429 (plain), other wallets unaffected", async () => {
    const ex = exchange();
    await book(ex);
    walletOnlyCarol(ex);
    const quotes: QuoteWire[] = [];
    for (let i = 0; i < 6; i++) quotes.push(await quote(ex, quoteBody(ex, ALICE, 1_080_000n)));
    const bodies = await Promise.all(quotes.map((q) => swapBody(alice, q)));
    const statuses: number[] = [];
    for (const b of bodies.slice(0, 5)) statuses.push((await postSwap(ex, b)).status);
    expect(statuses).toEqual([200, 409, 409, 409, 409]);
    const limited = await postSwap(ex, bodies[5]);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ detail: "Rate limit exceeded" });
    // Carol's own budget is untouched.
    const cq = await quote(ex, quoteBody(ex, CAROL, 1_080_000n));
    expect((await postSwap(ex, await swapBody(carol, cq))).status).toBe(200);
    // The next second frees Alice's budget: the (stale) quote is judged again.
    ex.clock.advanceSec(1);
    const later = await postSwap(ex, bodies[5]);
    expect(later.status).toBe(409);
  });

  it("GET /swap is 405", async () => {
    const ex = exchange();
    const res = await request(ex.app).get("/api/v1/swap");
    expect(res.status).toBe(405);
  });
});

describe("POST /swap: contract wallets (EIP-1271)", () => {
  it("a contract taker's signature is verified through isValidSignature", async () => {
    const WALLET = "0x00000000000000000000000000000000000c0de1" as Address;
    const MAGIC = `0x${"77".repeat(70)}` as Hex;
    const seen: Hex[] = [];
    const ex = exchange({
      contractSignatures: {
        isContract: (a) => a === WALLET,
        isValidSignature: (a, digest, sig) => {
          seen.push(digest);
          return a === WALLET && sig === MAGIC;
        },
      },
    });
    await book(ex);
    ex.fund(WALLET, "USDC", 20_000_000n);
    const q = await quote(ex, quoteBody(ex, WALLET));
    const bad = await postSwap(ex, { uuid: q.uuid, signature: `0x${"78".repeat(70)}` });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(typed("TRANSIENT_SETTLEMENT_FAILURE"));
    const ok = await postSwap(ex, { uuid: q.uuid, signature: MAGIC });
    expect(ok.status).toBe(200);
    // The wallet was asked about the Intent digest of route_params.
    const rp = q.route_params;
    const digest = hashTypedData({
      domain: DOMAIN,
      types: { Intent: INTENT_TYPE },
      primaryType: "Intent",
      message: intentMessageOf(rp),
    });
    expect(seen.at(-1)).toBe(digest);
  });
});
