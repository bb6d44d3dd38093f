// Price-time matching of one incoming order against its market's book: the
// book walk (best level first, FIFO inside a level, lazy removal of dead
// entries), self-trade prevention, execution at the maker's price with exact
// bigint amounts, and the amounts each execution records. Planning reads only;
// the engine commits a plan (ledger, records, events) once nothing can fail.
import { pow10 } from "./amounts.ts";
import type { BookSide } from "./book.ts";
import { maxGiveFor, minReceive } from "./economics.ts";
import { ExchangeError } from "./errors.ts";
import type { OrderRecord } from "./orders.ts";
import type { MarketInfo } from "./registry.ts";
import type { Rng } from "./rng.ts";

/** One planned execution against a resting maker (computed before anything mutates). */
export interface PlannedFill {
  maker: OrderRecord;
  lots: bigint;
  baseRaw: bigint;
  quoteRaw: bigint;
}

export interface PlannedOrder {
  record: OrderRecord;
  plan: PlannedFill[];
  expired: OrderRecord[];
}

/** Shared empty fill and expired-maker lists of a plan; never mutated. */
const NO_FILLS: PlannedFill[] = [];
const NO_EXPIRED: OrderRecord[] = [];

export interface MarketUnits {
  /** Raw base units per lot: 10^(base_decimals − quantity_precision). */
  baseUnit: bigint;
  /**
   * Raw quote units per lot × tick, 10^(quote_decimals − quantity_precision − tick_precision),
   * when that is an integer. Then every signed amount is an exact product, each
   * order's rate is exactly its price, and a fill's quote amount is lots × ticks × this
   * with both signed-rate rules holding by the price comparison alone.
   */
  quoteUnit: bigint | null;
}

export function marketUnitsOf(m: MarketInfo): MarketUnits {
  const exact = m.quoteDecimals - m.quantityPrecision - m.tickPrecision;
  return { baseUnit: pow10(m.baseDecimals - m.quantityPrecision), quoteUnit: exact >= 0 ? pow10(exact) : null };
}

/**
 * Walk the opposite side best-first, as far as the taker's size reaches.
 * Execution at the maker's price; amounts per fill satisfy both signed rates
 * (maker: mulDiv rounded up; taker: within its own limit) and the cumulative
 * fromAmount caps. A pair whose rounding leaves no valid amount stops the walk.
 * Throws STP_BLOCKED (nothing changed) when the walk reaches the taker's own order.
 */
export function planMatches(side: BookSide, units: MarketUnits, taker: OrderRecord, nowSec: number): PlannedOrder {
  const { baseUnit, quoteUnit } = units;
  const isBid = taker.side === "bid";
  // A resting order (half of all orders) plans no fill: the shared empty list until the first one.
  let plan = NO_FILLS;
  // Expired makers are rare: the shared empty list until the first one.
  let expired = NO_EXPIRED;
  let left = taker.remainingLots;
  // Dropping dead entries is invisible bookkeeping, so it is fine even when the command is then rejected.
  side.best();
  for (let li = 0; left > 0n; li++) {
    const level = side.levelAt(li);
    if (level === undefined) break;
    if (!level.settleHead()) continue;
    if (isBid ? level.ticks > taker.priceTicks : level.ticks < taker.priceTicks) break;
    const orders = level.orders;
    for (let i = level.head; i < orders.length && left > 0n; i++) {
      const maker = orders[i]!;
      if (!maker.inBook) continue;
      if (maker.expiration <= nowSec) {
        if (expired === NO_EXPIRED) expired = [];
        expired.push(maker);
        continue;
      }
      if (maker.owner === taker.owner) {
        throw new ExchangeError(
          "STP_BLOCKED",
          409,
          `self-trade prevention: the order would match your own resting ${maker.side} ${maker.id}`,
          { resting_order_id: maker.id },
        );
      }
      const lots = left < maker.remainingLots ? left : maker.remainingLots;
      // The maker's signed base and quote amounts. A fill that equals one of them keeps
      // a reference to the maker's bigint rather than its own copy: fill records live
      // for good, and every retained heap object is young-generation copying work.
      const makerBase = isBid ? maker.fromAmount : maker.toAmount;
      const makerQuote = isBid ? maker.toAmount : maker.fromAmount;
      let baseRaw = lots * baseUnit;
      const wholeMaker = baseRaw === makerBase;
      if (wholeMaker) baseRaw = makerBase;
      let quoteRaw: bigint;
      if (quoteUnit !== null) {
        quoteRaw = lots * maker.priceTicks * quoteUnit;
        if (quoteRaw === makerQuote) quoteRaw = makerQuote;
      } else {
        // Coarse quote decimals: amounts were floored when signed, so check both rates exactly.
        // The maker's whole signed amount needs no division (⌈a·b/a⌉ = ⌊b·a/b⌋ = b), and the
        // taker's bound is compared cross-multiplied: q ≤ ⌊x/y⌋ ⇔ q·y ≤ x, q ≥ ⌈x/y⌉ ⇔ q·y ≥ x (y > 0).
        let ok: boolean;
        if (isBid) {
          quoteRaw = wholeMaker ? makerQuote : minReceive(maker, baseRaw);
          ok = quoteRaw > 0n && quoteRaw * taker.toAmount <= baseRaw * taker.fromAmount;
        } else {
          quoteRaw = wholeMaker ? makerQuote : maxGiveFor(maker, baseRaw);
          ok = quoteRaw > 0n && quoteRaw * taker.fromAmount >= baseRaw * taker.toAmount;
        }
        if (!ok) return { record: taker, plan, expired };
      }
      if (plan === NO_FILLS) plan = [];
      plan.push({ maker, lots, baseRaw, quoteRaw });
      left -= lots;
    }
  }
  return { record: taker, plan, expired };
}

/** Fault-plan positive spread: a share of the quote amount where the taker's limit leaves room above the maker's price. */
export interface SpreadFault {
  rate: number;
  sizeBps: number;
}

/**
 * The positive spread a planned fill carries (taker's from-token, 0 without a
 * spread fault). Draws from the RNG only for a bid taker priced above the maker.
 */
export function fillSpread(f: PlannedFill, taker: OrderRecord, sp: SpreadFault | undefined, rng: Rng): bigint {
  if (sp === undefined || taker.side !== "bid" || taker.priceTicks <= f.maker.priceTicks || !rng.chance(sp.rate)) return 0n;
  const room = maxGiveFor(taker, f.baseRaw) - f.quoteRaw;
  const want = (f.quoteRaw * BigInt(sp.sizeBps)) / 10_000n;
  const spread = want < room ? want : room;
  return spread < 0n ? 0n : spread;
}

/** The taker's give of a planned execution: its from-token's leg, plus any spread on a bid. */
export function takerGiveOf(f: PlannedFill, taker: OrderRecord, spread: bigint): bigint {
  if (taker.side !== "bid") return f.baseRaw;
  return spread === 0n ? f.quoteRaw : f.quoteRaw + spread;
}
