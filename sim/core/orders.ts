// The order record the engine keeps, and the spec's order status machine.
import type { ErrorCode } from "./errors.ts";
import type { Hex } from "./typed-data.ts";
import type { MarketInfo } from "./registry.ts";
import type { Side } from "./order-terms.ts";
import type { Instant } from "./instant.ts";

export type OrderStatus = "pending" | "matched" | "settled" | "failed" | "cancelled";
export type OrderType = "limit" | "swap";

/**
 * The only moves the spec's Order status table allows. A partial fill keeps an
 * order pending (no transition); nothing ever goes back to pending.
 */
const ALLOWED: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  pending: ["matched", "cancelled"],
  matched: ["settled", "failed"],
  settled: [],
  failed: [],
  cancelled: [],
};

export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return ALLOWED[from].includes(to);
}

export interface OrderRecord {
  readonly id: string;
  readonly owner: string;
  /** Placement sequence: time priority inside a price level, and list order. */
  readonly seq: number;
  readonly market: MarketInfo;
  readonly side: Side;
  /** Price in ticks (price × 10^tick_precision) and size in lots (amount × 10^quantity_precision). */
  readonly priceTicks: bigint;
  /** The working size; below the signed size when a VL budget clipped the leg. */
  amountLots: bigint;
  remainingLots: bigint;
  readonly fromToken: string;
  readonly toToken: string;
  /** Signed raw amounts: the contract caps the sum of from-token given at fromAmount. */
  readonly fromAmount: bigint;
  readonly toAmount: bigint;
  readonly uuidInt: bigint;
  readonly expiration: number;
  readonly feeBps: number;
  readonly signature: Hex | null;
  readonly vlBatchId: string | null;
  /** Absent: "limit". A "swap" order is the taker of its route's fills (POST /swap). */
  readonly orderType?: OrderType;
  status: OrderStatus;
  /** Shared clock readings (see instant.ts). */
  readonly createdAt: Instant;
  updatedAt: Instant;
  /** Frozen in the ledger on behalf of this order. */
  reserved: bigint;
  /** The order's latest fill (0 = none): where its list in the FillStore starts (linked backwards). */
  lastFill: number;
  error: string | null;
  errorCode: ErrorCode | null;
  /** True while the order sits in its market's book (resting, matchable). */
  inBook: boolean;
}

/**
 * A new pending order record: the one place records are built, so every record
 * has one shape (all fields, this order) and the optimiser sees one map.
 */
export function newOrderRecord(
  id: string,
  owner: string,
  seq: number,
  market: MarketInfo,
  side: Side,
  priceTicks: bigint,
  lots: bigint,
  fromToken: string,
  toToken: string,
  fromAmount: bigint,
  toAmount: bigint,
  uuidInt: bigint,
  expiration: number,
  feeBps: number,
  signature: Hex | null,
  vlBatchId: string | null,
  orderType: OrderType,
  now: Instant,
  reserved: bigint,
): OrderRecord {
  return {
    id,
    owner,
    seq,
    market,
    side,
    priceTicks,
    amountLots: lots,
    remainingLots: lots,
    fromToken,
    toToken,
    fromAmount,
    toAmount,
    uuidInt,
    expiration,
    feeBps,
    signature,
    vlBatchId,
    orderType,
    status: "pending",
    createdAt: now,
    updatedAt: now,
    reserved,
    lastFill: 0,
    error: null,
    errorCode: null,
    inBook: false,
  };
}

/**
 * Progress at execution prices over fills that have not reverted or failed
 * (derived from the fills so the hot path keeps no running totals).
 */
export function filledTotals(fills: readonly { status: string; baseRaw: bigint; quoteRaw: bigint }[]): { base: bigint; quote: bigint } {
  let base = 0n;
  let quote = 0n;
  for (const f of fills) {
    if (f.status === "reverted" || f.status === "failed") continue;
    base += f.baseRaw;
    quote += f.quoteRaw;
  }
  return { base, quote };
}

/** Independent copy for snapshots (every field is a value or shared immutable data). */
export function cloneOrder(o: OrderRecord): OrderRecord {
  return { ...o };
}
