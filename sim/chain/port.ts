// The one interface the engine drives for everything on chain: balances,
// deposits, settlement batches and their receipts, blocks, and the executor's
// fault hook. Shaped after the deployed Exchange so the Anvil adapter is a 1:1
// mapping (matchOrdersBatch → failedMask + MatchFailed(reason, batchIndex);
// matchOrdersBatchAtomic; setMatchFault(orderHash0, orderHash1, reason); cap 20). The
// contract's batch takes distinct orders once and fills by index; the Anvil adapter
// builds that from ChainMatch[] (anvil-tx.ts compactBatch), so the engine sees matches.
// Swaps map 1:1 onto Router.executeIntent(Intent, takerSignature, MakerLeg[],
// PermitData); vault movements the engine did not cause itself are read back as
// events (Exchange Deposit / Withdrawal, Router IntentDeposit).
import type { ChainIntent } from "../core/swap-intent.ts";
import type { Address, Hex, IntentMessage, OrderMessage } from "../core/typed-data.ts";

/** The contract's `Match`: each side's from-token amount given in this match. */
export interface ChainMatch {
  maker: OrderMessage;
  makerSignature: Hex;
  taker: OrderMessage;
  takerSignature: Hex;
  makerAmount: bigint;
  takerAmount: bigint;
}

export interface MatchFailure {
  /** Position of the match inside the submitted batch (bit of failedMask). */
  index: number;
  /** Revert string of the failing match (MatchFailed.reason). */
  reason: string;
}

export interface BatchReceipt {
  txHash: Hex;
  blockNumber: bigint;
  /** "reverted": the whole transaction failed (atomic batch, or the batch call itself). */
  status: "success" | "reverted";
  /** Revert reason of the whole transaction when status is "reverted". */
  revertReason: string | null;
  /** Bit i set when match i reverted inside a successful batch. */
  failedMask: bigint;
  failures: MatchFailure[];
}

export interface DepositEvent {
  owner: Address;
  token: Address;
  amount: bigint;
  blockNumber: bigint;
  txHash: Hex;
  logIndex: number;
}

/**
 * Exchange `Withdrawal(user, token, amount, to)`: value left `owner`'s vault
 * balance. Instant withdrawals emit one per token (plus one InstantWithdraw
 * marker), an emergency withdrawal one (plus EmergencyWithdrawn); the markers
 * carry no per-token amount, so this event alone is what the ledger debits.
 */
export interface WithdrawalEvent {
  owner: Address;
  token: Address;
  amount: bigint;
  recipient: Address;
  blockNumber: bigint;
  txHash: Hex;
  logIndex: number;
  /** The WithdrawIntent's uuid when the transaction was an instant (co-signed) withdrawal of `owner`'s. */
  instantUuid?: bigint;
}

export interface SubmitOptions {
  /** Use the all-or-nothing batch (matchOrdersBatchAtomic). */
  atomic?: boolean;
}

export interface ChainPort {
  /** Largest batch one settlement transaction may carry (live: 20). */
  readonly maxBatchSize: number;
  /** Receives fees and the protocol's share of spreads (a vault ledger owner). */
  readonly feeRecipient: Address;

  blockNumber(): Promise<bigint>;
  /** Mine `blocks` blocks (default 1), including any queued transactions. */
  mine(blocks?: number): Promise<void>;

  walletBalance(owner: Address, token: Address): Promise<bigint>;
  vaultBalance(owner: Address, token: Address): Promise<bigint>;
  /** Deposit events in blocks [fromBlock, toBlock]. */
  depositEvents(fromBlock: bigint, toBlock: bigint): Promise<DepositEvent[]>;
  /**
   * Router `IntentDeposit(taker, token, amount)` events in [fromBlock, toBlock]:
   * wallet funds executeIntent pulled into the taker's vault balance.
   * Optional only while the Anvil adapter catches up; the engine needs it for swaps.
   */
  intentDepositEvents?(fromBlock: bigint, toBlock: bigint): Promise<DepositEvent[]>;
  /** Exchange `Withdrawal` events in [fromBlock, toBlock] (see WithdrawalEvent). Needed for the vault-event sync. */
  withdrawalEvents?(fromBlock: bigint, toBlock: bigint): Promise<WithdrawalEvent[]>;

  /** Broadcast a settlement batch (1..maxBatchSize matches); the tx is mined later (or at once on automine). */
  submitBatch(matches: ChainMatch[], options?: SubmitOptions): Promise<{ txHash: Hex }>;
  /** null while the transaction is not mined. */
  getReceipt(txHash: Hex): Promise<BatchReceipt | null>;

  /**
   * Router.executeIntent(ci.intent, ci.takerSignature, ci.legs, ci.permit ?? {value 0,
   * deadline 0, signature "0x"}), sent by the executor. Mined later like a batch; its
   * receipt comes from getReceipt with status "reverted" + revertReason when the
   * intent reverts (the Router has no per-leg try/catch: failedMask is always 0).
   */
  submitIntent?(ci: ChainIntent): Promise<{ txHash: Hex }>;
  /**
   * Executor-only fault hook for a router leg: Exchange.setMatchFault(orderHash(maker),
   * intentDigest(intent), reason) — settleRouterLeg checks exactly that pair.
   */
  setIntentLegFault?(maker: OrderMessage, intent: IntentMessage, reason: string): Promise<void>;
  clearIntentLegFault?(maker: OrderMessage, intent: IntentMessage): Promise<void>;

  /** Executor-only fault hook: the match of this order pair reverts with `reason`. */
  setMatchFault(maker: OrderMessage, taker: OrderMessage, reason: string): Promise<void>;
  clearMatchFault(maker: OrderMessage, taker: OrderMessage): Promise<void>;

  /**
   * Send every transaction signed and not yet sent. A port may hold the end of a long
   * round until a read of the chain; the engine calls this where its work signs and no read
   * follows. A port that sends as it signs leaves it out.
   */
  flush?(): Promise<void>;
}
