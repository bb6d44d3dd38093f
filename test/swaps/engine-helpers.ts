// Engine-level swap set-up: an engine on a memory chain (shared clock), a
// registry with a maker fee so fee flows are visible, makers resting through
// POST /orders, and POST /swap submissions as the HTTP layer would pass them.
import { VirtualClock } from "../../sim/core/clock.ts";
import { Engine, type EngineOptions } from "../../sim/core/engine.ts";
import type { QuoteWire, SwapSubmission } from "../../sim/core/quotes.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry } from "../../sim/core/registry.ts";
import { Rng } from "../../sim/core/rng.ts";
import type { Address } from "../../sim/core/typed-data.ts";
import { limitOrderBody } from "../../sim/core/order-body.ts";
import { MemoryChain } from "../../sim/chain/memory.ts";

export const TAKER = "0x1111111111111111111111111111111111111111" as Address;
export const MAKER = "0x2222222222222222222222222222222222222222" as Address;
export const MAKER2 = "0x3333333333333333333333333333333333333333" as Address;
export const EXECUTOR_ID = 3;
/** Maker fee of every order placed through this set-up. */
export const FEE_BPS = 20;

export interface SwapEnv {
  engine: Engine;
  chain: MemoryChain;
  clock: VirtualClock;
  registry: Registry;
  ids: Rng;
}

export function setupSwapEngine(seed: number | string = 7, over: Partial<EngineOptions> = {}): SwapEnv {
  const clock = new VirtualClock();
  const registry = new Registry({ ...DEFAULT_REGISTRY_CONFIG, fee_bps: FEE_BPS });
  const chain = new MemoryChain({ clock });
  const engine = new Engine({ seed, clock, registry, executorId: EXECUTOR_ID, chain, ...over });
  return { engine, chain, clock, registry, ids: new Rng(`ids-${seed}`) };
}

export function tok(env: SwapEnv, symbol: string): Address {
  const t = env.registry.tokenBySymbol(symbol);
  if (!t) throw new Error(`no token ${symbol}`);
  return t.address;
}

/** Wallet mint + on-chain deposit, credited through the engine's vault-event sync. */
export async function deposit(env: SwapEnv, owner: Address, symbol: string, raw: bigint): Promise<void> {
  env.chain.mint(owner, tok(env, symbol), raw);
  env.chain.deposit(owner, tok(env, symbol), raw);
  await env.engine.syncVaultEvents();
}

/** A resting limit order through POST /orders; returns its id. */
export function rest(env: SwapEnv, owner: Address, symbol: string, side: "bid" | "ask", amount: string, price: string): string {
  const m = env.registry.marketBySymbol(symbol)!;
  const orderId = env.ids.uuid4();
  env.engine.placeOrder({
    ...limitOrderBody({ owner, side, amount, price, market: m, orderId, executorId: EXECUTOR_ID, expiration: env.clock.nowSec() + 86_400 }),
    signature: "0x1234",
  });
  return orderId;
}

export function quoteBody(env: SwapEnv, from: string, to: string, amount: bigint, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    from_token: tok(env, from),
    to_token: tok(env, to),
    from_amount: amount.toString(),
    owner_address: TAKER,
    recipient: TAKER,
    expiration: env.clock.nowSec() + 3600,
    ...over,
  };
}

/** What the HTTP layer passes on for a correctly signed quote (signature already verified). */
export function submission(q: QuoteWire): SwapSubmission {
  return {
    uuid: q.uuid,
    signer: q.route_params.taker,
    signature: "0x" + "ab".repeat(65),
    ...(q.permit?.eip712 ? { permit_signature: "0x" + "cd".repeat(65), permit_deadline: q.permit.eip712.message.deadline } : {}),
  };
}

/** Every (owner, token): ledger available + frozen must equal the chain's vault balance. */
export async function ownerMismatches(env: SwapEnv): Promise<string[]> {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const e of env.chain.vaultEntries()) seen.add(`${e.owner}|${e.token}`);
  for (const r of env.engine.ledger.rows()) seen.add(`${r.owner}|${r.token}`);
  for (const k of seen) {
    const [owner, token] = k.split("|") as [Address, Address];
    const chain = await env.chain.vaultBalance(owner, token);
    const acc = env.engine.ledger.peek(owner, token);
    if (chain !== acc.available + acc.frozen) out.push(`${k}: chain ${chain} ledger ${acc.available}+${acc.frozen}`);
  }
  return out;
}

export async function caught(p: Promise<unknown> | (() => unknown)): Promise<{ status: number; code: string }> {
  try {
    if (typeof p === "function") await p();
    else await p;
  } catch (e) {
    const x = e as { status: number; code: string };
    return { status: x.status, code: x.code };
  }
  throw new Error("expected a rejection");
}
