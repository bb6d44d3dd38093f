// What `--state-dir` costs per acknowledged request: POST /orders latency on the
// default fake (seeded makers' ladders, virtual clock, rate limits off), without a
// state directory and with one, one request at a time and 16 at a time (where group
// commit lets requests that finish during a write share the next one). Previews and
// signatures are made before the clock starts; only the POST /orders round trips
// are timed. Also one user transaction through rpc_url (proxy: mined, then written)
// against the same transaction sent straight to Anvil.
//
//   npx tsx bench/state-dir.ts            # 200 orders per phase
//   ORDERS=500 npx tsx bench/state-dir.ts
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createWalletClient, erc20Abi, http } from "viem";
import { createFakeExchange, type FakeExchange } from "../fixtures/fake-exchange.ts";
import { toAccount } from "../fixtures/signing.ts";
import { STATE_FILE } from "../fixtures/state-dir.ts";
import { describe, envInt, machine, median } from "./stats.ts";

const ORDERS = envInt("ORDERS", 200, 16);
const CONCURRENCY = 16;
const TXS = envInt("TXS", 30, 1);

async function signedOrders(ex: FakeExchange, n: number, tag: number): Promise<Record<string, unknown>[]> {
  const me = ex.accounts[0]!;
  const market = ex.registry.markets().find((m) => m.baseSymbol === "USDT")!;
  const bodies: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    // Asks far above the book: they rest, nothing matches, every request does the same work.
    const price = (2 + tag + i / 10_000).toFixed(4);
    const preview = await post(`${ex.baseUrl}/orders/preview`, ex.newOrder(me, { symbol: market.symbol, side: "ask", amount: "10", price }));
    if (preview.status !== 200) throw new Error(`preview ${preview.status}: ${JSON.stringify(preview.body)}`);
    bodies.push((await ex.signOrder(me, preview.body as never)).body as unknown as Record<string, unknown>);
  }
  return bodies;
}

async function post(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

async function timedPost(url: string, body: unknown): Promise<number> {
  const t0 = performance.now();
  const r = await post(url, body);
  const ms = performance.now() - t0;
  if (r.status !== 201) throw new Error(`POST /orders ${r.status}: ${JSON.stringify(r.body)}`);
  return ms;
}

async function phase(ex: FakeExchange, label: string, tag: number): Promise<string[]> {
  const url = `${ex.baseUrl}/orders`;
  const sequential = await signedOrders(ex, ORDERS, tag);
  const concurrent = await signedOrders(ex, ORDERS, tag + 1);
  const seq: number[] = [];
  for (const b of sequential) seq.push(await timedPost(url, b));
  const writesBefore = ex.persistence?.stats.writes ?? 0;
  const t0 = performance.now();
  const lat: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < concurrent.length) lat.push(await timedPost(url, concurrent[next++]));
    }),
  );
  const wall = performance.now() - t0;
  const writes = (ex.persistence?.stats.writes ?? 0) - writesBefore;
  const lines = [
    describe(`${label} POST /orders, 1 at a time`, seq, 2),
    `${label} POST /orders, ${CONCURRENCY} at a time: ${((ORDERS / wall) * 1000).toFixed(0)} orders/s, median latency ${median(lat).toFixed(2)} ms` +
      (ex.persistence ? `, ${writes} state writes for ${ORDERS} orders` : ""),
  ];
  if (ex.persistence) {
    const size = statSync(path.join(ex.persistence.dir, STATE_FILE)).size;
    lines.push(`${label} state file: ${(size / 1024).toFixed(0)} KiB, last write ${ex.persistence.stats.lastMs.toFixed(1)} ms (capture + dump + encode + fsync + rename)`);
  }
  return lines;
}

async function transfers(ex: FakeExchange, rpcUrl: string, label: string): Promise<string> {
  const wallet = createWalletClient({ account: toAccount(ex.accounts[1]!), chain: ex.clients.public.chain, transport: http(rpcUrl) });
  const token = ex.contracts.tokens["USDC"]!;
  const ms: number[] = [];
  for (let i = 0; i < TXS; i++) {
    const t0 = performance.now();
    const hash = await wallet.writeContract({ address: token, abi: erc20Abi, functionName: "transfer", args: [ex.accounts[2]!.address, 1n] });
    ms.push(performance.now() - t0);
    await ex.clients.public.waitForTransactionReceipt({ hash });
  }
  return describe(`${label} ERC-20 transfer (writeContract until the hash)`, ms, 2);
}

async function main(): Promise<void> {
  console.log(machine());
  const dir = mkdtempSync(path.join(tmpdir(), "fakex-bench-state-"));
  const plain = await createFakeExchange({ rateLimits: false });
  const persisted = await createFakeExchange({ rateLimits: false, stateDir: dir });
  try {
    for (const ex of [plain, persisted]) {
      await ex.control.fund({ address: ex.accounts[0]!.address, token: "USDT", amount: 10n ** 12n, vault: true });
      // Warm-up: JIT, connections, the first writes.
      await phase(ex, "warm-up", 100);
    }
    const out = [
      ...(await phase(plain, "no --state-dir:", 10)),
      ...(await phase(persisted, "--state-dir:   ", 10)),
      await transfers(plain, plain.rpcUrl, "no --state-dir: Anvil directly,"),
      await transfers(persisted, persisted.rpcUrl, "--state-dir:    rpc_url proxy,"),
    ];
    for (const line of out) console.log(line);
  } finally {
    await plain.close();
    await persisted.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
