// The vault catch-up on the memory exchange, whose chain a test drives directly: a
// deposit made on the chain (not through fund()) reaches the ledger at the next request
// that depends on the vault, and a chain that does not answer that sync is a 503 with
// nothing placed, never an answer from the stale ledger.
import { describe, expect, it } from "vitest";
import request from "supertest";
import { ALICE, alice, exchange, postOrder, signedOrder, vlLegs } from "./exchange-harness.ts";

const TEN_EURC = 10_000_000n;

describe("memory exchange: deposits made on the chain directly", () => {
  it("an ask right after one is placed against it; one it does not cover is still refused", async () => {
    const ex = exchange({ unfunded: true });
    const eurc = ex.registry.tokenBySymbol("EURC")!.address;
    ex.chain.mint(ALICE, eurc, TEN_EURC);
    ex.chain.deposit(ALICE, eurc, TEN_EURC);
    const placed = await postOrder(ex, await signedOrder(ex, alice, { side: "ask", amount: "10", price: "1.08" }));
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    expect(ex.engine.vaultAccount(ALICE, eurc)).toEqual({ available: 0n, frozen: TEN_EURC });
    const refused = await postOrder(ex, await signedOrder(ex, alice, { side: "ask", amount: "5", price: "1.08" }));
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ detail: { detail: "available equity 0 EURC is below the order's frozen-amount need 5", error_code: "INSUFFICIENT_EQUITY" } });
  });

  it("a chain that does not answer the catch-up's sync: 503 with the spec's body and Retry-After, nothing placed", async () => {
    const ex = exchange({ unfunded: true });
    const eurc = ex.registry.tokenBySymbol("EURC")!.address;
    ex.chain.mint(ALICE, eurc, TEN_EURC);
    ex.chain.deposit(ALICE, eurc, TEN_EURC);
    ex.engine.syncVaultEvents = () => Promise.reject(new Error("node down"));
    const body = await signedOrder(ex, alice, { side: "ask", amount: "10", price: "1.08" });
    const res = await postOrder(ex, body);
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: "Service temporarily unavailable; please retry" });
    expect(res.headers["retry-after"]).toBe("1");
    expect(ex.engine.listOrders(ALICE)).toEqual([]);
    expect(ex.engine.vaultAccount(ALICE, eurc)).toEqual({ available: 0n, frozen: 0n });
  });

  it("a VL batch and a swap quote, which catch up first, answer the same 503 when the chain does not answer, with nothing placed", async () => {
    const ex = exchange({ unfunded: true });
    const eurc = ex.registry.tokenBySymbol("EURC")!.address;
    const usdc = ex.registry.tokenBySymbol("USDC")!.address;
    ex.engine.syncVaultEvents = () => Promise.reject(new Error("node down"));
    const legs = await vlLegs(ex, alice, [
      { symbol: "EURC/USDC", side: "ask", amount: "10", price: "1.08" },
      { symbol: "EURC/GBPT", side: "ask", amount: "10", price: "0.85" },
    ]);
    const quote = { from_token: eurc, to_token: usdc, from_amount: "5000000", owner_address: ALICE, recipient: ALICE, expiration: ex.clock.nowSec() + 3600 };
    for (const [path, body] of [["/api/v1/orders/vl/batch", { orders: legs }], ["/api/v1/swap/quote", quote]] as const) {
      const res = await request(ex.app).post(path).send(body);
      expect([res.status, res.body, res.headers["retry-after"]], path).toEqual([503, { detail: "Service temporarily unavailable; please retry" }, "1"]);
    }
    expect(ex.engine.listOrders(ALICE)).toEqual([]);
  });
});
