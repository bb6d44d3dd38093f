// Shared set-up for engine tests: a registry, a memory chain on the engine's
// clock, funded owners and order bodies shaped like POST /orders.
import { VirtualClock } from "../../sim/core/clock.ts";
import { Engine, type EngineOptions, type OrderBody } from "../../sim/core/engine.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry, type MarketInfo } from "../../sim/core/registry.ts";
import { Rng } from "../../sim/core/rng.ts";
import { limitOrderBody } from "../../sim/core/order-body.ts";
import { encodeUuidInt, groupIdOf } from "../../sim/core/uuid-int.ts";
import { MemoryChain } from "../../sim/chain/memory.ts";
import type { Address } from "../../sim/core/typed-data.ts";

export const ALICE = "0x1111111111111111111111111111111111111111" as Address;
export const BOB = "0x2222222222222222222222222222222222222222" as Address;
export const CAROL = "0x3333333333333333333333333333333333333333" as Address;
export const EXECUTOR_ID = 3;

export interface Env {
  engine: Engine;
  chain: MemoryChain;
  clock: VirtualClock;
  registry: Registry;
  ids: Rng;
}

export function setup(over: Partial<EngineOptions> = {}, chainOpts: { automine?: boolean } = {}): Env {
  const clock = new VirtualClock();
  const registry = new Registry(DEFAULT_REGISTRY_CONFIG);
  const chain = new MemoryChain({ clock, ...chainOpts });
  const engine = new Engine({ seed: 7, clock, registry, executorId: EXECUTOR_ID, chain, ...over });
  return { engine, chain, clock, registry, ids: new Rng("order-ids") };
}

export function market(env: Env, symbol = "EURC/USDC"): MarketInfo {
  const m = env.registry.marketBySymbol(symbol);
  if (!m) throw new Error(`no market ${symbol}`);
  return m;
}

/** Mint to the wallet, deposit on chain, credit the engine (as syncDeposits would). */
export function fund(env: Env, owner: Address, symbol: string, raw: bigint): void {
  const t = env.registry.tokenBySymbol(symbol)!;
  env.chain.mint(owner, t.address, raw);
  const ev = env.chain.deposit(owner, t.address, raw);
  env.engine.creditDeposit(ev.owner, ev.token, ev.amount);
}

export interface BodyOpts {
  owner: Address;
  side: "bid" | "ask";
  amount: string;
  price: string;
  symbol?: string;
  orderId?: string;
  expiration?: number;
  uuidInt?: string;
}

export function body(env: Env, o: BodyOpts): OrderBody {
  const m = market(env, o.symbol);
  const orderId = o.orderId ?? env.ids.uuid4();
  const expiration = o.expiration ?? env.clock.nowSec() + 3600;
  return { ...limitOrderBody({ ...o, market: m, orderId, executorId: EXECUTOR_ID, expiration }), signature: "0x1234" };
}

/** VL legs: leg 0's order id fixes the group; leg ids follow array order. */
export function vlBodies(env: Env, legs: Omit<BodyOpts, "uuidInt" | "orderId">[]): OrderBody[] {
  const ids = legs.map(() => env.ids.uuid4());
  const group = groupIdOf(ids[0]!);
  return legs.map((l, i) => ({
    ...body(env, { ...l, orderId: ids[i]! }),
    uuid_int: encodeUuidInt({ executorId: EXECUTOR_ID, orderId: ids[i]!, groupId: group, legId: i }).toString(),
  }));
}

/** Per token: ledger totals (all owners incl. protocol) must equal the memory vault. */
export function vaultMismatches(env: Env): string[] {
  const chainTotals = new Map<string, bigint>();
  for (const e of env.chain.vaultEntries()) chainTotals.set(e.token, (chainTotals.get(e.token) ?? 0n) + e.amount);
  const ledgerTotals = env.engine.ledger.totalsByToken();
  const out: string[] = [];
  for (const t of new Set([...chainTotals.keys(), ...ledgerTotals.keys()])) {
    if ((chainTotals.get(t) ?? 0n) !== (ledgerTotals.get(t) ?? 0n)) out.push(`${t}: chain ${chainTotals.get(t)} ledger ${ledgerTotals.get(t)}`);
  }
  return out;
}
