// Reset cost: restoring a fake exchange to an all-layer snapshot (chain revert +
// fresh chain snapshot, engine, API keys, rate limits, health, FX, route faults,
// withdraw co-signer, block mode) against a bare evm_snapshot + evm_revert pair
// on the same Anvil, in the same run. Before every measured reset both sides
// get something to undo (the fake: a clock advance, which mines a block and
// moves the engine's clock; the bare pair: a mined block). The fake exchange is
// the default one (seeded makers' ladders on every market), as the vitest
// fixture restores it before each test.
//
//   npm run bench:reset                 # 7 runs of 100 resets each
//   RUNS=9 RESETS=200 npm run bench:reset
//   PROFILE=1 npm run bench:reset       # also the chain's share of a restore (its one
//                                       # JSON-RPC batch: revert + nonce + head + snapshot)
//
// Last line: `ratio: <fakex median ÷ bare median>` per reset (goal: at most 3).
import { performance } from "node:perf_hooks";
import { createFakeExchange } from "../fixtures/fake-exchange.ts";
import { httpFetch } from "../sim/chain/http-fetch.ts";
import { describe, envInt, machine, median } from "./stats.ts";

const RUNS = envInt("RUNS", 7, 1);
const RESETS = envInt("RESETS", 100, 1);
const PROFILE = process.env["PROFILE"] === "1";

/** The bare pair's calls go over the same transport fakex uses for Anvil (node:http), so the ratio compares work, not clients. */
async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await httpFetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

async function main(): Promise<void> {
  const ex = await createFakeExchange();
  try {
    const clean = await ex.snapshot();
    const fakeRun = async (): Promise<number> => {
      let total = 0;
      for (let i = 0; i < RESETS; i++) {
        await ex.control.advanceClock(1);
        const t0 = performance.now();
        await ex.restore(clean);
        total += performance.now() - t0;
      }
      return total / RESETS;
    };
    const bareRun = async (): Promise<number> => {
      let total = 0;
      for (let i = 0; i < RESETS; i++) {
        const t0 = performance.now();
        const id = await rpc(ex.rpcUrl, "evm_snapshot");
        const t1 = performance.now();
        await rpc(ex.rpcUrl, "evm_mine");
        const t2 = performance.now();
        if ((await rpc(ex.rpcUrl, "evm_revert", [id])) !== true) throw new Error("evm_revert failed");
        total += t1 - t0 + (performance.now() - t2);
      }
      return total / RESETS;
    };
    // Warm-up, not counted.
    await fakeRun();
    await bareRun();
    const fake: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      bare.push(await bareRun());
      fake.push(await fakeRun());
    }
    // The fake is still intact after all that: the clean state is the start state.
    if (ex.control.now().now !== Number((await ex.clients.public.getBlock()).timestamp)) throw new Error("chain time drifted from the clock");
    console.log(machine());
    console.log(`per reset, mean of ${RESETS} per run:`);
    console.log(describe("bare evm_snapshot + evm_revert", bare, 3));
    console.log(describe("all-layer restore", fake, 3));
    if (PROFILE) {
      // The chain's part of a restore alone (port.revertAndSnapshot: one request), after the
      // same clock advance; the rest of a restore is the other layers and bookkeeping.
      const port = ex.parts.port;
      const chainPart: number[] = [];
      for (let r = 0; r < RUNS; r++) {
        let total = 0;
        for (let i = 0; i < RESETS; i++) {
          const id = await port.snapshot();
          await ex.control.advanceClock(1);
          const t0 = performance.now();
          await port.revertAndSnapshot(id);
          total += performance.now() - t0;
          await ex.restore(clean); // also drops the snapshot just taken (it is later than clean's)
        }
        chainPart.push(total / RESETS);
      }
      console.log(describe("  of which the chain (port.revertAndSnapshot alone)", chainPart, 3));
    }
    console.log(`ratio: ${(median(fake) / median(bare)).toFixed(2)}`);
  } finally {
    await ex.close();
  }
}

await main();
