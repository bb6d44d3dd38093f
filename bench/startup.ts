// Start-up cost: createFakeExchange() until it resolves (Anvil up, contracts
// deployed, tokens and markets seeded, users funded, makers deposited and their
// ladders resting, simulator built, HTTP listening) against a bare Anvil start
// (startAnvil: the same binary until it answers RPC) in the same run. Runs
// alternate so load on the shared machine hits both alike; one warm-up of each
// first (module loading, artifact reads), not counted.
//
//   npm run bench:startup              # 7 runs of each
//   RUNS=11 npm run bench:startup
//   PROFILE=1 npm run bench:startup    # also time the phases of one fake start
//
// Last line: `ratio: <fakex median ÷ bare median>` (goal: at most 5).
import { performance } from "node:perf_hooks";
import { startAnvil } from "../fixtures/anvil.ts";
import { createFakeExchange } from "../fixtures/fake-exchange.ts";
import { describe, envInt, machine, median } from "./stats.ts";

const RUNS = envInt("RUNS", 7, 1);

async function bareOnce(): Promise<number> {
  const t0 = performance.now();
  const anvil = await startAnvil();
  const ms = performance.now() - t0;
  await anvil.stop();
  return ms;
}

async function fakeOnce(): Promise<number> {
  const t0 = performance.now();
  const ex = await createFakeExchange();
  const ms = performance.now() - t0;
  await ex.close();
  return ms;
}

async function main(): Promise<void> {
  await bareOnce();
  await fakeOnce();
  const bare: number[] = [];
  const fake: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    bare.push(await bareOnce());
    fake.push(await fakeOnce());
  }
  console.log(machine());
  console.log(describe("bare anvil start", bare));
  console.log(describe("createFakeExchange ready", fake));
  console.log(`ratio: ${(median(fake) / median(bare)).toFixed(2)}`);
}

await main();
