// Ambiguous outcomes and a moving market: the two things bots break on in
// production. A route rule with after_commit lets the exchange commit the order,
// then loses the answer; the bot has to reconcile instead of retrying blindly.
import { expect } from "vitest";
import { createExchangeTest, test } from "fakex/vitest";
import type { FakeExchange } from "fakex/fixtures";
import { client, login } from "./client.ts";

/** The bot under test: place an order; when the answer is lost, ask before retrying. */
async function placeOnce(exchange: FakeExchange, auth: string, body: { order_id: string }): Promise<"placed" | "already placed"> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const res = await fetch(`${exchange.baseUrl}/orders`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      if (res.status === 201) return "placed";
      if (res.status !== 503) throw new Error(`POST /orders ${res.status}`);
    } catch (e) {
      if (!(e instanceof TypeError)) throw e; // the connection died: outcome unknown
    }
    // Reconcile: did the exchange take it after all?
    if ((await client(exchange, auth).get(`/orders/${body.order_id}`)).status === 200) return "already placed";
  }
  throw new Error("gave up");
}

test("the order is committed and the connection reset: the bot finds it instead of placing it twice", async ({ exchange }) => {
  const me = exchange.accounts[0]!;
  const auth = await login(exchange, me);
  const market = exchange.registry.markets().find((m) => m.baseSymbol === "USDT")!;
  await exchange.control.fund({ address: me.address, token: market.quote, amount: 100_000_000n, vault: true });
  const preview = await client(exchange).post("/orders/preview", exchange.newOrder(me, { symbol: market.symbol, side: "bid", amount: "20", price: "0.95" }));
  const { body } = await exchange.signOrder(me, preview.body);

  exchange.control.setRouteFaults([{ method: "POST", path: "/orders", fail: "reset", after_commit: true, times: 1 }]);
  expect(await placeOnce(exchange, auth, body)).toBe("already placed");

  const mine = await client(exchange, auth).get(`/orders?owner_address=${me.address}`);
  expect(mine.body.trades.filter((o: { trade_id: string }) => o.trade_id === body.order_id)).toHaveLength(1);
  // A blind retry of the same signed body would have met 409.
  expect((await client(exchange).post("/orders", body)).status).toBe(409);
});

// Seeded agents on one market: the mid walks around the FX rate and takers trade.
const live = createExchangeTest({ activity: { markets: ["USDT/USDC"], volatility: 0.003, takers_per_min: 12 } });

live("a moving market: the price a quote routes to follows the walk as the clock advances", async ({ exchange }) => {
  // What a bot sees of the book: the output a 100 USDC → USDT quote routes to.
  const top = async () => {
    const quote = await client(exchange).post("/swap/quote", {
      from_token: exchange.contracts.tokens.USDC,
      to_token: exchange.contracts.tokens.USDT,
      from_amount: "100000000",
      owner_address: exchange.accounts[0]!.address,
      recipient: exchange.accounts[0]!.address,
      expiration: exchange.control.now().now + 600,
    });
    expect(quote.status).toBe(200);
    return String(quote.body.route_params.minOutputAmount);
  };
  const seen = new Set([await top()]);
  for (let i = 0; i < 10; i++) {
    await exchange.control.advanceClock(30);
    seen.add(await top());
  }
  expect(seen.size).toBeGreaterThan(3);
  expect((await client(exchange).control("GET", "/activity")).body.steps).toBe(10);
});
