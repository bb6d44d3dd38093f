// One execution between a maker and a taker, and its settlement status.
import type { Side } from "./order-terms.ts";
import type { Instant } from "./instant.ts";

/** The spec's five fill settlement statuses. */
export type FillStatus = "pending" | "confirming" | "settled" | "failed" | "reverted";

export const FILL_STATUSES: readonly FillStatus[] = ["pending", "confirming", "settled", "failed", "reverted"];

/** pending → confirming → settled | reverted | failed; a batch can also fail before broadcast. */
const NEXT: Readonly<Record<FillStatus, readonly FillStatus[]>> = {
  pending: ["confirming", "failed"],
  confirming: ["settled", "reverted", "failed"],
  settled: [],
  failed: [],
  reverted: [],
};

export function canMoveFill(from: FillStatus, to: FillStatus): boolean {
  return NEXT[from].includes(to);
}

export function isFinalFill(s: FillStatus): boolean {
  return s === "settled" || s === "failed" || s === "reverted";
}

export interface FillRecord {
  /** 1-based, in execution order. */
  readonly id: number;
  readonly symbol: string;
  readonly makerOrderId: string;
  readonly takerOrderId: string;
  readonly makerOwner: string;
  readonly takerOwner: string;
  readonly makerSide: Side;
  /** Execution at the maker's price. */
  readonly priceTicks: bigint;
  readonly lots: bigint;
  /** Base and quote raw amounts at the maker's price (what filled_* report). */
  readonly baseRaw: bigint;
  readonly quoteRaw: bigint;
  /** The on-chain Match amounts: each side's from-token given. */
  readonly makerGive: bigint;
  readonly takerGive: bigint;
  /** Positive spread in the taker's from-token (0 for a plain fill). */
  readonly spreadRaw: bigint;
  /** Shared clock readings (see instant.ts). */
  readonly at: Instant;
  status: FillStatus;
  txHash: string | null;
  settlementId: number | null;
  /** Raw revert name from the chain (filtered through the allowlist on the wire). */
  revertReason: string | null;
  updatedAt: Instant;
}

/**
 * A new pending fill record, executed at the maker's price: the one place fill
 * records are built, so they all share one shape.
 */
export function newFillRecord(
  id: number,
  symbol: string,
  maker: FillParty,
  taker: FillParty,
  lots: bigint,
  baseRaw: bigint,
  quoteRaw: bigint,
  makerGive: bigint,
  takerGive: bigint,
  spreadRaw: bigint,
  now: Instant,
): FillRecord {
  return {
    id,
    symbol,
    makerOrderId: maker.id,
    takerOrderId: taker.id,
    makerOwner: maker.owner,
    takerOwner: taker.owner,
    makerSide: maker.side,
    priceTicks: maker.priceTicks,
    lots,
    baseRaw,
    quoteRaw,
    makerGive,
    takerGive,
    spreadRaw,
    at: now,
    status: "pending",
    txHash: null,
    settlementId: null,
    revertReason: null,
    updatedAt: now,
  };
}

/** What a fill copies from each of its orders. */
export interface FillParty {
  readonly id: string;
  readonly owner: string;
  readonly side: Side;
  readonly priceTicks: bigint;
}

export function cloneFill(f: FillRecord): FillRecord {
  return { ...f };
}
