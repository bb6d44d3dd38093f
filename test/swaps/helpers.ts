// Stand-alone swap desk set-up: the default registry, hand-built books of
// resting maker orders (same records the engine keeps), a settable vault
// ledger and a counting permit reader.
import { parseCanonicalDecimal, toScale } from "../../sim/core/amounts.ts";
import { MarketBook } from "../../sim/core/book.ts";
import { VirtualClock } from "../../sim/core/clock.ts";
import { instantAt } from "../../sim/core/instant.ts";
import { orderTerms, type Side } from "../../sim/core/order-terms.ts";
import type { OrderRecord } from "../../sim/core/orders.ts";
import { SwapDesk, type PermitTokenState, type QuoteWire, type QuoteTimeoutFaults, type SwapDeskOptions } from "../../sim/core/quotes.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry, type RegistryConfig, type TokenInfo } from "../../sim/core/registry.ts";
import { Rng } from "../../sim/core/rng.ts";
import { bookLiquidity } from "../../sim/core/routing.ts";
import { fixedUsdPrice } from "../../sim/core/swap-gas.ts";
import type { Address } from "../../sim/core/typed-data.ts";

export const TAKER = "0xaaaa00000000000000000000000000000000aaaa" as Address;
export const MAKER = "0xbbbb00000000000000000000000000000000bbbb" as Address;
export const MAKER2 = "0xcccc00000000000000000000000000000000cccc" as Address;
export const VAULT = "0x00000000000000000000000000000000000a0170" as Address;
export const CHAIN_ID = 11155111;
export const EXECUTOR = 5;
export const USD_PRICES = { EUR: "1.08", GBP: "1.27", CHF: "1.13", JPY: "0.0066" };

export interface DeskEnv {
  desk: SwapDesk;
  registry: Registry;
  clock: VirtualClock;
  books: Map<string, MarketBook>;
  vault: Map<string, bigint>;
  chainNonces: Map<string, bigint>;
  faults: { quoteTimeouts?: QuoteTimeoutFaults };
  executor: { id: number };
  ids: Rng;
  seq: { n: number };
}

export function setupDesk(over: Partial<SwapDeskOptions> = {}, config: RegistryConfig = DEFAULT_REGISTRY_CONFIG): DeskEnv {
  const registry = new Registry(config);
  const clock = new VirtualClock();
  const books = new Map<string, MarketBook>();
  for (const m of registry.markets()) books.set(m.symbol, new MarketBook());
  const vault = new Map<string, bigint>();
  const chainNonces = new Map<string, bigint>();
  const faults: DeskEnv["faults"] = {};
  const executor = { id: EXECUTOR };
  const desk = new SwapDesk({
    registry,
    clock,
    rng: new Rng(42),
    executorId: () => executor.id,
    liquidity: bookLiquidity(books),
    vaultAvailable: (owner, token) => vault.get(`${owner}|${token}`) ?? 0n,
    permitReader: (t: TokenInfo, owner): PermitTokenState => ({
      nonce: chainNonces.get(`${owner}|${t.address}`) ?? 0n,
      name: `${t.symbol} token`,
      version: "1",
      allowance: 7n,
    }),
    usdPrice: fixedUsdPrice(USD_PRICES),
    vaultAddress: VAULT,
    chainId: CHAIN_ID,
    quoteTimeouts: () => faults.quoteTimeouts,
    ...over,
  });
  return { desk, registry, clock, books, vault, chainNonces, faults, executor, ids: new Rng("makers"), seq: { n: 0 } };
}

export function token(env: DeskEnv, symbol: string): TokenInfo {
  const t = env.registry.tokenBySymbol(symbol);
  if (!t) throw new Error(`no token ${symbol}`);
  return t;
}

export function setVault(env: DeskEnv, owner: string, symbol: string, raw: bigint): void {
  env.vault.set(`${owner.toLowerCase()}|${token(env, symbol).address}`, raw);
}

/** A resting limit order, built as the engine would from amount/price strings. */
export function rest(
  env: DeskEnv,
  symbol: string,
  side: Side,
  amount: string,
  price: string,
  opts: { owner?: Address; expiration?: number } = {},
): OrderRecord {
  const m = env.registry.marketBySymbol(symbol)!;
  const a = parseCanonicalDecimal(amount, "amount");
  const p = parseCanonicalDecimal(price, "price");
  const t = orderTerms(m, side, a, p);
  const lots = toScale(a, m.quantityPrecision);
  env.seq.n += 1;
  const o: OrderRecord = {
    id: env.ids.uuid4(),
    owner: (opts.owner ?? MAKER).toLowerCase(),
    seq: env.seq.n,
    market: m,
    side,
    priceTicks: toScale(p, m.tickPrecision),
    amountLots: lots,
    remainingLots: lots,
    fromToken: t.fromToken,
    toToken: t.toToken,
    fromAmount: t.fromAmount,
    toAmount: t.toAmount,
    uuidInt: BigInt(env.seq.n),
    expiration: opts.expiration ?? env.clock.nowSec() + 86400,
    feeBps: 0,
    signature: "0x11",
    vlBatchId: null,
    status: "pending",
    createdAt: instantAt(env.clock.nowMs()),
    updatedAt: instantAt(env.clock.nowMs()),
    reserved: t.fromAmount,
    lastFill: 0,
    error: null,
    errorCode: null,
    inBook: false,
  };
  env.books.get(symbol)!.restingSide(side).add(o);
  return o;
}

export function quoteBody(env: DeskEnv, from: string, to: string, amount: bigint | string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    from_token: token(env, from).address,
    to_token: token(env, to).address,
    from_amount: amount.toString(),
    owner_address: TAKER,
    recipient: TAKER,
    expiration: env.clock.nowSec() + 3600,
    ...over,
  };
}

export async function caught(p: Promise<unknown> | (() => unknown)): Promise<{ status: number; code: string; extra: Record<string, unknown> }> {
  try {
    if (typeof p === "function") await p();
    else await p;
  } catch (e) {
    const x = e as { status: number; code: string; extra: Record<string, unknown> };
    return { status: x.status, code: x.code, extra: { ...x.extra } };
  }
  throw new Error("expected a rejection");
}

/** A POST /swap submission the HTTP layer would pass on for a correctly signed quote. */
export function validSwap(q: QuoteWire, over: Record<string, unknown> = {}) {
  return {
    uuid: q.uuid,
    signer: q.route_params.taker,
    signature: "0x" + "ab".repeat(65),
    ...(q.permit?.eip712 ? { permit_signature: "0x" + "cd".repeat(65), permit_deadline: q.permit.eip712.message.deadline } : {}),
    ...over,
  };
}

