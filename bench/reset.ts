// Reset cost: restoring a fake exchange to an all-layer snapshot (chain revert +
// fresh chain snapshot, engine, API keys, rate limits, health, FX, route faults,
// withdraw co-signer, block mode) against a bare evm_snapshot + evm_revert pair
// on the same Anvil, in the same run. Before every measured reset both sides
// get something to undo (the fake: a clock advance, which mines a block and
// moves the engine's clock; the bare pair: a mined block). The fake exchange is
// the default one (seeded makers' ladders on every market), as the vitest
// fixture restores it before each test. The bare pair's requests go the way
// fakex sends its own (node:http), so the ratio is fakex's work over the chain's;
// the pair over the global fetch (the baseline until the twelfth session, when
// fakex also used fetch) is printed for comparison, outside the ratio.
//
//   npm run bench:reset                 # 7 runs of 100 resets each
//   RUNS=9 RESETS=200 npm run bench:reset
//   PROFILE=1 npm run bench:reset       # also the chain's share of a restore (its one
//                                       # JSON-RPC batch: revert + nonce + head + snapshot)
//
// Last line: `ratio: <fakex median ÷ bare median>` per reset (goal: at most 1.5).
import { performance } from "node:perf_hooks";
import { createFakeExchange } from "../fixtures/fake-exchange.ts";
import { httpPostJson } from "../sim/chain/http-fetch.ts";
import { describe, envInt, machine, median } from "./stats.ts";

const RUNS = envInt("RUNS", 7, 1);
const RESETS = envInt("RESETS", 100, 1);
const PROFILE = process.env["PROFILE"] === "1";

type Rpc = (url: string, method: string, params?: unknown[]) => Promise<unknown>;

function answer(method: string, text: string): unknown {
  const body = JSON.parse(text) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

const request = (method: string, params: unknown[]) => JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
/** As fakex sends its own requests to Anvil. */
const rpc: Rpc = async (url, method, params = []) => answer(method, (await httpPostJson(url, request(method, params))).text);
/** Through the global fetch. */
const rpcByFetch: Rpc = async (url, method, params = []) =>
  answer(method, await (await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: request(method, params) })).text());

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
    const bareRun = async (send: Rpc = rpc): Promise<number> => {
      let total = 0;
      for (let i = 0; i < RESETS; i++) {
        const t0 = performance.now();
        const id = await send(ex.rpcUrl, "evm_snapshot");
        const t1 = performance.now();
        await send(ex.rpcUrl, "evm_mine");
        const t2 = performance.now();
        if ((await send(ex.rpcUrl, "evm_revert", [id])) !== true) throw new Error("evm_revert failed");
        total += t1 - t0 + (performance.now() - t2);
      }
      return total / RESETS;
    };
    // Warm-up, not counted.
    await fakeRun();
    await bareRun();
    await bareRun(rpcByFetch);
    const fake: number[] = [];
    const bare: number[] = [];
    const bareByFetch: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      bare.push(await bareRun());
      bareByFetch.push(await bareRun(rpcByFetch));
      fake.push(await fakeRun());
    }
    // The fake is still intact after all that: the clean state is the start state.
    if (ex.control.now().now !== Number((await ex.clients.public.getBlock()).timestamp)) throw new Error("chain time drifted from the clock");
    console.log(machine());
    console.log(`per reset, mean of ${RESETS} per run:`);
    console.log(describe("bare evm_snapshot + evm_revert", bare, 3));
    console.log(describe("all-layer restore", fake, 3));
    console.log(describe("bare pair over the global fetch (not in the ratio)", bareByFetch, 3));
    console.log(`all-layer restore ÷ that pair: ${(median(fake) / median(bareByFetch)).toFixed(2)}`);
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
