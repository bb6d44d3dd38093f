// Balance economics after any engine command sequence, with settlement faults
// (reverted legs, failed batches) and positive-spread fills, and a non-zero fee.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { VirtualClock } from "../../sim/core/clock.ts";
import { Engine } from "../../sim/core/engine.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry } from "../../sim/core/registry.ts";
import { Rng } from "../../sim/core/rng.ts";
import type { Address } from "../../sim/core/typed-data.ts";
import { MemoryChain } from "../../sim/chain/memory.ts";
import { balanceEconomicsViolations, engineCommands, runEngineCommands } from "../../properties/index.ts";

const OWNERS: Address[] = ["0x1111111111111111111111111111111111111111", "0x2222222222222222222222222222222222222222", "0x3333333333333333333333333333333333333333"];
const registry = new Registry({ ...DEFAULT_REGISTRY_CONFIG, fee_bps: 30 });

function world(seed: number) {
  const clock = new VirtualClock(Date.UTC(2026, 2, 14));
  const chain = new MemoryChain({ clock });
  const engine = new Engine({
    seed,
    clock,
    registry,
    executorId: 3,
    chain,
    faults: {
      revertFraction: { fraction: 0.15, reason: "BAD_SIGNATURE" },
      revertSettlements: [{ nth: 2, reason: "OUT_OF_GAS", mode: "batch" }],
      spreadFills: { rate: 0.4, sizeBps: 80 },
    },
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
  const vaultHoldings = () => {
    const m = new Map<string, bigint>();
    for (const e of chain.vaultEntries()) m.set(e.token, (m.get(e.token) ?? 0n) + e.amount);
    return m;
  };
  return { engine, chain, deposits, vaultHoldings, ids: new Rng(`ids-${seed}`) };
}

describe("balance economics after any command sequence", () => {
  it("vault totals match the vault, frozen = open-order needs, nothing negative, balance_* = ledger moves, fees once", async () => {
    let fills = 0;
    let withFees = 0;
    await fc.assert(
      fc.asyncProperty(engineCommands(registry, { owners: OWNERS.length, minLength: 10, maxLength: 60 }), fc.integer({ min: 1, max: 1000 }), async (cmds, seed) => {
        const w = world(seed);
        await runEngineCommands(w.engine, cmds, { owners: OWNERS, ids: w.ids });
        await w.engine.settleAll();
        expect(balanceEconomicsViolations({ engine: w.engine, vaultHoldings: w.vaultHoldings(), deposits: w.deposits })).toEqual([]);
        fills += w.engine.fillRecords().length;
        withFees += OWNERS.flatMap((o) => w.engine.listOrders(o)).filter((o) => o.settlement_economics.fees_paid.length > 0).length;
      }),
      // A pinned seed: with a random one the coverage floor below missed about one run in
      // five (48 fills). FAKEX_ECONOMICS_SEED explores other streams.
      { numRuns: 40, seed: Number(process.env.FAKEX_ECONOMICS_SEED ?? 20261121) },
    );
    // The runs exercised what the check is about: fills happened and fees were paid.
    expect(fills).toBeGreaterThan(50);
    expect(withFees).toBeGreaterThan(10);
  });

  it("the check catches a ledger that no longer matches the wire (a credit the orders do not report)", async () => {
    const w = world(5);
    w.engine.creditDeposit(OWNERS[0]!, registry.tokenBySymbol("USDC")!.address, 7n);
    const v = balanceEconomicsViolations({ engine: w.engine, vaultHoldings: w.vaultHoldings(), deposits: w.deposits });
    expect(v.some((s) => s.includes("vault holds"))).toBe(true);
    expect(v.some((s) => s.includes("deposits + credits"))).toBe(true);
  });
});
