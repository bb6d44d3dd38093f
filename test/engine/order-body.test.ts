// The shared builder of a standalone limit order body: the exact wire fields, and
// a body the engine's intake accepts as is.
import { describe, expect, it } from "vitest";
import { limitOrderBody } from "../../sim/core/order-body.ts";
import { standaloneUuidInt } from "../../sim/core/uuid-int.ts";
import { ALICE, EXECUTOR_ID, fund, market, setup } from "./helpers.ts";

describe("limitOrderBody", () => {
  it("has exactly the POST /orders fields, uuid_int the standalone encoding unless given", () => {
    const m = { base: "0xbase", quote: "0xquote" };
    const orderId = "3f1c6a52-9a4e-4d1b-8c2f-0123456789ab";
    const b = limitOrderBody({ owner: "0xOwner", side: "bid", amount: "10", price: "1.1", market: m, orderId, executorId: 3, expiration: 1_800_000_000 });
    expect(b).toEqual({
      owner_address: "0xOwner",
      side: "bid",
      amount: "10",
      price: "1.1",
      order_type: "limit",
      from_address: "0xbase",
      to_address: "0xquote",
      order_id: orderId,
      uuid_int: standaloneUuidInt(orderId, 3).toString(),
      expiration: 1_800_000_000,
    });
    expect(limitOrderBody({ owner: "0x1", side: "ask", amount: "1", price: "1", market: m, orderId, executorId: 3, expiration: 1, uuidInt: "7" }).uuid_int).toBe("7");
    expect(() => limitOrderBody({ owner: "0x1", side: "bid", amount: "1", price: "1", market: m, orderId, expiration: 1 })).toThrow(/needs uuidInt or the executorId/);
  });

  it("is a body the engine places as is", () => {
    const env = setup();
    fund(env, ALICE, "EURC", 100_000000n);
    const orderId = env.ids.uuid4();
    const body = limitOrderBody({ owner: ALICE, side: "ask", amount: "10", price: "1.1", market: market(env), orderId, executorId: EXECUTOR_ID, expiration: env.clock.nowSec() + 3600 });
    expect(env.engine.placeOrder(body)).toMatchObject({ orderId, status: "pending" });
  });
});
