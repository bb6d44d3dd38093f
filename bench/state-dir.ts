// What `--state-dir` costs per acknowledged request, and whether that grows with the
// state: POST /orders p50 (one at a time, through HTTP) on a fake holding 1,000 and then
// 50,000 resting orders, with a state directory and without one; then the restart time
// of the 50k directory (checkpoint load plus the replay of the log the timed orders left).
//
// The resting orders are put straight into the engine (engine.placeOrder on bodies built
// up front: the HTTP route's signature check is what it skips), then, with a state dir,
// a checkpoint is taken (persistence.persist()), so the directory honestly holds them:
// the checkpoint is as big as 50k orders make it, and the timed orders go through the
// write-ahead log after it. The timed orders are signed before the clock starts.
//
//   npx tsx bench/state-dir.ts            # 200 timed orders per size, 1 run
//   ORDERS=300 RUNS=5 npx tsx bench/state-dir.ts
// Last lines: "ratio: <with ÷ without at 50k>" and "growth: <with at 50k ÷ with at 1k>".
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createFakeExchange, type FakeExchange } from "../fixtures/fake-exchange.ts";
import { STATE_FILE } from "../fixtures/state-dir.ts";
import { limitOrderBody } from "../sim/core/order-body.ts";
import { describe, envInt, machine, median } from "./stats.ts";

const ORDERS = envInt("ORDERS", 200, 20);
const RUNS = envInt("RUNS", 1, 1);
const SIZES = (process.env["SIZES"] ?? "1000,50000").split(",").map(Number);

async function post(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

/** Asks far above the book, signed through preview + signOrder: they rest, every request does the same work. */
async function signedOrders(ex: FakeExchange, n: number, tag: number): Promise<unknown[]> {
  const me = ex.accounts[0]!;
  const market = ex.registry.markets().find((m) => m.baseSymbol === "USDT")!;
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const price = (5 + tag + i / 10_000).toFixed(4);
    const preview = await post(`${ex.baseUrl}/orders/preview`, ex.newOrder(me, { symbol: market.symbol, side: "ask", amount: "10", price }));
    if (preview.status !== 200) throw new Error(`preview ${preview.status}: ${JSON.stringify(preview.body)}`);
    out.push((await ex.signOrder(me, preview.body as never)).body);
  }
  return out;
}

const bulkPlaced = new Map<FakeExchange, number>();

/** Resting asks straight into the engine until `total` were put there this way. */
function restOrders(ex: FakeExchange, total: number): void {
  const engine = ex.parts.engine;
  const market = ex.registry.markets().find((m) => m.baseSymbol === "USDT")!;
  const owner = ex.accounts[0]!.address.toLowerCase();
  const expiration = ex.parts.clock.nowSec() + 30 * 86_400;
  for (let i = bulkPlaced.get(ex) ?? 0; i < total; i++) {
    const hex = i.toString(16).padStart(12, "0");
    engine.placeOrder(
      limitOrderBody({ owner, side: "ask", amount: "10", price: (2 + (i % 1000) / 1000).toFixed(4), market, orderId: `00000000-0000-4000-8000-${hex}`, executorId: engine.executorId, expiration }) as never,
    );
  }
  bulkPlaced.set(ex, total);
}

async function timed(ex: FakeExchange, bodies: unknown[]): Promise<number[]> {
  const ms: number[] = [];
  for (const b of bodies) {
    const t0 = performance.now();
    const r = await post(`${ex.baseUrl}/orders`, b);
    ms.push(performance.now() - t0);
    if (r.status !== 201) throw new Error(`POST /orders ${r.status}: ${JSON.stringify(r.body)}`);
  }
  return ms;
}

interface RunResult {
  p50: Record<string, number>;
  restartMs: number;
  checkpointMs: number;
  checkpointKiB: number;
}

async function oneRun(run: number): Promise<RunResult> {
  const dir = mkdtempSync(path.join(tmpdir(), "fakex-bench-state-"));
  const plain = await createFakeExchange({ rateLimits: false, liquidity: false, users: 1 });
  const persisted = await createFakeExchange({ rateLimits: false, liquidity: false, users: 1, stateDir: dir });
  const p50: Record<string, number> = {};
  let restartMs = 0;
  try {
    for (const ex of [plain, persisted]) {
      await ex.control.fund({ address: ex.accounts[0]!.address, token: "USDT", amount: 10n ** 18n, vault: true });
      await timed(ex, await signedOrders(ex, 30, 90)); // warm-up: JIT, connections
    }
    for (const [si, size] of SIZES.entries()) {
      for (const [label, ex] of [["without", plain], ["with", persisted]] as const) {
        const t0 = performance.now();
        restOrders(ex, size);
        const t1 = performance.now();
        // The directory holds the bulk: a checkpoint of it, then the log starts afresh.
        await ex.persistence?.persist();
        if (process.env["VERBOSE"]) console.log(`${label}@${size}: bulk ${(t1 - t0).toFixed(0)} ms, checkpoint ${(performance.now() - t1).toFixed(0)} ms`);
        const bodies = await signedOrders(ex, ORDERS, si * 2);
        p50[`${label}@${size}`] = median(await timed(ex, bodies));
        if (process.env["VERBOSE"]) console.log(`${label}@${size}: p50 ${p50[`${label}@${size}`]!.toFixed(2)} ms`);
      }
    }
    const stats = persisted.persistence!.stats;
    const logRecords = stats.wal.records;
    // Restart on the 50k directory as kill -9 leaves it: the checkpoint plus the timed orders' log.
    await persisted.parts.anvil.stop();
    const t0 = performance.now();
    const back = await createFakeExchange({ rateLimits: false, stateDir: dir });
    restartMs = performance.now() - t0;
    if (back.control.eventHash() !== persisted.control.eventHash()) throw new Error("restart: the event-log hash differs");
    console.log(`run ${run}: restart with ${persisted.parts.engine.log.length} events (log after the checkpoint: ${logRecords} records) ${restartMs.toFixed(0)} ms, event-log hash equal`);
    const result = { p50, restartMs, checkpointMs: back.persistence!.stats.lastMs, checkpointKiB: statSync(path.join(dir, STATE_FILE)).size / 1024 };
    await back.close();
    return result;
  } finally {
    await plain.close();
    await persisted.parts.anvil.stop().catch(() => undefined);
    // Its server too (its Anvil is stopped and its lock was the restarted one's): left
    // listening, it kept the process from exiting once the figures were printed.
    await persisted.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(machine());
  const runs: RunResult[] = [];
  for (let r = 1; r <= RUNS; r++) {
    const res = await oneRun(r);
    runs.push(res);
    console.log(`run ${r}: p50 ${Object.entries(res.p50).map(([k, v]) => `${k} ${v.toFixed(2)} ms`).join(", ")}; checkpoint at 50k ${res.checkpointMs.toFixed(0)} ms, ${res.checkpointKiB.toFixed(0)} KiB`);
  }
  const col = (key: string) => runs.map((r) => r.p50[key]!);
  for (const size of SIZES) {
    for (const label of ["without", "with"]) console.log(describe(`POST /orders p50, ${label} --state-dir, ${size} resting orders`, col(`${label}@${size}`), 2));
  }
  console.log(describe("restart at 50k (checkpoint load + log replay + new checkpoint)", runs.map((r) => r.restartMs), 0));
  console.log(describe("checkpoint at 50k (capture + dump + encode + fsync + rename)", runs.map((r) => r.checkpointMs), 0));
  const ratio = median(runs.map((r) => r.p50["with@50000"]! / r.p50["without@50000"]!));
  const growth = median(runs.map((r) => r.p50["with@50000"]! / r.p50["with@1000"]!));
  console.log(`ratio: ${ratio.toFixed(2)}`);
  console.log(`growth: ${growth.toFixed(2)}`);
}

await main();
