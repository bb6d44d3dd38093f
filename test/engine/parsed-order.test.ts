// placeOrder(body) = placeParsed(validateOrder(body)): the two halves the HTTP
// layer (and bench/engine) may call apart must behave exactly like the whole.
import { describe, expect, it } from "vitest";
import { ExchangeError } from "../../sim/core/errors.ts";
import type { OrderBody } from "../../sim/core/engine.ts";
import { orderIdHash } from "../../sim/core/order-index.ts";
import { ALICE, BOB, body, fund, setup, type Env } from "./helpers.ts";

function codeOf(fn: () => unknown): { code: string; status: number } {
  try {
    fn();
  } catch (e) {
    if (e instanceof ExchangeError) return { code: e.code, status: e.status };
    throw e;
  }
  return { code: "OK", status: 201 };
}

function funded(): Env {
  const env = setup();
  fund(env, ALICE, "EURC", 1_000_000000n);
  fund(env, BOB, "USDC", 1_000_000000n);
  return env;
}

/** One script of orders (rests, partial and full crosses) run through either entry point. */
function script(env: Env): OrderBody[] {
  return [
    body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" }),
    body(env, { owner: ALICE, side: "ask", amount: "7.5", price: "1.2" }),
    body(env, { owner: BOB, side: "bid", amount: "12", price: "1.2" }),
    body(env, { owner: BOB, side: "bid", amount: "5", price: "1.05" }),
    body(env, { owner: ALICE, side: "ask", amount: "9", price: "1" }),
  ];
}

describe("validateOrder + placeParsed", () => {
  it("give the same results, records and event hash as placeOrder", () => {
    const a = funded();
    const b = funded();
    const whole = script(a).map((x) => a.engine.placeOrder(x));
    const split = script(b).map((x) => b.engine.placeParsed(b.engine.validateOrder(x)));
    expect(split).toEqual(whole);
    expect(whole.some((r) => r.fillIds.length > 0)).toBe(true);
    expect(b.engine.eventHash()).toBe(a.engine.eventHash());
    expect(b.engine.ledger.rows()).toEqual(a.engine.ledger.rows());
    expect(b.engine.listOrders(ALICE)).toEqual(a.engine.listOrders(ALICE));
    expect(b.engine.fillRecords()).toEqual(a.engine.fillRecords());
  });

  it("validateOrder returns engine units and the body's signature, and changes nothing", () => {
    const env = funded();
    const hash = env.engine.eventHash();
    const x = body(env, { owner: ALICE, side: "ask", amount: "10.5", price: "1.10001" });
    const v = env.engine.validateOrder(x);
    expect(v.lots).toBe(1050n);
    expect(v.priceTicks).toBe(110001n);
    expect(v.owner).toBe(ALICE.toLowerCase());
    expect(v.signature).toBe("0x1234");
    expect(v.fromAmount).toBe(10_500000n);
    expect(env.engine.validateOrder({ ...x, signature: "nope" }).signature).toBeNull();
    // A caller that read the signature already (the route, after lowercasing it) hands it over.
    expect(env.engine.validateOrder({ ...x, signature: "nope" }, "0xabcd").signature).toBe("0xabcd");
    expect(env.engine.eventHash()).toBe(hash);
    expect(env.engine.listOrders(ALICE)).toEqual([]);
  });

  it("validateOrder throws the field errors (400 INVALID_DECIMAL_FORMAT, 400 UUID_INT_MISMATCH)", () => {
    const env = funded();
    const x = body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" });
    expect(codeOf(() => env.engine.validateOrder({ ...x, amount: "1e3" }))).toEqual({ code: "INVALID_DECIMAL_FORMAT", status: 400 });
    expect(codeOf(() => env.engine.validateOrder({ ...x, uuid_int: "1" }))).toEqual({ code: "UUID_INT_MISMATCH", status: 400 });
  });

  it("placeParsed: a parsed order placed twice → 409 CONFLICT, nothing changes", () => {
    const env = funded();
    const v = env.engine.validateOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" }));
    env.engine.placeParsed(v);
    const hash = env.engine.eventHash();
    const rows = env.engine.ledger.rows();
    expect(codeOf(() => env.engine.placeParsed(v))).toEqual({ code: "CONFLICT", status: 409 });
    expect(env.engine.eventHash()).toBe(hash);
    expect(env.engine.ledger.rows()).toEqual(rows);
  });

  it("placeParsed: equity is checked at placement → 400 INSUFFICIENT_EQUITY", () => {
    const env = funded();
    const first = env.engine.validateOrder(body(env, { owner: ALICE, side: "ask", amount: "800", price: "1.1" }));
    const second = env.engine.validateOrder(body(env, { owner: ALICE, side: "ask", amount: "800", price: "1.1" }));
    env.engine.placeParsed(first);
    expect(codeOf(() => env.engine.placeParsed(second))).toEqual({ code: "INSUFFICIENT_EQUITY", status: 400 });
  });

  it("placeParsed: self-trade prevention → 409 STP_BLOCKED, nothing changes", () => {
    const env = funded();
    fund(env, ALICE, "USDC", 1_000_000000n);
    env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" }));
    const v = env.engine.validateOrder(body(env, { owner: ALICE, side: "bid", amount: "5", price: "1.2" }));
    const hash = env.engine.eventHash();
    expect(codeOf(() => env.engine.placeParsed(v))).toEqual({ code: "STP_BLOCKED", status: 409 });
    expect(env.engine.eventHash()).toBe(hash);
  });

  it("validateOrder hands over the id's index hashes, equal to orderIdHash's in both modes, on the fast and the slow path", () => {
    const env = funded();
    const ids = Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? env.ids.uuid4() : env.ids.uuid4().toUpperCase()));
    for (const [i, id] of ids.entries()) {
      const b = body(env, { owner: ALICE, side: "ask", amount: "10.5", price: "1.1", orderId: id });
      // Every fourth sends its expiration as a decimal string, which only the shared validator takes.
      const v = env.engine.validateOrder(i % 4 === 3 ? { ...b, expiration: String(b.expiration) as unknown as number } : b);
      expect(v.orderId).toBe(id.toLowerCase());
      expect(v.hashedId).toBe(v.orderId);
      expect(v.idHash).toBe(orderIdHash(v.orderId));
      expect(v.idHashEveryDigit).toBe(orderIdHash(v.orderId, true));
    }
  });

  it("placeParsed: a parsed order whose order_id was changed to a placed one → 409 CONFLICT (its hashes are for the old id)", () => {
    const env = funded();
    const placed = env.engine.validateOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" }));
    env.engine.placeParsed(placed);
    const other = env.engine.validateOrder(body(env, { owner: ALICE, side: "ask", amount: "5", price: "1.1" }));
    const hash = env.engine.eventHash();
    expect(codeOf(() => env.engine.placeParsed({ ...other, orderId: placed.orderId }))).toEqual({ code: "CONFLICT", status: 409 });
    expect(env.engine.eventHash()).toBe(hash);
    // Placed under a new id instead, it is that id the engine finds.
    const renamed = { ...other, orderId: env.ids.uuid4() };
    env.engine.placeParsed(renamed);
    expect(env.engine.getOrder(renamed.orderId).trade_id).toBe(renamed.orderId);
    expect(codeOf(() => env.engine.placeParsed(renamed))).toEqual({ code: "CONFLICT", status: 409 });
  });
});
