// Pool first use: the time from the first request for a new id (GET <id>/api/v1/markets
// on a `fakex serve --pool` server) to its answer, against a bare Anvil start (startAnvil:
// spawn until it answers RPC) in the same run. Runs alternate so load on the shared
// machine hits both alike, after one warm-up of each (not counted). Each timed id is
// released after its answer, so every run creates a fresh instance. Also timed: POST
// <id>/__fakex/reset after a few changes, and the resident memory an idle instance adds
// (its Anvil's RSS plus the JS heap it holds). Then CONCURRENT ids (default 16), each
// with a funded user, run `fakex conformance` (its command function, write set included)
// at once against their own instance URL.
//
//   npm run bench:pool                 # 7 runs of each, 16 concurrent conformance ids
//   RUNS=11 IDLE=8 CONCURRENT=16 npm run bench:pool
//
// Server options are the CLI's defaults (wall clock, auto-settle 250 ms, seeded makers).
// Last line: `ratio: <pool first use median ÷ bare anvil median>` (goal: at most 3).
import { performance } from "node:perf_hooks";
import { createFakeExchangePool } from "../fixtures/fake-exchange.ts";
import { childAnvilPids, residentBytes } from "../fixtures/pool/processes.ts";
import { conformanceCommand } from "../properties/conformance.ts";
import { bareAnvilStartMs, describe, envInt, machine, median } from "./stats.ts";

const RUNS = envInt("RUNS", 7, 1);
const IDLE = envInt("IDLE", 8, 1);
const CONCURRENT = envInt("CONCURRENT", 16, 0);

const post = (url: string, body?: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function main(): Promise<void> {
  const server = await createFakeExchangePool({ size: Math.max(IDLE, CONCURRENT, 2), clock: "wall", autoSettleMs: 250, liquidity: true });
  const tpl = server.info.pool!;
  const api = (id: string) => tpl.base_url_template.replace("{id}", id);
  const control = (id: string) => tpl.control_url_template.replace("{id}", id);
  const origin = tpl.base_url_template.slice(0, tpl.base_url_template.indexOf("/{id}"));
  let n = 0;
  const firstUse = async (): Promise<number> => {
    const id = `first-${n++}`;
    const t0 = performance.now();
    const res = await fetch(`${api(id)}/markets`);
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`first use of ${id}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    const del = await fetch(`${origin}/${id}`, { method: "DELETE" });
    if (del.status !== 200) throw new Error(`release of ${id}: ${del.status}`);
    return ms;
  };
  try {
    await bareAnvilStartMs();
    await firstUse();
    const bare: number[] = [];
    const pool: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      bare.push(await bareAnvilStartMs());
      pool.push(await firstUse());
    }

    // Reset: an instance with a moved clock, mined blocks and a funded vault, back to its seed.
    const resets: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const id = `reset-${i}`;
      const user = server.accounts[0]!.address;
      if ((await post(`${control(id)}/clock/advance`, { seconds: 600 })).status !== 200) throw new Error("advance failed");
      if ((await post(`${control(id)}/mine`, { blocks: 3 })).status !== 200) throw new Error("mine failed");
      if ((await post(`${control(id)}/fund`, { address: user, token: "EURC", amount: "1000000", vault: true })).status !== 200) throw new Error("fund failed");
      const t0 = performance.now();
      const res = await post(`${control(id)}/reset`);
      resets.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`reset of ${id}: ${res.status}`);
      await fetch(`${origin}/${id}`, { method: "DELETE" });
    }

    // Resident memory per idle instance: Anvil RSS of the new children, JS heap before/after.
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const pidsBefore = new Set(childAnvilPids());
    for (let i = 0; i < IDLE; i++) {
      const res = await fetch(`${api(`idle-${i}`)}/markets`);
      if (res.status !== 200) throw new Error(`idle-${i}: ${res.status}`);
      await res.arrayBuffer();
    }
    await new Promise((r) => setTimeout(r, 1000)); // a few auto-settle rounds: the steady idle state
    gc();
    const heapDelta = (process.memoryUsage().heapUsed - heapBefore) / IDLE;
    const rss = childAnvilPids()
      .filter((p) => !pidsBefore.has(p))
      .map(residentBytes);
    for (let i = 0; i < IDLE; i++) await fetch(`${origin}/idle-${i}`, { method: "DELETE" });

    // CONCURRENT ids at once, each through `fakex conformance` (write set with a funded user).
    let conformance = "";
    if (CONCURRENT > 0) {
      const user = server.accounts[0]!;
      const t0 = performance.now();
      const outcomes = await Promise.all(
        Array.from({ length: CONCURRENT }, async (_, i) => {
          const id = `conf-${i}`;
          const funded = await post(`${control(id)}/fund`, { address: user.address, token: "EURC", amount: "100000000", vault: true });
          if (funded.status !== 200) return { id, code: -1, out: `fund: ${funded.status} ${await funded.text()}` };
          let out = "";
          const code = await conformanceCommand(["--base-url", api(id), "--private-key", user.privateKey], (s) => void (out += s));
          return { id, code, out };
        }),
      );
      const wallMs = performance.now() - t0;
      const passed = outcomes.filter((o) => o.code === 0);
      const summary = (o: { out: string }) => o.out.trim().split("\n").at(-1);
      conformance =
        `fakex conformance on ${CONCURRENT} ids at once (write set, funded user): ${passed.length}/${CONCURRENT} exit 0, ` +
        `${summary(outcomes[0]!)} each (first id), ${(wallMs / 1000).toFixed(1)} s wall for all`;
      for (const o of outcomes.filter((x) => x.code !== 0)) conformance += `\n  ${o.id} exit ${o.code}:\n${o.out}`;
    }

    console.log(machine());
    console.log(describe("bare anvil start (spawn + ready)", bare));
    console.log(describe("pool first use (GET <id>/api/v1/markets on a new id, to its answer)", pool));
    console.log(describe("pool reset (POST <id>/__fakex/reset after clock advance, 3 blocks, a vault funding)", resets));
    const mb = (b: number) => (b / 2 ** 20).toFixed(1);
    console.log(
      `idle instance memory over ${IDLE} instances: Anvil RSS median ${mb(median(rss))} MiB (range ${mb(Math.min(...rss))}–${mb(Math.max(...rss))}), ` +
        `JS heap ${mb(heapDelta)} MiB each${(globalThis as { gc?: unknown }).gc ? "" : " (no --expose-gc: heap figure is noisy)"}`,
    );
    if (conformance) console.log(conformance);
    console.log(`ratio: ${(median(pool) / median(bare)).toFixed(2)}`);
  } finally {
    await server.close();
  }
}

await main();
