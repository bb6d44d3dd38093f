// The memory exchange (no chain node) and the spec's account and funds routes: GET
// /balances is served from the memory chain's wallets and the engine's ledger; the
// routes that need a node (permit reads, transaction builders, broadcasts, withdraw
// co-signing) answer 404 saying why, not a bare "Not Found".
import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createExchangeApp, MEMORY_FUNDS_UNAVAILABLE } from "../../sim/http/exchange-app.ts";
import { FUNDS_ROUTES_NEEDING_A_NODE } from "../../sim/http/routes/funds-unserved.ts";
import { ALICE, BOB, ISO, alice, apiKeyFor, exchange, place } from "./exchange-harness.ts";

describe("memory exchange: GET /balances", () => {
  it("answers the key owner's rows: wallet from the memory chain, vault columns from the ledger", async () => {
    const ex = exchange();
    const eurc = ex.registry.tokenBySymbol("EURC")!;
    const usdc = ex.registry.tokenBySymbol("USDC")!;
    // Tokens held in the wallet, not deposited: only the wallet column shows them.
    ex.chain.mint(ALICE, eurc.address, 7_000_000n);
    await place(ex, alice, { side: "ask", amount: "10", price: "1.08" }); // freezes 10 EURC
    const key = apiKeyFor(ex, ALICE);
    const res = await request(ex.app).get("/api/v1/balances").query({ owner_address: ALICE }).set("authorization", key);
    expect(res.status).toBe(200);
    expect(res.body.owner_address).toBe(ALICE);
    expect(res.body.wallet_balance_available).toBe(true);
    expect(res.body.updated_at).toMatch(ISO);
    const row = (address: string) => (res.body.balances as Record<string, string>[]).find((r) => r.token === address)!;
    const funded = 1_000_000n * 10n ** 6n;
    expect(row(eurc.address)).toMatchObject({
      symbol: "EURC",
      wallet_balance: "7000000",
      vault_available: String(funded - 10_000_000n),
      vault_frozen: "10000000",
      vault_total: String(funded),
      total: String(funded + 7_000_000n),
    });
    expect(row(usdc.address)).toMatchObject({ wallet_balance: "0", vault_available: String(funded), vault_frozen: "0" });
    // The same figures the engine holds.
    const acc = ex.engine.vaultAccount(ALICE, eurc.address);
    expect([acc.available, acc.frozen]).toEqual([funded - 10_000_000n, 10_000_000n]);
  });

  it("syncs first, as on Anvil: fund() is credited once (a sync does not credit it again), and a withdrawal made on the chain directly reaches the ledger", async () => {
    const ex = exchange();
    const usdc = ex.registry.tokenBySymbol("USDC")!;
    const funded = 1_000_000n * 10n ** 6n;
    // Before: a sync credited every fund() a second time (the ledger then held twice the vault).
    await ex.engine.syncVaultEvents();
    expect(ex.engine.vaultAccount(ALICE, usdc.address).available).toBe(funded);
    // An exit a test models on the memory chain: the vault pays out without the exchange.
    ex.chain.withdraw(ALICE, usdc.address, 950_000_000_000n);
    const key = apiKeyFor(ex, ALICE);
    const res = await request(ex.app).get("/api/v1/balances").query({ owner_address: ALICE }).set("authorization", key);
    const row = (res.body.balances as Record<string, string>[]).find((r) => r.token === usdc.address)!;
    expect(row).toMatchObject({ wallet_balance: "950000000000", vault_available: String(funded - 950_000_000_000n), vault_total: String(funded - 950_000_000_000n) });
    expect(ex.engine.vaultAccount(ALICE, usdc.address).available).toBe(await ex.chain.vaultBalance(ALICE as never, usdc.address as never));
  });

  it("keeps the spec's auth order: 401 without a key, 403 for another owner", async () => {
    const ex = exchange();
    const noKey = await request(ex.app).get("/api/v1/balances").query({ owner_address: ALICE });
    expect(noKey.status).toBe(401);
    const other = await request(ex.app).get("/api/v1/balances").query({ owner_address: BOB }).set("authorization", apiKeyFor(ex, ALICE));
    expect(other.status).toBe(403);
    expect(other.body).toEqual({ detail: "owner_address does not match the API key owner" });
  });

  it("an unfunded wallet has no rows unless include_zero", async () => {
    const ex = exchange({ unfunded: true });
    const key = apiKeyFor(ex, ALICE);
    const bare = await request(ex.app).get("/api/v1/balances").query({ owner_address: ALICE }).set("authorization", key);
    expect(bare.status).toBe(200);
    expect(bare.body.balances).toEqual([]);
    const all = await request(ex.app).get("/api/v1/balances").query({ owner_address: ALICE, include_zero: "true" }).set("authorization", key);
    expect(all.body.balances).toHaveLength(ex.registry.tokens().length);
  });

  it("include_zero takes FastAPI's boolean spellings: 1, yes, on as true; 0, no, off as false; anything else 422", async () => {
    const ex = exchange({ unfunded: true });
    const key = apiKeyFor(ex, ALICE);
    const rows = async (include_zero: string) => {
      ex.clock.advanceSec(1);
      const r = await request(ex.app).get("/api/v1/balances").query({ owner_address: ALICE, include_zero }).set("authorization", key);
      return [include_zero, r.status, r.status === 200 ? r.body.balances.length : r.body];
    };
    const every = ex.registry.tokens().length;
    for (const yes of ["true", "True", "1", "yes", "on"]) expect(await rows(yes)).toEqual([yes, 200, every]);
    for (const no of ["false", "FALSE", "0", "no", "off"]) expect(await rows(no)).toEqual([no, 200, 0]);
    expect(await rows("maybe")).toEqual(["maybe", 422, { detail: "query.include_zero: must be a boolean (true or false)" }]);
  });
});

describe("memory exchange: the account and funds routes that need a chain node", () => {
  it("answer 404 naming the route and why, with or without a key", async () => {
    const ex = exchange();
    const key = apiKeyFor(ex, ALICE);
    expect(FUNDS_ROUTES_NEEDING_A_NODE).toHaveLength(9);
    for (const [method, path] of FUNDS_ROUTES_NEEDING_A_NODE) {
      for (const auth of [undefined, key]) {
        const r = method === "GET" ? request(ex.app).get(`/api/v1${path}`).query({ owner_address: ALICE }) : request(ex.app).post(`/api/v1${path}`).send({ owner: ALICE });
        const res = await (auth ? r.set("authorization", auth) : r);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body).toEqual({ detail: `${method} /api/v1${path} is not served here: ${MEMORY_FUNDS_UNAVAILABLE}` });
      }
    }
  });

  it("nothing changes: balances and the event log are as before the refused calls", async () => {
    const ex = exchange();
    const before = ex.engine.log.hash();
    await request(ex.app).post("/api/v1/withdraw").send({ intent: { user: ALICE } });
    await request(ex.app).post("/api/v1/deposit").set("authorization", apiKeyFor(ex, ALICE)).send({ owner: ALICE, amount: "1" });
    expect(ex.engine.log.hash()).toBe(before);
  });

  it("another method on one of them is the 405 the served route gives, with Allow", async () => {
    const ex = exchange();
    const get = await request(ex.app).get("/api/v1/deposit");
    expect(get.status).toBe(405);
    expect(get.headers["allow"]).toBe("POST");
    expect(get.body).toEqual({ detail: "Method Not Allowed" });
    const post = await request(ex.app).post("/api/v1/permit/metadata");
    expect([post.status, post.headers["allow"]]).toEqual([405, "GET, HEAD"]);
  });

  it("a path the spec does not have stays a plain Not Found", async () => {
    const ex = exchange();
    const res = await request(ex.app).post("/api/v1/deposits");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: "Not Found" });
  });

  it("createExchangeApp(ex, app) builds the same routes from the memory exchange's parts, CORS policy included", async () => {
    const ex = exchange({ corsOrigin: "https://a.example" });
    const outer = express();
    createExchangeApp(ex, outer);
    const key = apiKeyFor(ex, ALICE);
    const balances = await request(outer).get("/api/v1/balances").query({ owner_address: ALICE }).set("authorization", key);
    expect(balances.status).toBe(200);
    expect(balances.body.balances.length).toBeGreaterThan(0);
    const deposit = await request(outer).post("/api/v1/deposit").set("authorization", key).send({});
    expect(deposit.status).toBe(404);
    expect(deposit.body.detail).toContain(MEMORY_FUNDS_UNAVAILABLE);
    // The memory exchange's own origin list, not the default "any origin".
    for (const app of [ex.app, outer]) {
      const allowed = await request(app).get("/api/v1/markets").set("origin", "https://a.example");
      expect(allowed.headers["access-control-allow-origin"]).toBe("https://a.example");
      const other = await request(app).get("/api/v1/markets").set("origin", "https://b.example");
      expect(other.headers["access-control-allow-origin"]).toBeUndefined();
    }
  });
});
