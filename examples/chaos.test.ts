// Chaos: does the client cope when settlement goes wrong or the service degrades?
// Faults are set through the control API (or a scenario file) and seen through
// /api/v1 the way the live service would show them.
import { expect } from "vitest";
import { createExchangeTest, test } from "fakex/vitest";
import { client, login } from "./client.ts";

test("a settlement leg that reverts on chain: the fill ends reverted with a failure_reason, the order unwinds", async ({ exchange }) => {
  const me = exchange.accounts[0]!;
  const market = exchange.registry.markets().find((m) => m.baseSymbol === "USDT")!;
  await exchange.control.fund({ address: me.address, token: market.quote, amount: 100_000_000n, vault: true });

  // The next fill's match reverts inside the settlement batch (a genuine on-chain revert).
  const plan = await client(exchange).control("POST", "/faults", { plan: { revertFills: [{ fill: 1, reason: "INSUFFICIENT_VAULT_BALANCE" }] } });
  expect(plan.status).toBe(200);

  // A bid above the makers' best ask takes liquidity at once.
  const preview = await client(exchange).post("/orders/preview", exchange.newOrder(me, { symbol: market.symbol, side: "bid", amount: "20", price: "1.002" }));
  const { body } = await exchange.signOrder(me, preview.body);
  const bid = await client(exchange).post("/orders", body);
  expect(bid.status).toBe(201);
  await client(exchange).control("POST", "/settle");

  const mine = client(exchange, await login(exchange, me));
  const [fill] = (await mine.get(`/fills?owner_address=${me.address}`)).body.items;
  expect(fill).toMatchObject({ settlement_status: "reverted", failure_reason: "INSUFFICIENT_VAULT_BALANCE" });
  expect((await mine.get(`/orders/${bid.body.order_id}`)).body.status).not.toBe("settled");
});

// A shipped scenario by name: GET /health turns degraded 30 s into the run.
const degraded = createExchangeTest({ scenario: "degraded-health", liquidity: false });

degraded("a client that checks GET /health before trading sees the degradation when it comes", async ({ exchange }) => {
  const healthy = async () => {
    const h = (await client(exchange).get("/health")).body;
    return h.status === "healthy" && h.signature_ready && (h.relayer_executor_id === null || h.relayer_executor_id === h.executor_id);
  };
  expect(await healthy()).toBe(true);
  await exchange.control.advanceClock(30);
  expect(await healthy()).toBe(false);
});
