// Settlement vocabulary and planning: how fills are grouped into on-chain
// batches, which revert names may be shown, and which typed error_code a
// failure surfaces as.
import { SWAP_ERROR_CODES, type ErrorCode } from "./errors.ts";

/**
 * Revert names the service may show in failure_reason / latest_failed_fill_failure_reason.
 * They are the Exchange's and Vault's own revert strings for per-match failures;
 * anything else (custom chaos reasons, panics, infrastructure errors) is shown as null.
 */
export const FAILURE_REASON_ALLOWLIST: readonly string[] = [
  "ORDER_EXPIRED",
  "OVERFILL",
  "BAD_SIGNATURE",
  "INSUFFICIENT_VAULT_BALANCE",
  "PRICE_MISMATCH",
  "TOKEN_NOT_WHITELISTED",
  "TOKEN_MISMATCH",
  "ZERO_AMOUNT",
  "ZERO_ORDER_AMOUNT",
  "EXPIRATION_TOO_FAR",
  "FEE_TOO_HIGH",
  "SAME_TOKEN",
  "SAME_ORDER",
  "ALLOWANCE_INSUFFICIENT",
  "INSUFFICIENT_WALLET_BALANCE",
  "PAUSED",
];

const ALLOWED = new Set(FAILURE_REASON_ALLOWLIST);

export function publicFailureReason(reason: string | null): string | null {
  return reason !== null && ALLOWED.has(reason) ? reason : null;
}

/** Revert names with a typed meaning in the spec's vocabulary; everything else is TRANSIENT. */
const CODE_OF_REASON: Readonly<Record<string, ErrorCode>> = {
  INSUFFICIENT_VAULT_BALANCE: "INSUFFICIENT_EQUITY",
  ORDER_EXPIRED: "INTENT_DEADLINE_EXPIRED",
  ALLOWANCE_INSUFFICIENT: "ALLOWANCE_INSUFFICIENT",
  TOKEN_NOT_WHITELISTED: "PAIR_INACTIVE",
  // Router.executeIntent reverts of a swap.
  INTENT_EXPIRED: "INTENT_DEADLINE_EXPIRED",
  MIN_OUTPUT_NOT_MET: "SLIPPAGE_EXCEEDED",
};

export function errorCodeForRevert(reason: string | null): ErrorCode {
  return (reason !== null && CODE_OF_REASON[reason]) || "TRANSIENT_SETTLEMENT_FAILURE";
}

/** Router.executeIntent reverts about the swap's own Intent or wallet, never a maker's state. */
const INTENT_REASONS: ReadonlySet<string> = new Set(["INTENT_EXPIRED", "MIN_OUTPUT_NOT_MET", "ALLOWANCE_INSUFFICIENT"]);

/** One order of a failed fill: its signed expiration, and whether it is the swap taker. */
export interface RevertSide {
  expiration: number;
  isSwap: boolean;
  /** The owner owes the vault the token this order gives (Engine.applyWithdrawal's debt). */
  owesVault?: boolean;
  /** The fill's resting order (a swap's legs: each maker), not its taker. */
  isMaker?: boolean;
}

/**
 * The typed code a failed fill leaves on `self`. A revert names one party's problem; to the
 * other side it is a counterparty-state change, which the spec files under the catch-all
 * TRANSIENT_SETTLEMENT_FAILURE (its action: retry), so that side is not told to re-sign.
 * ORDER_EXPIRED goes to the order(s) whose expiration had passed by `nowSec`,
 * INSUFFICIENT_VAULT_BALANCE likewise to the order(s) whose owner owes the vault; the
 * Intent's own reasons to the swap only. When no side is picked out (a fault plan injected
 * the reason) the maker takes it: a live revert names one party, and the resting order is
 * the one that had time to expire or lose its funds.
 * `others` are the orders on the other side (a swap has one per leg).
 */
export function errorCodeForSide(reason: string | null, self: RevertSide, others: readonly RevertSide[], nowSec: number): ErrorCode {
  const code = codeForSide(reason, self, others, nowSec);
  // A swap order's error_code is drawn from POST /swap's subset (the spec): a code outside it
  // (INSUFFICIENT_EQUITY, PAIR_INACTIVE) shows as the catch-all.
  return self.isSwap && !(SWAP_ERROR_CODES as readonly string[]).includes(code) ? "TRANSIENT_SETTLEMENT_FAILURE" : code;
}

function codeForSide(reason: string | null, self: RevertSide, others: readonly RevertSide[], nowSec: number): ErrorCode {
  const code = errorCodeForRevert(reason);
  if (code === "TRANSIENT_SETTLEMENT_FAILURE" || reason === null) return code;
  if (INTENT_REASONS.has(reason)) return self.isSwap ? code : "TRANSIENT_SETTLEMENT_FAILURE";
  if (reason === "ORDER_EXPIRED") return concerns(self, others, (o) => o.expiration <= nowSec) ? code : "TRANSIENT_SETTLEMENT_FAILURE";
  if (reason === "INSUFFICIENT_VAULT_BALANCE") return concerns(self, others, (o) => o.owesVault === true) ? code : "TRANSIENT_SETTLEMENT_FAILURE";
  return code;
}

/** The revert is `self`'s when the test picks it out, or, when it picks out no side at all, when `self` is the maker. */
function concerns(self: RevertSide, others: readonly RevertSide[], test: (o: RevertSide) => boolean): boolean {
  if (test(self)) return true;
  return !others.some(test) && self.isMaker === true;
}

/**
 * A settlement transaction. Status values (settlement_summary.latest_parent_status):
 * "pending" (broadcast, not confirmed), "confirmed" (mined with enough
 * confirmations, some legs may have reverted), "failed" (the transaction reverted).
 */
export type SettlementStatus = "pending" | "confirmed" | "failed";

export interface SettlementBatch {
  readonly id: number;
  readonly fillIds: readonly number[];
  readonly atomic: boolean;
  /** "swap": one Router.executeIntent carrying every leg of the swap order `swapOrderId`. Absent: a match batch. */
  readonly kind?: "swap";
  readonly swapOrderId?: string;
  txHash: string | null;
  status: SettlementStatus;
  minedBlock: bigint | null;
}

/** Split fill ids (already in execution order) into batches of at most `cap`. */
export function planBatches(fillIds: readonly number[], cap: number): number[][] {
  if (!Number.isInteger(cap) || cap < 1) throw new RangeError(`batch cap must be >= 1, got ${cap}`);
  const out: number[][] = [];
  for (let i = 0; i < fillIds.length; i += cap) out.push(fillIds.slice(i, i + cap));
  return out;
}
