// Differential property: the same command sequence (place / cancel / settle /
// fault) run by two engines with the same seed, one on the memory port and one
// on the Anvil port, ends with identical ledgers, identical on-chain vaults and
// identical order and fill states (tx hashes aside: the memory port invents its own).
// Each run starts from one evm_snapshot and reverts to it afterwards.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PrivateKeyAccount } from "viem/accounts";
import { EXECUTOR_KEY } from "../../fixtures/accounts.ts";
import { createAnvilChainPort } from "../../sim/chain/anvil.ts";
import { MemoryChain } from "../../sim/chain/memory.ts";
import type { ChainPort } from "../../sim/chain/port.ts";
import { VirtualClock } from "../../sim/core/clock.ts";
import { Engine, type OrderBody } from "../../sim/core/engine.ts";
import { ExchangeError } from "../../sim/core/errors.ts";
import type { FaultPlan } from "../../sim/core/faults.ts";
import { validateOrderFields } from "../../sim/core/preview.ts";
import { ORDER_TYPE, exchangeDomain, type Address, type Hex } from "../../sim/core/typed-data.ts";
import { standaloneUuidInt } from "../../sim/core/uuid-int.ts";
import { chainRpc, depositOnChain, startTestChain, type ChainCtx } from "./helpers.ts";

const EXECUTOR_ID = 5;
const UNIT = 1_000_000n;
const DEPOSIT = 5_000n * UNIT;
const LIFETIME = 3600;
const REASONS = ["INSUFFICIENT_VAULT_BALANCE", "ORDER_EXPIRED", "BAD_SIGNATURE", "CHAOS"] as const;

type Command =
  | { kind: "place"; trader: number; side: "bid" | "ask"; lots: number; tick: number }
  | { kind: "cancel"; pick: number }
  | { kind: "settle" }
  | { kind: "fault"; ahead: number; reason: string }
  /** Half an order's lifetime passes, on both clocks and on chain: expiry happens for real. */
  | { kind: "advance" };

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("place" as const), trader: fc.integer({ min: 0, max: 2 }), side: fc.constantFrom("bid" as const, "ask" as const), lots: fc.integer({ min: 1, max: 4 }), tick: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancel" as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("settle" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("fault" as const), ahead: fc.integer({ min: 1, max: 3 }), reason: fc.constantFrom(...REASONS) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("advance" as const) }) },
);

const initialPlan: fc.Arbitrary<FaultPlan> = fc.record(
  {
    revertFills: fc.array(fc.record({ fill: fc.integer({ min: 1, max: 12 }), reason: fc.constantFrom(...REASONS) }), { maxLength: 3 }),
    revertSettlements: fc.array(fc.record({ nth: fc.integer({ min: 1, max: 4 }), reason: fc.constantFrom(...REASONS), mode: fc.constantFrom("legs" as const, "batch" as const) }), { maxLength: 1 }),
  },
  { requiredKeys: [] },
);

let ctx: ChainCtx;
let traders: PrivateKeyAccount[];

beforeAll(async () => {
  ctx = await startTestChain(3);
  traders = ctx.traders;
  // Funds every run starts from: on chain once, before the per-run snapshot.
  for (const t of traders) for (const s of ["USDT", "USDC"]) await depositOnChain(ctx, t, s, DEPOSIT);
}, 60_000);
afterAll(async () => {
  await ctx?.chain.stop();
});

const rpc = (method: string, params: unknown[] = []) => chainRpc(ctx, method, params);

/** What must be equal: every order and fill wire field except tx hashes. */
function state(engine: Engine, ids: string[]) {
  const noHashes = (o: object): unknown => JSON.parse(JSON.stringify(o, (k, v) => (/tx_hash/.test(k) ? undefined : v)));
  return {
    orders: ids.map((id) => noHashes(engine.getOrder(id))),
    fills: ids.map((id) => noHashes(engine.fillsOfOrder(id))),
    fillStatus: engine.fillRecords().map((f) => [f.id, f.status, f.revertReason]),
    batches: engine.settlementBatches().map((b) => [b.id, b.status, b.fillIds.join(",")]),
  };
}

async function run(plan: FaultPlan, commands: Command[], check?: (anvil: Engine) => void): Promise<void> {
  const snap = (await rpc("evm_snapshot")) as Hex;
  try {
    const d = ctx.chain.info.deployment;
    const anvilPort = await createAnvilChainPort({ rpcUrl: ctx.chain.info.rpcUrl, chainId: ctx.chain.info.chainId, deployment: d, executorKey: EXECUTOR_KEY });
    const startMs = Number(await anvilPort.latestTimestamp()) * 1000;
    const anvilClock = new VirtualClock(startMs);
    const mk = (chain: ChainPort, clock: VirtualClock) =>
      new Engine({ seed: 11, clock, registry: ctx.registry, executorId: EXECUTOR_ID, chain, cancelCooldownSec: 0, faults: plan });
    const memClock = new VirtualClock(startMs);
    const memory = new MemoryChain({ clock: memClock, feeRecipient: d.feeRecipient });
    const engines = { memory: mk(memory, memClock), anvil: mk(anvilPort, anvilClock) };
    for (const t of traders) {
      for (const s of ["USDT", "USDC"]) {
        const token = ctx.registry.tokenBySymbol(s)!.address;
        memory.mint(t.address, token, DEPOSIT);
        memory.deposit(t.address, token, DEPOSIT);
      }
    }
    expect(await engines.memory.syncDeposits()).toBe(2 * traders.length);
    expect(await engines.anvil.syncDeposits()).toBe(2 * traders.length);

    const market = ctx.registry.marketBySymbol("USDT/USDC")!;
    const domain = exchangeDomain(d.domainName, ctx.chain.info.chainId, d.exchange);
    const ids: string[] = [];
    let n = 0;
    for (const c of commands) {
      if (c.kind === "place") {
        const trader = traders[c.trader]!;
        const orderId = `00000000-0000-4000-8000-${(++n).toString(16).padStart(12, "0")}`;
        const body: OrderBody = {
          owner_address: trader.address.toLowerCase(),
          side: c.side,
          amount: String(10 * c.lots),
          // Bids at or above 1.00, asks at or below: most pairs of opposite orders cross.
          price: (1 + ((c.side === "bid" ? 1 : -1) * c.tick) / 100).toFixed(2),
          order_type: "limit",
          from_address: market.base,
          to_address: market.quote,
          order_id: orderId,
          uuid_int: standaloneUuidInt(orderId, EXECUTOR_ID).toString(),
          expiration: memClock.nowSec() + LIFETIME,
        };
        // A body intake refuses (e.g. below the market floor) has nothing to sign: both engines must refuse it alike.
        let signature: Hex = "0x";
        const valid = attempt(() => validateOrderFields(body, { registry: ctx.registry, nowSec: memClock.nowSec(), executorId: EXECUTOR_ID }));
        if (!("error" in valid)) {
          signature = await trader.signTypedData({
            domain,
            types: { Order: ORDER_TYPE },
            primaryType: "Order",
            message: { ...valid.message, expiration: Number(valid.message.expiration), feeBps: Number(valid.message.feeBps) },
          });
        }
        const outcomes = [engines.memory, engines.anvil].map((e) => attempt(() => e.placeOrder({ ...body, signature })));
        expect(outcomes[1]).toEqual(outcomes[0]);
        if (!("error" in outcomes[0]!)) ids.push(orderId);
      } else if (c.kind === "cancel") {
        if (ids.length === 0) continue;
        const id = ids[c.pick % ids.length]!;
        const o = engines.memory.getOrder(id);
        const outcomes = [engines.memory, engines.anvil].map((e) => attempt(() => e.cancelOrder({ owner: o.owner_address, orderId: id, uuidInt: o.uuid_int })));
        expect(outcomes[1]).toEqual(outcomes[0]);
      } else if (c.kind === "advance") {
        // Steps of 1800 s against lifetimes of 3600 s: chain time runs a few wall-clock
        // seconds ahead of the virtual clocks, never enough to cross an expiry differently.
        memClock.advanceSec(LIFETIME / 2);
        anvilClock.advanceSec(LIFETIME / 2);
        await anvilPort.increaseTime(LIFETIME / 2);
      } else if (c.kind === "fault") {
        // Revert the fill `ahead` places after the last one made so far.
        const next = engines.memory.fillRecords().length + c.ahead;
        for (const e of [engines.memory, engines.anvil]) e.setFaultPlan({ ...e.faultPlan(), revertFills: [...(e.faultPlan().revertFills ?? []), { fill: next, reason: c.reason }] });
      } else {
        const reports = [await engines.memory.settle(), await engines.anvil.settle()];
        expect(reports[1]).toEqual(reports[0]);
      }
    }
    await engines.memory.settleAll();
    await engines.anvil.settleAll();

    if (process.env["DIFF_STATS"]) {
      const by = (xs: string[]) => Object.entries(xs.reduce<Record<string, number>>((a, x) => ((a[x] = (a[x] ?? 0) + 1), a), {}));
      console.log(JSON.stringify({ fills: by(engines.memory.fillRecords().map((f) => `${f.status}:${f.revertReason}`)), batches: by(engines.memory.settlementBatches().map((b) => b.status)) }));
    }
    expect(state(engines.anvil, ids)).toEqual(state(engines.memory, ids));
    expect(engines.anvil.ledger.snapshot()).toEqual(engines.memory.ledger.snapshot());
    check?.(engines.anvil);
    for (const owner of [...traders.map((t) => t.address.toLowerCase()), d.feeRecipient]) {
      for (const s of ["USDT", "USDC"]) {
        const token = ctx.registry.tokenBySymbol(s)!.address;
        expect(await anvilPort.vaultBalance(owner as Address, token)).toBe(await memory.vaultBalance(owner as Address, token));
      }
    }
  } finally {
    await rpc("evm_setAutomine", [true]);
    await rpc("evm_revert", [snap]);
  }
}

function attempt<T>(f: () => T): T | { error: [number, string] } {
  try {
    return f();
  } catch (e) {
    if (e instanceof ExchangeError) return { error: [e.status, e.code] };
    throw e;
  }
}

describe("memory port ≡ Anvil port", () => {
  it("same commands, same seed → identical ledgers, vaults, orders and fills", async () => {
    await fc.assert(
      fc.asyncProperty(initialPlan, fc.array(command, { minLength: 4, maxLength: 24 }), (plan, commands) => run(plan, commands)),
      { numRuns: Number(process.env["DIFF_RUNS"] ?? 25), endOnFailure: true },
    );
  }, 240_000);

  it("expiry for real: a fill broadcast after both orders' expiration reverts ORDER_EXPIRED on both chains", async () => {
    await run(
      {},
      [
        { kind: "settle" },
        { kind: "place", trader: 0, side: "ask", lots: 2, tick: 0 },
        { kind: "place", trader: 1, side: "bid", lots: 2, tick: 0 },
        { kind: "advance" },
        { kind: "advance" },
        { kind: "settle" },
      ],
      (anvil) => expect(anvil.fillRecords().map((f) => [f.status, f.revertReason])).toEqual([["reverted", "ORDER_EXPIRED"]]),
    );
  }, 60_000);

  it("a fixed sequence with every kind of command (sanity anchor)", async () => {
    await run({ revertSettlements: [{ nth: 2, reason: "CHAOS", mode: "batch" }] }, [
      { kind: "place", trader: 0, side: "ask", lots: 3, tick: 0 },
      { kind: "place", trader: 1, side: "bid", lots: 1, tick: 1 },
      { kind: "fault", ahead: 1, reason: "ORDER_EXPIRED" },
      { kind: "place", trader: 1, side: "bid", lots: 1, tick: 2 },
      { kind: "settle" },
      { kind: "place", trader: 1, side: "bid", lots: 1, tick: 0 },
      { kind: "place", trader: 0, side: "ask", lots: 2, tick: 3 },
      { kind: "cancel", pick: 4 },
      { kind: "place", trader: 0, side: "bid", lots: 1, tick: 3 },
      { kind: "advance" },
      { kind: "settle" },
    ]);
  }, 60_000);
});
