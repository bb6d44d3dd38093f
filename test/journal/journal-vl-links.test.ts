// The journal's link to a VL batch on an in-memory exchange: the request that placed the
// batch links it; another request running at the same time (its window holds the batch's
// event too) does not.
import express from "express";
import request from "supertest";
import { describe, expect, test } from "vitest";
import { API_PREFIX } from "../../sim/http/app.ts";
import { RequestJournal } from "../../sim/http/journal.ts";
import { alice, exchange, vlLegs } from "../http/exchange-harness.ts";

describe("journal links to VL batches", () => {
  test("a VL batch links to the request that placed it, not to a wallet-less request running meanwhile", async () => {
    const ex = exchange();
    const journal = new RequestJournal(ex.engine);
    // Holds GET /tokens inside its journal window until the test lets it go (no timing involved).
    let arrived!: () => void;
    const inWindow = new Promise<void>((resolve) => (arrived = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const app = express();
    app.use(API_PREFIX, journal.middleware());
    app.use(API_PREFIX, (req, _res, next) => {
      if (req.path !== "/tokens") return next();
      arrived();
      void released.then(() => next());
    });
    app.use(ex.app);

    const slow = request(app).get("/api/v1/tokens").then((r) => r);
    await inWindow;
    const legs = await vlLegs(ex, alice, [
      { symbol: "EURC/USDC", side: "ask", amount: "10", price: "1.08" },
      { symbol: "EURC/GBPT", side: "ask", amount: "10", price: "0.85" },
    ]);
    const placed = await request(app).post("/api/v1/orders/vl/batch").send({ orders: legs });
    expect(placed.status).toBe(201);
    release();
    const tokens = await slow;
    expect(tokens.status).toBe(200);

    const batchEntry = journal.get(placed.headers["x-request-id"]!)!;
    expect(batchEntry.links.vl_batches).toEqual([legs[0]!["order_id"]]);
    const tokensEntry = journal.get(tokens.headers["x-request-id"]!)!;
    // The batch's events fell inside the token list's window...
    expect(tokensEntry.events.to).toBeGreaterThan(tokensEntry.events.from);
    // ...but the batch is not the token list's doing.
    expect([tokensEntry.wallet, tokensEntry.links.vl_batches, tokensEntry.links.orders_created]).toEqual([null, [], []]);
  });
});
