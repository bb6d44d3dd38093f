import { beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { ALICE, BOB, alice, apiKeyFor, bob, exchange, place, signCancel, vlLegs, type Ex } from "./exchange-harness.ts";

// Alice's book, placed one virtual second apart:
//   a1 ask EURC/USDC 10 @ 1.08   → filled by bob, the fill reverts on chain: error set
//   a2 bid EURC/USDC 20 @ 1.00   → cancelled
//   a3 ask GBPT/USDC  6 @ 1.27   → pending
//   a4 ask USDC/JPYS 10 @ 152.35 → pending
let ex: Ex;
let key: string;
let a1: string, a2: string, a3: string, a4: string, b1: string;
let t0: number;

beforeAll(async () => {
  ex = exchange();
  ex.engine.setFaultPlan({ revertFills: [{ fill: 1, reason: "InsufficientBalance" }] });
  t0 = ex.clock.nowMs();
  a1 = await place(ex, alice, { side: "ask", amount: "10", price: "1.08" });
  a2 = await place(ex, alice, { side: "bid", amount: "20", price: "1" });
  a3 = await place(ex, alice, { symbol: "GBPT/USDC", side: "ask", amount: "6", price: "1.27" });
  a4 = await place(ex, alice, { symbol: "USDC/JPYS", side: "ask", amount: "10", price: "152.35" });
  b1 = await place(ex, bob, { side: "bid", amount: "10", price: "1.08" });
  await ex.engine.settleAll();
  ex.clock.advanceSec(300);
  const u = ex.engine.orderRecord(a2).uuidInt.toString();
  const c = await request(ex.app)
    .post("/api/v1/orders/cancel")
    .send({ owner_address: ALICE, order_id: a2, uuid_int: u, signature: await signCancel(alice, u) });
  if (c.status !== 200) throw new Error(JSON.stringify(c.body));
  key = apiKeyFor(ex, ALICE);
});

async function list(query: string, auth: string | null = key) {
  // Each call is its own virtual second: the read group allows 10 per second.
  ex.clock.advanceSec(1);
  const r = request(ex.app).get(`/api/v1/orders?owner_address=${ALICE}${query}`);
  return auth ? r.set("Authorization", auth) : r;
}
async function ids(query: string): Promise<{ ids: string[]; total: number }> {
  const r = await list(query);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { ids: (r.body.trades as { trade_id: string }[]).map((t) => t.trade_id), total: r.body.total as number };
}

describe("GET /orders", () => {
  it("defaults: the owner's orders only, newest first, total = all", async () => {
    const r = await list("");
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["total", "trades"]);
    expect(await ids("")).toEqual({ ids: [a4, a3, a2, a1], total: 4 });
    expect((r.body.trades as { owner_address: string }[]).every((t) => t.owner_address === ALICE)).toBe(true);
    expect(ex.engine.getOrder(a1).status).not.toBe("pending");
  });

  it("status, type, side", async () => {
    expect(await ids("&status=cancelled")).toEqual({ ids: [a2], total: 1 });
    expect(await ids("&status=pending")).toEqual({ ids: [a4, a3], total: 2 });
    expect(await ids("&type=limit")).toEqual({ ids: [a4, a3, a2, a1], total: 4 });
    expect(await ids("&type=swap")).toEqual({ ids: [], total: 0 });
    expect(await ids("&side=bid")).toEqual({ ids: [a2], total: 1 });
    expect(await ids("&side=ask&status=pending")).toEqual({ ids: [a4, a3], total: 2 });
  });

  it("symbol (case-insensitive label search), base/quote currency", async () => {
    expect(await ids("&symbol=eurc")).toEqual({ ids: [a2, a1], total: 2 });
    expect(await ids("&symbol=USDC/JPYS")).toEqual({ ids: [a4], total: 1 });
    expect(await ids("&base_currency=gbpt")).toEqual({ ids: [a3], total: 1 });
    expect(await ids("&quote_currency=USDC")).toEqual({ ids: [a3, a2, a1], total: 3 });
  });

  it("from_token, to_token, base_token, quote_token (any letter case)", async () => {
    const eurc = ex.registry.tokenBySymbol("EURC")!.address;
    const usdc = ex.registry.tokenBySymbol("USDC")!.address;
    expect(await ids(`&from_token=${usdc}`)).toEqual({ ids: [a4, a2], total: 2 });
    expect(await ids(`&to_token=${usdc}`)).toEqual({ ids: [a3, a1], total: 2 });
    expect(await ids(`&base_token=${eurc.toUpperCase().replace("0X", "0x")}`)).toEqual({ ids: [a2, a1], total: 2 });
    expect(await ids(`&quote_token=${usdc}`)).toEqual({ ids: [a3, a2, a1], total: 3 });
  });

  it("trade_ids, search, has_error", async () => {
    expect(await ids(`&trade_ids=${a1},%20${a3.toUpperCase()}`)).toEqual({ ids: [a3, a1], total: 2 });
    expect(await ids(`&search=${a4.slice(0, 8)}`)).toEqual({ ids: [a4], total: 1 });
    expect(await ids("&search=JPYS")).toEqual({ ids: [a4], total: 1 });
    expect(ex.engine.getOrder(a1).error).not.toBeNull();
    expect(await ids("&has_error=true")).toEqual({ ids: [a1], total: 1 });
    expect(await ids("&has_error=false")).toEqual({ ids: [a4, a3, a2], total: 3 });
  });

  it("has_error: an order settled after a reverted fill keeps that fill's revert reason (error set, error_code null) and counts as errored", async () => {
    const ex2 = exchange();
    ex2.engine.setFaultPlan({ revertFills: [{ fill: 1, reason: "PRICE_MISMATCH" }] });
    const ask = await place(ex2, alice, { side: "ask", amount: "20", price: "1.08" });
    await place(ex2, bob, { side: "bid", amount: "10", price: "1.08" });
    await ex2.engine.settleAll();
    await place(ex2, bob, { side: "bid", amount: "20", price: "1.08" });
    await ex2.engine.settleAll();
    const o = ex2.engine.getOrder(ask);
    expect([o.status, o.error, o.error_code]).toEqual(["settled", "PRICE_MISMATCH", null]);
    const key2 = apiKeyFor(ex2, ALICE);
    const errored = async (flag: string) => {
      ex2.clock.advanceSec(1);
      const r = await request(ex2.app).get(`/api/v1/orders?owner_address=${ALICE}&has_error=${flag}`).set("Authorization", key2);
      return (r.body as { trades: { trade_id: string }[] }).trades.map((t) => t.trade_id);
    };
    expect(await errored("true")).toEqual([ask]);
    expect(await errored("false")).toEqual([]);
  });

  it("range filters compare values exactly, bounds inclusive", async () => {
    expect(await ids("&min_price=1.08&max_price=1.27")).toEqual({ ids: [a3, a1], total: 2 });
    expect(await ids("&min_amount=10")).toEqual({ ids: [a4, a2, a1], total: 3 });
    expect(await ids("&max_amount=9.99")).toEqual({ ids: [a3], total: 1 });
    expect(await ids("&min_notional=20&max_notional=1000")).toEqual({ ids: [a2], total: 1 });
    expect(await ids("&min_remaining_amount=6.01")).toEqual({ ids: [a4, a2], total: 2 });
    // a1 left the book through its (reverted) fill: its remaining amount is below 6 as well.
    expect(Number(ex.engine.getOrder(a1).remaining_amount)).toBeLessThan(6);
    expect(await ids("&max_remaining_amount=6")).toEqual({ ids: [a3, a1], total: 2 });
    const filled = ex.engine.getOrder(a1).filled_amount;
    expect(await ids(`&min_filled_amount=${filled}`)).toEqual(filled === "0" ? { ids: [a4, a3, a2, a1], total: 4 } : { ids: [a1], total: 1 });
    expect(await ids("&min_filled_amount=0")).toEqual({ ids: [a4, a3, a2, a1], total: 4 });
  });

  it("created_/updated_ after/before take ISO 8601 or Unix seconds", async () => {
    const second = new Date(t0 + 1000).toISOString();
    expect(await ids(`&created_after=${second}`)).toEqual({ ids: [a4, a3, a2], total: 3 });
    expect(await ids(`&created_before=${(t0 + 1000) / 1000}`)).toEqual({ ids: [a2, a1], total: 2 });
    expect(await ids(`&created_after=${(t0 + 1000) / 1000}&created_before=${new Date(t0 + 2000).toISOString()}`)).toEqual({ ids: [a3, a2], total: 2 });
    const cancelledAt = ex.engine.getOrder(a2).updated_at;
    expect(await ids(`&updated_after=${cancelledAt}`)).toEqual({ ids: [a2], total: 1 });
    expect((await list("&created_after=yesterday")).status).toBe(422);
    // A day the month does not have is refused, not rolled over (02-31 read as 03-03 before).
    for (const bad of ["2026-02-31T00:00:00Z", "2026-04-31", "2025-02-29"]) expect([bad, (await list(`&created_before=${bad}`)).status]).toEqual([bad, 422]);
    expect((await list("&created_before=2024-02-29")).status).toBe(200);
    // Digits past the millisecond still order the bound: 1 ns after a2's millisecond is after a2.
    const a2At = ex.engine.getOrder(a2).created_at;
    expect(await ids(`&created_after=${a2At}`)).toMatchObject({ total: 3 });
    expect(await ids(`&created_after=${a2At.replace("Z", "000001Z")}`)).toMatchObject({ total: 2 });
    // The same in Unix seconds; and years before 100 are dates too (Go's zero time).
    const a2Sec = Date.parse(a2At) / 1000;
    expect(await ids(`&created_after=${a2Sec.toFixed(3)}`)).toMatchObject({ total: 3 });
    expect(await ids(`&created_after=${a2Sec.toFixed(3)}000001`)).toMatchObject({ total: 2 });
    expect((await list("&created_after=0001-01-01T00:00:00Z")).status).toBe(200);
  });

  it("a date-time without a zone is UTC, whatever the server's local zone: a3's created_at without its Z includes a3, 1 ms later excludes it", async () => {
    const a3At = ex.engine.getOrder(a3).created_at;
    expect(a3At).toMatch(/\.\d{3}Z$/);
    const noZone = a3At.slice(0, -1);
    const oneMsLater = new Date(Date.parse(a3At) + 1).toISOString().slice(0, -1);
    // A local zone away from UTC (on a UTC machine, reading local time would look right).
    const tz = process.env["TZ"];
    process.env["TZ"] = "America/New_York";
    try {
      expect(new Date(Date.UTC(2026, 0, 1)).getTimezoneOffset()).not.toBe(0);
      expect(await ids(`&created_after=${noZone}`)).toEqual({ ids: [a4, a3], total: 2 });
      expect(await ids(`&created_before=${noZone}`)).toEqual({ ids: [a3, a2, a1], total: 3 });
      expect(await ids(`&created_after=${oneMsLater}`)).toEqual({ ids: [a4], total: 1 });
      // The space separator ISO 8601 allows reads the same.
      expect(await ids(`&created_after=${noZone.replace("T", "%20")}`)).toEqual({ ids: [a4, a3], total: 2 });
    } finally {
      if (tz === undefined) delete process.env["TZ"];
      else process.env["TZ"] = tz;
    }
  });

  it("sort_by any field (numbers by value), order asc/desc", async () => {
    expect(await ids("&sort_by=amount&order=asc")).toEqual({ ids: [a3, a1, a4, a2], total: 4 });
    expect(await ids("&sort_by=amount")).toEqual({ ids: [a2, a4, a1, a3], total: 4 });
    expect(await ids("&sort_by=price&order=asc")).toEqual({ ids: [a2, a1, a3, a4], total: 4 });
    expect(await ids("&sort_by=symbol&order=asc")).toEqual({ ids: [a1, a2, a3, a4], total: 4 });
    expect(await ids("&order=asc")).toEqual({ ids: [a1, a2, a3, a4], total: 4 });
    const r = await list("&sort_by=settlement_summary");
    expect(r.status).toBe(422);
    expect((await list("&order=up")).status).toBe(422);
  });

  it("sort_by a nullable field (error_code, error): null first ascending, last descending (the exact mirror); ties keep placement order", async () => {
    // a1's fill reverted: it alone carries an error and an error_code.
    expect(ex.engine.getOrder(a1).error_code).not.toBeNull();
    for (const id of [a2, a3, a4]) expect(ex.engine.getOrder(id)).toMatchObject({ error: null, error_code: null });
    for (const field of ["error_code", "error"]) {
      expect(await ids(`&sort_by=${field}&order=asc`)).toEqual({ ids: [a2, a3, a4, a1], total: 4 });
      expect(await ids(`&sort_by=${field}&order=desc`)).toEqual({ ids: [a1, a4, a3, a2], total: 4 });
      expect(await ids(`&sort_by=${field}`)).toEqual({ ids: [a1, a4, a3, a2], total: 4 });
    }
  });

  it("sort_by vl_batch_id: the standalone order (null) first ascending, last descending", async () => {
    const own = exchange();
    const solo = await place(own, alice, { side: "ask", amount: "10", price: "1.5" });
    const legs = await vlLegs(own, alice, [
      { symbol: "EURC/USDC", side: "ask", amount: "10", price: "1.4" },
      { symbol: "EURC/GBPT", side: "ask", amount: "10", price: "1.2" },
    ]);
    const v = await request(own.app).post("/api/v1/orders/vl/batch").send({ orders: legs });
    expect(v.status, JSON.stringify(v.body)).toBe(201);
    const [l0, l1] = v.body.order_ids as [string, string];
    const ownKey = apiKeyFor(own, ALICE);
    const sorted = async (order: string) => {
      own.clock.advanceSec(1);
      const r = await request(own.app).get(`/api/v1/orders?owner_address=${ALICE}&sort_by=vl_batch_id&order=${order}`).set("Authorization", ownKey);
      expect(r.status).toBe(200);
      return (r.body.trades as { trade_id: string; vl_batch_id: string | null }[]).map((t) => [t.trade_id, t.vl_batch_id]);
    };
    expect(await sorted("asc")).toEqual([[solo, null], [l0, l0], [l1, l0]]);
    expect(await sorted("desc")).toEqual([[l1, l0], [l0, l0], [solo, null]]);
  });

  it("limit/offset page after filtering and sorting; total counts the whole match", async () => {
    expect(await ids("&limit=2")).toEqual({ ids: [a4, a3], total: 4 });
    expect(await ids("&limit=2&offset=1")).toEqual({ ids: [a3, a2], total: 4 });
    expect(await ids("&offset=10")).toEqual({ ids: [], total: 4 });
    // Any offset up to 2^53 is a page (an empty one); past it the message names the bound.
    expect(await ids("&offset=1000000000")).toEqual({ ids: [], total: 4 });
    const huge = await list("&offset=99999999999999999");
    expect(huge.status).toBe(422);
    expect(huge.body.detail).toContain("must be at most 9007199254740991");
    expect(await ids("&status=pending&limit=1&offset=1")).toEqual({ ids: [a3], total: 2 });
    expect(await ids("&limit=500")).toEqual({ ids: [a4, a3, a2, a1], total: 4 });
    for (const q of ["&limit=501", "&limit=0", "&offset=-1", "&limit=abc", "&status=open", "&min_price=1e2", "&has_error=maybe"]) {
      const r = await list(q);
      expect(r.status, q).toBe(422);
      expect(typeof r.body.detail).toBe("string");
    }
  });

  it("401 without or with a bad key; 403 for another owner or a checksummed spelling; 422 without owner_address", async () => {
    expect((await list("", null)).status).toBe(401);
    expect((await list("", "Bearer nope:nope")).status).toBe(401);
    ex.clock.advanceSec(1);
    const other = await request(ex.app).get(`/api/v1/orders?owner_address=${BOB}`).set("Authorization", key);
    expect(other.status).toBe(403);
    const cs = await request(ex.app).get(`/api/v1/orders?owner_address=${alice.address}`).set("Authorization", key);
    expect(cs.status).toBe(403);
    const none = await request(ex.app).get("/api/v1/orders").set("Authorization", key);
    expect(none.status).toBe(422);
    ex.clock.advanceSec(1);
    const twice = await request(ex.app).get(`/api/v1/orders?owner_address=${ALICE}&owner_address=${ALICE}`).set("Authorization", key);
    expect(twice.status).toBe(422);
    expect(twice.body).toEqual({ detail: "query.owner_address: given more than once; send it once" });
    // Bob's own key sees only bob's order.
    ex.clock.advanceSec(1);
    const mine = await request(ex.app).get(`/api/v1/orders?owner_address=${BOB}`).set("Authorization", apiKeyFor(ex, BOB));
    expect(mine.body).toMatchObject({ total: 1, trades: [{ trade_id: b1 }] });
    expect(bob.address.toLowerCase()).toBe(BOB);
  });
});
