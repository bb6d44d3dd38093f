// One program that loads fakex both ways (an ESM file and a CommonJS helper, as a vitest
// config and a shared .cjs helper do): errors from one build are instanceof the other
// build's classes, and stopAllAnvils() from either stops Anvils the other started.
import { appendFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as esm from "fakex/fixtures";
import * as esmSim from "fakex/sim";

const require = createRequire(import.meta.url);
const cjs = require("fakex/fixtures");
const cjsSim = require("fakex/sim");
const seen = [];
const check = (what, ok) => seen.push(`${what}: ${ok ? "yes" : "NO"}`);

check("two copies of the class", esm.ExchangeClosedError !== cjs.ExchangeClosedError);
const exchange = await cjs.createFakeExchange({ liquidity: false });
if (process.env.FAKEX_RPC_LOG) appendFileSync(process.env.FAKEX_RPC_LOG, `${exchange.rpcUrl}\n`);
try {
  await exchange.restore("999").then(() => check("unknown snapshot refused", false), (e) => {
    check("UnknownSnapshotError across builds", e instanceof esm.UnknownSnapshotError && e instanceof cjs.UnknownSnapshotError && e.name === "UnknownSnapshotError" && e.status === 404);
  });
  await exchange.control.fund({ address: exchange.accounts[0].address, token: "NOPE", amount: 1n }).then(() => check("unknown token refused", false), (e) => {
    check("ExchangeError across builds", e instanceof esmSim.ExchangeError && e instanceof cjsSim.ExchangeError && !(e instanceof esm.ExchangeClosedError));
  });
} finally {
  await exchange.close();
}
await exchange.control.mine(1).then(() => check("closed exchange refused", false), (e) => {
  check("ExchangeClosedError across builds", e instanceof esm.ExchangeClosedError && e instanceof cjs.ExchangeClosedError);
});
// An Anvil started through require, stopped through import.
const anvil = await cjs.startAnvil({});
if (process.env.FAKEX_RPC_LOG) appendFileSync(process.env.FAKEX_RPC_LOG, `${anvil.rpcUrl}\n`);
await esm.stopAllAnvils();
const answers = await fetch(anvil.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' }).then(() => true, () => false);
check("stopAllAnvils from the other build stopped it", !answers);
console.log(seen.join("\n"));
