import { describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { recoverTypedDataAddress } from "viem";
import { ExchangeError } from "../../sim/core/errors.ts";
import { EXPIRATION_MAX_AHEAD_SEC } from "../../sim/core/expiration.ts";
import { previewOrder, validateOrderFields, type PreviewContext } from "../../sim/core/preview.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry } from "../../sim/core/registry.ts";
import { exchangeDomain, ORDER_TYPE, type Address } from "../../sim/core/typed-data.ts";
import { encodeUuidInt, groupIdOf, standaloneUuidInt } from "../../sim/core/uuid-int.ts";

const registry = new Registry(DEFAULT_REGISTRY_CONFIG);
const NOW = 1_767_225_600;
const ctx: PreviewContext = { registry, nowSec: NOW, executorId: 1 };
const usdc = registry.tokenBySymbol("USDC")!.address;
const jpys = registry.tokenBySymbol("JPYS")!.address;
const eurc = registry.tokenBySymbol("EURC")!.address;
const ORDER_ID = "0f8fad5b-d9cb-469f-a165-70867728950e";
const account = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");

const body = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  owner_address: account.address,
  side: "ask",
  amount: "10.5",
  price: "152.35",
  order_type: "limit",
  from_address: usdc,
  to_address: jpys,
  order_id: ORDER_ID,
  uuid_int: standaloneUuidInt(ORDER_ID, 1).toString(),
  expiration: NOW + 3600,
  ...over,
});

function caught(f: () => unknown): ExchangeError {
  try {
    f();
  } catch (e) {
    if (e instanceof ExchangeError) return e;
    throw e;
  }
  throw new Error("expected an ExchangeError");
}

describe("previewOrder success", () => {
  it("returns every spec field for an ask", () => {
    const p = previewOrder(body(), ctx);
    expect(p).toEqual({
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
      to_amount: "159967", // 10.5 * 152.35 = 1599.675 -> 1599.67 JPYS
      notional: "1599.675",
      eip712_order: {
        user: account.address.toLowerCase(),
        expiration: String(NOW + 3600),
        feeBps: "0",
        recipient: "0x0000000000000000000000000000000000000000",
        fromToken: usdc,
        toToken: jpys,
        fromAmount: "10500000",
        toAmount: "159967",
        initialDepositAmount: "0",
        uuid: standaloneUuidInt(ORDER_ID, 1).toString(),
      },
      eip712_types: { Order: ORDER_TYPE.map((m) => ({ ...m })) },
    });
  });

  it("a bid spends the quote token; trailing zeros set canonicalization_required", () => {
    const p = previewOrder(body({ side: "bid", amount: "10.50", price: "152.350" }), ctx);
    expect(p.normalized_amount).toBe("10.5");
    expect(p.normalized_price).toBe("152.35");
    expect(p.canonicalization_required).toBe(true);
    expect(p.from_token).toBe(jpys);
    expect(p.to_token).toBe(usdc);
    expect(p.from_amount).toBe("159967");
    expect(p.to_amount).toBe("10500000");
    // Either field alone is enough.
    expect(previewOrder(body({ side: "bid", amount: "10.50", price: "152.35" }), ctx).canonicalization_required).toBe(true);
    expect(previewOrder(body({ side: "bid", amount: "10.5", price: "152.350" }), ctx).canonicalization_required).toBe(true);
    expect(previewOrder(body({ side: "bid", amount: "10.5", price: "152.35" }), ctx).canonicalization_required).toBe(false);
  });

  it("eip712_order signs and recovers to the owner when numerics are converted", async () => {
    const p = previewOrder(body(), ctx);
    const o = p.eip712_order;
    const message = {
      ...o,
      expiration: BigInt(o.expiration!),
      feeBps: BigInt(o.feeBps!),
      fromAmount: BigInt(o.fromAmount!),
      toAmount: BigInt(o.toAmount!),
      initialDepositAmount: BigInt(o.initialDepositAmount!),
      uuid: BigInt(o.uuid!),
    } as any;
    const domain = exchangeDomain("fakex", 31337, "0x5FbDB2315678afecb367f032d93F642f64180aa3" as Address);
    const signature = await account.signTypedData({ domain, types: p.eip712_types, primaryType: "Order", message });
    const recovered = await recoverTypedDataAddress({ domain, types: p.eip712_types, primaryType: "Order", message, signature });
    expect(recovered).toBe(account.address);
  });

  it("validateOrderFields exposes the parsed order for POST /orders", () => {
    const v = validateOrderFields(body({ order_id: ORDER_ID.toUpperCase(), uuid_int: standaloneUuidInt(ORDER_ID, 1).toString() }), ctx);
    expect(v.orderId).toBe(ORDER_ID);
    expect(v.owner).toBe(account.address.toLowerCase());
    expect(v.market.symbol).toBe("USDC/JPYS");
    expect(v.message.fromAmount).toBe(10_500_000n);
  });
});

describe("VL legs", () => {
  const LEG0 = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
  const leg = { groupId: groupIdOf(LEG0), legId: 3 };
  const legUuid = encodeUuidInt({ executorId: 1, orderId: ORDER_ID, ...leg }).toString();

  it("checks uuid_int against the batch group and leg position when given", () => {
    expect(validateOrderFields(body({ uuid_int: legUuid }), ctx, leg).uuidInt.toString()).toBe(legUuid);
    const e = caught(() => validateOrderFields(body({ uuid_int: legUuid }), ctx, { ...leg, legId: 2 }));
    expect(e.code).toBe("UUID_INT_MISMATCH");
    expect(e.status).toBe(400);
    // a standalone encoding is not a valid leg, and a leg encoding is not a valid standalone id
    expect(caught(() => validateOrderFields(body(), ctx, leg)).code).toBe("UUID_INT_MISMATCH");
    expect(caught(() => validateOrderFields(body({ uuid_int: legUuid }), ctx)).code).toBe("UUID_INT_MISMATCH");
  });
});

describe("previewOrder failures, each with status and code", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["non-object body", { __replace: null }, "VALIDATION"],
    ["bad owner", { owner_address: "0x12" }, "VALIDATION"],
    ["bad side", { side: "buy" }, "VALIDATION"],
    ["bad order_type", { order_type: "market" }, "VALIDATION"],
    ["missing order_type", { order_type: undefined }, "VALIDATION"],
    ["bad from_address", { from_address: "usdc" }, "VALIDATION"],
    ["same tokens", { to_address: usdc }, "VALIDATION"],
    ["client_id sent", { client_id: "abc" }, "VALIDATION"],
    ["fee_bps sent", { fee_bps: 0 }, "VALIDATION"],
    ["non-v4 order_id", { order_id: "0f8fad5b-d9cb-169f-a165-70867728950e" }, "VALIDATION"],
    ["amount with exponent", { amount: "1e1" }, "INVALID_DECIMAL_FORMAT"],
    ["numeric price", { price: 152.35 }, "INVALID_DECIMAL_FORMAT"],
    ["zero amount", { amount: "0" }, "INVALID_DECIMAL_FORMAT"],
    ["amount precision", { amount: "10.555" }, "INVALID_PRECISION"],
    ["price precision", { price: "152.3500001" }, "INVALID_PRECISION"],
    ["unknown pair", { to_address: registry.tokenBySymbol("XCHF")!.address }, "PAIR_INACTIVE"],
    ["inactive pair", { from_address: eurc, to_address: jpys }, "PAIR_INACTIVE"],
    ["inverse orientation", { from_address: jpys, to_address: usdc }, "PAIR_INACTIVE"],
    ["ask below floor", { amount: "4.99" }, "AMOUNT_BELOW_MIN"],
    ["bid below floor", { side: "bid", amount: "4.99", price: "150.3" }, "AMOUNT_BELOW_MIN"],
    ["past expiration", { expiration: NOW }, "EXPIRATION_INVALID"],
    ["far expiration", { expiration: NOW + EXPIRATION_MAX_AHEAD_SEC + 1 }, "EXPIRATION_INVALID"],
    ["missing expiration", { expiration: undefined }, "EXPIRATION_INVALID"],
    ["malformed uuid_int", { uuid_int: "abc" }, "VALIDATION"],
    ["uuid_int of stale executor", { uuid_int: standaloneUuidInt(ORDER_ID, 0).toString() }, "UUID_INT_MISMATCH"],
  ];
  it.each(cases)("%s → 400 %s", (_n, over, code) => {
    const input = "__replace" in over ? over.__replace : body(over);
    const e = caught(() => previewOrder(input, ctx));
    expect(e.code).toBe(code);
    expect(e.status).toBe(400);
  });

  it("checks in order: format before precision before pair before floor before expiration before uuid_int", () => {
    const allBad = {
      amount: "01",
      price: "1.001",
      from_address: eurc,
      to_address: jpys,
      expiration: 0,
      uuid_int: "1",
    };
    expect(caught(() => previewOrder(body(allBad), ctx)).code).toBe("INVALID_DECIMAL_FORMAT");
    expect(caught(() => previewOrder(body({ ...allBad, amount: "1.001" }), ctx)).code).toBe("INVALID_PRECISION");
    expect(caught(() => previewOrder(body({ ...allBad, amount: "1", price: "1" }), ctx)).code).toBe("PAIR_INACTIVE");
    const onMarket = { ...allBad, amount: "1", price: "1", from_address: usdc, to_address: jpys };
    expect(caught(() => previewOrder(body(onMarket), ctx)).code).toBe("AMOUNT_BELOW_MIN");
    expect(caught(() => previewOrder(body({ ...onMarket, amount: "10" }), ctx)).code).toBe("EXPIRATION_INVALID");
    expect(caught(() => previewOrder(body({ ...onMarket, amount: "10", expiration: NOW + 60 }), ctx)).code).toBe("UUID_INT_MISMATCH");
  });

  it("the below-minimum error carries the floor in raw and decimal form", () => {
    const e = caught(() => previewOrder(body({ amount: "4.99" }), ctx));
    expect(e.extra).toEqual({ min_amount_raw: "5000000", min_amount: "5" });
  });
});
