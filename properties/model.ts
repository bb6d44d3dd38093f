// A command-sequence model of the engine (limit orders, cancels, cancel-all, VL
// batches, clock steps, settlement rounds) and the balance economics every run
// must keep. Engine-level: no HTTP, no signatures, so the same sequences drive
// the fast property runs, the benchmark and downstream suites that hold an Engine.
import fc from "fast-check";
import { isExchangeError } from "../sim/core/errors.ts";
import type { Engine, OrderWire } from "../sim/core/engine.ts";
import type { FillRecord } from "../sim/core/fills.ts";
import type { Registry } from "../sim/core/registry.ts";
import type { Rng } from "../sim/core/rng.ts";
import type { Address } from "../sim/core/typed-data.ts";
import { parseCanonicalDecimal, pow10 } from "../sim/core/amounts.ts";
import { orderTerms } from "../sim/core/order-terms.ts";
import { orderBodyOf, orderSpec, vlBatchBodies, vlBatchSpec, floorLots, type OrderSpec, type VlBatchSpec } from "./arbitraries.ts";

export type EngineCommand =
  | { kind: "place"; owner: number; spec: OrderSpec }
  | { kind: "cancel"; owner: number; pick: number }
  | { kind: "cancelAll"; owner: number }
  | { kind: "vl"; owner: number; spec: VlBatchSpec }
  | { kind: "advance"; sec: number }
  | { kind: "settle" };

export interface CommandModelOptions {
  /** Number of trading wallets the commands name (by index). */
  owners: number;
  /** Prices stay within ±spreadBps of price 1.0 so that orders cross (default 200). */
  spreadBps?: number;
  /** Largest lot count above the floor (default 10^(quantity_precision + 2)). */
  extraLots?: bigint;
  /** Include VL batches (default true). */
  vl?: boolean;
}

/** Ticks range around price 1 on a market's grid. */
function tickRange(tickPrecision: number, spreadBps: number): { min: bigint; max: bigint } {
  const one = pow10(tickPrecision);
  const d = (one * BigInt(spreadBps)) / 10_000n;
  return { min: one - d > 0n ? one - d : 1n, max: one + d };
}

/** One engine command over the registry's active markets. */
export const engineCommand = (registry: Registry, o: CommandModelOptions): fc.Arbitrary<EngineCommand> => {
  const spreadBps = o.spreadBps ?? 200;
  const markets = registry.markets().filter((m) => m.active);
  const owner = fc.integer({ min: 0, max: o.owners - 1 });
  const place = fc
    .record({
      owner,
      m: fc.constantFrom(...markets),
      side: fc.constantFrom("bid" as const, "ask" as const),
      tickPick: fc.bigInt({ min: 0n, max: 1n << 32n }),
      extra: fc.bigInt({ min: 0n, max: 1n << 32n }),
    })
    .map(({ owner, m, side, tickPick, extra }): EngineCommand => {
      const r = tickRange(m.tickPrecision, spreadBps);
      const ticks = r.min + (tickPick % (r.max - r.min + 1n));
      const extraMax = o.extraLots ?? pow10(m.quantityPrecision + 2);
      const lots = floorLots(m, side, ticks) + (extra % (extraMax + 1n));
      return { kind: "place", owner, spec: orderSpec(m, side, lots > 0n ? lots : 1n, ticks) };
    });
  const arbs: { arbitrary: fc.Arbitrary<EngineCommand>; weight: number }[] = [
    { arbitrary: place, weight: 8 },
    { arbitrary: fc.record({ kind: fc.constant("cancel" as const), owner, pick: fc.nat() }), weight: 2 },
    { arbitrary: fc.record({ kind: fc.constant("cancelAll" as const), owner }), weight: 1 },
    { arbitrary: fc.record({ kind: fc.constant("advance" as const), sec: fc.integer({ min: 1, max: 400 }) }), weight: 1 },
    { arbitrary: fc.constant({ kind: "settle" as const }), weight: 2 },
  ];
  if (o.vl !== false) {
    // Each VL leg's price near 1 so that legs rest or cross like plain orders.
    const leg = vlBatchSpec(registry, { extraLots: o.extraLots ?? 100n }).map((s) => ({
      ...s,
      legs: s.legs.map((l) => {
        const r = tickRange(l.market.tickPrecision, spreadBps);
        const ticks = r.min + (l.ticks % (r.max - r.min + 1n));
        return orderSpec(l.market, l.side, floorLots(l.market, l.side, ticks) + (l.lots % 100n), ticks);
      }),
    }));
    arbs.push({ arbitrary: fc.record({ kind: fc.constant("vl" as const), owner, spec: leg }), weight: 1 });
  }
  return fc.oneof(...arbs);
};

/** A command sequence of the given length range. */
export const engineCommands = (registry: Registry, o: CommandModelOptions & { minLength?: number; maxLength?: number }): fc.Arbitrary<EngineCommand[]> =>
  fc.array(engineCommand(registry, o), { minLength: o.minLength ?? 1, maxLength: o.maxLength ?? 40 });

/** What the runner needs besides the engine: wallets, executor id and an id source. */
export interface RunContext {
  owners: readonly Address[];
  ids: Rng;
  /** Orders placed so far per owner index (filled in by the runner; cancels pick from it). */
  placed?: Map<number, { id: string; uuidInt: string }[]>;
}

export interface RunStats {
  applied: number;
  rejected: number;
}

/**
 * Apply commands in order. Rejections (ExchangeError) are part of a run and must
 * leave no trace; anything else is a bug and propagates.
 */
export async function runEngineCommands(engine: Engine, cmds: readonly EngineCommand[], ctx: RunContext): Promise<RunStats> {
  const stats: RunStats = { applied: 0, rejected: 0 };
  for (const c of cmds) {
    try {
      await applyEngineCommand(engine, c, ctx);
      stats.applied++;
    } catch (e) {
      if (!isExchangeError(e)) throw e;
      stats.rejected++;
    }
  }
  return stats;
}

/** One command; synchronous commands return without awaiting anything. */
export function applyEngineCommand(engine: Engine, c: EngineCommand, ctx: RunContext): Promise<unknown> | void {
  const base = { executorId: engine.executorId, nowSec: engine.clock.nowSec() };
  const placed = (ctx.placed ??= new Map<number, { id: string; uuidInt: string }[]>());
  const remember = (owner: number, id: string, uuidInt: unknown) => {
    const list = placed.get(owner) ?? [];
    list.push({ id, uuidInt: String(uuidInt) });
    placed.set(owner, list);
  };
  switch (c.kind) {
    case "place": {
      const owner = ctx.owners[c.owner]!;
      const body = orderBodyOf(c.spec, ctx.ids.uuid4(), { ...base, owner });
      engine.placeOrder({ ...body, signature: "0x00" } as Parameters<Engine["placeOrder"]>[0]);
      remember(c.owner, body.order_id as string, body.uuid_int);
      return;
    }
    case "cancel": {
      // Pick among the owner's pending orders (records, not wire views: this runs per command).
      const open = (placed.get(c.owner) ?? []).filter((o) => engine.orderRecord(o.id).status === "pending");
      const o = open[c.pick % Math.max(1, open.length)];
      if (o) engine.cancelOrder({ owner: ctx.owners[c.owner]!, orderId: o.id, uuidInt: o.uuidInt });
      return;
    }
    case "cancelAll":
      engine.cancelAll(ctx.owners[c.owner]!);
      return;
    case "vl": {
      const owner = ctx.owners[c.owner]!;
      const ids = c.spec.legs.map(() => ctx.ids.uuid4());
      const bodies: Record<string, unknown>[] = vlBatchBodies(c.spec, ids, { ...base, owner }).map((b) => ({ ...b, signature: "0x00" }));
      engine.placeVlBatch(bodies as unknown as Parameters<Engine["placeVlBatch"]>[0]);
      for (const b of bodies) remember(c.owner, b.order_id as string, b.uuid_int);
      return;
    }
    case "advance":
      engine.clock.advanceSec(c.sec);
      return;
    case "settle":
      return engine.settle();
  }
}

/** Sum of raw amounts of one token over settlement_economics line items. */
function sumLines(lines: readonly { token_address: string; amount_raw: string }[], token: string): bigint {
  let s = 0n;
  for (const l of lines) if (l.token_address.toLowerCase() === token) s += BigInt(l.amount_raw);
  return s;
}

export interface EconomicsInput {
  engine: Engine;
  /** Vault holdings per token as the chain reports them (all owners, protocol included). */
  vaultHoldings: ReadonlyMap<string, bigint>;
  /** Trading wallets and what each deposited per token (raw, lowercase token address). */
  deposits: ReadonlyMap<Address, ReadonlyMap<string, bigint>>;
  /**
   * Per wallet and token, wallet balance now minus at the start. Swaps pay out
   * to a non-zero recipient's wallet (spec: recipient zero credits the vault), and
   * balance_credits count that movement too. Omit when nothing pays to wallets.
   */
  walletChanges?: ReadonlyMap<Address, ReadonlyMap<string, bigint>>;
}

/**
 * The balance economics of the spec after every fill is final (call after
 * settleAll); returns violations as readable lines (empty when all hold):
 * - per token, the sum of vault totals over owners equals what the vault holds;
 * - per owner and token, frozen equals the needs of that owner's open orders, worked out
 *   apart from the engine's own bookkeeping: a pending limit order's from-amount for the
 *   amount and price its view shows (a VL budget may have clipped the amount) less what
 *   its settled fills gave;
 * - nothing negative;
 * - per owner and token, vault total (+ wallet change) = deposits + Σ balance_credits
 *   − Σ balance_debits over the owner's orders (so the wire's balance_* are the ledger's moves and
 *   fees_paid was not subtracted from them a second time);
 * - the fee recipient holds at least every fee the orders report as paid.
 */
export function balanceEconomicsViolations(x: EconomicsInput): string[] {
  const out: string[] = [];
  const { engine } = x;
  const ledger = engine.ledger.totalsByToken();
  for (const t of new Set([...ledger.keys(), ...x.vaultHoldings.keys()])) {
    const a = ledger.get(t) ?? 0n;
    const b = x.vaultHoldings.get(t) ?? 0n;
    if (a !== b) out.push(`token ${t}: vault totals sum ${a} but the vault holds ${b}`);
  }
  const need = new Map<string, bigint>();
  const feesPaid = new Map<string, bigint>();
  const net = new Map<string, bigint>();
  const owners = new Set<string>(x.deposits.keys());
  const settledGives = settledGivesByOrder(engine.fillRecords());
  for (const owner of owners) {
    for (const w of engine.listOrders(owner)) {
      const r = engine.orderRecord(w.trade_id);
      if (r.status === "pending") {
        const k = `${owner}|${w.from_token}`;
        need.set(k, (need.get(k) ?? 0n) + openNeedOf(w, engine.registry, settledGives.get(w.trade_id) ?? 0n, r.reserved));
      } else if (r.reserved !== 0n) out.push(`order ${r.id} (${r.status}) still holds ${r.reserved} frozen`);
      if (w.status !== "pending" && w.status !== "cancelled" && w.settlement_summary.pending_fill_count !== 0) {
        out.push(`order ${r.id} has pending fills after settlement`);
      }
      accumulate(w, owner, net, feesPaid);
    }
  }
  for (const row of engine.ledger.rows()) {
    if (row.available < 0n || row.frozen < 0n) out.push(`negative balance ${row.owner} ${row.token}: ${row.available}/${row.frozen}`);
    if (!owners.has(row.owner as Address)) continue;
    const k = `${row.owner}|${row.token}`;
    if (row.frozen !== (need.get(k) ?? 0n)) out.push(`frozen ${k} = ${row.frozen}, open orders need ${need.get(k) ?? 0n}`);
    const expected = (x.deposits.get(row.owner as Address)?.get(row.token) ?? 0n) + (net.get(k) ?? 0n);
    const wallet = x.walletChanges?.get(row.owner as Address)?.get(row.token) ?? 0n;
    if (row.available + row.frozen + wallet !== expected) {
      out.push(`vault total + wallet change ${k} = ${row.available + row.frozen} + ${wallet}, deposits + credits − debits = ${expected}`);
    }
  }
  const proto = engine.protocolOwner;
  for (const [token, fees] of feesPaid) {
    const held = engine.ledger.peek(proto, token);
    if (held.available + held.frozen < fees) out.push(`fee recipient holds ${held.available + held.frozen} of ${token}, orders report ${fees} fees paid`);
  }
  return out;
}

/** Per order, the from-token its settled fills gave (what left its frozen funds). */
function settledGivesByOrder(fills: readonly FillRecord[]): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const f of fills) {
    if (f.status !== "settled") continue;
    out.set(f.makerOrderId, (out.get(f.makerOrderId) ?? 0n) + f.makerGive);
    out.set(f.takerOrderId, (out.get(f.takerOrderId) ?? 0n) + f.takerGive);
  }
  return out;
}

/**
 * What a pending order keeps frozen, worked out without the engine's own reservation
 * (which a bug could move together with the ledger): the from-amount that its view's
 * amount and price sign for, less what its settled fills gave. A price better than its
 * limit leaves the difference frozen until the order leaves the book. A swap order has no
 * such view of its reservation: `reserved`, the engine's, stands for it.
 */
function openNeedOf(w: OrderWire, registry: Registry, settledGive: bigint, reserved: bigint): bigint {
  const market = registry.marketBySymbol(w.symbol);
  if (w.order_type !== "limit" || !market) return reserved;
  const terms = orderTerms(market, w.side, parseCanonicalDecimal(w.amount, "amount"), parseCanonicalDecimal(w.price, "price"));
  return terms.fromAmount - settledGive;
}

function accumulate(w: OrderWire, owner: string, net: Map<string, bigint>, feesPaid: Map<string, bigint>): void {
  const e = w.settlement_economics;
  for (const token of new Set([w.from_token, w.to_token])) {
    const k = `${owner}|${token}`;
    const d = sumLines(e.balance_credits, token) - sumLines(e.balance_debits, token);
    if (d !== 0n) net.set(k, (net.get(k) ?? 0n) + d);
  }
  for (const f of e.fees_paid) {
    const t = f.token_address.toLowerCase();
    feesPaid.set(t, (feesPaid.get(t) ?? 0n) + BigInt(f.amount_raw));
  }
}

