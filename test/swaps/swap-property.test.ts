// Random command runs mixing limit orders, swaps (equity and wallet-deposit,
// to the vault or to a wallet), on-chain withdrawals, clock moves and
// settlement, under a fault plan: same seed + commands → same event hash, and
// once everything settled the ledger equals the chain's vault for every owner.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ExchangeError } from "../../sim/core/errors.ts";
import { ChainRevert } from "../../sim/chain/memory.ts";
import { deposit, MAKER, MAKER2, ownerMismatches, quoteBody, rest, setupSwapEngine, submission, TAKER, tok, type SwapEnv } from "./engine-helpers.ts";

const OWNERS = [TAKER, MAKER, MAKER2];
const ZERO = "0x0000000000000000000000000000000000000000";

type Cmd =
  | { kind: "place"; owner: number; side: "bid" | "ask"; lots: number; ticks: number }
  | { kind: "swap"; owner: number; buyEurc: boolean; raw: number; payMore: boolean; toVault: boolean }
  | { kind: "withdraw"; owner: number; eurc: boolean; pct: number }
  | { kind: "advance"; sec: number }
  | { kind: "settle" };

const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant("place" as const),
      owner: fc.integer({ min: 0, max: 2 }),
      side: fc.constantFrom("bid" as const, "ask" as const),
      lots: fc.integer({ min: 500, max: 4000 }),
      ticks: fc.integer({ min: 105000, max: 111000 }),
    }),
    weight: 5,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("swap" as const),
      owner: fc.integer({ min: 0, max: 2 }),
      buyEurc: fc.boolean(),
      raw: fc.integer({ min: 1_000_000, max: 40_000_000 }),
      payMore: fc.boolean(),
      toVault: fc.boolean(),
    }),
    weight: 4,
  },
  {
    arbitrary: fc.record({ kind: fc.constant("withdraw" as const), owner: fc.integer({ min: 0, max: 2 }), eurc: fc.boolean(), pct: fc.integer({ min: 1, max: 100 }) }),
    weight: 1,
  },
  { arbitrary: fc.record({ kind: fc.constant("advance" as const), sec: fc.integer({ min: 1, max: 40 }) }), weight: 1 },
  { arbitrary: fc.constant({ kind: "settle" as const }), weight: 2 },
);

async function fresh(seed: number): Promise<SwapEnv> {
  const env = setupSwapEngine(seed, { faults: { revertSettlements: [{ nth: 3, reason: "PAUSED" }], revertFraction: { fraction: 0.1, reason: "BAD_SIGNATURE" } } });
  for (const o of OWNERS) {
    await deposit(env, o, "EURC", 200_000_000n);
    await deposit(env, o, "USDC", 200_000_000n);
    // Wallet funds for swaps that need a deposit (some will still fall short: ALLOWANCE_INSUFFICIENT on chain).
    env.chain.mint(o, tok(env, "EURC"), 20_000_000n);
    env.chain.mint(o, tok(env, "USDC"), 20_000_000n);
  }
  return env;
}

async function run(env: SwapEnv, cmds: Cmd[]): Promise<void> {
  for (const c of cmds) {
    try {
      if (c.kind === "place") {
        rest(env, OWNERS[c.owner]!, "EURC/USDC", c.side, (c.lots / 100).toFixed(2), (c.ticks / 100000).toFixed(5));
      } else if (c.kind === "swap") {
        const owner = OWNERS[c.owner]!;
        const [from, to] = c.buyEurc ? ["USDC", "EURC"] : ["EURC", "USDC"];
        const q = await env.engine.quoteSwap(
          quoteBody(env, from, to, BigInt(c.raw), { owner_address: owner, recipient: c.toVault ? ZERO : owner, gas_mode: c.payMore ? "pay_more" : "receive_less" }),
        );
        env.engine.swap(submission(q));
      } else if (c.kind === "withdraw") {
        const owner = OWNERS[c.owner]!;
        const token = tok(env, c.eurc ? "EURC" : "USDC");
        const amount = (env.engine.available(owner, token) * BigInt(c.pct)) / 100n;
        if (amount > 0n) {
          try {
            env.chain.withdraw(owner, token, amount);
          } catch (e) {
            if (!(e instanceof ChainRevert)) throw e;
          }
          await env.engine.syncVaultEvents();
        }
      } else if (c.kind === "advance") env.clock.advanceSec(c.sec);
      else await env.engine.settle();
    } catch (e) {
      if (!(e instanceof ExchangeError)) throw e;
    }
  }
}

/** frozen = what open orders reserve + in-flight settlement needs; final swaps hold nothing. */
function checkFrozen(env: SwapEnv): void {
  const need = new Map<string, bigint>();
  for (const owner of OWNERS) {
    for (const o of env.engine.listOrders(owner)) {
      const r = env.engine.orderRecord(o.trade_id);
      if (r.orderType === "swap" && (r.status === "settled" || r.status === "failed")) expect(r.reserved).toBe(0n);
      if (r.status !== "pending") expect(r.reserved).toBe(env.engine.inflightOf(r));
      const k = `${r.owner}|${r.fromToken}`;
      need.set(k, (need.get(k) ?? 0n) + r.reserved);
    }
  }
  for (const row of env.engine.ledger.rows()) {
    expect(row.available >= 0n && row.frozen >= 0n).toBe(true);
    expect(row.frozen).toBe(need.get(`${row.owner}|${row.token}`) ?? 0n);
  }
}

describe("swap property: determinism and ledger = chain with swaps in the mix", () => {
  it("same seed + commands → same hash; after settling, every owner's ledger equals its chain vault", async () => {
    let swapsSettled = 0;
    let swapsFailed = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(cmd, { minLength: 5, maxLength: 50 }), async (cmds) => {
        const a = await fresh(21);
        const b = await fresh(21);
        await run(a, cmds);
        await run(b, cmds);
        expect(a.engine.eventHash()).toBe(b.engine.eventHash());
        checkFrozen(a);
        await a.engine.settleAll();
        checkFrozen(a);
        expect(await ownerMismatches(a)).toEqual([]);
        for (const o of a.engine.listOrders(TAKER).concat(a.engine.listOrders(MAKER), a.engine.listOrders(MAKER2))) {
          if (o.order_type !== "swap") continue;
          expect(["settled", "failed"]).toContain(o.status);
          if (o.status === "settled") swapsSettled++;
          else swapsFailed++;
        }
      }),
      { numRuns: 40, seed: 4242 },
    );
    // The runs did exercise both outcomes.
    expect(swapsSettled).toBeGreaterThan(0);
    expect(swapsFailed).toBeGreaterThan(0);
  });
});
