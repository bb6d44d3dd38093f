// Market activity cost: wall time of one activity step (a 30 s clock advance that
// stops at one step) with the agents on every market of the default config (6), at
// the default rates: the walk, a fresh 3-level ladder per side (6 signed orders and
// 6 withdrawn per market), the takers and one settlement round on Anvil. Also the
// wall time per simulated hour, which is what a test that advances the clock pays.
//
//   npx tsx bench/activity.ts           # 60 steps
//   STEPS=120 npx tsx bench/activity.ts
import { performance } from "node:perf_hooks";
import { createFakeExchange } from "../fixtures/fake-exchange.ts";
import { describe, envInt, machine, median } from "./stats.ts";

const STEPS = envInt("STEPS", 60, 2);

async function main(): Promise<void> {
  const ex = await createFakeExchange({ seed: 1, startTime: "2026-01-01T00:00:00Z" });
  try {
    await ex.control.startActivity({});
    const ms: number[] = [];
    const fills0 = ex.parts.engine.fillCount();
    for (let i = 0; i < STEPS; i++) {
      const t0 = performance.now();
      await ex.control.advanceClock(30);
      ms.push(performance.now() - t0);
    }
    console.log(machine());
    console.log(describe("one activity step (6 markets)", ms));
    console.log(`fills: ${ex.parts.engine.fillCount() - fills0} over ${STEPS} steps; events: ${ex.parts.engine.log.length}`);
    console.log(`wall time per simulated hour: ${((median(ms) * 120) / 1000).toFixed(1)} s (median step × 120)`);
  } finally {
    await ex.close();
  }
}

await main();
