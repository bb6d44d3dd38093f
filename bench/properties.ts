// Model-based commands per second on the memory port: seeded engine command
// sequences (limit orders, cancels, cancel-all, VL batches, clock steps,
// settlement rounds with injected reverts and spread fills), each on a fresh
// engine + memory chain, with the balance-economics check after every sequence.
// Engine-level commands, not HTTP (no express, no signatures). Sequences are
// generated before timing; world set-up, settleAll and the check are timed.
//
// Usage: npm run bench:properties [-- --runs 5 --sequences 400 --length 60 --seed 1]
import { parseArgs } from "node:util";
import fc from "fast-check";
import { VirtualClock } from "../sim/core/clock.ts";
import { Engine } from "../sim/core/engine.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry } from "../sim/core/registry.ts";
import { Rng } from "../sim/core/rng.ts";
import type { Address } from "../sim/core/typed-data.ts";
import { MemoryChain } from "../sim/chain/memory.ts";
import { balanceEconomicsViolations, engineCommands, runEngineCommands, type EngineCommand } from "../properties/index.ts";
import { median } from "./stats.ts";

const { values } = parseArgs({
  options: { runs: { type: "string" }, sequences: { type: "string" }, length: { type: "string" }, seed: { type: "string" } },
});
const RUNS = Number(values.runs ?? 5);
const SEQUENCES = Number(values.sequences ?? 400);
const LENGTH = Number(values.length ?? 60);
const SEED = Number(values.seed ?? 1);

const OWNERS: Address[] = ["0x1111111111111111111111111111111111111111", "0x2222222222222222222222222222222222222222", "0x3333333333333333333333333333333333333333"];
const registry = new Registry({ ...DEFAULT_REGISTRY_CONFIG, fee_bps: 30 });

async function runSequence(cmds: readonly EngineCommand[], seed: number): Promise<{ rejected: number; fills: number }> {
  const clock = new VirtualClock(Date.UTC(2026, 2, 14));
  const chain = new MemoryChain({ clock });
  const engine = new Engine({
    seed,
    clock,
    registry,
    executorId: 3,
    chain,
    faults: { revertFraction: { fraction: 0.15, reason: "BAD_SIGNATURE" }, spreadFills: { rate: 0.4, sizeBps: 80 } },
  });
  const deposits = new Map<Address, Map<string, bigint>>();
  for (const owner of OWNERS) {
    const per = new Map<string, bigint>();
    for (const t of registry.tokens()) {
      const raw = 10n ** 9n * 10n ** BigInt(t.decimals);
      chain.mint(owner, t.address, raw);
      const ev = chain.deposit(owner, t.address, raw);
      engine.creditDeposit(ev.owner, ev.token, ev.amount);
      per.set(t.address, raw);
    }
    deposits.set(owner, per);
  }
  const stats = await runEngineCommands(engine, cmds, { owners: OWNERS, ids: new Rng(`bench-${seed}`) });
  await engine.settleAll();
  const holdings = new Map<string, bigint>();
  for (const e of chain.vaultEntries()) holdings.set(e.token, (holdings.get(e.token) ?? 0n) + e.amount);
  const v = balanceEconomicsViolations({ engine, vaultHoldings: holdings, deposits });
  if (v.length > 0) throw new Error(`economics violated in sequence ${seed}: ${v[0]}`);
  return { rejected: stats.rejected, fills: engine.fillCount() };
}

const arb = engineCommands(registry, { owners: OWNERS.length, minLength: LENGTH, maxLength: LENGTH });

console.log(`bench/properties: engine-level model commands (memory port, not HTTP); ${SEQUENCES} sequences × ${LENGTH} commands per run, ${RUNS} runs`);
// Warm-up: one untimed pass of a full run's size (a first timed run was ~2x slower without it).
for (const [i, cmds] of fc.sample(arb, { seed: SEED + 1000, numRuns: SEQUENCES }).entries()) await runSequence(cmds, i);

const rates: number[] = [];
for (let r = 0; r < RUNS; r++) {
  const seqs = fc.sample(arb, { seed: SEED + r, numRuns: SEQUENCES });
  const commands = seqs.reduce((n, s) => n + s.length, 0);
  let rejected = 0;
  let fills = 0;
  global.gc?.();
  const t0 = process.hrtime.bigint();
  for (const [i, cmds] of seqs.entries()) {
    const s = await runSequence(cmds, i + 1);
    rejected += s.rejected;
    fills += s.fills;
  }
  const sec = Number(process.hrtime.bigint() - t0) / 1e9;
  rates.push(commands / sec);
  console.log(`run ${r + 1}: ${commands} commands (${rejected} rejected, ${fills} fills) in ${sec.toFixed(3)} s = ${(commands / sec).toFixed(0)} commands/s`);
}
console.log(`runs: ${rates.map((x) => x.toFixed(0)).join(", ")}`);
console.log(`commands_per_s: ${median(rates).toFixed(0)}`);
