// Place, match, settle: two users trade through /api/v1 exactly as a trading
// client would, and the fake's relayer settles the fill on the Anvil chain.
import { expect } from "vitest";
import { test } from "fakex/vitest";
import { client, login } from "./client.ts";

test("an ask and a crossing bid match, settle on chain, and move vault balances", async ({ exchange }) => {
  const [alice, bob] = [exchange.accounts[0]!, exchange.accounts[1]!];
  const market = exchange.registry.markets().find((m) => m.baseSymbol === "USDT")!;
  // Start with money in the vault (the fixture's control API mints and deposits).
  await exchange.control.fund({ address: alice.address, token: market.base, amount: 100_000_000n, vault: true });
  await exchange.control.fund({ address: bob.address, token: market.quote, amount: 100_000_000n, vault: true });

  // preview → sign the returned EIP-712 order → POST /orders
  async function place(who: typeof alice, side: "bid" | "ask") {
    const preview = await client(exchange).post("/orders/preview", exchange.newOrder(who, { symbol: market.symbol, side, amount: "25", price: "1" }));
    expect(preview.status).toBe(200);
    const { body } = await exchange.signOrder(who, preview.body);
    const placed = await client(exchange).post("/orders", body);
    expect(placed.status).toBe(201);
    return placed.body.order_id as string;
  }
  const ask = await place(alice, "ask");
  const bid = await place(bob, "bid");

  const alices = client(exchange, await login(exchange, alice));
  expect((await alices.get(`/orders/${ask}`)).body.status).toBe("matched");

  // The live relayer settles on its own; the fake settles when told.
  const settled = await alices.control("POST", "/settle");
  expect(settled.body.fills.settled).toBe(1);
  const order = (await alices.get(`/orders/${ask}`)).body;
  expect(order.status).toBe("settled");
  expect(order.filled_amount).toBe((25n * 10n ** BigInt(market.baseDecimals)).toString()); // raw

  const fills = (await alices.get(`/fills?owner_address=${alice.address}`)).body.items;
  expect(fills).toHaveLength(1);
  expect(fills[0]).toMatchObject({ maker_order_id: ask, taker_order_id: bid, settlement_status: "settled" });
  expect(fills[0].tx_hash).toMatch(/^0x[0-9a-f]{64}$/);

  const balances = (await alices.get(`/balances?owner_address=${alice.address}`)).body.balances;
  const quote = balances.find((b: { token: string }) => b.token === market.quote);
  expect(quote.vault_available).toBe((25n * 10n ** BigInt(market.quoteDecimals)).toString());
});

test("each test starts clean: no orders or vault balances from the previous one", async ({ exchange }) => {
  const alice = exchange.accounts[0]!;
  const alices = client(exchange, await login(exchange, alice));
  const orders = (await alices.get(`/orders?owner_address=${alice.address}`)).body;
  expect(orders).toMatchObject({ trades: [], total: 0 });
  const balances = (await alices.get(`/balances?owner_address=${alice.address}`)).body.balances;
  for (const b of balances) expect(b.vault_available).toBe("0");
});
