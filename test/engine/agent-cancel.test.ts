// Engine.cancelAgentOrder: the seeded market agents' re-quote withdraws a pending order at
// once (no user cooldown), releases its funds and logs reason agent_requote; anything but a
// pending order is left alone. Users' cancels keep their cooldown.
import { describe, expect, it } from "vitest";
import { ExchangeError } from "../../sim/core/errors.ts";
import { ALICE, BOB, body, fund, setup } from "./helpers.ts";

describe("cancelAgentOrder", () => {
  it("cancels a pending order inside the cooldown, releases its funds, logs agent_requote", () => {
    const env = setup();
    fund(env, ALICE, "EURC", 1_000_000000n);
    const id = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" })).orderId;
    const uuid = env.engine.getOrder(id).uuid_int;
    expect(() => env.engine.cancelOrder({ owner: ALICE, orderId: id, uuidInt: uuid })).toThrow(ExchangeError); // the user's cooldown
    expect(env.engine.cancelAgentOrder(id)).toBe(true);
    const o = env.engine.getOrder(id);
    expect(o.status).toBe("cancelled");
    const acc = env.engine.ledger.peek(ALICE.toLowerCase(), o.from_token);
    expect([acc.available, acc.frozen]).toEqual([1_000_000000n, 0n]);
    const last = env.engine.log.at(env.engine.log.length - 2);
    expect(last).toMatchObject({ type: "order_cancel", data: { order_id: id, reason: "agent_requote" } });
  });

  it("refuses (false, nothing logged) an unknown, cancelled or matched order", () => {
    const env = setup();
    fund(env, ALICE, "EURC", 1_000_000000n);
    fund(env, BOB, "USDC", 1_000_000000n);
    const ask = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" })).orderId;
    env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "10", price: "1.1" }));
    const n = env.engine.log.length;
    expect(env.engine.getOrder(ask).status).toBe("matched");
    expect(env.engine.cancelAgentOrder(ask)).toBe(false);
    expect(env.engine.cancelAgentOrder("00000000-0000-4000-8000-000000000000")).toBe(false);
    expect(env.engine.log.length).toBe(n);
  });
});
