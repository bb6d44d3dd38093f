import { describe, expect, it } from "vitest";
import request from "supertest";
import { EXPIRATION_MAX_AHEAD_SEC } from "../../sim/core/expiration.ts";
import { standaloneUuidInt } from "../../sim/core/uuid-int.ts";
import {
  ALICE,
  BOB,
  CAROL,
  DECIMAL,
  EXECUTOR,
  ISO,
  RAW,
  UUID,
  alice,
  apiKeyFor,
  bob,
  carol,
  exchange,
  orderBody,
  place,
  postOrder,
  signCancel,
  signViaPreview,
  signedOrder,
  type Ex,
} from "./exchange-harness.ts";

const typed = (detail: unknown, code: string) => ({ detail: { detail: expect.any(String), error_code: code, ...(detail as object) } });

async function rejected(ex: Ex, body: unknown) {
  const res = await postOrder(ex, body);
  return { status: res.status, body: res.body as { detail: Record<string, unknown> } };
}

describe("POST /orders: accepted", () => {
  it("answers 201 {order_id} and the order reads back with every field of the spec's Order", async () => {
    const ex = exchange();
    const body = await signedOrder(ex, alice, { side: "ask", amount: "10.5", price: "1.08123" });
    const res = await postOrder(ex, body);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ order_id: body["order_id"] });

    const key = apiKeyFor(ex, ALICE);
    const got = await request(ex.app).get(`/api/v1/orders/${String(body["order_id"])}`).set("Authorization", key);
    expect(got.status).toBe(200);
    const m = ex.registry.marketBySymbol("EURC/USDC")!;
    const o = got.body as Record<string, unknown>;
    expect(Object.keys(o).sort()).toEqual(
      [
        "trade_id", "owner_address", "status", "order_type", "symbol", "base_symbol", "quote_symbol", "side", "base_token",
        "quote_token", "price", "amount", "remaining_amount", "filled_base_amount", "filled_quote_amount", "notional",
        "remaining_notional", "from_token", "to_token", "from_amount", "to_amount", "filled_amount", "created_at",
        "updated_at", "expiration", "error", "error_code", "uuid_int", "vl_batch_id", "settlement_summary", "settlement_economics",
      ].sort(),
    );
    expect(o).toMatchObject({
      trade_id: body["order_id"],
      owner_address: ALICE,
      status: "pending",
      order_type: "limit",
      symbol: "EURC/USDC",
      base_symbol: "EURC",
      quote_symbol: "USDC",
      side: "ask",
      base_token: m.base,
      quote_token: m.quote,
      price: "1.08123",
      amount: "10.5",
      remaining_amount: "10.5",
      filled_base_amount: "0",
      filled_quote_amount: "0",
      notional: "11.352915",
      remaining_notional: "11.352915",
      from_token: m.base,
      to_token: m.quote,
      from_amount: "10500000",
      to_amount: "11352915",
      filled_amount: "0",
      expiration: String(body["expiration"]),
      error: null,
      error_code: null,
      uuid_int: body["uuid_int"],
      vl_batch_id: null,
    });
    expect(o["created_at"]).toMatch(ISO);
    expect(o["updated_at"]).toMatch(ISO);
    expect(o["created_at"]).toBe(new Date(ex.clock.nowMs()).toISOString());
    expect(o["settlement_summary"]).toEqual({
      status: expect.any(String),
      total_fill_count: 0,
      pending_fill_count: 0,
      settled_fill_count: 0,
      failed_fill_count: 0,
      reverted_fill_count: 0,
      latest_settlement_id: null,
      latest_tx_hash: null,
      latest_parent_status: null,
      latest_fill_settlement_status: null,
      latest_failed_fill_failure_reason: null,
    });
    expect(o["settlement_economics"]).toEqual({
      perspective_order_id: body["order_id"],
      gross_debits: [],
      gross_credits: [],
      balance_debits: [],
      balance_credits: [],
      fees_paid: [],
    });
  });

  it("the 201 is written with the headers of every other JSON answer (Content-Type with charset, exact Content-Length)", async () => {
    const ex = exchange();
    const res = await postOrder(ex, await signedOrder(ex, alice));
    expect(res.status).toBe(201);
    const health = await request(ex.app).get("/api/v1/health");
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.headers["content-type"]).toBe(health.headers["content-type"]);
    expect(res.headers["content-length"]).toBe(String(Buffer.byteLength(res.text)));
  });

  it("a bid spends the quote token: from/to amounts are the signed Order's", async () => {
    const ex = exchange();
    const id = await place(ex, bob, { side: "bid", amount: "20", price: "1.07" });
    const o = ex.engine.getOrder(id);
    const m = ex.registry.marketBySymbol("EURC/USDC")!;
    expect([o.from_token, o.to_token, o.from_amount, o.to_amount]).toEqual([m.quote, m.base, "21400000", "20000000"]);
  });

  it("stores the signature as signed (lowercased), refuses v 0/1 (the contract's ecrecover would), accepts EIP-55 owner addresses", async () => {
    const ex = exchange();
    const body = orderBody(ex, alice, { owner: alice.address });
    const sig = await signViaPreview(ex, alice, body);
    const v = Number.parseInt(sig.slice(130), 16);
    const low = `${sig.slice(0, 130)}${(v - 27).toString(16).padStart(2, "0")}`;
    const refused = await postOrder(ex, { ...body, signature: low });
    expect(refused.status).toBe(400);
    expect(refused.body.detail.error_code).toBe("TRANSIENT_SETTLEMENT_FAILURE");
    const res = await postOrder(ex, { ...body, signature: sig.toUpperCase().replace("0X", "0x") });
    expect(res.status).toBe(201);
    const rec = ex.engine.orderRecord(String(body["order_id"]));
    expect(rec.signature).toBe(sig.toLowerCase());
    expect(rec.owner).toBe(ALICE);
  });

  it("an order that crosses a resting order fills on arrival", async () => {
    const ex = exchange();
    const ask = await place(ex, alice, { side: "ask", amount: "10", price: "1.08" });
    const bid = await place(ex, bob, { side: "bid", amount: "10", price: "1.09" });
    expect(ex.engine.getOrder(ask).status).toBe("matched");
    expect(ex.engine.getOrder(bid).remaining_amount).toBe("0");
  });

  it("verifies contract wallets through EIP-1271 when ECDSA does not recover the owner", async () => {
    const wallet = "0x00000000000000000000000000000000000c0ffe";
    const seen: string[] = [];
    const ex = exchange({
      contractSignatures: {
        isContract: (a) => a === wallet,
        isValidSignature: (a, _d, s) => {
          seen.push(a);
          return s === "0xc0ffee";
        },
      },
    });
    ex.fund(wallet, "EURC", 100_000_000n);
    const body = orderBody(ex, alice, { owner: wallet });
    expect((await postOrder(ex, { ...body, signature: "0xc0ffee" })).status).toBe(201);
    const bad = orderBody(ex, alice, { owner: wallet });
    const res = await postOrder(ex, { ...bad, signature: "0xbad0" });
    expect(res.status).toBe(400);
    expect(res.body.detail.error_code).toBe("TRANSIENT_SETTLEMENT_FAILURE");
    expect(seen).toEqual([wallet, wallet]);
  });
});

describe("POST /orders: validated once, re-validated when its inputs move", () => {
  // The route validates the body before the signature check and places that result;
  // a clock or executor change during an (asynchronous) EIP-1271 check must still be
  // judged on the state at placement, as before.
  const wallet = "0x00000000000000000000000000000000000c0ffe";
  function slowWallet(during: (ex: Ex) => void): Ex {
    let ex: Ex | undefined;
    ex = exchange({
      contractSignatures: {
        isContract: (a) => a === wallet,
        isValidSignature: async () => {
          during(ex!);
          return true;
        },
      },
    });
    ex.fund(wallet, "EURC", 100_000_000n);
    return ex;
  }

  // Both causes answer 400 QUOTE_STALE on the wire (the live service's code for them).
  it("the clock passing the expiration during the check → 400 QUOTE_STALE, nothing placed", async () => {
    const ex = slowWallet((e) => e.clock.advanceSec(2));
    const body = orderBody(ex, alice, { owner: wallet, expiration: ex.clock.nowSec() + 1 });
    const res = await postOrder(ex, { ...body, signature: "0xc0ffee" });
    expect(res.status).toBe(400);
    expect(res.body.detail.error_code).toBe("QUOTE_STALE");
    expect(ex.engine.listOrders(wallet)).toEqual([]);
  });

  it("an executor rotation during the check → 400 QUOTE_STALE; unchanged inputs → 201", async () => {
    const rotating = slowWallet((e) => e.engine.setExecutorId((EXECUTOR + 1) % 16));
    const res = await postOrder(rotating, { ...orderBody(rotating, alice, { owner: wallet }), signature: "0xc0ffee" });
    expect(res.status).toBe(400);
    expect(res.body.detail.error_code).toBe("QUOTE_STALE");
    expect(rotating.engine.listOrders(wallet)).toEqual([]);
    const steady = slowWallet(() => {});
    const ok = await postOrder(steady, { ...orderBody(steady, alice, { owner: wallet }), signature: "0xC0FFEE" });
    expect(ok.status).toBe(201);
    expect(steady.engine.orderRecord(String(ok.body.order_id)).signature).toBe("0xc0ffee");
  });
});

describe("POST /orders: rejections (typed envelope on every 4xx)", () => {
  it("400 signature mismatch (wire code: the catch-all): another key, another Order, junk bytes", async () => {
    const ex = exchange();
    const body = orderBody(ex, alice);
    const byBob = await signViaPreview(ex, bob, { ...body, owner_address: BOB });
    const other = await signViaPreview(ex, alice, { ...body, amount: "11" });
    for (const signature of [byBob, other, "0x1234", `0x${"11".repeat(65)}`]) {
      const r = await rejected(ex, { ...body, signature });
      expect(r.status).toBe(400);
      expect(r.body).toEqual(typed({}, "TRANSIENT_SETTLEMENT_FAILURE"));
    }
    expect(ex.engine.listOrders(ALICE)).toEqual([]);
  });

  it("400 when the signature is missing or not a string; 422 on malformed JSON", async () => {
    const ex = exchange();
    const body = orderBody(ex, alice);
    for (const [b, detail] of [[body, "signature is required"], [{ ...body, signature: 7 }, "signature must be a hex string"]] as const) {
      const r = await rejected(ex, b);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ detail: { detail, error_code: "TRANSIENT_SETTLEMENT_FAILURE" } });
    }
    const bad = await request(ex.app).post("/api/v1/orders").set("Content-Type", "application/json").send("{not json");
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({ detail: { detail: "Request body is not valid JSON", error_code: "TRANSIENT_SETTLEMENT_FAILURE" } });
    const arr = await rejected(ex, [1, 2]);
    expect(arr.status).toBe(400);
    expect(arr.body.detail["error_code"]).toBe("TRANSIENT_SETTLEMENT_FAILURE");
  });

  it("a JSON array is not an order body: 400 saying so, not a complaint about its missing signature", async () => {
    const ex = exchange();
    const arr = await rejected(ex, [orderBody(ex, alice)]);
    expect(arr.status).toBe(400);
    expect(arr.body).toEqual({ detail: { detail: "request body must be a JSON object", error_code: "TRANSIENT_SETTLEMENT_FAILURE" } });
  });

  it("client_id and fee_bps are refused", async () => {
    const ex = exchange();
    const body = await signedOrder(ex, alice);
    for (const extra of [{ client_id: "x" }, { fee_bps: 0 }]) {
      const r = await rejected(ex, { ...body, ...extra });
      expect(r.status).toBe(400);
      expect(r.body.detail["error_code"]).toBe("TRANSIENT_SETTLEMENT_FAILURE");
    }
  });

  it("client_id and fee_bps are shape errors: named before a missing signature is", async () => {
    const ex = exchange();
    for (const [name, value] of [["client_id", "x"], ["fee_bps", 0]] as const) {
      const r = await rejected(ex, { ...orderBody(ex, alice), [name]: value });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ detail: { detail: `${name} is not accepted`, error_code: "TRANSIENT_SETTLEMENT_FAILURE" } });
    }
  });

  it("a signature that is not hex at all: the same 400 and code, saying so; field checks still come first", async () => {
    const ex = exchange();
    for (const signature of ["", "hello", "0xzz", "c0ffee"]) {
      const r = await rejected(ex, { ...orderBody(ex, alice), signature });
      expect(r.status, signature).toBe(400);
      expect(r.body.detail["error_code"]).toBe("TRANSIENT_SETTLEMENT_FAILURE");
      expect(r.body.detail["detail"]).toBe("Invalid signature: Order must be signed by owner_address (the signature is not 0x-prefixed hex)");
    }
    const first = await rejected(ex, { ...orderBody(ex, alice, { amount: "1e3" }), signature: "hello" });
    expect(first.body.detail["error_code"]).toBe("INVALID_DECIMAL_FORMAT");
  });

  it("INVALID_DECIMAL_FORMAT and INVALID_PRECISION come before signature verification", async () => {
    const ex = exchange();
    const junk = { signature: "0x00" };
    for (const amount of ["1e3", "-1", "1,5", " 10", "010", "0", ".5"]) {
      const r = await rejected(ex, { ...orderBody(ex, alice, { amount }), ...junk });
      expect(r.status, amount).toBe(400);
      expect(r.body).toEqual(typed({}, "INVALID_DECIMAL_FORMAT"));
      expect(r.body.detail["detail"], amount).toMatch(/^amount /);
    }
    const p = await rejected(ex, { ...orderBody(ex, alice, { price: "1.0812345" }), ...junk });
    expect(p.status).toBe(400);
    expect(p.body.detail["error_code"]).toBe("INVALID_PRECISION");
    const a = await rejected(ex, { ...orderBody(ex, alice, { amount: "10.123" }), ...junk });
    expect(a.body.detail["error_code"]).toBe("INVALID_PRECISION");
  });

  it("PAIR_INACTIVE for an inactive market and for the reversed orientation", async () => {
    const ex = exchange();
    const inactive = await rejected(ex, { ...orderBody(ex, alice, { symbol: "EURC/JPYS", price: "160" }), signature: "0x00" });
    expect(inactive.status).toBe(400);
    expect(inactive.body.detail["error_code"]).toBe("PAIR_INACTIVE");
    const b = orderBody(ex, alice);
    const reversed = await rejected(ex, { ...b, from_address: b["to_address"], to_address: b["from_address"], signature: "0x00" });
    expect(reversed.status).toBe(400);
    expect(reversed.body.detail["error_code"]).toBe("PAIR_INACTIVE");
  });

  it("400 AMOUNT_BELOW_MIN carries detail.code and the minimum", async () => {
    const ex = exchange();
    const r = await rejected(ex, { ...orderBody(ex, alice, { amount: "4.99" }), signature: "0x00" });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatchObject({ error_code: "AMOUNT_BELOW_MIN", code: "AMOUNT_BELOW_MIN", detail: expect.any(String) });
  });

  it("expiration: past or now → 400 QUOTE_STALE; missing, zero, beyond 365 days - 300 s, not an integer → 400 catch-all; the bound itself is accepted", async () => {
    const ex = exchange();
    const now = ex.clock.nowSec();
    const cases: [unknown, string][] = [[undefined, "TRANSIENT_SETTLEMENT_FAILURE"], [0, "TRANSIENT_SETTLEMENT_FAILURE"], [now - 1, "QUOTE_STALE"], [now, "QUOTE_STALE"], [now + EXPIRATION_MAX_AHEAD_SEC + 1, "TRANSIENT_SETTLEMENT_FAILURE"], ["soon", "TRANSIENT_SETTLEMENT_FAILURE"]];
    for (const [expiration, code] of cases) {
      const b = { ...orderBody(ex, alice), expiration, signature: "0x00" };
      const r = await rejected(ex, b);
      expect(r.status, String(expiration)).toBe(400);
      expect(r.body.detail["error_code"], String(expiration)).toBe(code);
      expect(r.body.detail["detail"]).toContain("expiration");
    }
    const ok = await postOrder(ex, await signedOrder(ex, alice, { expiration: now + EXPIRATION_MAX_AHEAD_SEC }));
    expect(ok.status).toBe(201);
  });

  it("400 uuid_int mismatch: another executor → QUOTE_STALE; another order's id or a VL leg id → catch-all", async () => {
    const ex = exchange();
    const b = orderBody(ex, alice);
    const id = String(b["order_id"]);
    const cases: [bigint, string][] = [
      [standaloneUuidInt(ex.newId(), EXECUTOR), "TRANSIENT_SETTLEMENT_FAILURE"],
      [standaloneUuidInt(id, EXECUTOR + 1), "QUOTE_STALE"],
      [standaloneUuidInt(id, EXECUTOR) + 1n, "TRANSIENT_SETTLEMENT_FAILURE"],
    ];
    for (const [uuidInt, code] of cases) {
      const r = await rejected(ex, { ...b, uuid_int: uuidInt.toString(), signature: "0x00" });
      expect(r.status).toBe(400);
      expect(r.body.detail["error_code"]).toBe(code);
      expect(r.body.detail["detail"]).toContain("uuid_int");
    }
  });

  it("a signature made before an executor rotation stops validating (uuid_int carries the old executor)", async () => {
    const ex = exchange();
    const body = await signedOrder(ex, alice);
    ex.engine.setExecutorId(EXECUTOR + 1);
    const r = await rejected(ex, body);
    expect(r.status).toBe(400);
    // a rotated executor id: "request fresh ... order"
    expect(r.body.detail["error_code"]).toBe("QUOTE_STALE");
  });

  it("400 INSUFFICIENT_EQUITY for a correctly signed order the vault cannot cover", async () => {
    const ex = exchange();
    const r = await rejected(ex, await signedOrder(ex, carol));
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatchObject({ error_code: "INSUFFICIENT_EQUITY" });
    expect(ex.engine.listOrders(CAROL)).toEqual([]);
  });

  it("409 STP_BLOCKED (typed) when the order would match the owner's own resting order", async () => {
    const ex = exchange();
    const resting = await place(ex, alice, { side: "ask", price: "1.08" });
    const r = await rejected(ex, await signedOrder(ex, alice, { side: "bid", price: "1.09" }));
    expect(r.status).toBe(409);
    // Exactly the spec's two keys (the simulator's resting_order_id stays off the wire); the text names the order.
    expect(r.body).toEqual(typed({}, "STP_BLOCKED"));
    expect(r.body.detail["detail"]).toContain(resting);
  });

  it("409 when the order_id was used before", async () => {
    const ex = exchange();
    const body = await signedOrder(ex, alice);
    expect((await postOrder(ex, body)).status).toBe(201);
    ex.clock.advanceSec(1);
    const again = await rejected(ex, body);
    expect(again.status).toBe(409);
    expect(again.body.detail["error_code"]).toBe("TRANSIENT_SETTLEMENT_FAILURE");
  });

  it("429 plain after 5 orders of one wallet within a second (trade group); the next second admits again", async () => {
    const ex = exchange();
    const bodies = [];
    for (let i = 0; i < 7; i++) bodies.push(await signedOrder(ex, alice, { price: `1.0${i + 1}` }));
    for (let i = 0; i < 5; i++) expect((await postOrder(ex, bodies[i])).status).toBe(201);
    const limited = await postOrder(ex, bodies[5]);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ detail: "Rate limit exceeded" });
    expect(limited.headers["retry-after"]).toBe("1");
    // Another wallet has its own budget; a bad signature does not spend alice's.
    expect((await postOrder(ex, await signedOrder(ex, bob, { price: "1.2" }))).status).toBe(201);
    ex.clock.advanceSec(1);
    expect((await postOrder(ex, bodies[6])).status).toBe(201);
  });

  it("503 with Retry-After while the EIP-712 domain is not configured", async () => {
    const ex = exchange();
    const body = await signedOrder(ex, alice);
    ex.configInputs.chainId = null;
    const r = await postOrder(ex, body);
    expect(r.status).toBe(503);
    expect(r.headers["retry-after"]).toBe("1");
    expect(r.body).toEqual({ detail: "Service temporarily unavailable; please retry" });
  });
});

describe("POST /orders/cancel", () => {
  async function cancelBody(ex: Ex, account = alice, f: { orderId: string; uuidInt?: string; signWith?: typeof alice }) {
    const o = ex.engine.orderRecord(f.orderId);
    const uuidInt = f.uuidInt ?? o.uuidInt.toString();
    return {
      owner_address: account.address.toLowerCase(),
      order_id: f.orderId,
      uuid_int: uuidInt,
      signature: await signCancel(f.signWith ?? account, uuidInt),
    };
  }
  const cancel = (ex: Ex, body: unknown) => request(ex.app).post("/api/v1/orders/cancel").send(body as object);

  it("429 CANCEL_COOLDOWN (typed) inside the 5-minute cooldown, then 200 {status: ok}; a replay is 409", async () => {
    const ex = exchange();
    const id = await place(ex, alice);
    const body = await cancelBody(ex, alice, { orderId: id });
    const early = await cancel(ex, body);
    expect(early.status).toBe(429);
    expect(early.body).toEqual({ detail: { detail: expect.stringMatching(/cooldown/), error_code: "CANCEL_COOLDOWN" } });
    expect(ex.engine.getOrder(id).status).toBe("pending");
    ex.clock.advanceSec(300);
    const ok = await cancel(ex, body);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ status: "ok" });
    expect(ex.engine.getOrder(id).status).toBe("cancelled");
    ex.clock.advanceSec(1);
    const replay = await cancel(ex, body);
    expect(replay.status).toBe(409);
    expect(replay.body).toEqual({ detail: expect.stringMatching(/cancelled/) });
  });

  it("400 for a signature by another key or over another orderId", async () => {
    const ex = exchange();
    const id = await place(ex, alice);
    ex.clock.advanceSec(300);
    const byBob = await cancelBody(ex, alice, { orderId: id, signWith: bob });
    const r1 = await cancel(ex, byBob);
    expect(r1.status).toBe(400);
    expect(r1.body).toEqual({ detail: "Invalid signature: CancelOrder must be signed by owner_address" });
    const good = await cancelBody(ex, alice, { orderId: id });
    const r2 = await cancel(ex, { ...good, signature: await signCancel(alice, 12345n) });
    expect(r2.status).toBe(400);
    expect(ex.engine.getOrder(id).status).toBe("pending");
  });

  it("404 unknown order, 403 another wallet's order, 400 uuid_int not the order's", async () => {
    const ex = exchange();
    const id = await place(ex, alice);
    ex.clock.advanceSec(300);
    const unknownId = ex.newId();
    const u = standaloneUuidInt(unknownId, EXECUTOR).toString();
    const r404 = await cancel(ex, { owner_address: ALICE, order_id: unknownId, uuid_int: u, signature: await signCancel(alice, u) });
    expect(r404.status).toBe(404);
    const o = ex.engine.orderRecord(id);
    const r403 = await cancel(ex, { owner_address: BOB, order_id: id, uuid_int: o.uuidInt.toString(), signature: await signCancel(bob, o.uuidInt) });
    expect(r403.status).toBe(403);
    const wrong = (o.uuidInt + 1n).toString();
    const r400 = await cancel(ex, { owner_address: ALICE, order_id: id, uuid_int: wrong, signature: await signCancel(alice, wrong) });
    expect(r400.status).toBe(400);
    expect(r400.body.detail).toMatch(/uuid_int/);
    expect(ex.engine.getOrder(id).status).toBe("pending");
  });

  it("422 for a missing or ill-typed field, and malformed JSON", async () => {
    const ex = exchange();
    const id = await place(ex, alice);
    const good = await cancelBody(ex, alice, { orderId: id });
    const malformed = [
      { ...good, uuid_int: undefined },
      { ...good, uuid_int: 5 },
      // Non-integer and over-range strings are field errors, not server errors.
      { ...good, uuid_int: "1.5" },
      { ...good, uuid_int: "-1" },
      { ...good, uuid_int: (1n << 256n).toString() },
      { ...good, order_id: "nope" },
      { ...good, owner_address: "0x12" },
    ];
    for (const b of malformed) {
      const r = await cancel(ex, b);
      expect(r.status).toBe(422);
      expect(typeof r.body.detail).toBe("string");
    }
    const bad = await request(ex.app).post("/api/v1/orders/cancel").set("Content-Type", "application/json").send("{");
    expect(bad.status).toBe(422);
  });

  it("accepts an EIP-55 owner_address (signed payloads accept checksum addresses): 200 {status: ok}", async () => {
    const ex = exchange();
    const id = await place(ex, alice);
    ex.clock.advanceSec(300);
    const body = { ...(await cancelBody(ex, alice, { orderId: id })), owner_address: alice.address };
    expect(alice.address).not.toBe(ALICE);
    const r = await cancel(ex, body);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: "ok" });
    expect(ex.engine.getOrder(id).status).toBe("cancelled");
  });

  it("429 plain after 2 cancels of one wallet within a second (cancel group)", async () => {
    const ex = exchange();
    const ids = [await place(ex, alice), await place(ex, alice, { price: "1.1" }), await place(ex, alice, { price: "1.2" })];
    ex.clock.advanceSec(300);
    const bodies = await Promise.all(ids.map((orderId) => cancelBody(ex, alice, { orderId })));
    expect((await cancel(ex, bodies[0])).status).toBe(200);
    expect((await cancel(ex, bodies[1])).status).toBe(200);
    const r = await cancel(ex, bodies[2]);
    expect(r.status).toBe(429);
    expect(r.body).toEqual({ detail: "Rate limit exceeded" });
    expect(ex.engine.getOrder(ids[2]!).status).toBe("pending");
  });
});

describe("DELETE /orders/cancel-all", () => {
  const url = (owner: string) => `/api/v1/orders/cancel-all?owner_address=${owner}`;

  it("cancels what is out of its cooldown, skips the rest, reports them", async () => {
    const ex = exchange();
    const old = await place(ex, alice);
    ex.clock.advanceSec(300);
    const fresh = await place(ex, alice, { price: "1.1" });
    await place(ex, bob, { price: "1.2" });
    const key = apiKeyFor(ex, ALICE);
    const r = await request(ex.app).delete(url(ALICE)).set("Authorization", key);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ cancelled: [old], failed: [], skipped_cooldown: [fresh], total: 1 });
    expect(ex.engine.getOrder(old).status).toBe("cancelled");
    expect(ex.engine.getOrder(fresh).status).toBe("pending");
  });

  it("401 without or with a bad key, 403 for another owner, 422 without owner_address, 429 on the 3rd call in a second", async () => {
    const ex = exchange();
    const key = apiKeyFor(ex, ALICE);
    expect((await request(ex.app).delete(url(ALICE))).status).toBe(401);
    const bad = await request(ex.app).delete(url(ALICE)).set("Authorization", `${key}x`);
    expect(bad.status).toBe(401);
    expect(typeof bad.body.detail).toBe("string");
    const other = await request(ex.app).delete(url(BOB)).set("Authorization", key);
    expect(other.status).toBe(403);
    ex.clock.advanceSec(1);
    // Read endpoints compare owner_address case-sensitively (spec Conventions).
    expect((await request(ex.app).delete(url(alice.address)).set("Authorization", key)).status).toBe(403);
    expect((await request(ex.app).delete("/api/v1/orders/cancel-all").set("Authorization", key)).status).toBe(422);
    ex.clock.advanceSec(1);
    expect((await request(ex.app).delete(url(ALICE)).set("Authorization", key)).status).toBe(200);
    expect((await request(ex.app).delete(url(ALICE)).set("Authorization", key)).status).toBe(200);
    const limited = await request(ex.app).delete(url(ALICE)).set("Authorization", key);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ detail: "Rate limit exceeded" });
  });
});

describe("GET /orders/{order_id}", () => {
  it("401 without a key, 404 for an unknown or another wallet's order", async () => {
    const ex = exchange();
    const id = await place(ex, alice);
    expect((await request(ex.app).get(`/api/v1/orders/${id}`)).status).toBe(401);
    const bobKey = apiKeyFor(ex, BOB);
    const foreign = await request(ex.app).get(`/api/v1/orders/${id}`).set("Authorization", bobKey);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ detail: expect.any(String) });
    const unknown = await request(ex.app).get(`/api/v1/orders/${ex.newId()}`).set("Authorization", bobKey);
    expect(unknown.status).toBe(404);
  });

  it("GET /orders/preview and GET /orders/cancel are 405 (known paths), not order lookups", async () => {
    const ex = exchange();
    const key = apiKeyFor(ex, ALICE);
    for (const p of ["preview", "cancel", "cancel-all"]) {
      const r = await request(ex.app).get(`/api/v1/orders/${p}`).set("Authorization", key);
      expect(r.status, p).toBe(405);
      expect(r.body).toEqual({ detail: "Method Not Allowed" });
    }
    expect((await request(ex.app).put("/api/v1/orders").send({})).status).toBe(405);
  });

  it("429 on the 11th read of one wallet within a second (read group)", async () => {
    const ex = exchange();
    const id = await place(ex, alice);
    const key = apiKeyFor(ex, ALICE);
    for (let i = 0; i < 10; i++) expect((await request(ex.app).get(`/api/v1/orders/${id}`).set("Authorization", key)).status).toBe(200);
    const r = await request(ex.app).get(`/api/v1/orders/${id}`).set("Authorization", key);
    expect(r.status).toBe(429);
    expect(r.body).toEqual({ detail: "Rate limit exceeded" });
  });

  it("amounts are strings: raw integers and decimals", async () => {
    const ex = exchange();
    const id = await place(ex, alice, { amount: "12.34", price: "1.2" });
    const r = await request(ex.app).get(`/api/v1/orders/${id}`).set("Authorization", apiKeyFor(ex, ALICE));
    for (const f of ["from_amount", "to_amount", "filled_amount", "uuid_int", "expiration"]) expect(r.body[f], f).toMatch(RAW);
    for (const f of ["price", "amount", "remaining_amount", "notional", "remaining_notional"]) expect(r.body[f], f).toMatch(DECIMAL);
    expect(r.body.trade_id).toMatch(UUID);
  });
});

