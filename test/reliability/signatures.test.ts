// Signature attacks on every EIP-712 route of the memory exchange (POST /orders,
// /orders/cancel, /orders/vl/batch, /orders/vl/cancel, /swap, /api-keys create):
// mutated r, s and v, foreign domains (chain id, verifying contract, name, version),
// the high-s malleable twin, wrong lengths — all refused with the route's 400 and no
// state change — while the 65-byte and the 64-byte EIP-2098 compact forms of a valid
// signature are both accepted. Also: replay across executor rotation, management
// replays (409), hashed constant-time API secrets, and 403 on every key route whose
// request names another wallet.

import request from "supertest";
import { parseSignature, type TypedDataDomain } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import {
  CANCEL_ORDER_TYPE,
  CANCEL_VL_BATCH_TYPE,
  INTENT_TYPE,
  MANAGE_API_KEY_TYPE,
  ORDER_TYPE,
  exchangeDomain,
  type Address,
  type Hex,
} from "../../sim/core/typed-data.ts";
import { encodeUuidInt, groupIdOf, standaloneUuidInt } from "../../sim/core/uuid-int.ts";
import type { QuoteWire } from "../../sim/core/quotes.ts";
import { MEMORY_EXCHANGE_DEFAULTS } from "../../sim/http/exchange-app.ts";
import { ALICE, BOB, DOMAIN, EXECUTOR, alice, apiKeyFor, bob, exchange, orderBody, place, type Ex } from "../http/exchange-harness.ts";
import { stateOf } from "./state.ts";
import { MUTATIONS, compact, highS, otherDomains, withV } from "./sig-mutations.ts";
import { intentMessageOf } from "../../fixtures/signing.ts";

type Domain = TypedDataDomain;
const OTHER_DOMAINS = otherDomains(DOMAIN);

// ---------------------------------------------------------------------------
// One signed request per route, built against any domain

interface Signed {
  path: string;
  body: Record<string, unknown>;
  sigField: string;
  /** Status of an accepted request. */
  ok: number;
}

type Case = (ex: Ex, domain: Domain) => Promise<Signed>;

/** Sign the Order the server builds for `body` (from POST /orders/preview) under `domain`, with uuid `uuid`. */
async function signOrder(ex: Ex, account: PrivateKeyAccount, domain: Domain, body: Record<string, unknown>, uuid: bigint): Promise<Hex> {
  const { signature: _s, ...unsigned } = body;
  const p = await request(ex.app).post("/api/v1/orders/preview").send(unsigned);
  if (p.status !== 200) throw new Error(`preview ${p.status} ${JSON.stringify(p.body)}`);
  const o = p.body.eip712_order as Record<string, string>;
  return account.signTypedData({
    domain,
    types: { Order: ORDER_TYPE },
    primaryType: "Order",
    message: {
      user: o["user"] as Address,
      expiration: Number(o["expiration"]),
      feeBps: Number(o["feeBps"]),
      recipient: o["recipient"] as Address,
      fromToken: o["fromToken"] as Address,
      toToken: o["toToken"] as Address,
      fromAmount: BigInt(o["fromAmount"]!),
      toAmount: BigInt(o["toAmount"]!),
      initialDepositAmount: BigInt(o["initialDepositAmount"]!),
      uuid,
    },
  });
}

const CASES: Record<string, Case> = {
  "POST /orders": async (ex, domain) => {
    const body = orderBody(ex, alice);
    return { path: "/orders", body: { ...body, signature: await signOrder(ex, alice, domain, body, BigInt(String(body["uuid_int"]))) }, sigField: "signature", ok: 201 };
  },
  "POST /orders/cancel": async (ex, domain) => {
    const id = await place(ex, alice);
    ex.clock.advanceSec(301);
    const uuidInt = standaloneUuidInt(id, EXECUTOR);
    const signature = await alice.signTypedData({ domain, types: { CancelOrder: CANCEL_ORDER_TYPE }, primaryType: "CancelOrder", message: { owner: alice.address, orderId: uuidInt } });
    return { path: "/orders/cancel", body: { owner_address: ALICE, order_id: id, uuid_int: uuidInt.toString(), signature }, sigField: "signature", ok: 200 };
  },
  "POST /orders/vl/batch (leg 1)": async (ex, domain) => {
    const legs = await vlLegs(ex, domain);
    return { path: "/orders/vl/batch", body: { orders: legs }, sigField: "orders.1.signature", ok: 201 };
  },
  "POST /orders/vl/cancel": async (ex, domain) => {
    const legs = await vlLegs(ex, DOMAIN);
    const placed = await request(ex.app).post("/api/v1/orders/vl/batch").send({ orders: legs });
    expect(placed.status).toBe(201);
    ex.clock.advanceSec(301);
    const id = String(legs[0]!["order_id"]);
    const signature = await alice.signTypedData({ domain, types: { CancelVLBatch: CANCEL_VL_BATCH_TYPE }, primaryType: "CancelVLBatch", message: { owner: alice.address, vlBatchId: id } });
    return { path: "/orders/vl/cancel", body: { owner_address: ALICE, vl_batch_id: id, signature }, sigField: "signature", ok: 200 };
  },
  "POST /swap": async (ex, domain) => {
    await place(ex, bob, { side: "ask", amount: "10", price: "1.08" });
    const q = await request(ex.app)
      .post("/api/v1/swap/quote")
      .send({ from_token: tok(ex, "USDC"), to_token: tok(ex, "EURC"), from_amount: "5400000", owner_address: ALICE, recipient: ALICE, expiration: ex.clock.nowSec() + 3600 });
    expect(q.status).toBe(200);
    const rp = (q.body as QuoteWire).route_params;
    expect((q.body as QuoteWire).permit).toBeNull();
    const signature = await alice.signTypedData({
      domain,
      types: { Intent: INTENT_TYPE },
      primaryType: "Intent",
      message: intentMessageOf(rp),
    });
    return { path: "/swap", body: { uuid: (q.body as QuoteWire).uuid, signature }, sigField: "signature", ok: 200 };
  },
  "POST /api-keys": async (ex, domain) => {
    ex.clock.advanceSec(1);
    const timestamp = ex.clock.nowSec();
    const signature = await alice.signTypedData({ domain, types: { ManageApiKey: MANAGE_API_KEY_TYPE }, primaryType: "ManageApiKey", message: { owner: alice.address, action: "create", timestamp: BigInt(timestamp) } });
    return { path: "/api-keys", body: { owner_address: ALICE, action: "create", timestamp, signature, label: "sig-test" }, sigField: "signature", ok: 200 };
  },
};

function tok(ex: Ex, symbol: string): Address {
  return ex.registry.tokenBySymbol(symbol)!.address;
}

/** Two EURC asks on two markets, leg ids 0 and 1 of one group, each signed under `domain`. */
async function vlLegs(ex: Ex, domain: Domain): Promise<Record<string, unknown>[]> {
  const specs = [
    { symbol: "EURC/USDC", price: "1.08" },
    { symbol: "EURC/GBPT", price: "0.85" },
  ];
  const ids = specs.map(() => ex.newId());
  const group = groupIdOf(ids[0]!);
  const out: Record<string, unknown>[] = [];
  for (const [i, s] of specs.entries()) {
    const uuidInt = encodeUuidInt({ executorId: EXECUTOR, orderId: ids[i]!, groupId: group, legId: i });
    const body = orderBody(ex, alice, { symbol: s.symbol, side: "ask", amount: "10", price: s.price, orderId: ids[i]!, uuidInt: uuidInt.toString() });
    const standalone = { ...body, uuid_int: standaloneUuidInt(ids[i]!, EXECUTOR).toString() };
    out.push({ ...body, signature: await signOrder(ex, alice, domain, standalone, uuidInt) });
  }
  return out;
}

function setSig(body: Record<string, unknown>, field: string, sig: string): Record<string, unknown> {
  const copy = structuredClone(body);
  const parts = field.split(".");
  let target: Record<string, unknown> = copy;
  for (const p of parts.slice(0, -1)) target = target[p] as Record<string, unknown>;
  target[parts.at(-1)!] = sig;
  return copy;
}

function getSig(body: Record<string, unknown>, field: string): Hex {
  let v: unknown = body;
  for (const p of field.split(".")) v = (v as Record<string, unknown>)[p];
  return v as Hex;
}

function fresh(): Ex {
  return exchange({ rateLimits: false });
}

function post(ex: Ex, path: string, body: unknown) {
  return request(ex.app).post(`/api/v1${path}`).send(body as object);
}

/** 400 with the route's envelope: typed for orders/VL/swap, plain elsewhere. */
/** Routes whose signature a contract verifies again (Exchange first fill, Router.executeIntent). */
const CONTRACT_CHECKED_PATHS = ["/orders", "/orders/vl/batch", "/swap"];

function expectRejected(path: string, res: { status: number; body: unknown }): void {
  expect(res.status).toBe(400);
  const detail = (res.body as { detail: unknown }).detail;
  if (["/orders", "/orders/vl/batch", "/swap"].includes(path)) {
    // no listed code fits a bad signature: the spec's catch-all (README "Error codes on the wire")
    expect(detail).toMatchObject({ error_code: "TRANSIENT_SETTLEMENT_FAILURE", detail: expect.any(String) });
  } else expect(typeof detail).toBe("string");
}

// ---------------------------------------------------------------------------

describe.each(Object.entries(CASES))("%s", (_name, build) => {
  it.each(MUTATIONS)("refuses a signature with %s (400, no state change)", async (_label, mutateSig) => {
    const ex = fresh();
    const s = await build(ex, DOMAIN);
    const before = stateOf(ex);
    const res = await post(ex, s.path, setSig(s.body, s.sigField, mutateSig(getSig(s.body, s.sigField))));
    expectRejected(s.path, res);
    expect(stateOf(ex)).toBe(before);
    // The untouched signature still works: the rejection was the mutation's doing.
    expect((await post(ex, s.path, s.body)).status).toBe(s.ok);
  });

  it.each(OTHER_DOMAINS)("refuses a signature over a domain with %s (400, no state change)", async (_label, domain) => {
    const ex = fresh();
    const s = await build(ex, domain);
    const before = stateOf(ex);
    expectRejected(s.path, await post(ex, s.path, s.body));
    expect(stateOf(ex)).toBe(before);
  });

  it("accepts the 65-byte form with v 27/28 and the 64-byte EIP-2098 compact form", async () => {
    for (const form of [(s: Hex) => s, compact]) {
      const ex = fresh();
      const s = await build(ex, DOMAIN);
      const sig = form(getSig(s.body, s.sigField));
      const res = await post(ex, s.path, setSig(s.body, s.sigField, sig));
      expect(res.status, `${sig.length} chars: ${JSON.stringify(res.body)}`).toBe(s.ok);
    }
  });

  // v 0/1: the contracts' ecrecover refuses it, so the signatures they check (Order,
  // Intent) are refused up front; the off-chain ones (cancels, API keys) still take it.
  // The on-chain cross-check is test/reliability/signatures-onchain.test.ts.
  it("refuses v 0/1 where a contract checks the signature, takes it where none does", async () => {
    const ex = fresh();
    const s = await build(ex, DOMAIN);
    const sig = getSig(s.body, s.sigField);
    const before = stateOf(ex);
    const res = await post(ex, s.path, setSig(s.body, s.sigField, withV(sig, Number.parseInt(sig.slice(130), 16) - 27)));
    if (CONTRACT_CHECKED_PATHS.includes(s.path)) {
      expectRejected(s.path, res);
      expect(stateOf(ex)).toBe(before);
    } else expect(res.status, JSON.stringify(res.body)).toBe(s.ok);
  });
});

describe("compact form helper", () => {
  it("packs yParity into the top bit of s (EIP-2098) and viem parses it back to the same signature", async () => {
    const sig = await alice.signMessage({ message: "x" });
    const c = compact(sig);
    expect(c.length).toBe(2 + 128);
    const p = parseSignature(sig);
    expect(BigInt(`0x${c.slice(66)}`) >> 255n).toBe(BigInt(p.yParity!));
    expect(highS(highS(sig))).toBe(withV(sig, p.yParity === 0 ? 27 : 28));
  });
});

describe("replay", () => {
  it("refuses an order whose uuid_int was built for executor 3 once the exchange rotated to 4 (400, no state change)", async () => {
    const ex = fresh();
    const body = orderBody(ex, alice);
    const signed = { ...body, signature: await signOrder(ex, alice, DOMAIN, body, BigInt(String(body["uuid_int"]))) };
    ex.engine.setExecutorId(4);
    const before = stateOf(ex);
    const res = await post(ex, "/orders", signed);
    expect(res.status).toBe(400);
    expect(stateOf(ex)).toBe(before);
    expect(ex.engine.listOrders(ALICE)).toEqual([]);
  });

  it("refuses a replayed order (same signed order twice): the second is rejected and places nothing", async () => {
    const ex = fresh();
    const s = await CASES["POST /orders"]!(ex, DOMAIN);
    expect((await post(ex, s.path, s.body)).status).toBe(201);
    ex.clock.advanceSec(1);
    const before = stateOf(ex);
    const again = await post(ex, s.path, s.body);
    expect([400, 409]).toContain(again.status);
    expect(stateOf(ex)).toBe(before);
  });

  it.each([
    ["create", "POST", "/api-keys", (sig: Hex, ts: number) => ({ owner_address: ALICE, action: "create", timestamp: ts, signature: sig, label: "x" })],
    ["list", "POST", "/api-keys/list", (sig: Hex, ts: number) => ({ owner_address: ALICE, action: "list", timestamp: ts, signature: sig })],
    ["revoke_all", "POST", "/api-keys/revoke-all", (sig: Hex, ts: number) => ({ owner_address: ALICE, action: "revoke_all", timestamp: ts, signature: sig })],
  ] as const)("answers 409 to a replayed %s management signature", async (action, _m, path, bodyOf) => {
    const ex = fresh();
    const ts = ex.clock.nowSec();
    const sig = await alice.signTypedData({ domain: DOMAIN, types: { ManageApiKey: MANAGE_API_KEY_TYPE }, primaryType: "ManageApiKey", message: { owner: alice.address, action, timestamp: BigInt(ts) } });
    expect((await post(ex, path, bodyOf(sig, ts))).status).toBe(200);
    const replay = await post(ex, path, bodyOf(sig, ts));
    expect(replay.status).toBe(409);
    expect(typeof replay.body.detail).toBe("string");
  });
});

describe("API secrets", () => {
  it("are stored only as hashes: the store's snapshot holds no plaintext secret", () => {
    const ex = fresh();
    const bearer = apiKeyFor(ex, ALICE);
    const secret = bearer.split(":")[1]!;
    const snap = JSON.stringify(ex.apiKeys.snapshot());
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(snap).not.toContain(secret);
    // ...but something derived from it is there (the hash the compare uses).
    expect(snap).toMatch(/[0-9a-f]{64}/);
  });

  it("are compared in constant time (timingSafeEqual over fixed-length hashes, hashing even for unknown keys)", async () => {
    const { readFile } = await import("node:fs/promises");
    const src = await readFile(new URL("../../sim/core/api-keys.ts", import.meta.url), "utf8");
    expect(src).toMatch(/timingSafeEqual\(/);
    // No early string comparison of the secret or its hash.
    expect(src).not.toMatch(/secretHash\s*===|===\s*[a-zA-Z.]*secretHash|apiSecret\s*===/);
    const ex = fresh();
    const bearer = apiKeyFor(ex, ALICE);
    const [key, secret] = bearer.slice("Bearer ".length).split(":") as [string, string];
    const verify = (k: string, s: string) => request(ex.app).post("/api/v1/api-keys/verify").send({ api_key: k, api_secret: s });
    expect((await verify(key, secret)).status).toBe(200);
    // Wrong secret of every length, prefix of the real one, and an unknown key: all the same 401.
    for (const s of [secret.slice(0, -1), `${secret}0`, secret.slice(0, 4), "", "x".repeat(1000)]) {
      const r = await verify(key, s);
      expect(r.status).toBe(401);
    }
    expect((await verify("fkx_00000000000000000000000000000000", secret)).status).toBe(401);
  });
});

describe("403 when a key-authenticated request names another wallet", () => {
  const ROUTES: readonly [string, (ex: Ex, other: string, otherKeyId: string) => request.Test][] = [
    ["GET /orders", (ex, other) => request(ex.app).get(`/api/v1/orders?owner_address=${other}`)],
    ["DELETE /orders/cancel-all", (ex, other) => request(ex.app).delete(`/api/v1/orders/cancel-all?owner_address=${other}`)],
    ["GET /fills", (ex, other) => request(ex.app).get(`/api/v1/fills?owner_address=${other}`)],
    ["POST /api-keys/self-revoke (another wallet's key)", (ex, _other, otherKeyId) => request(ex.app).post("/api/v1/api-keys/self-revoke").send({ api_key: otherKeyId })],
  ];
  it.each(ROUTES)("%s", async (_name, make) => {
    const ex = fresh();
    const key = apiKeyFor(ex, ALICE);
    const otherKeyId = apiKeyFor(ex, BOB).slice("Bearer ".length).split(":")[0]!;
    for (const other of [BOB, bob.address /* checksum spelling of another wallet */]) {
      const before = stateOf(ex);
      const res = await make(ex, other, otherKeyId).set("Authorization", key);
      expect(res.status).toBe(403);
      expect(typeof res.body.detail).toBe("string");
      expect(stateOf(ex)).toBe(before);
    }
  });

  it("GET /orders/{id} and /fills/{id} of another wallet's order: 404 (the request names no owner, the id is hidden)", async () => {
    const ex = fresh();
    const id = await place(ex, bob);
    const key = apiKeyFor(ex, ALICE);
    expect((await request(ex.app).get(`/api/v1/orders/${id}`).set("Authorization", key)).status).toBe(404);
    expect((await request(ex.app).get(`/api/v1/fills/${id}`).set("Authorization", key)).status).toBe(404);
    expect((await request(ex.app).get(`/api/v1/orders/${id}`).set("Authorization", apiKeyFor(ex, BOB))).status).toBe(200);
  });
});

// Pin the domain these tests sign under to the exchange's own.
it("signs under the memory exchange's domain", () => {
  const d = MEMORY_EXCHANGE_DEFAULTS;
  expect(DOMAIN).toEqual(exchangeDomain(d.domainName, d.chainId, d.exchangeAddress as Address));
});
