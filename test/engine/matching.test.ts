import { describe, expect, it } from "vitest";
import { ExchangeError } from "../../sim/core/errors.ts";
import { ALICE, BOB, CAROL, body, fund, setup } from "./helpers.ts";

function funded() {
  const env = setup();
  for (const who of [ALICE, BOB, CAROL]) {
    fund(env, who, "EURC", 10_000_000000n);
    fund(env, who, "USDC", 10_000_000000n);
  }
  return env;
}

function expectError(fn: () => unknown, code: string, status: number): ExchangeError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ExchangeError);
    const err = e as ExchangeError;
    expect({ code: err.code, status: err.status }).toEqual({ code, status });
    return err;
  }
  throw new Error(`expected ${code}`);
}

describe("matching", () => {
  it("skips a cancelled order inside a price level: the taker fills only the live makers around it", () => {
    const env = setup({ cancelCooldownSec: 0 });
    for (const who of [ALICE, BOB, CAROL]) {
      fund(env, who, "EURC", 10_000_000000n);
      fund(env, who, "USDC", 10_000_000000n);
    }
    const a1 = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" })).orderId;
    const a2 = env.engine.placeOrder(body(env, { owner: CAROL, side: "ask", amount: "10", price: "1.1" })).orderId;
    const a3 = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" })).orderId;
    env.engine.cancelOrder({ owner: CAROL, orderId: a2, uuidInt: env.engine.getOrder(a2).uuid_int });
    const bid = env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "20", price: "1.1" }));
    expect(env.engine.fillsOfOrder(bid.orderId).map((f) => [f.maker_order_id, f.quantity])).toEqual([
      [a1, "10"],
      [a3, "10"],
    ]);
    expect(env.engine.getOrder(a2).status).toBe("cancelled");
    const carol = env.engine.ledger.peek(CAROL.toLowerCase(), env.engine.orderRecord(a2).fromToken);
    expect([carol.available, carol.frozen]).toEqual([10_000_000000n, 0n]);
  });

  it("rests non-crossing orders on both sides, best first", () => {
    const env = funded();
    env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.2" }));
    env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" }));
    env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "10", price: "1" }));
    env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "10", price: "1.05" }));
    expect(env.engine.depth("EURC/USDC", "ask").map((l) => l.price)).toEqual(["1.1", "1.2"]);
    expect(env.engine.depth("EURC/USDC", "bid").map((l) => l.price)).toEqual(["1.05", "1"]);
    expect(env.engine.fillRecords()).toHaveLength(0);
  });

  it("fills at the maker's price with price-time priority and partial fills", () => {
    const env = funded();
    const a1 = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" })).orderId;
    const a2 = env.engine.placeOrder(body(env, { owner: CAROL, side: "ask", amount: "10", price: "1.1" })).orderId;
    const a0 = env.engine.placeOrder(body(env, { owner: CAROL, side: "ask", amount: "5", price: "1.09" })).orderId;
    const bid = env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "20", price: "1.2" }));
    const fills = env.engine.fillsOfOrder(bid.orderId);
    expect(fills.map((f) => [f.maker_order_id, f.quantity, f.price])).toEqual([
      [a0, "5", "1.09"],
      [a1, "10", "1.1"],
      [a2, "5", "1.1"],
    ]);
    expect(bid.status).toBe("matched");
    expect(env.engine.getOrder(a1).status).toBe("matched");
    const partial = env.engine.getOrder(a2);
    expect(partial.status).toBe("pending");
    expect(partial.remaining_amount).toBe("5");
    expect(partial.filled_base_amount).toBe("5");
    expect(partial.filled_quote_amount).toBe("5.5");
    // Bid paid 5*1.09 + 15*1.1 = 21.95 USDC at the makers' prices, not its own limit.
    const b = env.engine.getOrder(bid.orderId);
    expect(b.filled_amount).toBe("21950000");
    expect(b.filled_quote_amount).toBe("21.95");
    expect(b.remaining_amount).toBe("0");
  });

  it("fills at the maker's price in every market, whichever amount path its decimals take", () => {
    const markets = setup().registry.markets().filter((m) => m.active);
    // 6/6, 18/6, 6/18 and 6/2 decimals: the intake's number and bigint paths both match.
    expect(markets.length).toBeGreaterThan(4);
    for (const m of markets) {
      const env = setup();
      const base = env.registry.tokenBySymbol(m.baseSymbol)!;
      const quote = env.registry.tokenBySymbol(m.quoteSymbol)!;
      fund(env, ALICE, m.baseSymbol, 10n ** BigInt(base.decimals + 6));
      fund(env, BOB, m.quoteSymbol, 10n ** BigInt(quote.decimals + 9));
      const [makerPrice, takerPrice, paid] = m.quoteSymbol === "JPYS" ? ["150", "151", "1500"] : ["1.08", "1.1", "10.8"];
      env.engine.placeOrder(body(env, { symbol: m.symbol, owner: ALICE, side: "ask", amount: "10", price: makerPrice }));
      const bid = env.engine.placeOrder(body(env, { symbol: m.symbol, owner: BOB, side: "bid", amount: "10", price: takerPrice })).orderId;
      expect([m.symbol, env.engine.fillsOfOrder(bid).map((f) => f.price), env.engine.getOrder(bid).filled_quote_amount]).toEqual([m.symbol, [makerPrice], paid]);
    }
  });

  it("an ask taker sells into the best bids at their prices", () => {
    const env = funded();
    const b1 = env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "10", price: "1.05" })).orderId;
    env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "10", price: "1" }));
    const ask = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "15", price: "1" }));
    const fills = env.engine.fillsOfOrder(ask.orderId);
    expect(fills.map((f) => [f.quantity, f.price])).toEqual([
      ["10", "1.05"],
      ["5", "1"],
    ]);
    expect(env.engine.getOrder(b1).status).toBe("matched");
    expect(env.engine.getOrder(ask.orderId).filled_quote_amount).toBe("15.5");
  });

  it("per-fill raw amounts stay within the signed fromAmount and meet each signed rate", () => {
    const env = setup();
    fund(env, ALICE, "USDC", 10_000_000000n);
    fund(env, BOB, "JPYS", 10_000_000_00n);
    // USDC/JPYS: 6 vs 2 decimals, so quote legs floor; many small partial fills.
    for (let i = 0; i < 7; i++) env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "5.33", price: "150.37", symbol: "USDC/JPYS" }));
    const bid = env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "37.31", price: "150.37", symbol: "USDC/JPYS" }));
    const taker = env.engine.orderRecord(bid.orderId);
    const fills = env.engine.fillRecords();
    expect(fills.length).toBeGreaterThan(0);
    const given = fills.reduce((s, f) => s + f.takerGive, 0n);
    expect(given <= taker.fromAmount).toBe(true);
    for (const f of fills) {
      const maker = env.engine.orderRecord(f.makerOrderId);
      // maker receives at least mulDiv(give, toAmount, fromAmount) rounded up
      const need = (f.makerGive * maker.toAmount + maker.fromAmount - 1n) / maker.fromAmount;
      expect(f.takerGive >= need).toBe(true);
      const takerNeed = (f.takerGive * taker.toAmount + taker.fromAmount - 1n) / taker.fromAmount;
      expect(f.makerGive >= takerNeed).toBe(true);
    }
  });

  it("self-trade prevention: 409 STP_BLOCKED and nothing changes", () => {
    const env = funded();
    const own = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" })).orderId;
    const before = env.engine.snapshot();
    const hash = env.engine.eventHash();
    const ledger = JSON.stringify(env.engine.ledger.rows(), (_, v) => (typeof v === "bigint" ? v.toString() : v));
    const rng = env.engine.rng.snapshot();
    const err = expectError(() => env.engine.placeOrder(body(env, { owner: ALICE, side: "bid", amount: "5", price: "1.2" })), "STP_BLOCKED", 409);
    expect(err.extra.resting_order_id).toBe(own);
    expect(env.engine.eventHash()).toBe(hash);
    expect(env.engine.rng.snapshot()).toEqual(rng);
    expect(JSON.stringify(env.engine.ledger.rows(), (_, v) => (typeof v === "bigint" ? v.toString() : v))).toBe(ledger);
    expect(env.engine.listOrders(ALICE)).toHaveLength(1);
    expect(env.engine.snapshot().orders.length).toBe(before.orders.length);
  });

  it("STP only fires when the own order would actually be reached", () => {
    const env = funded();
    env.engine.placeOrder(body(env, { owner: BOB, side: "ask", amount: "10", price: "1.1" }));
    env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.15" }));
    // Alice's bid for 10 is filled by Bob's better ask before reaching her own.
    const r = env.engine.placeOrder(body(env, { owner: ALICE, side: "bid", amount: "10", price: "1.2" }));
    expect(r.status).toBe("matched");
  });

  it("an expired resting order is not matched and stays visible as pending", () => {
    const env = funded();
    const exp = env.clock.nowSec() + 60;
    const stale = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1", expiration: exp })).orderId;
    env.clock.advanceSec(400);
    const bid = env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "10", price: "1.2" }));
    expect(bid.status).toBe("pending");
    expect(env.engine.fillRecords()).toHaveLength(0);
    expect(env.engine.getOrder(stale).status).toBe("pending");
    // The walk took it out of the book: the depth shows the resting bid alone, not a crossed book.
    expect(env.engine.depth("EURC/USDC", "ask")).toEqual([]);
    expect(env.engine.depth("EURC/USDC", "bid").map((l) => l.price)).toEqual(["1.2"]);
    // Its owner can still cancel it (and get the funds back).
    env.engine.cancelOrder({ owner: ALICE, orderId: stale, uuidInt: env.engine.getOrder(stale).uuid_int });
    expect(env.engine.getOrder(stale).status).toBe("cancelled");
  });

  it("a resting order whose expiration is this very second is expired (the contract's expiration <= now): one second before, it matches", () => {
    const env = funded();
    const exp = env.clock.nowSec() + 60;
    env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1", expiration: exp }));
    env.clock.advanceSec(59);
    const taker = env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "5", price: "1.2" }));
    expect(taker.fillIds).toHaveLength(1);
    env.clock.advanceSec(1); // now == expiration
    const late = env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "5", price: "1.2" }));
    expect(late.fillIds).toEqual([]);
    expect(late.status).toBe("pending");
  });

  it("freezes the spent token's need and releases the unused part when the order is done", () => {
    const env = funded();
    env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" }));
    const bid = env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "10", price: "1.2" }));
    // Bob signed 12 USDC but only 11 is in flight; the 1 USDC surplus is free again.
    const r = env.engine.orderRecord(bid.orderId);
    expect(r.reserved).toBe(11_000000n);
    expect(env.engine.ledger.peek(BOB.toLowerCase(), r.fromToken).frozen).toBe(11_000000n);
  });
});
