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
//   PROFILE=1 npm run bench:startup    # also the median time of each boot stage (the same
//                                      # stages createFakeExchange runs, composed here)
//   FAKEX_PROFILE=testnet npm run bench:startup   # the fake started with that --profile
//
// Last line: `ratio: <fakex median ÷ bare median>` (goal: at most 2, issue 20).
import { performance } from "node:perf_hooks";
import { startAnvil } from "../fixtures/anvil.ts";
import { startBootAnvil } from "../fixtures/boot/anvil-start.ts";
import { anvilStateFile } from "../fixtures/state-cache.ts";
import { connectChain } from "../fixtures/boot/chain.ts";
import { buildControl } from "../fixtures/boot/control.ts";
import { buildApp, listenHttp } from "../fixtures/boot/http.ts";
import { placeOrResumeLiquidity } from "../fixtures/boot/liquidity.ts";
import { resolveBootOptions } from "../fixtures/boot/options.ts";
import { statePersistence } from "../fixtures/boot/persistence.ts";
import { seedChain } from "../fixtures/boot/seed.ts";
import { buildSimulator } from "../fixtures/boot/simulator.ts";
import { followClock } from "../fixtures/boot/wall-clock.ts";
import { createFakeExchange } from "../fixtures/fake-exchange.ts";
import { PROFILE_NAMES, isProfileName, type ProfileName } from "../fixtures/profiles.ts";
import { bareAnvilStartMs, describe, envInt, machine, median } from "./stats.ts";

const RUNS = envInt("RUNS", 7, 1);
const PROFILE = process.env["PROFILE"] === "1";
const FAKEX_PROFILE: ProfileName = profileFromEnv(process.env["FAKEX_PROFILE"] ?? "local");

function profileFromEnv(name: string): ProfileName {
  if (!isProfileName(name)) throw new Error(`FAKEX_PROFILE must be one of ${PROFILE_NAMES.join(", ")}`);
  return name;
}

async function fakeOnce(stateCache = true): Promise<number> {
  const t0 = performance.now();
  const ex = await createFakeExchange({ stateCache, profile: FAKEX_PROFILE });
  const ms = performance.now() - t0;
  await ex.close();
  return ms;
}

/**
 * One start through the boot stages of createFakeExchange (fake-exchange.ts, boot/parts.ts)
 * up to a listening server, each stage timed; `into` collects ms per stage.
 */
async function stagesOnce(into: Map<string, number[]>): Promise<string | null> {
  let t = performance.now();
  const lap = (stage: string) => {
    const now = performance.now();
    into.set(stage, [...(into.get(stage) ?? []), now - t]);
    t = now;
  };
  const t0 = t;
  const boot = await resolveBootOptions({ profile: FAKEX_PROFILE });
  lap("options");
  const start = await startBootAnvil(boot, startAnvil);
  lap(start.cached ? "anvil (on the cached state; ladders signed meanwhile)" : "anvil (bare: no cached state)");
  try {
    const chain = connectChain(start.anvil);
    lap("chain clients");
    const seeded = await seedChain(chain, boot, start);
    lap("seed (its chain-time request sent, not awaited)");
    const sim = await buildSimulator(chain, seeded, boot);
    lap("simulator (engine and layers built while the chain-time and port-init requests run; vault sync)");
    const liquidity = await placeOrResumeLiquidity(sim, seeded, boot, start.cached?.ladders ?? null);
    lap("liquidity (place the makers' ladders)");
    const ctl = buildControl(chain, seeded, sim, boot);
    const clocks = followClock(sim, boot);
    const persistence = statePersistence(chain, seeded, sim, ctl, boot, liquidity, clocks);
    lap("control, clock, persistence");
    const http = buildApp(chain, seeded, sim, ctl, persistence, boot, clocks);
    lap("http app");
    const { server } = await listenHttp(http.app, boot, persistence);
    lap("listen");
    into.set("total", [...(into.get("total") ?? []), performance.now() - t0]);
    server.close();
    return start.cached ? start.cacheKey : null;
  } finally {
    await start.anvil.stop();
  }
}

async function main(): Promise<void> {
  await bareAnvilStartMs();
  await fakeOnce();
  const bare: number[] = [];
  const fake: number[] = [];
  const seeded: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    bare.push(await bareAnvilStartMs());
    fake.push(await fakeOnce());
    seeded.push(await fakeOnce(false));
  }
  console.log(machine());
  console.log(`profile: ${FAKEX_PROFILE}`);
  console.log(describe("bare anvil start", bare));
  console.log(describe("createFakeExchange ready (seeded chain from the state cache, default)", fake));
  console.log(describe("createFakeExchange ready (seeding by transactions, stateCache: false)", seeded));
  console.log(`seeding by transactions ÷ bare: ${(median(seeded) / median(bare)).toFixed(2)}`);
  if (PROFILE) {
    const stages = new Map<string, number[]>();
    const key = await stagesOnce(new Map()); // warm-up, not counted
    for (let i = 0; i < RUNS; i++) await stagesOnce(stages);
    console.log(`boot stages, median of ${RUNS} starts (composed here as createFakeExchange composes them):`);
    for (const [stage, ms] of stages) console.log(`  ${stage}: ${median(ms).toFixed(2)} ms`);
    if (key) {
      // The floor of a start on the cached chain: Anvil itself on the state file, against bare.
      const onFile: number[] = [];
      const bareAgain: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        bareAgain.push(await bareAnvilStartMs());
        const t0 = performance.now();
        const anvil = await startAnvil({ loadStatePath: anvilStateFile(key) });
        onFile.push(performance.now() - t0);
        await anvil.stop();
      }
      console.log(`  anvil --load-state alone: median ${median(onFile).toFixed(1)} ms vs bare ${median(bareAgain).toFixed(1)} ms (${(median(onFile) / median(bareAgain)).toFixed(2)}x)`);
    }
  }
  console.log(`ratio: ${(median(fake) / median(bare)).toFixed(2)}`);
}

await main();
