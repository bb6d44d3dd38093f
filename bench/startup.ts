// Start-up cost: createFakeExchange() until it resolves (Anvil up, contracts
// deployed, tokens and markets seeded, users funded, makers deposited and their
// ladders resting, simulator built, HTTP listening) against a bare Anvil start
// (startAnvil: the same binary until it answers RPC) in the same run. Runs
// alternate so load on the shared machine hits both alike; one warm-up of each
// first (module loading, artifact reads, and the seeded-chain dump written to the
// state cache if it was not there yet), not counted. The ratio is for the
// default path, which loads that dump; seeding by transactions (stateCache:
// false, what the very first start on a machine does) is timed alongside.
//
//   npm run bench:startup              # 7 runs of each
//   RUNS=11 npm run bench:startup
//   PROFILE=1 npm run bench:startup    # also time the phases of one fake start
//   FAKEX_PROFILE=testnet npm run bench:startup   # the fake started with that --profile
//
// Last line: `ratio: <fakex median ÷ bare median>` (goal: at most 5).
import { performance } from "node:perf_hooks";
import { startAnvil } from "../fixtures/anvil.ts";
import { createFakeExchange } from "../fixtures/fake-exchange.ts";
import { PROFILE_NAMES, isProfileName, type ProfileName } from "../fixtures/profiles.ts";
import { describe, envInt, machine, median } from "./stats.ts";

const RUNS = envInt("RUNS", 7, 1);
const FAKEX_PROFILE: ProfileName = profileFromEnv(process.env["FAKEX_PROFILE"] ?? "local");

function profileFromEnv(name: string): ProfileName {
  if (!isProfileName(name)) throw new Error(`FAKEX_PROFILE must be one of ${PROFILE_NAMES.join(", ")}`);
  return name;
}

async function bareOnce(): Promise<number> {
  const t0 = performance.now();
  const anvil = await startAnvil();
  const ms = performance.now() - t0;
  await anvil.stop();
  return ms;
}

async function fakeOnce(stateCache = true): Promise<number> {
  const t0 = performance.now();
  const ex = await createFakeExchange({ stateCache, profile: FAKEX_PROFILE });
  const ms = performance.now() - t0;
  await ex.close();
  return ms;
}

async function main(): Promise<void> {
  await bareOnce();
  await fakeOnce();
  const bare: number[] = [];
  const fake: number[] = [];
  const seeded: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    bare.push(await bareOnce());
    fake.push(await fakeOnce());
    seeded.push(await fakeOnce(false));
  }
  console.log(machine());
  console.log(`profile: ${FAKEX_PROFILE}`);
  console.log(describe("bare anvil start", bare));
  console.log(describe("createFakeExchange ready (seeded chain from the state cache, default)", fake));
  console.log(describe("createFakeExchange ready (seeding by transactions, stateCache: false)", seeded));
  console.log(`seeding by transactions ÷ bare: ${(median(seeded) / median(bare)).toFixed(2)}`);
  console.log(`ratio: ${(median(fake) / median(bare)).toFixed(2)}`);
}

await main();
