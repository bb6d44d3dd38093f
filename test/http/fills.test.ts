import { describe, expect, it } from "vitest";
import request from "supertest";
import { ALICE, BOB, DECIMAL, ISO, RAW, alice, apiKeyFor, bob, exchange, place } from "./exchange-harness.ts";

/** Alice asks 10 EURC @ 1.08; bob takes 3, 3 and 4 in three bids. */
async function traded() {
  const ex = exchange();
  const ask = await place(ex, alice, { side: "ask", amount: "10", price: "1.08" });
  const bids = [await place(ex, bob, { side: "bid", amount: "5", price: "1.08" }), await place(ex, bob, { side: "bid", amount: "5", price: "1.08" })];
  return { ex, ask, bids, aliceKey: apiKeyFor(ex, ALICE), bobKey: apiKeyFor(ex, BOB) };
}

describe("GET /fills/{order_id}", () => {
  it("items with every Fill field, from the order's perspective", async () => {
    const { ex, ask, bids, aliceKey } = await traded();
    const r = await request(ex.app).get(`/api/v1/fills/${ask}`).set("Authorization", aliceKey);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(["items"]);
    expect(r.body.items).toHaveLength(2);
    const f = r.body.items[0] as Record<string, unknown>;
    expect(Object.keys(f).sort()).toEqual(
      ["maker_order_id", "taker_order_id", "quantity", "price", "settlement_status", "tx_hash", "timestamp", "failure_reason", "settlement_economics"].sort(),
    );
    const m = ex.registry.marketBySymbol("EURC/USDC")!;
    expect(f).toMatchObject({ maker_order_id: ask, taker_order_id: bids[0], quantity: "5", price: "1.08", settlement_status: "pending", tx_hash: null, failure_reason: null });
    expect(f["timestamp"]).toMatch(ISO);
    expect(f["settlement_economics"]).toEqual({
      perspective_order_id: ask,
      gross_debits: [{ token: "EURC", token_address: m.base, amount: "5", amount_raw: "5000000" }],
      gross_credits: [{ token: "USDC", token_address: m.quote, amount: "5.4", amount_raw: "5400000" }],
      fees_paid: [],
    });
    for (const line of [...(f["settlement_economics"] as { gross_debits: { amount: string; amount_raw: string }[] }).gross_debits]) {
      expect(line.amount).toMatch(DECIMAL);
      expect(line.amount_raw).toMatch(RAW);
    }
  });

  it("429 on the 11th read of one wallet within a second (read group), with the plain envelope", async () => {
    const { ex, ask, aliceKey } = await traded();
    for (let i = 0; i < 10; i++) expect((await request(ex.app).get(`/api/v1/fills/${ask}`).set("Authorization", aliceKey)).status).toBe(200);
    const r = await request(ex.app).get(`/api/v1/fills/${ask}`).set("Authorization", aliceKey);
    expect(r.status).toBe(429);
    expect(r.body).toEqual({ detail: "Rate limit exceeded" });
  });

  it("after settlement: settled with a tx hash", async () => {
    const { ex, ask, aliceKey } = await traded();
    await ex.engine.settleAll();
    const r = await request(ex.app).get(`/api/v1/fills/${ask}`).set("Authorization", aliceKey);
    expect(r.body.items.map((f: { settlement_status: string }) => f.settlement_status)).toEqual(["settled", "settled"]);
    expect(r.body.items[0].tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("limit (default 100, 1..500) and offset", async () => {
    const { ex, ask, bids, aliceKey } = await traded();
    const page = await request(ex.app).get(`/api/v1/fills/${ask}?limit=1&offset=1`).set("Authorization", aliceKey);
    expect(page.body.items.map((f: { taker_order_id: string }) => f.taker_order_id)).toEqual([bids[1]]);
    ex.clock.advanceSec(1);
    for (const q of ["limit=0", "limit=501", "offset=-1", "limit=x"]) {
      const r = await request(ex.app).get(`/api/v1/fills/${ask}?${q}`).set("Authorization", aliceKey);
      expect(r.status, q).toBe(422);
    }
  });

  it("limit caps the page from the first fill: limit=1 is one fill, limit=2 both", async () => {
    const { ex, ask, bids, aliceKey } = await traded();
    const one = await request(ex.app).get(`/api/v1/fills/${ask}?limit=1`).set("Authorization", aliceKey);
    expect(one.status).toBe(200);
    expect(one.body.items.map((f: { taker_order_id: string }) => f.taker_order_id)).toEqual([bids[0]]);
    const two = await request(ex.app).get(`/api/v1/fills/${ask}?limit=2`).set("Authorization", aliceKey);
    expect(two.body.items.map((f: { taker_order_id: string }) => f.taker_order_id)).toEqual(bids);
  });

  it("401 without a key; 404 for an unknown order or another wallet's order", async () => {
    const { ex, ask, bobKey } = await traded();
    expect((await request(ex.app).get(`/api/v1/fills/${ask}`)).status).toBe(401);
    expect((await request(ex.app).get(`/api/v1/fills/${ask}`).set("Authorization", bobKey)).status).toBe(404);
    expect((await request(ex.app).get(`/api/v1/fills/${ex.newId()}`).set("Authorization", bobKey)).status).toBe(404);
  });
});

describe("GET /fills", () => {
  it("every fill of the owner, filtered by order_status and settlement_status, paged", async () => {
    const { ex, bids, bobKey } = await traded();
    const url = `/api/v1/fills?owner_address=${BOB}`;
    const all = await request(ex.app).get(url).set("Authorization", bobKey);
    expect(all.status).toBe(200);
    expect(all.body.items.map((f: { settlement_economics: { perspective_order_id: string } }) => f.settlement_economics.perspective_order_id)).toEqual(bids);
    expect(Object.keys(all.body.items[0]).sort()).toContain("settlement_economics");
    expect(Object.keys(all.body.items[0])).not.toContain("order_status");
    const matched = await request(ex.app).get(`${url}&order_status=matched`).set("Authorization", bobKey);
    expect(matched.body.items).toHaveLength(2);
    expect((await request(ex.app).get(`${url}&order_status=pending`).set("Authorization", bobKey)).body.items).toEqual([]);
    expect((await request(ex.app).get(`${url}&settlement_status=settled`).set("Authorization", bobKey)).body.items).toEqual([]);
    ex.clock.advanceSec(1);
    await ex.engine.settleAll();
    expect((await request(ex.app).get(`${url}&settlement_status=settled`).set("Authorization", bobKey)).body.items).toHaveLength(2);
    const page = await request(ex.app).get(`${url}&limit=1&offset=1`).set("Authorization", bobKey);
    expect(page.body.items.map((f: { taker_order_id: string }) => f.taker_order_id)).toEqual([bids[1]]);
  });

  it("settlement_status takes each of the spec's values (pending, confirming, settled, failed, reverted)", async () => {
    const { ex, bobKey } = await traded();
    const counts: Record<string, number> = {};
    for (const status of ["pending", "confirming", "settled", "failed", "reverted"]) {
      ex.clock.advanceSec(1);
      const r = await request(ex.app).get(`/api/v1/fills?owner_address=${BOB}&settlement_status=${status}`).set("Authorization", bobKey);
      expect(r.status, status).toBe(200);
      counts[status] = r.body.items.length;
    }
    expect(counts).toEqual({ pending: 2, confirming: 0, settled: 0, failed: 0, reverted: 0 });
  });

  it("401, 403 for another owner, 422 for a missing owner, bad status or limit > 500; 429 on the 11th read", async () => {
    const { ex, bobKey } = await traded();
    expect((await request(ex.app).get(`/api/v1/fills?owner_address=${BOB}`)).status).toBe(401);
    expect((await request(ex.app).get(`/api/v1/fills?owner_address=${ALICE}`).set("Authorization", bobKey)).status).toBe(403);
    expect((await request(ex.app).get(`/api/v1/fills?owner_address=${bob.address}`).set("Authorization", bobKey)).status).toBe(403);
    for (const q of ["", `owner_address=${BOB}&order_status=open`, `owner_address=${BOB}&settlement_status=done`, `owner_address=${BOB}&limit=501`]) {
      ex.clock.advanceSec(1);
      const r = await request(ex.app).get(`/api/v1/fills?${q}`).set("Authorization", bobKey);
      expect(r.status, q).toBe(422);
    }
    ex.clock.advanceSec(1);
    for (let i = 0; i < 10; i++) expect((await request(ex.app).get(`/api/v1/fills?owner_address=${BOB}`).set("Authorization", bobKey)).status).toBe(200);
    const r = await request(ex.app).get(`/api/v1/fills?owner_address=${BOB}`).set("Authorization", bobKey);
    expect(r.status).toBe(429);
    expect(r.body).toEqual({ detail: "Rate limit exceeded" });
    expect(alice.address.toLowerCase()).toBe(ALICE);
  });
});
