// fakex's own traffic to its Anvil on 127.0.0.1 with Node's proxy support on and a proxy
// that answers nothing (NODE_USE_ENV_PROXY=1, HTTP_PROXY=http://127.0.0.1:9, as CI images
// set them): start, fund a vault and settle, all of it JSON-RPC to the node.
import { appendFileSync } from "node:fs";
import { createFakeExchange } from "fakex/fixtures";

const exchange = await createFakeExchange({ liquidity: false });
try {
  if (process.env.FAKEX_RPC_LOG) appendFileSync(process.env.FAKEX_RPC_LOG, `${exchange.rpcUrl}\n`);
  const [alice] = exchange.accounts;
  const funded = await exchange.control.fund({ address: alice.address, token: "USDC", amount: 5000000n, vault: true });
  await exchange.control.settle();
  console.log(`funded ${funded.vault_available}`);
} finally {
  await exchange.close();
}
