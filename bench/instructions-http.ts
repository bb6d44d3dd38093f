// Fixed-work driver for instruction-count A/B runs of signed POST /orders under
// valgrind: the full memory-exchange app on loopback, a keep-alive client with 8
// requests in flight, resting asks signed beforehand (native secp256k1). The
// per-request count is Ir(--send 1) - Ir(--send 0), both runs signing the same
// orders, so signing and start-up cancel out.
// Usage: valgrind --tool=cachegrind --cache-sim=no node --single-threaded \
//          --hash-seed=1 --random-seed=1 --import tsx bench/instructions-http.ts --orders 4000 --send 1
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { ORDER_TYPE, ZERO_ADDRESS, exchangeDomain, type Address, type Hex } from "../sim/core/typed-data.ts";
import { standaloneUuidInt } from "../sim/core/uuid-int.ts";
import { Rng } from "../sim/core/rng.ts";
import { privateKeyToAccount } from "viem/accounts";
import { nativeSecp256k1 } from "../sim/crypto/secp256k1.ts";
import { createMemoryExchange, MEMORY_EXCHANGE_DEFAULTS } from "../sim/http/exchange-app.ts";
import { hashTyped } from "../sim/signing/signatures.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const ORDERS = Number(arg("orders", "4000"));
const SEND = arg("send", "1") === "1";
const WARM = 1000;
const IN_FLIGHT = 8;

const secp = nativeSecp256k1;
if (!secp) throw new Error("native secp256k1 is needed to sign quickly");
const d = MEMORY_EXCHANGE_DEFAULTS;
const domain = exchangeDomain(d.domainName, d.chainId, d.exchangeAddress as Address);
const keys = Array.from({ length: 8 }, (_, i) => Buffer.from((BigInt(i + 1) * 0x9e3779b97f4a7c15n + 7n).toString(16).padStart(64, "0"), "hex"));
const owners = keys.map((k) => privateKeyToAccount(`0x${k.toString("hex")}`).address.toLowerCase() as Address);
const ex = createMemoryExchange({ rateLimits: false, funded: owners.map((o) => ({ owner: o, symbol: "EURC", raw: 10n ** 15n })) });
const market = ex.registry.marketBySymbol("EURC/USDC")!;
const ids = new Rng("instructions-http");
const expiration = ex.clock.nowSec() + 86_400;

const bodies: string[] = [];
for (let i = 0; i < WARM + ORDERS; i++) {
  const k = i % keys.length;
  const orderId = ids.uuid4();
  const lots = 500n + BigInt(i % 500);
  const ticks = 108_000n + BigInt(i % 42_000);
  const uuid = standaloneUuidInt(orderId, ex.engine.executorId);
  const digest = hashTyped(domain, { Order: ORDER_TYPE }, "Order", {
    user: owners[k], expiration: BigInt(expiration), feeBps: BigInt(ex.registry.feeBps), recipient: ZERO_ADDRESS,
    fromToken: market.base, toToken: market.quote, fromAmount: lots * 10_000n, toAmount: (lots * ticks * 10n ** 6n) / 10n ** 7n,
    initialDepositAmount: 0n, uuid,
  });
  const sig = secp.ecdsaSign(Buffer.from(digest.slice(2), "hex"), keys[k]!);
  const signature = `0x${Buffer.from(sig.signature).toString("hex")}${(27 + sig.recid).toString(16)}` as Hex;
  const frac = (x: bigint, s: number) => { const t = x.toString().padStart(s + 1, "0"); const f = t.slice(-s).replace(/0+$/, ""); return f ? `${t.slice(0, -s)}.${f}` : t.slice(0, -s); };
  bodies.push(JSON.stringify({
    owner_address: owners[k], side: "ask", amount: frac(lots, 2), price: frac(ticks, 5), order_type: "limit",
    from_address: market.base, to_address: market.quote, order_id: orderId, uuid_int: uuid.toString(), expiration, signature,
  }));
}

const server = createServer(ex.app);
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
const port = (server.address() as AddressInfo).port;
const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });

function post(body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/api/v1/orders", method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function send(from: number, to: number): Promise<void> {
  let next = from;
  let bad = 0;
  const lane = async () => { while (next < to) { const status = await post(bodies[next++]!); if (status !== 201) bad++; } };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  if (bad > 0) throw new Error(`${bad} requests were not 201`);
}

await send(0, WARM);
if (SEND) await send(WARM, WARM + ORDERS);
agent.destroy();
server.close();
process.stdout.write(`sent ${SEND ? ORDERS : 0} after ${WARM} warm-up; event hash ${ex.engine.eventHash()}\n`);
