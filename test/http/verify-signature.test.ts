import { describe, expect, it } from "vitest";
import request from "supertest";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { VirtualClock } from "../../sim/core/clock.ts";
import type { ConfigInputs } from "../../sim/core/config-view.ts";
import { Health } from "../../sim/core/health.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry } from "../../sim/core/registry.ts";
import { ORDER_TYPE, ZERO_ADDRESS, exchangeDomain, type Address, type Hex, type OrderMessage } from "../../sim/core/typed-data.ts";
import { standaloneUuidInt } from "../../sim/core/uuid-int.ts";
import { createApp } from "../../sim/http/app.ts";
import type { HttpContext } from "../../sim/http/context.ts";
import { hashTyped } from "../../sim/signing/signatures.ts";

const START = Date.UTC(2026, 2, 14, 9, 30, 0, 250);
const NOW = Math.floor(START / 1000);
const EXECUTOR = 5;
const CHAIN_ID = 31337;
const EXCHANGE = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const CONFIG: ConfigInputs = { chainId: CHAIN_ID, exchangeAddress: EXCHANGE, domainName: "fakex" };
const DOMAIN = exchangeDomain("fakex", CHAIN_ID, EXCHANGE.toLowerCase() as Address);
const TYPES = { Order: ORDER_TYPE } as const;
const ORDER_ID = "0f8fad5b-d9cb-469f-a165-70867728950e";
const UUID_INT = standaloneUuidInt(ORDER_ID, EXECUTOR);
const alice = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const bob = privateKeyToAccount("0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a");
const ALICE = alice.address.toLowerCase() as Address;
const WALLET_1271 = "0x00000000000000000000000000000000000c0ffe" as Address;
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const registryWithFee = (feeBps: number) => new Registry({ ...DEFAULT_REGISTRY_CONFIG, fee_bps: feeBps });
const registry = registryWithFee(0);
const usdc = registry.tokenBySymbol("USDC")!.address;
const jpys = registry.tokenBySymbol("JPYS")!.address;
const eurc = registry.tokenBySymbol("EURC")!.address;

function setup(extra: Partial<HttpContext> = {}) {
  const clock = new VirtualClock(START);
  const health = new Health(clock, { executorId: EXECUTOR });
  const hits: string[] = [];
  const logged: string[] = [];
  const app = createApp({
    clock,
    registry,
    health,
    config: () => CONFIG,
    rateLimits: { hit: (w) => void hits.push(w) },
    logger: { error: (m) => logged.push(m) },
    ...extra,
  });
  return { clock, health, app, hits, logged };
}

/** The wire fields of an ask of 10.5 USDC at 152.35 JPYS (no signature). */
const fields = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  owner_address: ALICE,
  side: "ask",
  amount: "10.5",
  price: "152.35",
  from_address: usdc,
  to_address: jpys,
  order_id: ORDER_ID,
  uuid_int: UUID_INT.toString(),
  expiration: NOW + 3600,
  ...over,
});

/** The Order those fields stand for, written out independently of the server's builder. */
const order = (over: Partial<OrderMessage> = {}): OrderMessage => ({
  user: ALICE,
  expiration: BigInt(NOW + 3600),
  feeBps: 0n,
  recipient: ZERO_ADDRESS,
  fromToken: usdc,
  toToken: jpys,
  fromAmount: 10_500_000n, // 10.5 USDC, 6 decimals
  toAmount: 159_967n, // 10.5 * 152.35 = 1599.675 JPYS, floored at 2 decimals
  initialDepositAmount: 0n,
  uuid: UUID_INT,
  ...over,
});

// viem types uint48 members as numbers; both fit easily.
const sign = (message: OrderMessage, account: PrivateKeyAccount = alice, domain = DOMAIN) =>
  account.signTypedData({
    domain,
    types: TYPES,
    primaryType: "Order",
    message: { ...message, expiration: Number(message.expiration), feeBps: Number(message.feeBps) },
  });

const verify = (app: ReturnType<typeof createApp>, b: unknown) => request(app).post("/api/v1/verify-signature").send(b as object);

describe("POST /verify-signature: valid signatures", () => {
  it("answers {valid: true, recovered_address, expected_address, error: null} for the owner's signature", async () => {
    const res = await verify(setup().app, { ...fields(), signature: await sign(order()) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ valid: true, recovered_address: ALICE, expected_address: ALICE, error: null });
  });

  it("accepts owner_address in EIP-55 and a signer that signed the checksummed address", async () => {
    const { app } = setup();
    const signature = await sign(order({ user: alice.address }));
    for (const owner of [alice.address, ALICE]) {
      const res = await verify(app, { ...fields({ owner_address: owner }), signature });
      expect(res.body).toEqual({ valid: true, recovered_address: ALICE, expected_address: ALICE, error: null });
    }
  });

  it("maps a bid to fromToken = quote, toToken = base", async () => {
    const bid = fields({ side: "bid", from_address: eurc, to_address: usdc, amount: "10", price: "1.08" });
    const message = order({ fromToken: usdc, toToken: eurc, fromAmount: 10_800_000n, toAmount: 10_000_000n });
    const res = await verify(setup().app, { ...bid, signature: await sign(message) });
    expect(res.body.valid).toBe(true);
  });

  it("answers valid false for v 0/1 (POST /orders refuses it: the contract's ecrecover would), and takes order_type 'limit' when sent", async () => {
    const signature = await sign(order());
    const v = parseInt(signature.slice(130), 16);
    const lowV = `${signature.slice(0, 130)}${(v - 27).toString(16).padStart(2, "0")}`;
    const { app } = setup();
    const low = await verify(app, { ...fields(), signature: lowV });
    expect(low.status).toBe(200);
    expect(low.body.valid).toBe(false);
    expect(low.body.recovered_address).toBeNull();
    expect((await verify(app, { ...fields(), signature })).body.valid).toBe(true);
    expect((await verify(app, { ...fields({ order_type: "limit" }), signature })).body.valid).toBe(true);
  });

  it("builds the Order with the deployment's fee bps", async () => {
    const { app } = setup({ registry: registryWithFee(7) });
    expect((await verify(app, { ...fields(), signature: await sign(order({ feeBps: 7n })) })).body.valid).toBe(true);
    expect((await verify(app, { ...fields(), signature: await sign(order()) })).body.valid).toBe(false);
  });

  it("needs no API key and costs no rate-limit budget", async () => {
    const env = setup();
    await verify(env.app, { ...fields(), signature: await sign(order()) });
    expect(env.hits).toEqual([]);
  });
});

describe("POST /verify-signature: bad signatures are 200 with valid false", () => {
  it("names the recovered signer when someone else signed", async () => {
    const res = await verify(setup().app, { ...fields(), signature: await sign(order(), bob) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      valid: false,
      recovered_address: bob.address.toLowerCase(),
      expected_address: ALICE,
      error: "signature was not made by owner_address for this order",
    });
  });

  it("is invalid when the signed Order differs from the fields (amount, price, expiration, domain)", async () => {
    const { app } = setup();
    const mismatches = [
      await sign(order({ fromAmount: 10_600_000n })),
      await sign(order({ toAmount: 159_968n })),
      await sign(order({ expiration: BigInt(NOW + 3601) })),
      await sign(order({ recipient: ALICE })),
      await sign(order(), alice, exchangeDomain("fakex", 1, DOMAIN.verifyingContract)),
    ];
    for (const signature of mismatches) {
      const res = await verify(app, { ...fields(), signature });
      expect(res.status).toBe(200);
      expect(res.body.valid).toBe(false);
      expect(res.body.recovered_address).toMatch(/^0x[0-9a-f]{40}$/);
      expect(res.body.recovered_address).not.toBe(ALICE);
      expect(res.body.error).toBe("signature was not made by owner_address for this order");
    }
  });

  it("recovers nobody from junk, a high-s twin or an unknown v", async () => {
    const good = await sign(order());
    const r = good.slice(2, 66);
    const s = BigInt(`0x${good.slice(66, 130)}`);
    const v = parseInt(good.slice(130), 16);
    const highS = `0x${r}${(SECP256K1_N - s).toString(16).padStart(64, "0")}${(v === 27 ? 28 : 27).toString(16)}`;
    const badV = `${good.slice(0, 130)}1d`;
    const { app } = setup();
    for (const signature of ["0x1234", "", "not hex", highS, badV, `0x${"00".repeat(65)}`]) {
      const res = await verify(app, { ...fields(), signature });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        valid: false,
        recovered_address: null,
        expected_address: ALICE,
        error: "signature is malformed or recovers no address",
      });
    }
  });
});

describe("POST /verify-signature: EIP-1271 wallets", () => {
  const blob = "0xc0ffee" as Hex;
  const walletOrder = order({ user: WALLET_1271 });

  function with1271() {
    const seen: Hex[] = [];
    const env = setup({
      contractSignatures: {
        isContract: (a) => a === WALLET_1271,
        isValidSignature: (a, digest, sig) => {
          seen.push(digest);
          return a === WALLET_1271 && digest === hashTyped(DOMAIN, TYPES, "Order", { ...walletOrder }) && sig === blob;
        },
      },
    });
    return { ...env, seen };
  }

  it("is valid when the wallet accepts the Order digest; recovered_address stays null", async () => {
    const env = with1271();
    const res = await verify(env.app, { ...fields({ owner_address: WALLET_1271 }), signature: blob });
    expect(res.body).toEqual({ valid: true, recovered_address: null, expected_address: WALLET_1271, error: null });
    expect(env.seen).toHaveLength(1);
  });

  it("is invalid when the wallet refuses, or when the app has no EIP-1271 checker", async () => {
    const env = with1271();
    const refused = await verify(env.app, { ...fields({ owner_address: WALLET_1271 }), signature: "0xbadd" });
    expect(refused.body).toEqual({
      valid: false,
      recovered_address: null,
      expected_address: WALLET_1271,
      error: "signature is malformed or recovers no address",
    });
    const noChecker = await verify(setup().app, { ...fields({ owner_address: WALLET_1271 }), signature: blob });
    expect(noChecker.body.valid).toBe(false);
  });

  it("answers 503 (logged, cause hidden) when the chain cannot be asked", async () => {
    const env = setup({
      contractSignatures: {
        isContract: () => {
          throw new Error("rpc down");
        },
        isValidSignature: () => false,
      },
    });
    const res = await verify(env.app, { ...fields({ owner_address: WALLET_1271 }), signature: blob });
    expect(res.status).toBe(503);
    expect(res.headers["retry-after"]).toBe("1");
    expect(res.body).toEqual({ detail: "Service temporarily unavailable; please retry" });
    expect(env.logged).toEqual(["unexpected error"]);
  });
});

describe("POST /verify-signature: field errors are 400 {detail}, as on POST /orders", () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ["signature missing", { signature: undefined }, /^body\.signature: is required$/],
    ["signature not a string", { signature: 65 }, /^body\.signature: signature must be a hex string$/],
    ["amount not canonical", { amount: "1e3" }, /^amount must be a canonical positive decimal string/],
    ["price beyond the grid", { price: "152.3500001" }, /^price has non-zero digits beyond 6 decimal places/],
    ["inactive pair", { from_address: eurc, to_address: jpys }, /^pair is not an active market/],
    ["below the floor", { amount: "4.99" }, /^ask amount is below the market minimum of 5 USDC$/],
    ["expiration in the past", { expiration: NOW }, /^expiration is not in the future/],
    ["expiration too far", { expiration: NOW + 365 * 86400 }, /^expiration is too far in the future/],
    ["expiration missing", { expiration: undefined }, /^expiration is required/],
    ["uuid_int for another executor", { uuid_int: standaloneUuidInt(ORDER_ID, 0).toString() }, /^uuid_int carries executor_id 0/],
    ["side", { side: "sell" }, /^side must be 'bid' or 'ask'$/],
    ["order_type", { order_type: "market" }, /^order_type must be 'limit'$/],
    ["owner_address", { owner_address: "alice" }, /^owner_address must be a 0x-prefixed 20-byte hex address$/],
    ["order_id", { order_id: "not-a-uuid" }, /^order_id must be a UUID version 4$/],
    ["fee_bps", { fee_bps: 0 }, /^fee_bps is not accepted$/],
  ];

  it.each(cases)("%s → 400", async (_name, over, detail) => {
    const env = setup();
    const signature = await sign(order());
    const res = await verify(env.app, { ...fields(), signature, ...over });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(["detail"]);
    expect(res.body.detail).toMatch(detail);
  });

  it("a body that is not an object is 400; malformed JSON is 422", async () => {
    const { app } = setup();
    const array = await verify(app, [fields()]);
    expect(array.status).toBe(400);
    expect(array.body.detail).toMatch(/^body: /);
    const broken = await request(app).post("/api/v1/verify-signature").set("Content-Type", "application/json").send("{");
    expect(broken.status).toBe(422);
    expect(broken.body).toEqual({ detail: "Request body is not valid JSON" });
  });

  it("answers 503 while the EIP-712 domain is not configured", async () => {
    const env = setup({ config: () => ({ chainId: null, exchangeAddress: EXCHANGE, domainName: "fakex" }) });
    const res = await verify(env.app, { ...fields(), signature: await sign(order()) });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: "Service temporarily unavailable; please retry" });
  });

  it("answers 405 with Allow: POST for other methods", async () => {
    const res = await request(setup().app).get("/api/v1/verify-signature");
    expect(res.status).toBe(405);
    expect(res.headers["allow"]).toBe("POST");
    expect(res.body).toEqual({ detail: "Method Not Allowed" });
  });
});
