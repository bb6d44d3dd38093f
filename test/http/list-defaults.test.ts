// The spec's Limits table: "List pagination | limit default 50, max 500, offset default 0 |
// GET /orders" and "Fill pagination | limit default 100, max 500 | GET /fills": without a
// `limit` a list holds that many (the newest), `total` counts the whole match, and `offset`
// alone pages on from there. (Explicit limits and their bounds: orders-list and fills tests.)
import request from "supertest";
import { describe, expect, it } from "vitest";
import { ALICE, BOB, alice, apiKeyFor, bob, exchange, place } from "./exchange-harness.ts";

describe("default page sizes of the list endpoints", () => {
  it("GET /orders: the 50 newest of 52 without a limit, total 52; offset=50 alone gives the other 2", async () => {
    const ex = exchange();
    const ids: string[] = [];
    // Asks of one wallet alone never cross.
    for (let i = 0; i < 52; i++) ids.push(await place(ex, alice, { side: "ask", amount: "10", price: "1.50" }));
    const key = apiKeyFor(ex, ALICE);
    const first = await request(ex.app).get(`/api/v1/orders?owner_address=${ALICE}`).set("Authorization", key);
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(52);
    expect(first.body.trades.map((t: { trade_id: string }) => t.trade_id)).toEqual(ids.slice(2).reverse());
    const rest = await request(ex.app).get(`/api/v1/orders?owner_address=${ALICE}&offset=50`).set("Authorization", key);
    expect(rest.body.trades.map((t: { trade_id: string }) => t.trade_id)).toEqual(ids.slice(0, 2).reverse());
  });

  it("GET /fills?owner_address=: 100 of 101 fills without a limit; GET /fills/{order_id} too", async () => {
    const ex = exchange();
    // One resting ask of alice's, taken by 101 bids of bob's: 101 fills on each side.
    const ask = await place(ex, alice, { side: "ask", amount: "1010", price: "1.08" });
    for (let i = 0; i < 101; i++) await place(ex, bob, { side: "bid", amount: "10", price: "1.08" });
    const owner = await request(ex.app).get(`/api/v1/fills?owner_address=${BOB}`).set("Authorization", apiKeyFor(ex, BOB));
    expect(owner.status).toBe(200);
    expect(owner.body.items).toHaveLength(100);
    const all = await request(ex.app).get(`/api/v1/fills?owner_address=${BOB}&limit=500`).set("Authorization", apiKeyFor(ex, BOB));
    expect(all.body.items).toHaveLength(101);
    const ofOrder = await request(ex.app).get(`/api/v1/fills/${ask}`).set("Authorization", apiKeyFor(ex, ALICE));
    expect(ofOrder.body.items).toHaveLength(100);
    const next = await request(ex.app).get(`/api/v1/fills/${ask}?offset=100`).set("Authorization", apiKeyFor(ex, ALICE));
    expect(next.body.items).toHaveLength(1);
  });
});
