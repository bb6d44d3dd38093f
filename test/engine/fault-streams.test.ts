// The fault plan draws on streams of its own (sim/core/engine.ts revertRng, spreadRng): which
// settlement legs a revertFraction reverts does not move when a swap is quoted in between
// (a quote draws ids from the engine's stream) or when spread fills are turned on, as the
// README promises ("adding a swap does not shift the other faults' draws").
import { describe, expect, test } from "vitest";
import { deposit, MAKER, MAKER2, quoteBody, rest, setupSwapEngine, type SwapEnv } from "../swaps/engine-helpers.ts";

/** Ten rounds of ten crossing fills, each round settled; the statuses of the limit-order fills in order. */
async function revertPattern(o: { quoteAt?: number; spread?: boolean }): Promise<string> {
  const env: SwapEnv = setupSwapEngine(1);
  await deposit(env, MAKER, "EURC", 10n ** 15n);
  await deposit(env, MAKER2, "USDC", 10n ** 15n);
  env.engine.setFaultPlan({ revertFraction: { fraction: 0.3, reason: "INSUFFICIENT_VAULT_BALANCE" }, ...(o.spread ? { spreadFills: { rate: 0.5, sizeBps: 10 } } : {}) });
  const limitFills: number[] = [];
  for (let round = 0; round < 10; round++) {
    if (round === o.quoteAt) await env.engine.quoteSwap(quoteBody(env, "USDC", "EURC", 1_000_000n, { owner_address: MAKER2, recipient: MAKER2 }));
    for (let i = 0; i < 10; i++) {
      rest(env, MAKER, "EURC/USDC", "ask", "10", "1.08");
      const before = env.engine.fillCount();
      rest(env, MAKER2, "EURC/USDC", "bid", "10", "1.09");
      for (let id = before + 1; id <= env.engine.fillCount(); id++) limitFills.push(id);
    }
    await env.engine.settle();
  }
  const byId = new Map(env.engine.fillRecords().map((f) => [f.id, f.status]));
  return limitFills.map((id) => (byId.get(id) === "reverted" ? "r" : "s")).join("");
}

describe("fault plan streams", () => {
  test("a swap quote in between, or spread fills turned on, leaves which fills revert where it was", async () => {
    const base = await revertPattern({});
    expect(base).toContain("r");
    expect(base).toContain("s");
    expect(await revertPattern({ quoteAt: 3 })).toBe(base);
    expect(await revertPattern({ spread: true })).toBe(base);
  });
});
