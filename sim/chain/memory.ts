// In-process chain with the Exchange's settlement semantics: per-order filled
// amounts, the per-match rules in the contract's order (fault hook first, then
// pairing, per-order checks, price, vault debits), try/catch per match with a
// failedMask, the atomic variant, the batch cap, fees and spread split, mined
// blocks and deposit events. Orders are keyed by (user, uuid) instead of the
// EIP-712 digest: the uuid is unique per order, and hashing would only cost time.
// Swaps: submitIntent queues Router.executeIntent; when mined, simulateIntent
// runs on this chain's balances (all or nothing) and the intent uuid is spent.
// Withdrawals: withdraw() moves vault → wallet and logs a Withdrawal event.
import { createHash } from "node:crypto";
import type { Clock } from "../core/clock.ts";
import { VirtualClock } from "../core/clock.ts";
import { DEFAULT_SPREAD_SPLIT, matchMoves, minReceive, type SpreadSplit } from "../core/economics.ts";
import type { Address, Hex, OrderMessage } from "../core/typed-data.ts";
import { IntentRevert, simulateIntent, type ChainIntent, type IntentChainView, type IntentEffects } from "../core/swap-intent.ts";
import type { IntentMessage } from "../core/typed-data.ts";
import type { BatchReceipt, ChainMatch, ChainPort, DepositEvent, MatchFailure, SubmitOptions, WithdrawalEvent } from "./port.ts";
import { sameClassAcrossBuilds } from "../platform/cross-build.ts";

export const MAX_BATCH_SIZE = 20;
export const MAX_FEE_BPS = 1_000n;
export const MAX_ORDER_LIFETIME_SEC = 365n * 86400n;
export const DEFAULT_FEE_RECIPIENT: Address = "0x000000000000000000000000000000000000fee1";

export interface MemoryChainOptions {
  /** Block timestamps come from here (share the engine's clock to keep one notion of now). */
  clock?: Clock;
  feeRecipient?: Address;
  /** Include each broadcast tx in a new block at once (Anvil automine). Default true. */
  automine?: boolean;
  /** Whitelisted tokens; undefined allows every token. */
  whitelist?: readonly string[];
  spreadSplit?: SpreadSplit;
  maxBatchSize?: number;
}

interface QueuedTx {
  txHash: Hex;
  matches: ChainMatch[];
  atomic: boolean;
  /** Set for a Router.executeIntent transaction (matches is then empty). */
  intent?: ChainIntent;
}

export interface MemoryChainState {
  block: bigint;
  txCount: number;
  wallets: [string, bigint][];
  vault: [string, bigint][];
  filled: [string, bigint][];
  faults: [string, string][];
  mempool: QueuedTx[];
  receipts: [string, BatchReceipt][];
  deposits: DepositEvent[];
  automine: boolean;
  intentDeposits?: DepositEvent[];
  withdrawals?: WithdrawalEvent[];
  intentsUsed?: string[];
}

/** A revert of the in-process chain, carrying the contract's reason string. */
export class ChainRevert extends Error {
  override readonly name = "ChainRevert";
  constructor(readonly reason: string) {
    super(reason);
  }
}
sameClassAcrossBuilds(ChainRevert, "ChainRevert");

const key = (a: string, b: string) => `${a.toLowerCase()}|${b.toLowerCase()}`;
const orderKey = (o: OrderMessage) => `${o.user.toLowerCase()}|${o.uuid.toString()}`;
const intentKey = (i: IntentMessage) => `intent:${i.taker.toLowerCase()}|${i.uuid.toString()}`;

export class MemoryChain implements ChainPort {
  readonly maxBatchSize: number;
  readonly feeRecipient: Address;
  private readonly clock: Clock;
  private readonly split: SpreadSplit;
  private readonly whitelist: Set<string> | null;
  private automine: boolean;
  private block = 1n;
  private txCount = 0;
  private wallets = new Map<string, bigint>();
  private vault = new Map<string, bigint>();
  private filled = new Map<string, bigint>();
  private faults = new Map<string, string>();
  private mempool: QueuedTx[] = [];
  private receipts = new Map<string, BatchReceipt>();
  private deposits: DepositEvent[] = [];
  private intentDeposits: DepositEvent[] = [];
  private withdrawals: WithdrawalEvent[] = [];
  /** Router.intentUuidUsed as `taker|uuid`. */
  private intentsUsed = new Set<string>();

  constructor(options: MemoryChainOptions = {}) {
    this.clock = options.clock ?? new VirtualClock();
    this.feeRecipient = (options.feeRecipient ?? DEFAULT_FEE_RECIPIENT).toLowerCase() as Address;
    this.automine = options.automine ?? true;
    this.whitelist = options.whitelist ? new Set(options.whitelist.map((t) => t.toLowerCase())) : null;
    this.split = options.spreadSplit ?? DEFAULT_SPREAD_SPLIT;
    this.maxBatchSize = options.maxBatchSize ?? MAX_BATCH_SIZE;
  }

  // ------------------------------------------------------------ test controls

  setAutomine(on: boolean): void {
    this.automine = on;
  }

  /** Give `owner` wallet tokens (a faucet / ERC-20 mint). */
  mint(owner: string, token: string, amount: bigint): void {
    this.add(this.wallets, key(owner, token), amount);
  }

  /** depositFund: wallet → vault, in its own mined block, with a Deposit event. */
  deposit(owner: string, token: string, amount: bigint): DepositEvent {
    const k = key(owner, token);
    if (amount <= 0n) throw new ChainRevert("ZERO_AMOUNT");
    if (this.whitelist && !this.whitelist.has(token.toLowerCase())) throw new ChainRevert("TOKEN_NOT_WHITELISTED");
    if ((this.wallets.get(k) ?? 0n) < amount) throw new ChainRevert("INSUFFICIENT_WALLET_BALANCE");
    this.add(this.wallets, k, -amount);
    this.add(this.vault, k, amount);
    this.block += 1n;
    const ev: DepositEvent = {
      owner: owner.toLowerCase() as Address,
      token: token.toLowerCase() as Address,
      amount,
      blockNumber: this.block,
      txHash: this.nextTxHash(),
      logIndex: 0,
    };
    this.deposits.push(ev);
    return ev;
  }

  /**
   * A vault withdrawal (instant co-signed or emergency: the contract checks those
   * paths; here only the balance), in its own mined block, with a Withdrawal event.
   * `recipient` defaults to the owner; `instantUuid` marks an instant withdrawal's intent.
   */
  withdraw(owner: string, token: string, amount: bigint, recipient: string = owner, instantUuid?: bigint): WithdrawalEvent {
    const k = key(owner, token);
    if (amount <= 0n) throw new ChainRevert("ZERO_AMOUNT");
    if ((this.vault.get(k) ?? 0n) < amount) throw new ChainRevert("INSUFFICIENT_VAULT_BALANCE");
    this.add(this.vault, k, -amount);
    this.add(this.wallets, key(recipient, token), amount);
    this.block += 1n;
    const ev: WithdrawalEvent = {
      owner: owner.toLowerCase() as Address,
      token: token.toLowerCase() as Address,
      amount,
      recipient: recipient.toLowerCase() as Address,
      blockNumber: this.block,
      txHash: this.nextTxHash(),
      logIndex: 0,
      ...(instantUuid !== undefined ? { instantUuid } : {}),
    };
    this.withdrawals.push(ev);
    return ev;
  }

  intentUsed(taker: string, uuid: bigint): boolean {
    return this.intentsUsed.has(`${taker.toLowerCase()}|${uuid.toString()}`);
  }

  /** Vault balance of every (owner, token), for invariant checks. */
  vaultEntries(): { owner: string; token: string; amount: bigint }[] {
    return [...this.vault].map(([k, amount]) => {
      const [owner, token] = k.split("|") as [string, string];
      return { owner, token, amount };
    });
  }

  filledOf(order: OrderMessage): bigint {
    return this.filled.get(orderKey(order)) ?? 0n;
  }

  // ------------------------------------------------------------ ChainPort

  async blockNumber(): Promise<bigint> {
    return this.block;
  }

  async mine(blocks = 1): Promise<void> {
    for (let i = 0; i < blocks; i++) {
      this.block += 1n;
      const txs = this.mempool;
      this.mempool = [];
      for (const tx of txs) this.receipts.set(tx.txHash, this.execute(tx));
    }
  }

  async walletBalance(owner: Address, token: Address): Promise<bigint> {
    return this.wallets.get(key(owner, token)) ?? 0n;
  }

  async vaultBalance(owner: Address, token: Address): Promise<bigint> {
    return this.vault.get(key(owner, token)) ?? 0n;
  }

  async depositEvents(fromBlock: bigint, toBlock: bigint): Promise<DepositEvent[]> {
    return this.deposits.filter((d) => d.blockNumber >= fromBlock && d.blockNumber <= toBlock);
  }

  async intentDepositEvents(fromBlock: bigint, toBlock: bigint): Promise<DepositEvent[]> {
    return this.intentDeposits.filter((d) => d.blockNumber >= fromBlock && d.blockNumber <= toBlock);
  }

  async withdrawalEvents(fromBlock: bigint, toBlock: bigint): Promise<WithdrawalEvent[]> {
    return this.withdrawals.filter((w) => w.blockNumber >= fromBlock && w.blockNumber <= toBlock);
  }

  async submitIntent(ci: ChainIntent): Promise<{ txHash: Hex }> {
    const txHash = this.nextTxHash();
    this.mempool.push({ txHash, matches: [], atomic: true, intent: ci });
    if (this.automine) await this.mine(1);
    return { txHash };
  }

  async setIntentLegFault(maker: OrderMessage, intent: IntentMessage, reason: string): Promise<void> {
    if (reason.length === 0) throw new ChainRevert("EMPTY_REASON");
    this.faults.set(`${orderKey(maker)}#${intentKey(intent)}`, reason);
  }

  async clearIntentLegFault(maker: OrderMessage, intent: IntentMessage): Promise<void> {
    this.faults.delete(`${orderKey(maker)}#${intentKey(intent)}`);
  }

  async submitBatch(matches: ChainMatch[], options: SubmitOptions = {}): Promise<{ txHash: Hex }> {
    const txHash = this.nextTxHash();
    this.mempool.push({ txHash, matches: matches.slice(), atomic: options.atomic === true });
    if (this.automine) await this.mine(1);
    return { txHash };
  }

  async getReceipt(txHash: Hex): Promise<BatchReceipt | null> {
    return this.receipts.get(txHash) ?? null;
  }

  async setMatchFault(maker: OrderMessage, taker: OrderMessage, reason: string): Promise<void> {
    if (reason.length === 0) throw new ChainRevert("EMPTY_REASON");
    this.faults.set(`${orderKey(maker)}#${orderKey(taker)}`, reason);
  }

  async clearMatchFault(maker: OrderMessage, taker: OrderMessage): Promise<void> {
    this.faults.delete(`${orderKey(maker)}#${orderKey(taker)}`);
  }

  // ------------------------------------------------------------ execution

  private execute(tx: QueuedTx): BatchReceipt {
    if (tx.intent !== undefined) return this.executeIntent(tx.txHash, tx.intent);
    const base = { txHash: tx.txHash, blockNumber: this.block };
    const n = tx.matches.length;
    if (n === 0 || n > this.maxBatchSize) {
      return { ...base, status: "reverted", revertReason: n === 0 ? "EMPTY_BATCH" : "BATCH_TOO_LARGE", failedMask: 0n, failures: [] };
    }
    if (tx.atomic) {
      // All or nothing: run on copies and keep them only if every match succeeds.
      const saved = { vault: new Map(this.vault), filled: new Map(this.filled) };
      for (let i = 0; i < n; i++) {
        try {
          this.settleMatch(tx.matches[i]!);
        } catch (e) {
          this.vault = saved.vault;
          this.filled = saved.filled;
          return { ...base, status: "reverted", revertReason: reasonOf(e), failedMask: 0n, failures: [] };
        }
      }
      return { ...base, status: "success", revertReason: null, failedMask: 0n, failures: [] };
    }
    let failedMask = 0n;
    const failures: MatchFailure[] = [];
    for (let i = 0; i < n; i++) {
      try {
        this.settleMatch(tx.matches[i]!);
      } catch (e) {
        failedMask |= 1n << BigInt(i);
        failures.push({ index: i, reason: reasonOf(e) });
      }
    }
    return { ...base, status: "success", revertReason: null, failedMask, failures };
  }

  /** Router.executeIntent: simulate on a read view, then write every effect or none. */
  private executeIntent(txHash: Hex, ci: ChainIntent): BatchReceipt {
    const base = { txHash, blockNumber: this.block, failedMask: 0n, failures: [] };
    const view: IntentChainView = {
      nowSec: BigInt(this.clock.nowSec()),
      vault: (o, t) => this.vault.get(key(o, t)) ?? 0n,
      wallet: (o, t) => this.wallets.get(key(o, t)) ?? 0n,
      filled: (o) => this.filled.get(orderKey(o)) ?? 0n,
      intentUsed: (taker, uuid) => this.intentUsed(taker, uuid),
      whitelisted: (t) => this.whitelist === null || this.whitelist.has(t.toLowerCase()),
      feeRecipient: this.feeRecipient,
      maxFeeBps: MAX_FEE_BPS,
    };
    let fx: IntentEffects;
    try {
      // settleRouterLeg checks the fault hook first, leg by leg; any revert undoes the whole intent.
      for (const leg of ci.legs) {
        const fault = this.faults.get(`${orderKey(leg.order)}#${intentKey(ci.intent)}`);
        if (fault !== undefined) throw new IntentRevert(fault);
      }
      fx = simulateIntent(ci, view);
    } catch (e) {
      if (!(e instanceof IntentRevert)) throw e;
      return { ...base, status: "reverted", revertReason: e.reason };
    }
    for (const [k, d] of fx.vault) this.add(this.vault, k, d);
    for (const [k, d] of fx.wallet) this.add(this.wallets, k, d);
    for (const f of fx.filled) this.filled.set(orderKey(f.order), (this.filled.get(orderKey(f.order)) ?? 0n) + f.amount);
    const i = ci.intent;
    this.intentsUsed.add(`${i.taker.toLowerCase()}|${i.uuid.toString()}`);
    if (i.initialDepositAmount > 0n) {
      this.intentDeposits.push({
        owner: i.taker.toLowerCase() as Address,
        token: i.inputToken.toLowerCase() as Address,
        amount: i.initialDepositAmount,
        blockNumber: this.block,
        txHash,
        logIndex: 0,
      });
    }
    return { ...base, status: "success", revertReason: null };
  }

  /** One match; checks everything before it writes, so a revert leaves no trace. */
  private settleMatch(m: ChainMatch): void {
    const mk = m.maker;
    const tk = m.taker;
    const fault = this.faults.get(`${orderKey(mk)}#${orderKey(tk)}`);
    if (fault !== undefined) throw new ChainRevert(fault);
    if (orderKey(mk) === orderKey(tk)) throw new ChainRevert("SAME_ORDER");
    if (mk.fromToken.toLowerCase() !== tk.toToken.toLowerCase() || mk.toToken.toLowerCase() !== tk.fromToken.toLowerCase()) {
      throw new ChainRevert("TOKEN_MISMATCH");
    }
    const mkFilled = this.checkTake(mk, m.makerAmount);
    const tkFilled = this.checkTake(tk, m.takerAmount);
    if (m.takerAmount < minReceive(mk, m.makerAmount)) throw new ChainRevert("PRICE_MISMATCH");
    if (m.makerAmount < minReceive(tk, m.takerAmount)) throw new ChainRevert("PRICE_MISMATCH");
    const mv = matchMoves(mk, tk, m.makerAmount, m.takerAmount, this.split);
    const mkFrom = key(mk.user, mk.fromToken);
    const tkFrom = key(tk.user, tk.fromToken);
    if ((this.vault.get(mkFrom) ?? 0n) < mv.makerDebit) throw new ChainRevert("INSUFFICIENT_VAULT_BALANCE");
    if ((this.vault.get(tkFrom) ?? 0n) < mv.takerDebit) throw new ChainRevert("INSUFFICIENT_VAULT_BALANCE");
    this.filled.set(orderKey(mk), mkFilled + m.makerAmount);
    this.filled.set(orderKey(tk), tkFilled + m.takerAmount);
    this.add(this.vault, mkFrom, -mv.makerDebit);
    this.add(this.vault, tkFrom, -mv.takerDebit);
    this.payout(mk, mv.makerCredit);
    this.payout(tk, mv.takerCredit);
    this.add(this.vault, key(this.feeRecipient, tk.fromToken), mv.makerFee + mv.protocolSpread);
    this.add(this.vault, key(this.feeRecipient, mk.fromToken), mv.takerFee);
  }

  private checkTake(o: OrderMessage, amount: bigint): bigint {
    const now = BigInt(this.clock.nowSec());
    if (amount <= 0n) throw new ChainRevert("ZERO_AMOUNT");
    if (o.expiration <= now) throw new ChainRevert("ORDER_EXPIRED");
    const done = this.filled.get(orderKey(o)) ?? 0n;
    if (done + amount > o.fromAmount) throw new ChainRevert("OVERFILL");
    if (done === 0n) {
      if (o.toAmount <= 0n) throw new ChainRevert("ZERO_ORDER_AMOUNT");
      if (o.expiration > now + MAX_ORDER_LIFETIME_SEC) throw new ChainRevert("EXPIRATION_TOO_FAR");
      if (o.feeBps > MAX_FEE_BPS) throw new ChainRevert("FEE_TOO_HIGH");
      if (o.fromToken.toLowerCase() === o.toToken.toLowerCase()) throw new ChainRevert("SAME_TOKEN");
      if (this.whitelist && !(this.whitelist.has(o.fromToken.toLowerCase()) && this.whitelist.has(o.toToken.toLowerCase()))) {
        throw new ChainRevert("TOKEN_NOT_WHITELISTED");
      }
      // Signatures were verified by the HTTP layer; this in-process chain trusts them.
    }
    return done;
  }

  /** recipient zero: credit the vault ledger; otherwise the tokens leave to the recipient's wallet. */
  private payout(o: OrderMessage, amount: bigint): void {
    if (amount === 0n) return;
    if (o.recipient.toLowerCase() === "0x0000000000000000000000000000000000000000") this.add(this.vault, key(o.user, o.toToken), amount);
    else this.add(this.wallets, key(o.recipient, o.toToken), amount);
  }

  private add(map: Map<string, bigint>, k: string, delta: bigint): void {
    const v = (map.get(k) ?? 0n) + delta;
    if (v < 0n) throw new Error(`memory chain balance went negative at ${k}`);
    map.set(k, v);
  }

  private nextTxHash(): Hex {
    this.txCount += 1;
    return `0x${createHash("sha256").update(`fakex-memory-tx:${this.txCount}`).digest("hex")}` as Hex;
  }

  // ------------------------------------------------------------ snapshots

  snapshot(): MemoryChainState {
    return {
      block: this.block,
      txCount: this.txCount,
      wallets: [...this.wallets],
      vault: [...this.vault],
      filled: [...this.filled],
      faults: [...this.faults],
      mempool: this.mempool.map((t) => ({ ...t, matches: t.matches.slice() })),
      receipts: [...this.receipts],
      deposits: this.deposits.slice(),
      automine: this.automine,
      intentDeposits: this.intentDeposits.slice(),
      withdrawals: this.withdrawals.slice(),
      intentsUsed: [...this.intentsUsed],
    };
  }

  restore(s: MemoryChainState): void {
    this.block = s.block;
    this.txCount = s.txCount;
    this.wallets = new Map(s.wallets);
    this.vault = new Map(s.vault);
    this.filled = new Map(s.filled);
    this.faults = new Map(s.faults);
    this.mempool = s.mempool.map((t) => ({ ...t, matches: t.matches.slice() }));
    this.receipts = new Map(s.receipts);
    this.deposits = s.deposits.slice();
    this.automine = s.automine;
    this.intentDeposits = (s.intentDeposits ?? []).slice();
    this.withdrawals = (s.withdrawals ?? []).slice();
    this.intentsUsed = new Set(s.intentsUsed ?? []);
  }
}

function reasonOf(e: unknown): string {
  if (e instanceof ChainRevert) return e.reason;
  throw e;
}
