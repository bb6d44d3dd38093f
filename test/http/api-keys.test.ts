import { describe, expect, it } from "vitest";
import request from "supertest";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { ApiKeyStore } from "../../sim/core/api-keys.ts";
import { VirtualClock } from "../../sim/core/clock.ts";
import type { ConfigInputs } from "../../sim/core/config-view.ts";
import type { RateGroup } from "../../sim/core/rate-limits.ts";
import { Rng } from "../../sim/core/rng.ts";
import { MANAGE_API_KEY_TYPE, exchangeDomain, type Address, type Hex } from "../../sim/core/typed-data.ts";
import { createApp } from "../../sim/http/app.ts";
import type { HttpContext } from "../../sim/http/context.ts";
import { hashTyped } from "../../sim/signing/signatures.ts";

const START = Date.UTC(2026, 2, 14, 9, 30, 0, 250);
const EXCHANGE = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const CHAIN_ID = 31337;
const DOMAIN = exchangeDomain("fakex", CHAIN_ID, EXCHANGE.toLowerCase() as Address);
const TYPES = { ManageApiKey: MANAGE_API_KEY_TYPE } as const;
const CONFIG: ConfigInputs = { chainId: CHAIN_ID, exchangeAddress: EXCHANGE, domainName: "fakex" };

const alice = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const bob = privateKeyToAccount("0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a");
const ALICE = alice.address.toLowerCase();
const BOB = bob.address.toLowerCase();
const WALLET_1271 = "0x00000000000000000000000000000000000c0ffe";

const SIGNATURE_INVALID = { detail: "Invalid signature: ManageApiKey must be signed by owner_address" };
const REPLAYED = { detail: "signature already used; sign again with a fresh timestamp" };

function setup(extra: Partial<HttpContext> = {}) {
  const clock = new VirtualClock(START);
  const store = new ApiKeyStore(clock, new Rng(11));
  const hits: [string, RateGroup][] = [];
  const logged: string[] = [];
  const app = createApp({
    clock,
    apiKeys: store,
    apiKeyManager: store,
    config: () => CONFIG,
    rateLimits: { hit: (w, g) => void hits.push([w, g]) },
    logger: { error: (m) => logged.push(m) },
    ...extra,
  });
  return { clock, store, app, hits, logged };
}

type Env = ReturnType<typeof setup>;

interface SignOptions {
  account?: PrivateKeyAccount;
  /** owner_address as sent (default: the account's lowercase address). */
  owner?: string;
  /** owner as signed (default: the account's EIP-55 address). */
  signedOwner?: string;
  timestamp?: number;
  domain?: typeof DOMAIN;
}

/** A ManageApiKey-signed set of fields, as a client sends them. */
async function manage(env: Env, action: string, o: SignOptions = {}) {
  const account = o.account ?? alice;
  const timestamp = o.timestamp ?? env.clock.nowSec();
  const signature = await account.signTypedData({
    domain: o.domain ?? DOMAIN,
    types: TYPES,
    primaryType: "ManageApiKey",
    message: { owner: (o.signedOwner ?? account.address) as Address, action, timestamp: BigInt(timestamp) },
  });
  return { owner_address: o.owner ?? account.address.toLowerCase(), action, timestamp, signature };
}

async function createKey(env: Env, label = "bot", o: SignOptions = {}) {
  const res = await request(env.app).post("/api/v1/api-keys").send({ ...(await manage(env, "create", o)), label });
  expect(res.status).toBe(200);
  return res.body as { api_key: string; api_secret: string; label: string; owner_address: string; created_at: string };
}

function query(fields: Record<string, unknown>): string {
  return new URLSearchParams(Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)])).toString();
}

describe("POST /api-keys (create)", () => {
  it("returns 200 with api_key, api_secret, label, owner_address and created_at", async () => {
    const env = setup();
    const res = await request(env.app).post("/api/v1/api-keys").send({ ...(await manage(env, "create")), label: "market maker" });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["api_key", "api_secret", "created_at", "label", "owner_address"]);
    expect(res.body).toMatchObject({ label: "market maker", owner_address: ALICE, created_at: "2026-03-14T09:30:00.250Z" });
    expect(res.body.api_key).toMatch(/^fkx_[0-9a-f]{32}$/);
    expect(res.body.api_secret).toMatch(/^[0-9a-f]{64}$/);
    // The new pair works as a bearer credential.
    expect(env.store.authenticate(`Bearer ${res.body.api_key}:${res.body.api_secret}`)).toBe(ALICE);
  });

  it("defaults a missing or null label to the empty string", async () => {
    const env = setup();
    const missing = await request(env.app).post("/api/v1/api-keys").send(await manage(env, "create"));
    expect(missing.status).toBe(200);
    expect(missing.body.label).toBe("");
    env.clock.advanceSec(1);
    const nulled = await request(env.app).post("/api/v1/api-keys").send({ ...(await manage(env, "create")), label: null });
    expect(nulled.status).toBe(200);
    expect(nulled.body.label).toBe("");
  });

  it("accepts the owner in EIP-55 or lowercase, on either side of the signature", async () => {
    const env = setup();
    // Distinct timestamps: ECDSA signing is deterministic and both spellings hash
    // the same address bytes, so equal timestamps would replay one signature.
    const now = env.clock.nowSec();
    const cases: SignOptions[] = [
      { owner: alice.address, signedOwner: alice.address, timestamp: now },
      { owner: ALICE, signedOwner: alice.address, timestamp: now - 1 },
      { owner: alice.address, signedOwner: ALICE, timestamp: now - 2 },
      { owner: ALICE, signedOwner: ALICE, timestamp: now - 3 },
    ];
    for (const c of cases) {
      const res = await request(env.app).post("/api/v1/api-keys").send(await manage(env, "create", c));
      expect(res.status).toBe(200);
      expect(res.body.owner_address).toBe(ALICE);
    }
  });

  it("answers 400 when the signature is not owner_address's (other signer, other domain, tampered field)", async () => {
    const env = setup();
    const byBob = await manage(env, "create", { account: bob, owner: ALICE });
    const otherChain = await manage(env, "create", { domain: exchangeDomain("fakex", 1, DOMAIN.verifyingContract) });
    const otherName = await manage(env, "create", { domain: exchangeDomain("other", CHAIN_ID, DOMAIN.verifyingContract) });
    const tampered = { ...(await manage(env, "create")), timestamp: env.clock.nowSec() - 1 };
    const junk = { ...(await manage(env, "create")), signature: "0x1234" };
    const notHex = { ...(await manage(env, "create")), signature: "hello" };
    for (const body of [byBob, otherChain, otherName, tampered, junk]) {
      const res = await request(env.app).post("/api/v1/api-keys").send(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(SIGNATURE_INVALID);
    }
    // Not hex at all: the same 400, saying why.
    const res = await request(env.app).post("/api/v1/api-keys").send(notHex);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: `${SIGNATURE_INVALID.detail} (the signature is not 0x-prefixed hex)` });
    expect(env.store.activeCount(ALICE)).toBe(0);
  });

  it("answers 400 when the signed action is not 'create'", async () => {
    const env = setup();
    const res = await request(env.app).post("/api/v1/api-keys").send(await manage(env, "list"));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'action must be "create" for this operation' });
  });

  it("accepts a timestamp up to 5 minutes either side of server time and refuses one beyond (400)", async () => {
    const env = setup();
    const now = env.clock.nowSec();
    for (const ts of [now - 300, now + 300]) {
      const res = await request(env.app).post("/api/v1/api-keys").send(await manage(env, "create", { timestamp: ts }));
      expect(res.status).toBe(200);
    }
    for (const ts of [now - 301, now + 301, 0]) {
      const res = await request(env.app).post("/api/v1/api-keys").send(await manage(env, "create", { timestamp: ts }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: `timestamp must be Unix seconds within 300 seconds of server time (${now})` });
    }
  });

  it("refuses a signature that aged past the window on the virtual clock", async () => {
    const env = setup();
    const body = await manage(env, "create");
    env.clock.advanceSec(301);
    const res = await request(env.app).post("/api/v1/api-keys").send(body);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^timestamp must be Unix seconds within 300 seconds/);
  });

  it("answers 409 on a reused signature; a failed call does not consume it", async () => {
    const env = setup();
    const signed = await manage(env, "create");
    // A label too long is the body's shape (422), checked before the signature and its use.
    const tooLong = await request(env.app).post("/api/v1/api-keys").send({ ...signed, label: "x".repeat(129) });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body).toEqual({ detail: "body.label: must be at most 128 characters" });
    const staleAndLong = await request(env.app).post("/api/v1/api-keys").send({ ...(await manage(env, "create", { timestamp: env.clock.nowSec() - 1000 })), label: "x".repeat(129) });
    expect(staleAndLong.status).toBe(422);
    const first = await request(env.app).post("/api/v1/api-keys").send({ ...signed, label: "a" });
    expect(first.status).toBe(200);
    const again = await request(env.app).post("/api/v1/api-keys").send({ ...signed, label: "b" });
    expect(again.status).toBe(409);
    expect(again.body).toEqual(REPLAYED);
    expect(env.store.activeCount(ALICE)).toBe(1);
  });

  it("treats re-encodings of a used signature (v as 0/1, EIP-2098 compact) as the same signature: 409", async () => {
    const env = setup();
    const signed = await manage(env, "create");
    expect((await request(env.app).post("/api/v1/api-keys").send(signed)).status).toBe(200);
    const sig = signed.signature;
    const yParity = parseInt(sig.slice(130), 16) - 27;
    const lowV = `${sig.slice(0, 130)}0${yParity}`;
    const vs = (BigInt(yParity) << 255n) | BigInt(`0x${sig.slice(66, 130)}`);
    const compact = `${sig.slice(0, 66)}${vs.toString(16).padStart(64, "0")}`;
    for (const signature of [lowV, compact, sig.toUpperCase().replace(/^0X/, "0x")]) {
      const res = await request(env.app).post("/api/v1/api-keys").send({ ...signed, signature });
      expect(res.status).toBe(409);
      expect(res.body).toEqual(REPLAYED);
    }
    expect(env.store.activeCount(ALICE)).toBe(1);
  });

  it("allows 10 active keys per wallet; the 11th is 400 until one is revoked", async () => {
    const env = setup();
    const keys = [];
    for (let i = 0; i < 10; i++) {
      keys.push(await createKey(env, `k${i}`, { timestamp: env.clock.nowSec() - i }));
    }
    const eleventh = await request(env.app).post("/api/v1/api-keys").send(await manage(env, "create", { timestamp: env.clock.nowSec() + 1 }));
    expect(eleventh.status).toBe(400);
    expect(eleventh.body).toEqual({ detail: "a wallet can hold at most 10 active API keys; revoke one first" });
    // Another wallet is not affected by alice's cap.
    expect((await request(env.app).post("/api/v1/api-keys").send(await manage(env, "create", { account: bob }))).status).toBe(200);
    const victim = keys[3]!.api_key;
    const revoke = await request(env.app).post("/api/v1/api-keys/revoke").send({ ...(await manage(env, `revoke_${victim}`)), api_key: victim });
    expect(revoke.status).toBe(200);
    // The refused signature was not consumed: the same request now succeeds.
    const retry = await request(env.app).post("/api/v1/api-keys").send(await manage(env, "create", { timestamp: env.clock.nowSec() + 1 }));
    expect(retry.status).toBe(200);
    expect(env.store.activeCount(ALICE)).toBe(10);
  });

  it("answers 422 for a body of the wrong shape", async () => {
    const env = setup();
    const good = await manage(env, "create");
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ ...good, owner_address: undefined }, /^body\.owner_address: /],
      [{ ...good, owner_address: "0x1234" }, /^body\.owner_address: must be a 0x-prefixed 20-byte hex address$/],
      [{ ...good, action: undefined }, /^body\.action: /],
      [{ ...good, action: 5 }, /^body\.action: action must be a string$/],
      [{ ...good, timestamp: undefined }, /^body\.timestamp: /],
      [{ ...good, timestamp: 1.5 }, /^body\.timestamp: must be a non-negative integer/],
      [{ ...good, timestamp: -1 }, /^body\.timestamp: must be a non-negative integer/],
      [{ ...good, timestamp: "12a" }, /^body\.timestamp: must be a non-negative integer/],
      [{ ...good, timestamp: "1".repeat(79) }, /^body\.timestamp: must be a non-negative integer/],
      [{ ...good, timestamp: (1n << 256n).toString() }, /^body\.timestamp: must be a non-negative integer/],
      [{ ...good, signature: undefined }, /^body\.signature: /],
      [{ ...good, signature: 7 }, /^body\.signature: /],
      [{ ...good, label: 7 }, /^body\.label: must be a string$/],
    ];
    for (const [body, detail] of bad) {
      const res = await request(env.app).post("/api/v1/api-keys").send(body);
      expect(res.status).toBe(422);
      expect(res.body.detail).toMatch(detail);
    }
    const notJson = await request(env.app).post("/api/v1/api-keys").set("Content-Type", "application/json").send("{nope");
    expect(notJson.status).toBe(422);
    expect(notJson.body).toEqual({ detail: "Request body is not valid JSON" });
    const array = await request(env.app).post("/api/v1/api-keys").send([good]);
    expect(array.status).toBe(422);
    expect(array.body.detail).toMatch(/^body: /);
    const empty = await request(env.app).post("/api/v1/api-keys");
    expect(empty.status).toBe(422);
    expect(env.store.activeCount(ALICE)).toBe(0);
  });

  it("accepts the timestamp as a decimal string (uint256 in the signed message)", async () => {
    const env = setup();
    const signed = await manage(env, "create");
    const res = await request(env.app).post("/api/v1/api-keys").send({ ...signed, timestamp: String(signed.timestamp) });
    expect(res.status).toBe(200);
  });

  it("verifies a contract wallet through EIP-1271 with the exact ManageApiKey digest", async () => {
    const calls: string[] = [];
    const signature = "0xc0de" as Hex;
    const env = setup({
      contractSignatures: {
        isContract: (a) => a === WALLET_1271,
        isValidSignature: (a, digest, sig) => {
          calls.push(digest);
          const expected = hashTyped(DOMAIN, TYPES, "ManageApiKey", { owner: WALLET_1271, action: "create", timestamp: env.clock.nowSec() });
          return a === WALLET_1271 && digest === expected && sig === signature;
        },
      },
    });
    const body = { owner_address: WALLET_1271, action: "create", timestamp: env.clock.nowSec(), signature, label: "safe" };
    const res = await request(env.app).post("/api/v1/api-keys").send(body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ owner_address: WALLET_1271, label: "safe" });
    expect(calls).toHaveLength(1);
    // The wallet refuses another blob; replaying the accepted one is 409.
    const refused = await request(env.app).post("/api/v1/api-keys").send({ ...body, signature: "0xbad0" });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(SIGNATURE_INVALID);
    const replay = await request(env.app).post("/api/v1/api-keys").send(body);
    expect(replay.status).toBe(409);
    expect(replay.body).toEqual(REPLAYED);
  });

  it("refuses a contract-wallet signature when the app has no EIP-1271 checker", async () => {
    const env = setup();
    const body = { owner_address: WALLET_1271, action: "create", timestamp: env.clock.nowSec(), signature: "0xc0de" };
    const res = await request(env.app).post("/api/v1/api-keys").send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(SIGNATURE_INVALID);
  });

  it("answers 503 with Retry-After while the EIP-712 domain is not configured", async () => {
    const env = setup({ config: () => ({ chainId: CHAIN_ID, exchangeAddress: null, domainName: "fakex" }) });
    const res = await request(env.app).post("/api/v1/api-keys").send(await manage(env, "create"));
    expect(res.status).toBe(503);
    expect(res.headers["retry-after"]).toBe("1");
    expect(res.body).toEqual({ detail: "Service temporarily unavailable; please retry" });
    expect(env.logged).toEqual(["service unavailable"]);
  });

  it("costs no rate-limit budget", async () => {
    const env = setup();
    await createKey(env);
    expect(env.hits).toEqual([]);
  });
});

describe("listing keys: GET /api-keys, GET /api-keys/list, POST /api-keys/list", () => {
  async function withKeys() {
    const env = setup();
    const a1 = await createKey(env, "first", { timestamp: env.clock.nowSec() - 2 });
    env.clock.advanceSec(5);
    const a2 = await createKey(env, "second", { timestamp: env.clock.nowSec() - 1 });
    const b1 = await createKey(env, "bob's", { account: bob });
    return { env, a1, a2, b1 };
  }

  it("lists the owner's active keys, oldest first, without secrets, on every alias", async () => {
    const { env, a1, a2 } = await withKeys();
    env.store.authenticate(`Bearer ${a1.api_key}:${a1.api_secret}`);
    const expected = {
      owner_address: ALICE,
      api_keys: [
        { api_key: a1.api_key, label: "first", created_at: "2026-03-14T09:30:00.250Z", last_used_at: "2026-03-14T09:30:05.250Z" },
        { api_key: a2.api_key, label: "second", created_at: "2026-03-14T09:30:05.250Z", last_used_at: null },
      ],
      count: 2,
    };
    const viaGet = await request(env.app).get(`/api/v1/api-keys?${query(await manage(env, "list"))}`);
    expect(viaGet.status).toBe(200);
    expect(viaGet.body).toEqual(expected);
    const viaGetList = await request(env.app).get(`/api/v1/api-keys/list?${query(await manage(env, "list", { timestamp: env.clock.nowSec() - 1 }))}`);
    expect(viaGetList.status).toBe(200);
    expect(viaGetList.body).toEqual(expected);
    const viaPost = await request(env.app).post("/api/v1/api-keys/list").send(await manage(env, "list", { timestamp: env.clock.nowSec() - 2 }));
    expect(viaPost.status).toBe(200);
    expect(viaPost.body).toEqual(expected);
    expect(JSON.stringify(viaPost.body)).not.toContain(a1.api_secret);
  });

  it("lists nothing for a wallet without keys", async () => {
    const env = setup();
    const res = await request(env.app).post("/api/v1/api-keys/list").send(await manage(env, "list"));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ owner_address: ALICE, api_keys: [], count: 0 });
  });

  it("answers 409 when a list signature is reused, even across aliases", async () => {
    const { env } = await withKeys();
    const signed = await manage(env, "list");
    expect((await request(env.app).post("/api/v1/api-keys/list").send(signed)).status).toBe(200);
    for (const res of [
      await request(env.app).get(`/api/v1/api-keys?${query(signed)}`),
      await request(env.app).get(`/api/v1/api-keys/list?${query(signed)}`),
      await request(env.app).post("/api/v1/api-keys/list").send(signed),
    ]) {
      expect(res.status).toBe(409);
      expect(res.body).toEqual(REPLAYED);
    }
  });

  it("answers 400 for a wrong action, a foreign signature or a stale timestamp", async () => {
    const { env } = await withKeys();
    const wrongAction = await request(env.app).get(`/api/v1/api-keys?${query(await manage(env, "create"))}`);
    expect(wrongAction.status).toBe(400);
    expect(wrongAction.body).toEqual({ detail: 'action must be "list" for this operation' });
    const foreign = await request(env.app).post("/api/v1/api-keys/list").send(await manage(env, "list", { account: bob, owner: ALICE }));
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual(SIGNATURE_INVALID);
    const stale = await request(env.app).get(`/api/v1/api-keys/list?${query(await manage(env, "list", { timestamp: env.clock.nowSec() - 301 }))}`);
    expect(stale.status).toBe(400);
    expect(stale.body.detail).toMatch(/^timestamp must be Unix seconds within 300 seconds/);
  });

  it("answers 422 for a missing or malformed query field", async () => {
    const env = setup();
    const good = await manage(env, "list");
    for (const [omit, detail] of [
      ["owner_address", /^query\.owner_address: /],
      ["action", /^query\.action: /],
      ["timestamp", /^query\.timestamp: /],
      ["signature", /^query\.signature: /],
    ] as const) {
      const fields: Record<string, unknown> = { ...good };
      delete fields[omit];
      const res = await request(env.app).get(`/api/v1/api-keys?${query(fields)}`);
      expect(res.status).toBe(422);
      expect(res.body.detail).toMatch(detail);
    }
    const repeated = await request(env.app).get(`/api/v1/api-keys/list?${query(good)}&action=list`);
    expect(repeated.status).toBe(422);
    expect(repeated.body.detail).toMatch(/^query\.action: /);
  });
});

describe("revoking one key: DELETE /api-keys, DELETE or POST /api-keys/revoke", () => {
  it("revokes with the revoke_<api_key> action on every alias: 200 {status: ok, api_key}", async () => {
    const env = setup();
    const k1 = await createKey(env, "one", { timestamp: env.clock.nowSec() - 2 });
    const k2 = await createKey(env, "two", { timestamp: env.clock.nowSec() - 1 });
    const k3 = await createKey(env, "three");
    const viaDelete = await request(env.app).delete(`/api/v1/api-keys?${query({ ...(await manage(env, `revoke_${k1.api_key}`)), api_key: k1.api_key })}`);
    expect(viaDelete.status).toBe(200);
    expect(viaDelete.body).toEqual({ status: "ok", api_key: k1.api_key });
    const viaPost = await request(env.app).post("/api/v1/api-keys/revoke").send({ ...(await manage(env, `revoke_${k2.api_key}`)), api_key: k2.api_key });
    expect(viaPost.status).toBe(200);
    expect(viaPost.body).toEqual({ status: "ok", api_key: k2.api_key });
    // The interface's row pairs either method with either path (the query for DELETE), as the list row does.
    const viaDeleteRevoke = await request(env.app).delete(`/api/v1/api-keys/revoke?${query({ ...(await manage(env, `revoke_${k3.api_key}`)), api_key: k3.api_key })}`);
    expect(viaDeleteRevoke.status).toBe(200);
    expect(viaDeleteRevoke.body).toEqual({ status: "ok", api_key: k3.api_key });
    for (const k of [k1, k2, k3]) {
      const v = await request(env.app).post("/api/v1/api-keys/verify").send({ api_key: k.api_key, api_secret: k.api_secret });
      expect(v.status).toBe(401);
    }
    expect(env.store.activeCount(ALICE)).toBe(0);
  });

  it("answers 400 when the signed action names another key", async () => {
    const env = setup();
    const k1 = await createKey(env, "one", { timestamp: env.clock.nowSec() - 1 });
    const k2 = await createKey(env, "two");
    const res = await request(env.app).post("/api/v1/api-keys/revoke").send({ ...(await manage(env, `revoke_${k2.api_key}`)), api_key: k1.api_key });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: `action must be "revoke_${k1.api_key}" for this operation` });
    expect(env.store.activeCount(ALICE)).toBe(2);
  });

  it("answers 404 for an unknown, foreign or already revoked key", async () => {
    const env = setup();
    const mine = await createKey(env, "mine");
    const bobs = await createKey(env, "bob's", { account: bob });
    const revoke = async (apiKey: string, ts: number) =>
      request(env.app).post("/api/v1/api-keys/revoke").send({ ...(await manage(env, `revoke_${apiKey}`, { timestamp: ts })), api_key: apiKey });
    const now = env.clock.nowSec();
    expect((await revoke(mine.api_key, now)).status).toBe(200);
    for (const [key, ts] of [["fkx_" + "0".repeat(32), now - 1], [bobs.api_key, now - 2], [mine.api_key, now - 3]] as const) {
      const res = await revoke(key, ts);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: "API key not found" });
    }
    expect(env.store.activeCount(BOB)).toBe(1);
  });

  it("answers 409 when a revoke signature is replayed", async () => {
    const env = setup();
    const k = await createKey(env);
    const body = { ...(await manage(env, `revoke_${k.api_key}`)), api_key: k.api_key };
    expect((await request(env.app).post("/api/v1/api-keys/revoke").send(body)).status).toBe(200);
    const again = await request(env.app).delete(`/api/v1/api-keys?${query(body)}`);
    expect(again.status).toBe(409);
    expect(again.body).toEqual(REPLAYED);
  });

  it("answers 422 without api_key", async () => {
    const env = setup();
    const res = await request(env.app).post("/api/v1/api-keys/revoke").send(await manage(env, "revoke_x"));
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(/^body\.api_key: /);
    const del = await request(env.app).delete(`/api/v1/api-keys?${query(await manage(env, "revoke_x"))}`);
    expect(del.status).toBe(422);
    expect(del.body.detail).toMatch(/^query\.api_key: /);
    // The same on the other DELETE alias, and its fields in a body are not read (the query is the input).
    const delRevoke = await request(env.app).delete(`/api/v1/api-keys/revoke?${query(await manage(env, "revoke_x"))}`);
    expect(delRevoke.status).toBe(422);
    expect(delRevoke.body.detail).toMatch(/^query\.api_key: /);
    const bodyOnly = await request(env.app).delete("/api/v1/api-keys/revoke").send({ ...(await manage(env, "revoke_x")), api_key: "x" });
    expect(bodyOnly.status).toBe(422);
    expect(bodyOnly.body.detail).toMatch(/^query\./);
  });
});

describe("POST /api-keys/revoke-all", () => {
  it("revokes every active key of the owner only: 200 {status, revoked_api_keys, count}", async () => {
    const env = setup();
    const k1 = await createKey(env, "one", { timestamp: env.clock.nowSec() - 1 });
    const k2 = await createKey(env, "two");
    const bobs = await createKey(env, "bob's", { account: bob });
    const res = await request(env.app).post("/api/v1/api-keys/revoke-all").send(await manage(env, "revoke_all"));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok", revoked_api_keys: [k1.api_key, k2.api_key], count: 2 });
    expect(env.store.activeCount(ALICE)).toBe(0);
    const bobVerify = await request(env.app).post("/api/v1/api-keys/verify").send({ api_key: bobs.api_key, api_secret: bobs.api_secret });
    expect(bobVerify.body).toEqual({ valid: true, owner_address: BOB });
  });

  it("answers an empty list and count 0 when nothing is active", async () => {
    const env = setup();
    const res = await request(env.app).post("/api/v1/api-keys/revoke-all").send(await manage(env, "revoke_all"));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok", revoked_api_keys: [], count: 0 });
  });

  it("answers 409 when the signature was already used", async () => {
    const env = setup();
    const signed = await manage(env, "revoke_all");
    expect((await request(env.app).post("/api/v1/api-keys/revoke-all").send(signed)).status).toBe(200);
    const again = await request(env.app).post("/api/v1/api-keys/revoke-all").send(signed);
    expect(again.status).toBe(409);
    expect(again.body).toEqual(REPLAYED);
  });

  it("answers 400 for a wrong action or signer, 422 for a bad shape", async () => {
    const env = setup();
    const wrong = await request(env.app).post("/api/v1/api-keys/revoke-all").send(await manage(env, "revoke"));
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ detail: 'action must be "revoke_all" for this operation' });
    const foreign = await request(env.app).post("/api/v1/api-keys/revoke-all").send(await manage(env, "revoke_all", { account: bob, owner: ALICE }));
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual(SIGNATURE_INVALID);
    const shape = await request(env.app).post("/api/v1/api-keys/revoke-all").send({ owner_address: ALICE });
    expect(shape.status).toBe(422);
    expect(shape.body.detail).toMatch(/^body\.action: /);
  });
});

describe("POST /api-keys/self-revoke", () => {
  it("revokes the bearer key when the body names it: 200 {status: ok, api_key}", async () => {
    const env = setup();
    const k = await createKey(env, "one", { timestamp: env.clock.nowSec() - 1 });
    const other = await createKey(env, "two");
    const bearer = `Bearer ${k.api_key}:${k.api_secret}`;
    const res = await request(env.app).post("/api/v1/api-keys/self-revoke").set("Authorization", bearer).send({ api_key: k.api_key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok", api_key: k.api_key });
    expect(env.store.activeCount(ALICE)).toBe(1);
    expect(env.store.ownerOf(other.api_key)).toBe(ALICE);
    // The revoked key no longer authenticates, not even to revoke itself again.
    const again = await request(env.app).post("/api/v1/api-keys/self-revoke").set("Authorization", bearer).send({ api_key: k.api_key });
    expect(again.status).toBe(401);
    expect(again.body).toEqual({ detail: "Invalid API key" });
  });

  it("answers 401 for a missing or invalid key", async () => {
    const env = setup();
    const k = await createKey(env);
    const missing = await request(env.app).post("/api/v1/api-keys/self-revoke").send({ api_key: k.api_key });
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ detail: "Missing API key" });
    for (const header of [`Bearer ${k.api_key}:wrong`, `Bearer ${k.api_key}`, `Basic ${k.api_key}:${k.api_secret}`]) {
      const res = await request(env.app).post("/api/v1/api-keys/self-revoke").set("Authorization", header).send({ api_key: k.api_key });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: "Invalid API key" });
    }
    // Authentication comes before the body is looked at.
    const noBody = await request(env.app).post("/api/v1/api-keys/self-revoke").send({});
    expect(noBody.status).toBe(401);
    expect(env.store.activeCount(ALICE)).toBe(1);
  });

  it("answers 403 when the body names another key (even one of the same owner)", async () => {
    const env = setup();
    const k1 = await createKey(env, "one", { timestamp: env.clock.nowSec() - 1 });
    const k2 = await createKey(env, "two");
    const res = await request(env.app)
      .post("/api/v1/api-keys/self-revoke")
      .set("Authorization", `Bearer ${k1.api_key}:${k1.api_secret}`)
      .send({ api_key: k2.api_key });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: "api_key must be the key used to authenticate" });
    expect(env.store.activeCount(ALICE)).toBe(2);
  });

  it("answers 422 when an authenticated request has no api_key", async () => {
    const env = setup();
    const k = await createKey(env);
    const res = await request(env.app).post("/api/v1/api-keys/self-revoke").set("Authorization", `Bearer ${k.api_key}:${k.api_secret}`).send({});
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(/^body\.api_key: /);
    expect(env.store.activeCount(ALICE)).toBe(1);
  });
});

describe("POST /api-keys/verify", () => {
  it("answers 200 {valid: true, owner_address} for a good pair", async () => {
    const env = setup();
    const k = await createKey(env);
    const res = await request(env.app).post("/api/v1/api-keys/verify").send({ api_key: k.api_key, api_secret: k.api_secret });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ valid: true, owner_address: ALICE });
  });

  it("answers 401 with detail for a wrong secret, an unknown key or a revoked key", async () => {
    const env = setup();
    const k = await createKey(env, "one", { timestamp: env.clock.nowSec() - 1 });
    const revoked = await createKey(env, "two");
    await request(env.app).post("/api/v1/api-keys/self-revoke").set("Authorization", `Bearer ${revoked.api_key}:${revoked.api_secret}`).send({ api_key: revoked.api_key });
    for (const pair of [
      { api_key: k.api_key, api_secret: "0".repeat(64) },
      { api_key: "fkx_" + "1".repeat(32), api_secret: k.api_secret },
      { api_key: revoked.api_key, api_secret: revoked.api_secret },
    ]) {
      const res = await request(env.app).post("/api/v1/api-keys/verify").send(pair);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: "Invalid API key or secret" });
    }
  });

  it("answers 422 when a field is missing or not a string", async () => {
    const env = setup();
    for (const [body, detail] of [
      [{ api_key: "fkx_x" }, /^body\.api_secret: /],
      [{ api_secret: "s" }, /^body\.api_key: /],
      [{ api_key: 1, api_secret: "s" }, /^body\.api_key: /],
    ] as const) {
      const res = await request(env.app).post("/api/v1/api-keys/verify").send(body);
      expect(res.status).toBe(422);
      expect(res.body.detail).toMatch(detail);
    }
  });

  it("changes no state and consumes no rate-limit budget, however often it is called", async () => {
    const env = setup();
    const k = await createKey(env);
    for (let i = 0; i < 30; i++) {
      const res = await request(env.app).post("/api/v1/api-keys/verify").send({ api_key: k.api_key, api_secret: k.api_secret });
      expect(res.status).toBe(200);
    }
    expect(env.hits).toEqual([]);
    const listed = await request(env.app).post("/api/v1/api-keys/list").send(await manage(env, "list"));
    expect(listed.body.api_keys[0].last_used_at).toBeNull();
  });
});

describe("API-key paths and methods", () => {
  it("answers 405 with Allow for a method a path does not serve", async () => {
    const env = setup();
    const cases: [string, string, string][] = [
      ["put", "/api/v1/api-keys", "GET, HEAD, POST, DELETE"],
      ["patch", "/api/v1/api-keys", "GET, HEAD, POST, DELETE"],
      ["delete", "/api/v1/api-keys/list", "GET, HEAD, POST"],
      ["get", "/api/v1/api-keys/revoke", "POST, DELETE"],
      ["put", "/api/v1/api-keys/revoke", "POST, DELETE"],
      ["get", "/api/v1/api-keys/revoke-all", "POST"],
      ["get", "/api/v1/api-keys/self-revoke", "POST"],
      ["get", "/api/v1/api-keys/verify", "POST"],
    ];
    for (const [method, path, allow] of cases) {
      const res = await (request(env.app) as unknown as Record<string, (p: string) => request.Test>)[method]!(path);
      expect(res.status).toBe(405);
      expect(res.headers["allow"]).toBe(allow);
      expect(res.body).toEqual({ detail: "Method Not Allowed" });
    }
  });

  it("is not mounted (404) when the app has no key manager", async () => {
    const clock = new VirtualClock(START);
    const app = createApp({ clock, config: () => CONFIG, logger: { error: () => undefined } });
    const res = await request(app).post("/api/v1/api-keys/verify").send({ api_key: "a", api_secret: "b" });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: "Not Found" });
  });
});
