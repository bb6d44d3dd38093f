// Virtual-liquidity batches: the batch-shape rules of POST /orders/vl/batch and
// the shared budget. Legs are funded in array order (leg 0 first) from one
// budget, the owner's available equity of the spent token: a leg that does not
// fit is clipped to what is left (budget_clip), a leg with nothing left — or
// whose clipped size would fall below the market floor — is dropped
// (quota_exceeded).
import { pow10, type Decimal } from "./amounts.ts";
import { ceilDiv } from "./economics.ts";
import { ExchangeError } from "./errors.ts";
import { checkFloor, type Side } from "./order-terms.ts";
import type { MarketInfo } from "./registry.ts";

export interface VlBatchLimits {
  min: number;
  max: number;
}

export const DEFAULT_VL_LIMITS: VlBatchLimits = { min: 2, max: 50 };

export interface VlBatchRecord {
  /** The VL batch id: leg 0's order_id. */
  readonly id: string;
  readonly owner: string;
  readonly spentToken: string;
  readonly legIds: readonly string[];
  readonly maxBudget: bigint;
  readonly budgetConsumed: bigint;
}

function invalid(detail: string): ExchangeError {
  return new ExchangeError("VALIDATION", 400, detail);
}

export function checkBatchSize(n: number, limits: VlBatchLimits): void {
  if (n < limits.min || n > limits.max) {
    throw invalid(`orders must hold ${limits.min} to ${limits.max} legs, got ${n}`);
  }
}

/** The legs' markets must be distinct and none may be another's inverse. */
export function checkDistinctMarkets(legs: readonly { fromToken: string; toToken: string }[]): void {
  const seen = new Set<string>();
  legs.forEach((l, i) => {
    if (seen.has(`${l.fromToken}|${l.toToken}`)) throw invalid(`orders[${i}] duplicates the market of an earlier leg`);
    if (seen.has(`${l.toToken}|${l.fromToken}`)) throw invalid(`orders[${i}] is the inverse market of an earlier leg`);
    seen.add(`${l.fromToken}|${l.toToken}`);
  });
}

/** From-token need of `lots` at `priceTicks`, with the same floors as the signed order. */
export function needForLots(market: MarketInfo, side: Side, lots: bigint, priceTicks: bigint): bigint {
  if (side === "ask") return lots * pow10(market.baseDecimals - market.quantityPrecision);
  return (lots * priceTicks * pow10(market.quoteDecimals)) / pow10(market.quantityPrecision + market.tickPrecision);
}

/** Largest lot count whose need fits `budget` (0 when nothing fits). */
export function maxLotsWithin(market: MarketInfo, side: Side, priceTicks: bigint, budget: bigint): bigint {
  if (budget <= 0n) return 0n;
  if (side === "ask") return budget / pow10(market.baseDecimals - market.quantityPrecision);
  const d = pow10(market.quantityPrecision + market.tickPrecision);
  return ((budget + 1n) * d - 1n) / (priceTicks * pow10(market.quoteDecimals));
}

/** True when `lots` at the price passes the market floor. */
export function passesFloor(market: MarketInfo, side: Side, lots: bigint, price: Decimal): boolean {
  try {
    checkFloor(market, side, { units: lots, scale: market.quantityPrecision }, price);
    return true;
  } catch {
    return false;
  }
}

/** Smallest lot count that passes the market floor at `ticks` (spec "Floor rules", exact). */
export function specFloorLots(m: MarketInfo, side: Side, ticks: bigint): bigint {
  if (side === "ask") return ceilDiv(m.minAskAmountRaw * pow10(m.quantityPrecision), pow10(m.baseDecimals));
  return ceilDiv(m.minBidQuoteAmountRaw * pow10(m.quantityPrecision + m.tickPrecision), ticks * pow10(m.quoteDecimals));
}

/** Smallest lot count whose quote leg is at least one raw unit at `ticks` (the contract refuses a zero amount). */
export function nonZeroQuoteLots(m: MarketInfo, ticks: bigint): bigint {
  return ceilDiv(pow10(m.quantityPrecision + m.tickPrecision), ticks * pow10(m.quoteDecimals));
}

/**
 * Smallest lot count an order at `ticks` may have: the spec's floor, and a quote leg of at
 * least one raw unit (a tiny price on a quote token with few decimals floors it to zero,
 * an order no fill of which can settle). Every valid order the property arbitraries make has it, and a market agent's taker too.
 */
export function floorLots(m: MarketInfo, side: Side, ticks: bigint): bigint {
  const floor = specFloorLots(m, side, ticks);
  const nonZero = nonZeroQuoteLots(m, ticks);
  return floor > nonZero ? floor : nonZero;
}
