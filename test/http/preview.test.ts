import { describe, expect, it } from "vitest";
import request from "supertest";
import { privateKeyToAccount } from "viem/accounts";
import { recoverTypedDataAddress } from "viem";
import { VirtualClock } from "../../sim/core/clock.ts";
import type { ConfigInputs } from "../../sim/core/config-view.ts";
import { EXPIRATION_MAX_AHEAD_SEC } from "../../sim/core/expiration.ts";
import { Health } from "../../sim/core/health.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry } from "../../sim/core/registry.ts";
import { ORDER_TYPE, ZERO_ADDRESS, exchangeDomain, type Address } from "../../sim/core/typed-data.ts";
import { standaloneUuidInt } from "../../sim/core/uuid-int.ts";
import { createApp } from "../../sim/http/app.ts";
import type { HttpContext } from "../../sim/http/context.ts";

const START = Date.UTC(2026, 2, 14, 9, 30, 0, 250);
const NOW = Math.floor(START / 1000);
const EXECUTOR = 3;
const CHAIN_ID = 31337;
const EXCHANGE = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const CONFIG: ConfigInputs = { chainId: CHAIN_ID, exchangeAddress: EXCHANGE, domainName: "fakex" };
const DOMAIN = exchangeDomain("fakex", CHAIN_ID, EXCHANGE.toLowerCase() as Address);
const ORDER_ID = "0f8fad5b-d9cb-469f-a165-70867728950e";
const account = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const OWNER = account.address.toLowerCase();

const feeRegistry = (feeBps: number) => new Registry({ ...DEFAULT_REGISTRY_CONFIG, fee_bps: feeBps });
const registry = feeRegistry(0);
const usdc = registry.tokenBySymbol("USDC")!.address;
const jpys = registry.tokenBySymbol("JPYS")!.address;
const eurc = registry.tokenBySymbol("EURC")!.address;

function setup(extra: Partial<HttpContext> = {}) {
  const clock = new VirtualClock(START);
  const health = new Health(clock, { executorId: EXECUTOR });
  const hits: string[] = [];
  const app = createApp({
    clock,
    registry,
    health,
    config: () => CONFIG,
    rateLimits: { hit: (w) => void hits.push(w) },
    logger: { error: () => undefined },
    ...extra,
  });
  return { clock, health, app, hits };
}

/** An ask of 10.5 USDC at 152.35 JPYS on USDC/JPYS (quote token with 2 decimals). */
const body = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  owner_address: account.address,
  side: "ask",
  amount: "10.5",
  price: "152.35",
  order_type: "limit",
  from_address: usdc,
  to_address: jpys,
  order_id: ORDER_ID,
  uuid_int: standaloneUuidInt(ORDER_ID, EXECUTOR).toString(),
  expiration: NOW + 3600,
  ...over,
});

const preview = (app: ReturnType<typeof createApp>, b: unknown) => request(app).post("/api/v1/orders/preview").send(b as object);

describe("POST /orders/preview: success", () => {
  it("returns every field of the spec for an ask, and the exact Order to sign", async () => {
    const res = await preview(setup().app, body());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ok: true,
      symbol: "USDC/JPYS",
      side: "ask",
      normalized_amount: "10.5",
      normalized_price: "152.35",
      amount_step: "0.01",
      price_step: "0.000001",
      rounding_mode: "reject_extra_precision",
      canonicalization_required: false,
      from_token: usdc,
      to_token: jpys,
      from_amount: "10500000",
      to_amount: "159967", // 10.5 * 152.35 = 1599.675 JPYS, floored to 1599.67
      notional: "1599.675",
      eip712_order: {
        user: OWNER,
        expiration: String(NOW + 3600),
        feeBps: "0",
        recipient: ZERO_ADDRESS,
        fromToken: usdc,
        toToken: jpys,
        fromAmount: "10500000",
        toAmount: "159967",
        initialDepositAmount: "0",
        uuid: standaloneUuidInt(ORDER_ID, EXECUTOR).toString(),
      },
      eip712_types: { Order: ORDER_TYPE.map((m) => ({ name: m.name, type: m.type })) },
    });
  });

  it("a bid spends the quote token; non-shortest decimals set canonicalization_required", async () => {
    const res = await preview(setup().app, body({ side: "bid", from_address: eurc, to_address: usdc, amount: "10.00", price: "1.0800" }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      symbol: "EURC/USDC",
      side: "bid",
      normalized_amount: "10",
      normalized_price: "1.08",
      amount_step: "0.01",
      price_step: "0.00001",
      canonicalization_required: true,
      from_token: usdc,
      to_token: eurc,
      from_amount: "10800000",
      to_amount: "10000000",
      notional: "10.8",
    });
    expect(res.body.eip712_order).toMatchObject({ fromToken: usdc, toToken: eurc, fromAmount: "10800000", toAmount: "10000000" });
  });

  it("puts the deployment's fee bps into the Order", async () => {
    const res = await preview(setup({ registry: feeRegistry(7) }).app, body());
    expect(res.status).toBe(200);
    expect(res.body.eip712_order.feeBps).toBe("7");
  });

  it("accepts the owner in lowercase or EIP-55 and always returns it lowercase", async () => {
    const { app } = setup();
    for (const owner of [OWNER, account.address]) {
      const res = await preview(app, body({ owner_address: owner }));
      expect(res.status).toBe(200);
      expect(res.body.eip712_order.user).toBe(OWNER);
    }
  });

  it("needs no API key and costs no rate-limit budget", async () => {
    const env = setup();
    const res = await preview(env.app, body());
    expect(res.status).toBe(200);
    expect(env.hits).toEqual([]);
  });

  it("accepts the last second of the expiration window", async () => {
    const res = await preview(setup().app, body({ expiration: NOW + EXPIRATION_MAX_AHEAD_SEC }));
    expect(res.status).toBe(200);
    expect(res.body.eip712_order.expiration).toBe(String(NOW + EXPIRATION_MAX_AHEAD_SEC));
  });
});

describe("POST /orders/preview: a client signs eip712_order", () => {
  it("signs the returned Order with viem (numerics as integers) and /verify-signature accepts it", async () => {
    const { app } = setup();
    const p = await preview(app, body({ amount: "10.50", price: "152.350" }));
    expect(p.status).toBe(200);
    const o = p.body.eip712_order as Record<string, string>;
    const message = {
      user: o["user"] as Address,
      expiration: BigInt(o["expiration"]!),
      feeBps: BigInt(o["feeBps"]!),
      recipient: o["recipient"] as Address,
      fromToken: o["fromToken"] as Address,
      toToken: o["toToken"] as Address,
      fromAmount: BigInt(o["fromAmount"]!),
      toAmount: BigInt(o["toAmount"]!),
      initialDepositAmount: BigInt(o["initialDepositAmount"]!),
      uuid: BigInt(o["uuid"]!),
    };
    // eip712_types is the full Order type, usable as-is by a typed-data signer.
    const types = { Order: p.body.eip712_types.Order as { name: string; type: string }[] };
    const signature = await account.signTypedData({ domain: DOMAIN, types, primaryType: "Order", message });
    expect(await recoverTypedDataAddress({ domain: DOMAIN, types, primaryType: "Order", message, signature })).toBe(account.address);

    // Submit with the normalized amount and price, as the spec says.
    const verify = await request(app)
      .post("/api/v1/verify-signature")
      .send({ ...body({ amount: p.body.normalized_amount, price: p.body.normalized_price }), signature });
    expect(verify.status).toBe(200);
    expect(verify.body).toEqual({ valid: true, recovered_address: OWNER, expected_address: OWNER, error: null });
  });
});

describe("POST /orders/preview: failures are {ok: false, error_code, detail} at the top level", () => {
  // The fourth column: what the detail text must say (the field it names, the step); the envelope has only ok, error_code and detail.
  const cases: [string, Record<string, unknown>, string, string][] = [
    ["amount with an exponent", { amount: "1e3" }, "INVALID_DECIMAL_FORMAT", "amount"],
    ["negative amount", { amount: "-1" }, "INVALID_DECIMAL_FORMAT", "amount"],
    ["amount with a separator", { amount: "1,000" }, "INVALID_DECIMAL_FORMAT", "amount"],
    ["amount as a JSON number", { amount: 10.5 }, "INVALID_DECIMAL_FORMAT", "amount"],
    ["zero amount", { amount: "0.00" }, "INVALID_DECIMAL_FORMAT", "amount"],
    ["price with whitespace", { price: " 152.35" }, "INVALID_DECIMAL_FORMAT", "price"],
    ["amount beyond 2 decimals", { amount: "10.505" }, "INVALID_PRECISION", "amount has non-zero digits beyond 2 decimal places"],
    ["price beyond 6 decimals", { price: "152.3500001" }, "INVALID_PRECISION", "price has non-zero digits beyond 6 decimal places"],
    ["inactive market", { from_address: eurc, to_address: jpys, price: "160" }, "PAIR_INACTIVE", ""],
    ["reversed orientation", { from_address: jpys, to_address: usdc }, "PAIR_INACTIVE", ""],
    ["unknown pair", { to_address: "0x000000000000000000000000000000000000dead" }, "PAIR_INACTIVE", ""],
    ["side not bid/ask", { side: "buy" }, "TRANSIENT_SETTLEMENT_FAILURE", "side"],
    ["order_type not limit", { order_type: "market" }, "TRANSIENT_SETTLEMENT_FAILURE", "order_type"],
    ["bad owner", { owner_address: "0x1234" }, "TRANSIENT_SETTLEMENT_FAILURE", "owner_address"],
    ["same token both sides", { to_address: usdc }, "TRANSIENT_SETTLEMENT_FAILURE", "to_address"],
    ["order_id not a UUID4", { order_id: "0f8fad5b-d9cb-169f-a165-70867728950e" }, "TRANSIENT_SETTLEMENT_FAILURE", "order_id"],
    ["client_id sent", { client_id: "abc" }, "TRANSIENT_SETTLEMENT_FAILURE", "client_id"],
    ["fee_bps sent", { fee_bps: 0 }, "TRANSIENT_SETTLEMENT_FAILURE", "fee_bps"],
    ["uuid_int not a decimal string", { uuid_int: "0x10" }, "TRANSIENT_SETTLEMENT_FAILURE", "uuid_int"],
  ];

  it.each(cases)("%s → 400 %s", async (_name, over, code, says) => {
    const res = await preview(setup().app, body(over));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, error_code: code, detail: expect.stringContaining(says) });
    expect(res.body.detail.length).toBeGreaterThan(0);
  });

  it("AMOUNT_BELOW_MIN carries the minimum, for an ask (base floor) and a bid (quote floor)", async () => {
    const { app } = setup();
    const ask = await preview(app, body({ amount: "4.99" }));
    expect(ask.status).toBe(400);
    expect(ask.body).toEqual({
      ok: false,
      error_code: "AMOUNT_BELOW_MIN",
      detail: "ask amount is below the market minimum of 5 USDC",
      min_amount_raw: "5000000",
      min_amount: "5",
    });
    const bid = await preview(app, body({ side: "bid", amount: "4.92", price: "152.35" })); // 749.562 JPYS < 750
    expect(bid.status).toBe(400);
    expect(bid.body).toEqual({
      ok: false,
      error_code: "AMOUNT_BELOW_MIN",
      detail: "bid value (amount * price) is below the market minimum of 750 JPYS",
      min_amount_raw: "75000",
      min_amount: "750",
    });
    expect((await preview(app, body({ side: "bid", amount: "4.93", price: "152.35" }))).status).toBe(200);
    // A JPYS leg that floors to zero raw units (the contract refuses a zero amount): one raw unit is the minimum.
    const zero = await preview(app, body({ amount: "10", price: "0.000001" }));
    expect(zero.status).toBe(400);
    expect(zero.body).toEqual({
      ok: false,
      error_code: "AMOUNT_BELOW_MIN",
      detail: "amount * price is below one raw unit of JPYS (2 decimals): the order's JPYS amount would be 0, which the contract refuses",
      min_amount_raw: "1",
      min_amount: "0.01",
    });
  });

  it("expiration outside now < t <= now + 365 days - 300 s → 400 with the window; QUOTE_STALE when already past", async () => {
    const { app } = setup();
    const max = NOW + EXPIRATION_MAX_AHEAD_SEC;
    const cases: [unknown, string][] = [
      [undefined, "is required"],
      [0, "is zero"],
      [NOW, "is not in the future"],
      [NOW - 60, "is not in the future"],
      [max + 1, "is too far in the future"],
      [NOW + 60.5, "must be an integer Unix timestamp in seconds"],
      ["soon", "must be an integer Unix timestamp in seconds"],
    ];
    for (const [expiration, says] of cases) {
      const res = await preview(app, body({ expiration }));
      expect(res.status).toBe(400);
      // The window and the server time are in the text; the envelope has the spec's keys only.
      expect(res.body).toEqual({
        ok: false,
        error_code: says === "is not in the future" ? "QUOTE_STALE" : "TRANSIENT_SETTLEMENT_FAILURE",
        detail: `expiration ${says}: it must satisfy now < expiration <= now + ${EXPIRATION_MAX_AHEAD_SEC} seconds (365 days minus 300 s); server time is ${NOW}`,
      });
    }
    expect(max).toBe(NOW + EXPIRATION_MAX_AHEAD_SEC);
  });

  it("follows the virtual clock: an expiration accepted now is refused once it has passed", async () => {
    const { app, clock } = setup();
    expect((await preview(app, body({ expiration: NOW + 60 }))).status).toBe(200);
    clock.advanceSec(60);
    const res = await preview(app, body({ expiration: NOW + 60 }));
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe("QUOTE_STALE");
  });

  it("uuid_int not encoding order_id with the current executor_id → 400 (QUOTE_STALE for another executor id)", async () => {
    const { app, health } = setup();
    const other = "6ba7b810-9dad-41d1-80b4-00c04fd430c8";
    const cases: [bigint, string, string][] = [
      [standaloneUuidInt(ORDER_ID, EXECUTOR + 1), "QUOTE_STALE", `uuid_int carries executor_id ${EXECUTOR + 1} but the current executor_id is ${EXECUTOR} (see GET /health)`],
      [standaloneUuidInt(other, EXECUTOR), "TRANSIENT_SETTLEMENT_FAILURE", "uuid_int does not embed order_id"],
      [1n, "TRANSIENT_SETTLEMENT_FAILURE", "uuid_int does not embed order_id"],
    ];
    for (const [uuid_int, code, detail] of cases) {
      const res = await preview(app, body({ uuid_int: uuid_int.toString() }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ ok: false, error_code: code, detail });
    }
    // Rotating the executor invalidates identifiers built for the old one.
    health.setExecutorId(EXECUTOR + 1);
    const stale = await preview(app, body());
    expect(stale.status).toBe(400);
    expect(stale.body.error_code).toBe("QUOTE_STALE");
    expect(stale.body.detail).toBe(`uuid_int carries executor_id ${EXECUTOR} but the current executor_id is ${EXECUTOR + 1} (see GET /health)`);
    expect((await preview(app, body({ uuid_int: standaloneUuidInt(ORDER_ID, EXECUTOR + 1).toString() }))).status).toBe(200);
  });

  it("a body that is not a JSON object is 400; malformed JSON is 422, both in the preview envelope", async () => {
    const { app } = setup();
    const array = await preview(app, [body()]);
    expect(array.status).toBe(400);
    expect(array.body).toEqual({ ok: false, error_code: "TRANSIENT_SETTLEMENT_FAILURE", detail: "request body must be a JSON object" });
    const text = await request(app).post("/api/v1/orders/preview").set("Content-Type", "text/plain").send("hello");
    expect(text.status).toBe(400);
    expect(text.body).toEqual({
      ok: false,
      error_code: "TRANSIENT_SETTLEMENT_FAILURE",
      detail: "request body must be a JSON object (the body was sent as Content-Type text/plain, which is not read: send JSON as application/json)",
    });
    const broken = await request(app).post("/api/v1/orders/preview").set("Content-Type", "application/json").send('{"side": ');
    expect(broken.status).toBe(422);
    expect(broken.body).toEqual({ ok: false, error_code: "TRANSIENT_SETTLEMENT_FAILURE", detail: "Request body is not valid JSON" });
  });
});

describe("POST /orders/preview: routing", () => {
  it("answers 405 with Allow: POST for other methods", async () => {
    const { app } = setup();
    for (const res of [await request(app).get("/api/v1/orders/preview"), await request(app).put("/api/v1/orders/preview").send(body())]) {
      expect(res.status).toBe(405);
      expect(res.headers["allow"]).toBe("POST");
      expect(res.body).toEqual({ detail: "Method Not Allowed" });
    }
  });

  it("is not mounted (404) without the health state that supplies the executor id", async () => {
    const app = createApp({ clock: new VirtualClock(START), registry, logger: { error: () => undefined } });
    const res = await preview(app, body());
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: "Not Found" });
  });
});
