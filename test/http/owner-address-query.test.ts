// A key-authenticated read or cancel-all whose owner_address is not an address at all is a
// validation failure (422, naming the field), checked before the owner comparison (403),
// as on GET /balances: the spec's tables give 422 to validation failures and 403 only to
// an authenticated wallet that differs from the one asked for.
import request from "supertest";
import { describe, expect, it } from "vitest";
import { ALICE, BOB, apiKeyFor, exchange } from "./exchange-harness.ts";

// (GET /balances, which already answered so, needs the chain this in-memory harness lacks.)
describe("owner_address in the query of GET /orders, GET /fills, DELETE /orders/cancel-all", () => {
  const ex = exchange();
  const key = apiKeyFor(ex, ALICE);
  const routes = [
    ["get", "/api/v1/orders"],
    ["get", "/api/v1/fills"],
    ["delete", "/api/v1/orders/cancel-all"],
  ] as const;
  const send = (method: "get" | "delete", path: string, owner: string) => {
    // One virtual second per call keeps every call inside the rate limits.
    ex.clock.advanceSec(1);
    return request(ex.app)[method](`${path}?owner_address=${encodeURIComponent(owner)}`).set("Authorization", key);
  };

  it("not an address → 422 query.owner_address", async () => {
    for (const [method, path] of routes) {
      for (const owner of ["0x1", "zzz", "", "a".repeat(5000), `${ALICE}0`]) {
        const r = await send(method, path, owner);
        expect([path, owner.slice(0, 12), r.status, r.body]).toEqual([path, owner.slice(0, 12), 422, { detail: "query.owner_address: must be a 0x-prefixed 20-byte hex address" }]);
      }
    }
  });

  it("another wallet's address → 403; the key owner's → 200", async () => {
    for (const [method, path] of routes) {
      expect((await send(method, path, BOB)).status, path).toBe(403);
      expect((await send(method, path, ALICE)).status, path).toBe(200);
    }
  });

  it("GET /orders: a search longer than 256 characters is 422 before the owner comparison's 403", async () => {
    ex.clock.advanceSec(1);
    const r = await request(ex.app).get(`/api/v1/orders?owner_address=${BOB}&search=${"x".repeat(257)}`).set("Authorization", key);
    expect([r.status, r.body]).toEqual([422, { detail: "query.search: must be at most 256 characters" }]);
  });
});
