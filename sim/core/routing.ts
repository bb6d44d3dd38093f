// Route search for swaps over resting limit-order liquidity. A swap spends an
// exact amount of its input token; the route is the list of maker legs the
// Router's executeIntent settles in one transaction:
//   - direct: one market holding both tokens, in either orientation (input as
//     quote: walk the asks; input as base: walk the bids), best price first;
//   - two hops, only when no direct market is listed: input → X on one market,
//     X → output on another, for every common token X; the best output wins
//     (ties: the lower intermediate address).
// Every leg obeys the maker order's on-chain rules: takerAmount >=
// mulDiv(makerAmount, toAmount, fromAmount) rounded up, and the sum over the
// order's fills of makerAmount stays within fromAmount. Legs are whole lots of
// the market's base token (as limit-order fills are), so the engine's lot
// bookkeeping of a partially taken maker stays exact.
// A route exists "at this size" only when the book absorbs the whole input up to
// less than one lot; when liquidity runs out first the result is `null` and the
// quote is informational (minOutputAmount "0"). In a two-hop route the Router
// demands that the intermediate nets to zero, so what the second hop cannot buy
// in whole lots (less than one lot) is paid on top to its last maker (a positive
// spread, which settleRouterLeg gives the maker entirely).
import { ExchangeError } from "./errors.ts";
import { maxGiveFor, minReceive } from "./economics.ts";
import { pow10 } from "./amounts.ts";
import type { MarketBook } from "./book.ts";
import type { OrderRecord } from "./orders.ts";
import type { MarketInfo, Registry } from "./registry.ts";

/** One maker leg of executeIntent (Router.MakerLeg without the signature). */
export interface RouteLeg {
  readonly maker: OrderRecord;
  readonly market: MarketInfo;
  /** 0: spends the swap's input; 1: second hop, spends the intermediate. */
  readonly hop: 0 | 1;
  readonly lots: bigint;
  /** Base and quote amounts at the maker's price (what the fill reports). */
  readonly baseRaw: bigint;
  readonly quoteRaw: bigint;
  /** Maker's fromToken given to the taker. */
  readonly makerAmount: bigint;
  /** Maker's toToken paid by the taker (incl. any netting top-up of a second hop). */
  readonly takerAmount: bigint;
}

export interface Route {
  readonly kind: "direct" | "two_hop";
  readonly inputToken: string;
  readonly outputToken: string;
  readonly intermediate: string | null;
  readonly legs: readonly RouteLeg[];
  /** Sum of the input paid (first-hop takerAmounts), at most the requested amount. */
  readonly input: bigint;
  /** Sum of the output received (last-hop makerAmounts). */
  readonly output: bigint;
}

/**
 * Where routing reads resting makers: the live orders on one side of a market,
 * best price first for a taker. The engine's books are the default source.
 */
export interface LiquiditySource {
  makers(market: MarketInfo, restingSide: "bid" | "ask"): Iterable<OrderRecord>;
}

/** Live orders of a MarketBook side, best first (same walk as the matcher, read-only). */
export function* restingMakers(book: MarketBook, restingSide: "bid" | "ask"): Generator<OrderRecord> {
  const side = book.restingSide(restingSide);
  for (let li = 0; ; li++) {
    const level = side.levelAt(li);
    if (level === undefined) return;
    for (let i = level.head; i < level.orders.length; i++) {
      const o = level.orders[i]!;
      if (o.inBook) yield o;
    }
  }
}

export function bookLiquidity(books: ReadonlyMap<string, MarketBook>): LiquiditySource {
  return {
    makers(market, restingSide) {
      const book = books.get(market.symbol);
      return book ? restingMakers(book, restingSide) : [];
    },
  };
}

export interface RouteRequest {
  /** Lowercase addresses. */
  inputToken: string;
  outputToken: string;
  amountIn: bigint;
  /** The swapping wallet: its own resting orders block the route (STP_BLOCKED). */
  taker: string;
  nowSec: number;
}

interface HopResult {
  legs: RouteLeg[];
  paid: bigint;
  got: bigint;
  /** True when makers ran out before the budget fell below one lot. */
  exhausted: boolean;
}

function baseUnitOf(m: MarketInfo): bigint {
  return pow10(m.baseDecimals - m.quantityPrecision);
}

/**
 * Spend up to `budget` of `pay` for `get` on market m, best price first.
 * Expired makers are skipped; the taker's own resting order stops everything
 * with STP_BLOCKED (409), as it does for limit orders.
 */
function walkHop(src: LiquiditySource, m: MarketInfo, pay: string, budget: bigint, hop: 0 | 1, req: RouteRequest): HopResult {
  const takerBuysBase = pay === m.quote;
  const bu = baseUnitOf(m);
  const legs: RouteLeg[] = [];
  let left = budget;
  let got = 0n;
  for (const maker of src.makers(m, takerBuysBase ? "ask" : "bid")) {
    if (maker.expiration <= req.nowSec || maker.remainingLots <= 0n) continue;
    if (maker.owner === req.taker) {
      throw new ExchangeError("STP_BLOCKED", 409, `self-trade prevention: the swap would take your own resting ${maker.side} ${maker.id}`, {
        resting_order_id: maker.id,
      });
    }
    let lots: bigint;
    if (takerBuysBase) {
      // Largest l with ceil(l*bu*to/from) <= left  <=>  l*bu*to <= left*from.
      lots = (left * maker.fromAmount) / (maker.toAmount * bu);
    } else {
      lots = left / bu;
    }
    if (lots > maker.remainingLots) lots = maker.remainingLots;
    if (lots <= 0n) return { legs, paid: budget - left, got, exhausted: false };
    const baseRaw = lots * bu;
    const quoteRaw = takerBuysBase ? minReceive(maker, baseRaw) : maxGiveFor(maker, baseRaw);
    // A bid whose rate rounds a whole lot to zero quote cannot be taken.
    if (quoteRaw <= 0n) return { legs, paid: budget - left, got, exhausted: false };
    const makerAmount = takerBuysBase ? baseRaw : quoteRaw;
    const takerAmount = takerBuysBase ? quoteRaw : baseRaw;
    legs.push({ maker, market: m, hop, lots, baseRaw, quoteRaw, makerAmount, takerAmount });
    left -= takerAmount;
    got += makerAmount;
    if (left === 0n) return { legs, paid: budget, got, exhausted: false };
  }
  // Makers ran out. Dust below one lot at the last price taken is rounding, not a shortage.
  const last = legs[legs.length - 1];
  const oneLot = last === undefined ? null : takerBuysBase ? minReceive(last.maker, bu) : bu;
  return { legs, paid: budget - left, got, exhausted: oneLot === null || left >= oneLot };
}

function activeMarket(registry: Registry, a: string, b: string): MarketInfo | undefined {
  const m = registry.market(a, b);
  return m && m.active ? m : undefined;
}

/** True when the pair can be routed at all (a direct market or a two-hop path exists). */
export function hasPath(registry: Registry, input: string, output: string): boolean {
  return activeMarket(registry, input, output) !== undefined || intermediates(registry, input, output).length > 0;
}

/** Tokens X with active markets input/X and X/output, in address order. */
export function intermediates(registry: Registry, input: string, output: string): string[] {
  return registry
    .tokens()
    .map((t) => t.address as string)
    .filter((x) => x !== input && x !== output && activeMarket(registry, input, x) && activeMarket(registry, x, output))
    .sort();
}

/**
 * The best route for an exact input, or null when none exists at this size
 * (no listed path, no liquidity, or the book cannot absorb the amount).
 */
export function findRoute(registry: Registry, src: LiquiditySource, req: RouteRequest): Route | null {
  if (req.amountIn <= 0n || req.inputToken === req.outputToken) return null;
  // An inactive market is not listed for trading (GET /markets omits it), so it
  // counts as "no direct market" and the pair may go through two hops. A thin
  // active direct market is still THE route: two hops are only for pairs without one.
  const direct = activeMarket(registry, req.inputToken, req.outputToken);
  if (direct !== undefined) {
    const h = walkHop(src, direct, req.inputToken, req.amountIn, 0, req);
    if (h.exhausted || h.legs.length === 0) return null;
    return { kind: "direct", inputToken: req.inputToken, outputToken: req.outputToken, intermediate: null, legs: h.legs, input: h.paid, output: h.got };
  }
  let best: Route | null = null;
  for (const x of intermediates(registry, req.inputToken, req.outputToken)) {
    const r = twoHop(registry, src, req, x);
    if (r !== null && (best === null || r.output > best.output)) best = r;
  }
  return best;
}

function twoHop(registry: Registry, src: LiquiditySource, req: RouteRequest, x: string): Route | null {
  const m1 = registry.market(req.inputToken, x)!;
  const m2 = registry.market(x, req.outputToken)!;
  const h1 = walkHop(src, m1, req.inputToken, req.amountIn, 0, req);
  if (h1.exhausted || h1.legs.length === 0) return null;
  const h2 = walkHop(src, m2, x, h1.got, 1, req);
  if (h2.exhausted || h2.legs.length === 0) return null;
  const legs: RouteLeg[] = [...h1.legs, ...h2.legs];
  const leftover = h1.got - h2.paid;
  if (leftover > 0n) {
    // Net the intermediate to zero: the last second-hop maker gets the remainder.
    const last = legs[legs.length - 1]!;
    legs[legs.length - 1] = { ...last, takerAmount: last.takerAmount + leftover };
  }
  return { kind: "two_hop", inputToken: req.inputToken, outputToken: req.outputToken, intermediate: x, legs, input: h1.paid, output: h2.got };
}
