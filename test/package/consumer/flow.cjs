// One order placed and settled, written once (CommonJS, so the ES module consumers import
// it too): fund two users' vaults, an ask and a crossing bid through /api/v1 (preview,
// sign, POST /orders), then settle through the control API. The exchange's RPC URL is
// appended to $FAKEX_RPC_LOG, so the test can check that no Anvil outlives the run.
const { appendFileSync } = require("node:fs");
async function post(exchange, path, body) {
  const res = await fetch(`${exchange.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

exports.placeAndSettle = async function placeAndSettle(exchange) {
  if (process.env.FAKEX_RPC_LOG) appendFileSync(process.env.FAKEX_RPC_LOG, `${exchange.rpcUrl}\n`);
  const [alice, bob] = exchange.accounts;
  const market = exchange.registry.markets().find((m) => m.baseSymbol === "USDT");
  await exchange.control.fund({ address: alice.address, token: market.base, amount: 100000000n, vault: true });
  await exchange.control.fund({ address: bob.address, token: market.quote, amount: 100000000n, vault: true });
  for (const [who, side] of [[alice, "ask"], [bob, "bid"]]) {
    const preview = await post(exchange, "/orders/preview", exchange.newOrder(who, { symbol: market.symbol, side, amount: "25", price: "1" }));
    if (preview.status !== 200) throw new Error(`preview: ${preview.status} ${JSON.stringify(preview.body)}`);
    const { body } = await exchange.signOrder(who, preview.body);
    const placed = await post(exchange, "/orders", body);
    if (placed.status !== 201) throw new Error(`POST /orders: ${placed.status} ${JSON.stringify(placed.body)}`);
  }
  const settled = await exchange.control.settle();
  if (settled.fills.settled !== 1) throw new Error(`settled ${settled.fills.settled} fills, expected 1`);
  return settled.fills.settled;
};
