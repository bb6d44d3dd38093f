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

/**
 * One fill as read from the FillStore (fill-store.ts): a fresh read-only copy;
 * the engine changes a fill through the store, never through a record.
 */
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
  /** Virtual time of the execution. */
  readonly at: Instant;
  readonly status: FillStatus;
  readonly txHash: string | null;
  readonly settlementId: number | null;
  /** Raw revert name from the chain (filtered through the allowlist on the wire). */
  readonly revertReason: string | null;
  readonly updatedAt: Instant;
}
