import { describe, expect, it } from "vitest";
import { ExchangeError } from "../../sim/core/errors.ts";
import { ALICE, BOB, body, fund, setup } from "./helpers.ts";

function err(fn: () => unknown): ExchangeError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ExchangeError) return e;
    throw e;
  }
  throw new Error("expected an ExchangeError");
}

function env2(cooldown?: number) {
  const env = setup(cooldown === undefined ? {} : { cancelCooldownSec: cooldown });
  fund(env, ALICE, "EURC", 1_000_000000n);
  fund(env, BOB, "USDC", 1_000_000000n);
  return env;
}

describe("cancel", () => {
  it("inside the 5-minute default cooldown → 429 CANCEL_COOLDOWN, state unchanged; after it → cancelled, funds released", () => {
    const env = env2();
    const id = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" })).orderId;
    const uuid = env.engine.getOrder(id).uuid_int;
    env.clock.advanceSec(299);
    const hash = env.engine.eventHash();
    const e = err(() => env.engine.cancelOrder({ owner: ALICE, orderId: id, uuidInt: uuid }));
    expect([e.status, e.code]).toEqual([429, "CANCEL_COOLDOWN"]);
    expect(e.extra.retry_after).toBe(1);
    expect(env.engine.getOrder(id).status).toBe("pending");
    expect(env.engine.eventHash()).toBe(hash);
    env.clock.advanceSec(1);
    expect(env.engine.cancelOrder({ owner: ALICE, orderId: id, uuidInt: uuid })).toEqual({ status: "ok" });
    const o = env.engine.getOrder(id);
    expect(o.status).toBe("cancelled");
    expect(o.remaining_amount).toBe("10");
    const acc = env.engine.ledger.peek(ALICE.toLowerCase(), o.from_token);
    expect([acc.available, acc.frozen]).toEqual([1_000_000000n, 0n]);
    expect(env.engine.depth("EURC/USDC", "ask")).toEqual([]);
  });

  it("the cooldown counts milliseconds: 999 ms before its end a cancel is still 429 (retry_after 1), at its end it goes through", () => {
    const env = env2();
    const id = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" })).orderId;
    const uuid = env.engine.getOrder(id).uuid_int;
    env.clock.advanceMs(299_001);
    const e = err(() => env.engine.cancelOrder({ owner: ALICE, orderId: id, uuidInt: uuid }));
    expect([e.status, e.code, e.extra.retry_after]).toEqual([429, "CANCEL_COOLDOWN", 1]);
    env.clock.advanceMs(998);
    expect(err(() => env.engine.cancelOrder({ owner: ALICE, orderId: id, uuidInt: uuid })).status).toBe(429);
    env.clock.advanceMs(1);
    expect(env.engine.cancelOrder({ owner: ALICE, orderId: id, uuidInt: uuid })).toEqual({ status: "ok" });
  });

  it("the cooldown is configurable (0 disables it)", () => {
    const env = env2(0);
    const id = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" })).orderId;
    expect(env.engine.cancelOrder({ owner: ALICE, orderId: id, uuidInt: env.engine.getOrder(id).uuid_int }).status).toBe("ok");
    const env60 = env2(60);
    const id2 = env60.engine.placeOrder(body(env60, { owner: ALICE, side: "ask", amount: "10", price: "1.1" })).orderId;
    env60.clock.advanceSec(60);
    expect(env60.engine.cancelOrder({ owner: ALICE, orderId: id2, uuidInt: env60.engine.getOrder(id2).uuid_int }).status).toBe("ok");
  });

  it("error paths: 404 unknown, 403 other owner, 400 uuid_int mismatch, 409 not pending", () => {
    const env = env2(0);
    const id = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" })).orderId;
    const uuid = env.engine.getOrder(id).uuid_int;
    const e404 = err(() => env.engine.cancelOrder({ owner: ALICE, orderId: "0b0b0b0b-0b0b-4b0b-8b0b-0b0b0b0b0b0b", uuidInt: uuid }));
    expect([e404.status, e404.code]).toEqual([404, "NOT_FOUND"]);
    const e403 = err(() => env.engine.cancelOrder({ owner: BOB, orderId: id, uuidInt: uuid }));
    expect([e403.status, e403.code]).toEqual([403, "FORBIDDEN"]);
    const e400 = err(() => env.engine.cancelOrder({ owner: ALICE, orderId: id, uuidInt: "12345" }));
    expect([e400.status, e400.code]).toEqual([400, "UUID_INT_MISMATCH"]);
    const eBad = err(() => env.engine.cancelOrder({ owner: ALICE, orderId: id, uuidInt: "-1" }));
    expect([eBad.status, eBad.code]).toEqual([400, "VALIDATION"]);
    env.engine.cancelOrder({ owner: ALICE, orderId: id, uuidInt: uuid });
    const e409 = err(() => env.engine.cancelOrder({ owner: ALICE, orderId: id, uuidInt: uuid }));
    expect([e409.status, e409.code]).toEqual([409, "CONFLICT"]);
    // A matched order cannot be cancelled either.
    env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" }));
    const bid = env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "10", price: "1.1" }));
    const eM = err(() => env.engine.cancelOrder({ owner: BOB, orderId: bid.orderId, uuidInt: env.engine.getOrder(bid.orderId).uuid_int }));
    expect([eM.status, eM.code]).toEqual([409, "CONFLICT"]);
  });

  it("finds the order whatever the letter case of the order_id it is cancelled by", () => {
    const env = env2(0);
    const id = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" })).orderId;
    expect(env.engine.cancelOrder({ owner: ALICE, orderId: id.toUpperCase(), uuidInt: env.engine.getOrder(id).uuid_int })).toEqual({ status: "ok" });
    expect(env.engine.getOrder(id).status).toBe("cancelled");
  });

  it("a partially filled order can be cancelled; only its unfilled remainder is released", () => {
    const env = env2(0);
    const id = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" })).orderId;
    env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "6", price: "1.1" }));
    env.engine.cancelOrder({ owner: ALICE, orderId: id, uuidInt: env.engine.getOrder(id).uuid_int });
    const r = env.engine.orderRecord(id);
    expect(r.status).toBe("cancelled");
    // 6 EURC are still in flight to settlement and stay frozen.
    expect(env.engine.ledger.peek(ALICE.toLowerCase(), r.fromToken).frozen).toBe(6_000000n);
    expect(r.reserved).toBe(6_000000n);
    expect(env.engine.getOrder(id).remaining_amount).toBe("4");
  });

  it("cancel-all returns cancelled / failed / skipped_cooldown / total", () => {
    const env = env2();
    const old1 = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" })).orderId;
    const old2 = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.2" })).orderId;
    env.clock.advanceSec(301);
    const fresh = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.3" })).orderId;
    env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "10", price: "1" }));
    const r = env.engine.cancelAll(ALICE);
    expect(r).toEqual({ cancelled: [old1, old2], failed: [], skipped_cooldown: [fresh], total: 2 });
    expect(env.engine.getOrder(fresh).status).toBe("pending");
    expect(env.engine.listOrders(BOB)[0]!.status).toBe("pending");
    expect(env.engine.cancelAll("0x9999999999999999999999999999999999999999")).toEqual({ cancelled: [], failed: [], skipped_cooldown: [], total: 0 });
  });

  it("cancel-all passes over the owner's matched and already cancelled orders, leaving them as they are", () => {
    const env = env2(0);
    const matched = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" })).orderId;
    env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "10", price: "1.1" }));
    const gone = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.2" })).orderId;
    env.engine.cancelOrder({ owner: ALICE, orderId: gone, uuidInt: env.engine.getOrder(gone).uuid_int });
    const open = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.3" })).orderId;
    expect(env.engine.cancelAll(ALICE)).toEqual({ cancelled: [open], failed: [], skipped_cooldown: [], total: 1 });
    expect([matched, gone, open].map((id) => env.engine.getOrder(id).status)).toEqual(["matched", "cancelled", "cancelled"]);
    // The matched order's 10 EURC stay frozen for its settlement.
    expect(env.engine.ledger.peek(ALICE.toLowerCase(), env.engine.orderRecord(matched).fromToken).frozen).toBe(10_000000n);
  });
});
