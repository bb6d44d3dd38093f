// The engine facade: every command validates first, then mutates and appends
// its events in one go, so a rejected command changes nothing (book, ledger,
// orders, RNG, event log). Settlement and chain reads are async and go through
// the ChainPort. Queries return the spec's wire objects as plain data.
//
// Choices where the spec says "not shown" (each one tested):
// - Expiration: an expired resting order is never matched (the contract would
//   refuse it); it stays pending and visible, its funds frozen, until cancelled.
// - A fill of a still-pending (partially filled) order that reverts or fails:
//   the spec has no pending → failed move, so the order stays pending with
//   error / error_code set and gets the quantity back (the contract never
//   counted it). A matched order whose fill reverts moves to failed.
// - Limit orders trade vault equity: the signed initialDepositAmount is 0 and
//   placing freezes the full signed fromAmount (INSUFFICIENT_EQUITY otherwise);
//   what a better execution price leaves unused is released when the order
//   leaves the book.
// - Cancel cooldown counts from the order's creation on the virtual clock.
// - Cancelling someone else's order is 403; a non-pending order is 409.
// - VL: one budget, the owner's available equity of the spent token, funds the
//   legs in array order (see vl.ts); batch-shape violations are 400 VALIDATION.
// - Swaps: POST /swap creates an order_type "swap" order that is the taker of
//   one fill per route leg, matched at once (the response still says pending).
//   Its fills go out as one Router.executeIntent (ChainPort.submitIntent), never
//   batched with matches; the Router has no per-leg try/catch, so the receipt
//   settles every leg or fails every leg (the swap → failed, frozen equity back).
// - Vault events (Deposit, IntentDeposit, Withdrawal) are synced idempotently; a
//   withdrawal beyond available (emergency exit) is owed and collected later.
import { formatRaw, formatUnits } from "./amounts.ts";
import { OrderIndex, type HashedOrderId } from "./order-index.ts";
import { takerGiveOf, fillSpread, marketUnitsOf, planMatches, type MarketUnits, type PlannedFill, type PlannedOrder } from "./matcher.ts";
import {
  DEFAULT_CANCEL_COOLDOWN_SEC,
  cancelAll,
  cancelOrder,
  cancelVlBatch,
  type CancelAllResult,
  type CancelHost,
  type CancelReason,
} from "./cancel.ts";
import { balanceRows, type BalancesEnvelope } from "./balance-rows.ts";
import { VirtualClock, isoOf, type ClockState } from "./clock.ts";
import { ExchangeError, notFound, type ErrorCode } from "./errors.ts";
import { checkEventLogState, EventLog, type EventLogState, type EventValue } from "./event-log.ts";
import { Ledger, type Account, type LedgerState } from "./ledger.ts";
import { MarketBook } from "./book.ts";
import { InstantSource, type Instant } from "./instant.ts";
import { canTransition, cloneOrder, newOrderRecord, type OrderRecord, type OrderStatus } from "./orders.ts";
import { canMoveFill, type FillRecord, type FillStatus } from "./fills.ts";
import { checkFillStoreState, FillStore, type FillStoreState } from "./fill-store.ts";
import { DEFAULT_SPREAD_SPLIT, matchMoves, minReceive, type MatchMoves, type SpreadSplit } from "./economics.ts";
import type { BatchFaults, FaultPlan } from "./faults.ts";
import { parseFaultPlan } from "./faults.ts";
import { errorCodeForSide, planBatches, type RevertSide, type SettlementBatch } from "./settlement.ts";
import { OrderIntake, type IntakeContext, type IntakeOrder } from "./order-intake.ts";
import type { Registry } from "./registry.ts";
import { Rng, type RngState } from "./rng.ts";
import type { Address, Hex } from "./typed-data.ts";
import { ZERO_ADDRESS } from "./typed-data.ts";
import { checkVlLegUuidInt, groupIdOf, isExecutorId, isUuid4, parseUint256, standaloneUuidInt } from "./uuid-int.ts";
import {
  DEFAULT_VL_LIMITS,
  checkBatchSize,
  checkDistinctMarkets,
  maxLotsWithin,
  needForLots,
  passesFloor,
  type VlBatchLimits,
  type VlBatchRecord,
} from "./vl.ts";
import { fillView, orderView, type FillWire, type OrderWire } from "./views.ts";
import { SwapDesk, type BatchItemWire, type PermitReader, type QuoteWire, type SwapDeskState, type SwapSubmission } from "./quotes.ts";
import { bookLiquidity, type RouteLeg } from "./routing.ts";
import { fixedUsdPrice, type GasConfig, type UsdPrice } from "./swap-gas.ts";
import { orderMessageOf, type ChainIntent, type IntentGas, type IntentLeg, type IntentPermit } from "./swap-intent.ts";
import { swapOrderTerms } from "./swap-orders.ts";
import type { IntentMessage } from "./typed-data.ts";
import type { BatchReceipt, ChainMatch, ChainPort, DepositEvent, WithdrawalEvent } from "../chain/port.ts";

export { DEFAULT_CANCEL_COOLDOWN_SEC, type CancelAllResult } from "./cancel.ts";
/** USD per whole token by currency when no FX source is given (swap gas pricing only). */
export const DEFAULT_USD_PRICES: Readonly<Record<string, string>> = { EUR: "1.08", GBP: "1.27", CHF: "1.13", JPY: "0.0066" };
/** Permit spender of the memory set-up (the Anvil fixture passes the deployed vault). */
export const MEMORY_VAULT_ADDRESS: Address = "0x00000000000000000000000000000000000a0170";

/** settleRouterLeg gives the maker the whole spread; the swap taker pays no fee. */
const ROUTER_SPREAD_SPLIT: SpreadSplit = { makerBps: 10_000, takerBps: 0 };

/** Swap desk wiring (quotes priced through usdPrice; permits name vaultAddress as spender, approvals routerAddress). */
export interface EngineSwapOptions {
  usdPrice?: UsdPrice;
  vaultAddress?: Address;
  routerAddress?: Address;
  chainId?: number;
  permitReader?: PermitReader;
  gas?: GasConfig;
}

/** POST /swap's answer (spec: status is always "pending" at acceptance). */
export interface SwapResult {
  success: true;
  trade_id: string;
  status: "pending";
  fee_breakdown: { gas_cost_usd: string; gas_cost_from_token: string };
}

/** A vault event of the chain as the sync reads it. */
type VaultEvent = { kind: "deposit" | "intent_deposit"; ev: DepositEvent } | { kind: "withdrawal"; ev: WithdrawalEvent };

export interface VaultSyncReport {
  deposits: number;
  withdrawals: number;
  /** The chain head the sync read: the ledger holds every vault event up to this block. */
  block: bigint;
}

/** What a swap order's transaction needs beyond its fills (the signed Intent and permit). */
interface SwapChainTerms {
  readonly intent: IntentMessage;
  readonly permit: IntentPermit | null;
  readonly quoteUuid: string;
  /** Charged by the Router when the swap settles (quotes.swapGasCharge). */
  readonly gas: IntentGas;
}

/**
 * The engine stream's seed, read by its text as every other stream of the simulator
 * reads it: 7 and "7" are one seed (the CLI parses `--seed 7` as a number, a fixture may
 * pass the string), and a number past 32 bits or with a fraction seeds by its text
 * rather than folding onto another seed's draws (2^32 + 7 used to draw as 7).
 */
function engineSeed(seed: number | string): number | string {
  const text = String(seed);
  return /^(0|[1-9][0-9]{0,9})$/.test(text) && Number(text) <= 0xffff_ffff ? Number(text) : text;
}

export interface EngineOptions {
  seed: number | string;
  clock?: VirtualClock;
  registry: Registry;
  executorId: number;
  chain: ChainPort;
  /** Per-order cancel cooldown from creation, seconds (default 300; 0 disables). */
  cancelCooldownSec?: number;
  vlBatch?: VlBatchLimits;
  faults?: FaultPlan;
  spreadSplit?: SpreadSplit;
  /** Matches per settlement transaction (default: the chain's cap). */
  settlementBatchSize?: number;
  swaps?: EngineSwapOptions;
}

/** POST /orders body as the HTTP layer parsed it (signature already verified against owner_address). */
export interface OrderBody {
  owner_address: unknown;
  side: unknown;
  amount: unknown;
  price: unknown;
  order_type: unknown;
  from_address: unknown;
  to_address: unknown;
  order_id: unknown;
  uuid_int: unknown;
  expiration: unknown;
  signature?: unknown;
}

export interface TradeWire {
  quantity: string;
  price: string;
  counterparty_order_id: string;
  ts: string;
}

export interface PlaceResult {
  orderId: string;
  status: OrderStatus;
  /** Ids of the fills this order made as taker on arrival (see fillsOfOrder for their wire form). */
  fillIds: readonly number[];
}

export interface VlBatchResult {
  order_ids: string[];
  amendments: { order_id: string; original_amount: string; actual_amount: string; reason: "budget_clip" }[];
  cancelled: { order_id: string; reason: "quota_exceeded" }[];
  fills: { order_id: string; trades: TradeWire[]; remaining: string }[];
  vl_group: { primary_id: string; max_budget: string; budget_consumed: string; spent_token: string };
}

/** GET /balances shape: built by balance-rows.ts for the engine and the HTTP route alike. */
export type BalancesWire = BalancesEnvelope;

export interface SettleReport {
  broadcast: number;
  confirmed: number;
  failed: number;
}

/** A POST /orders body validated by Engine.validateOrder: engine units plus the signature. */
export type ParsedOrder = IntakeOrder;

export interface EngineSnapshot {
  readonly clock: ClockState;
  readonly rng: RngState;
  readonly log: EventLogState;
  readonly ledger: LedgerState;
  readonly orders: readonly OrderRecord[];
  readonly fills: FillStoreState;
  readonly vl: readonly VlBatchRecord[];
  readonly settlements: readonly SettlementBatch[];
  readonly broadcastUpTo: number;
  readonly orderSeq: number;
  readonly depositCursor: bigint;
  readonly executorId: number;
  readonly faults: FaultPlan;
  readonly faultedPairs: readonly [number, readonly number[]][];
  readonly desk: SwapDeskState;
  readonly swapTerms: readonly [string, SwapChainTerms][];
  readonly vaultEventsSeen: readonly string[];
  readonly vaultDebt: readonly [string, bigint][];
  readonly withdrawHolds: readonly [string, WithdrawHold][];
  /** The fault plan's own streams (absent in states saved before they had their own). */
  readonly faultRngs?: { readonly reverts: RngState; readonly spreads: RngState };
}

/** A co-signed withdrawal not mined yet: what it keeps frozen, until when (see holdWithdrawal). */
export interface WithdrawHold {
  readonly owner: string;
  /** The intent's uuid, decimal. */
  readonly uuid: string;
  readonly amounts: readonly [string, bigint][];
  readonly deadlineSec: number;
}

export class Engine {
  readonly registry: Registry;
  readonly clock: VirtualClock;
  readonly rng: Rng;
  /**
   * The fault plan's draws, each on a stream of its own: which settlement legs a
   * revertFraction reverts, and which fills a spreadFills plan spreads. Apart from the
   * engine's stream (ids, quotes) and from each other, so a swap quote, or turning spread
   * fills on, does not move which fills revert.
   */
  private readonly revertRng: Rng;
  private readonly spreadRng: Rng;
  readonly chain: ChainPort;
  /** Orders are logged by reference and fills by id; these views pick their immutable fields. */
  readonly log = new EventLog({
    order_placed: (o: OrderRecord) => ({
      order_id: o.id,
      owner: o.owner,
      symbol: o.market.symbol,
      side: o.side,
      price_ticks: o.priceTicks,
      lots: o.amountLots,
      from_amount: o.fromAmount,
      to_amount: o.toAmount,
      vl_batch_id: o.vlBatchId,
    }),
    fill: (id: number) => {
      const f = this.fills.get(id);
      return {
        fill_id: f.id,
        maker: f.makerOrderId,
        taker: f.takerOrderId,
        price_ticks: f.priceTicks,
        lots: f.lots,
        quote_raw: f.quoteRaw,
        spread: f.spreadRaw,
      };
    },
  });
  readonly ledger = new Ledger();
  readonly cancelCooldownSec: number;
  readonly vlLimits: VlBatchLimits;
  readonly spreadSplit: SpreadSplit;
  readonly settlementBatchSize: number;
  /** Vault owner of fees and the protocol's spread share. */
  readonly protocolOwner: string;
  private executorIdValue: number;
  private faults: FaultPlan;

  private readonly intake: OrderIntake;
  private readonly intakeCtx: IntakeContext;
  /** Order id → record (off-heap probe table; see order-index.ts). */
  private orders = new OrderIndex<OrderRecord>();
  /**
   * Owner → its orders in placement order, indexed on read: placing an order only
   * adds it to `orders`, and ordersOf() files the orders placed since the last read
   * (seq ownersIndexedUpTo + 1 on) before answering, so the hot path skips this map.
   */
  private ordersByOwner = new Map<string, OrderRecord[]>();
  private ownersIndexedUpTo = 0;
  /**
   * Every fill, in columns (see fill-store.ts), naming its orders by seq. Orders enter
   * the index in seq order (1, 2, 3, …: every placement takes orderSeq + 1, and restore
   * re-inserts by seq), so seq n is the n-th record.
   */
  private readonly fills = new FillStore((seq) => this.orderAtSeq(seq));
  private books = new Map<string, MarketBook>();
  private units = new Map<string, MarketUnits>();
  private vlBatches = new Map<string, VlBatchRecord>();
  private settlements: SettlementBatch[] = [];
  /** Fills are broadcast in id order: ids above this one are still pending. */
  private broadcastUpTo = 0;
  /** Settlement id → fill ids whose pair got a fault installed (cleared on receipt). */
  private faultedPairs = new Map<number, number[]>();
  private orderSeq = 0;
  private depositCursor = 0n;
  /** Vault events already applied, as `txHash:logIndex` (the sync is idempotent even across a cursor rewind). */
  private vaultEventsSeen = new Set<string>();
  /** `owner|token` → withdrawn on chain beyond what was available (see applyWithdrawal). */
  private vaultDebt = new Map<string, bigint>();
  /** `owner|uuid` → the frozen amounts of a co-signed withdrawal that is not mined yet. */
  private withdrawHolds = new Map<string, WithdrawHold>();
  /** Quotes, quote lifecycle and permit nonces of POST /swap/quote(/batch) and POST /swap. */
  readonly desk: SwapDesk;
  private swapTerms = new Map<string, SwapChainTerms>();
  /** First fill id of a swap not broadcast yet → its swap order id (a swap's fills are contiguous). */
  private swapFillStarts = new Map<number, string>();
  /** Blocks the confirmation delay still asks of the mined, unconfirmed batches (as of the last receipt pass). */
  private confirmationsOwed = 0;
  /** Serialises async settlement / sync steps. */
  private queue: Promise<unknown> = Promise.resolve();
  /** The cancel commands' view of this engine (reads the current maps, which restore() replaces). */
  private readonly cancelHost: CancelHost;
  /** Record timestamps: one shared Instant per clock reading (see instant.ts). */
  private readonly instants: InstantSource;

  constructor(o: EngineOptions) {
    this.registry = o.registry;
    this.clock = o.clock ?? new VirtualClock();
    this.instants = new InstantSource(this.clock);
    this.rng = new Rng(engineSeed(o.seed));
    this.revertRng = new Rng(`${String(o.seed)}/fault-reverts`);
    this.spreadRng = new Rng(`${String(o.seed)}/fault-spreads`);
    this.chain = o.chain;
    this.executorIdValue = o.executorId;
    this.cancelCooldownSec = o.cancelCooldownSec ?? DEFAULT_CANCEL_COOLDOWN_SEC;
    this.vlLimits = o.vlBatch ?? DEFAULT_VL_LIMITS;
    if (this.vlLimits.min < 1 || this.vlLimits.max < this.vlLimits.min || this.vlLimits.max > 4096) {
      throw new RangeError(`bad VL batch limits ${JSON.stringify(this.vlLimits)}`);
    }
    this.faults = o.faults ? parseFaultPlan(o.faults) : {};
    this.spreadSplit = o.spreadSplit ?? DEFAULT_SPREAD_SPLIT;
    this.settlementBatchSize = Math.min(o.settlementBatchSize ?? o.chain.maxBatchSize, o.chain.maxBatchSize);
    this.protocolOwner = o.chain.feeRecipient.toLowerCase();
    this.intake = new OrderIntake(this.registry);
    this.intakeCtx = { registry: this.registry, nowSec: 0, executorId: this.executorIdValue };
    this.cancelHost = {
      cancelCooldownSec: this.cancelCooldownSec,
      nowMs: () => this.clock.nowMs(),
      order: (id) => this.orders.get(id),
      ordersOf: (owner) => this.ordersOf(owner),
      vlBatch: (id) => this.vlBatches.get(id),
      cancelNow: (o, reason) => this.cancelNow(o, reason),
    };
    const sw = o.swaps ?? {};
    this.desk = new SwapDesk({
      registry: this.registry,
      clock: this.clock,
      rng: this.rng,
      executorId: () => this.executorIdValue,
      liquidity: bookLiquidity(this.books),
      vaultAvailable: (owner, token) => this.available(owner, token),
      permitReader: sw.permitReader,
      usdPrice: sw.usdPrice ?? fixedUsdPrice(DEFAULT_USD_PRICES),
      gas: sw.gas,
      vaultAddress: sw.vaultAddress ?? MEMORY_VAULT_ADDRESS,
      routerAddress: sw.routerAddress,
      chainId: sw.chainId ?? 31337,
      quoteTimeouts: () => this.faults.quoteTimeouts,
    });
    for (const m of this.registry.markets()) {
      this.books.set(m.symbol, new MarketBook());
      this.units.set(m.symbol, marketUnitsOf(m));
    }
  }

  // ================================================================ configuration

  get executorId(): number {
    return this.executorIdValue;
  }

  /** Executor rotation: outstanding signed ids of the old executor stop validating. */
  setExecutorId(id: number): void {
    if (!isExecutorId(id)) throw new RangeError(`executor id must be a whole number 0-15, got ${JSON.stringify(id) ?? String(id)}`);
    this.executorIdValue = id;
    this.log.append("executor_changed", this.clock.nowMs(), { executor_id: id });
  }

  setFaultPlan(plan: FaultPlan): void {
    this.faults = parseFaultPlan(plan);
    this.log.append("fault_plan", this.clock.nowMs(), { plan: JSON.stringify(this.faults) });
  }

  faultPlan(): FaultPlan {
    return this.faults;
  }

  // ================================================================ deposits

  /** Credit a deposit observed on chain to the owner's available vault balance. */
  creditDeposit(owner: string, token: string, amount: bigint): void {
    const t = this.registry.token(token);
    if (!t) throw new ExchangeError("VALIDATION", 400, `token ${token} is not in the registry`);
    if (amount <= 0n) throw new ExchangeError("VALIDATION", 400, "deposit amount must be positive");
    const ow = owner.toLowerCase();
    this.ledger.credit(ow, t.address, amount);
    this.log.append("deposit", this.clock.nowMs(), { owner: ow, token: t.address, amount });
  }

  /**
   * Credit a deposit the caller saw mined (the memory exchange's fund(), which is synchronous):
   * once, and marked seen, so the next sync does not credit it a second time.
   */
  applyDepositEvent(ev: { owner: string; token: string; amount: bigint; txHash: string; logIndex: number }): void {
    const key = `${ev.txHash}:${ev.logIndex}`;
    if (this.vaultEventsSeen.has(key)) return;
    this.vaultEventsSeen.add(key);
    this.creditDeposit(ev.owner, ev.token, ev.amount);
  }

  /** Pull deposit events from the chain port since the last sync and credit them (alias of syncVaultEvents). */
  async syncDeposits(): Promise<number> {
    return (await this.syncVaultEvents()).deposits;
  }

  /**
   * One pass over the vault events mined since the last sync, in chain order:
   * Exchange Deposit and Router IntentDeposit credit, Exchange Withdrawal debits.
   * Idempotent per event (txHash + logIndex). The IntentDeposit of a swap this
   * engine broadcast is skipped: that swap's receipt applies the whole intent.
   */
  syncVaultEvents(): Promise<VaultSyncReport> {
    return this.serialised(async () => {
      const head = await this.chain.blockNumber();
      const out: VaultSyncReport = { deposits: 0, withdrawals: 0, block: head };
      if (head <= this.depositCursor) {
        if (this.withdrawHolds.size > 0) this.expireWithdrawHolds();
        if (this.vaultDebt.size > 0) this.coverVaultDebts();
        return out;
      }
      for (const e of await this.vaultEventsUpTo(head)) {
        this.vaultEventsSeen.add(`${e.ev.txHash}:${e.ev.logIndex}`);
        if (e.kind === "withdrawal") {
          this.applyWithdrawal(e.ev);
          out.withdrawals++;
        } else {
          this.creditDeposit(e.ev.owner, e.ev.token, e.ev.amount);
          out.deposits++;
        }
      }
      this.depositCursor = head;
      // After the events: an intent mined before its deadline is paid out of its hold first.
      if (this.withdrawHolds.size > 0) this.expireWithdrawHolds();
      // Then what is owed, with what lapsed holds gave back counted before any order is cancelled.
      if (this.vaultDebt.size > 0) this.coverVaultDebts();
      return out;
    });
  }

  /**
   * The vault events mined after the last sync up to `head` that a sync would apply, in
   * chain order (the sort is stable, so same-position events keep the kind order below):
   * not seen before, of a listed token, and not the IntentDeposit of a swap this engine
   * broadcast (that swap's receipt applies the whole intent). Reads only.
   */
  private async vaultEventsUpTo(head: bigint): Promise<VaultEvent[]> {
    const from = this.depositCursor + 1n;
    if (head < from) return [];
    const events: VaultEvent[] = [
      ...(await this.chain.depositEvents(from, head)).map((ev): VaultEvent => ({ kind: "deposit", ev })),
      ...(this.chain.intentDepositEvents ? await this.chain.intentDepositEvents(from, head) : []).map((ev): VaultEvent => ({ kind: "intent_deposit", ev })),
      ...(this.chain.withdrawalEvents ? await this.chain.withdrawalEvents(from, head) : []).map((ev): VaultEvent => ({ kind: "withdrawal", ev })),
    ];
    events.sort((a, b) => (a.ev.blockNumber < b.ev.blockNumber ? -1 : a.ev.blockNumber > b.ev.blockNumber ? 1 : a.ev.logIndex - b.ev.logIndex));
    const ownSwapTxs = new Set(this.settlements.filter((b) => b.kind === "swap").map((b) => b.txHash));
    return events.filter(
      (e) => !this.vaultEventsSeen.has(`${e.ev.txHash}:${e.ev.logIndex}`) && this.registry.token(e.ev.token) !== undefined && !(e.kind === "intent_deposit" && ownSwapTxs.has(e.ev.txHash)),
    );
  }

  /**
   * An owner's vault moves mined since the last sync and not in the ledger yet, per token
   * (deposits in, withdrawals out): what the next sync (a balance read, a settlement round)
   * will apply. Reads the chain; changes nothing (the run viewer's account page).
   */
  async unsyncedVaultMoves(owner: string): Promise<Map<string, { deposits: bigint; withdrawals: bigint }>> {
    const who = owner.toLowerCase();
    const out = new Map<string, { deposits: bigint; withdrawals: bigint }>();
    for (const e of await this.vaultEventsUpTo(await this.chain.blockNumber())) {
      if (e.ev.owner.toLowerCase() !== who) continue;
      const token = e.ev.token.toLowerCase();
      const m = out.get(token) ?? { deposits: 0n, withdrawals: 0n };
      if (e.kind === "withdrawal") m.withdrawals += e.ev.amount;
      else m.deposits += e.ev.amount;
      out.set(token, m);
    }
    return out;
  }

  /**
   * A withdrawal mined on chain leaves the owner's available balance. The
   * co-signed path only ever pays out available funds; an emergency withdrawal
   * may exceed them (it ignores open orders). Then the ledger takes what is
   * available and owes the rest (`uncovered`), which coverVaultDebts collects
   * from the reservations of the owner's open orders; fills already matched keep
   * theirs (on chain they now fail with INSUFFICIENT_VAULT_BALANCE), and what is
   * still owed is collected from whatever they release — a failed fill, a later
   * deposit — so the ledger converges on the vault again.
   */
  private applyWithdrawal(ev: WithdrawalEvent): void {
    const owner = ev.owner.toLowerCase();
    const token = ev.token.toLowerCase();
    // A co-signed intent mined: what its hold froze becomes available again and is paid out below.
    if (ev.instantUuid !== undefined) this.releaseWithdrawHold(`${owner}|${ev.instantUuid}`, "mined");
    const avail = this.ledger.available(owner, token);
    const take = ev.amount < avail ? ev.amount : avail;
    if (take > 0n) this.ledger.debitAvailable(owner, token, take);
    const uncovered = ev.amount - take;
    if (uncovered > 0n) this.vaultDebt.set(`${owner}|${token}`, (this.vaultDebt.get(`${owner}|${token}`) ?? 0n) + uncovered);
    this.log.append("withdrawal", this.clock.nowMs(), { owner, token, amount: ev.amount, uncovered, tx_hash: ev.txHash });
  }

  /**
   * The executor co-signed a withdrawal (POST /withdraw): its amounts stay frozen until the
   * intent is mined (applyWithdrawal) or, once its deadline has passed (the contract then
   * refuses it), until the next vault sync, so the same funds cannot back an order, a swap
   * or a second withdrawal meanwhile. The caller has checked them against available() in
   * the same synchronous step.
   */
  holdWithdrawal(owner: string, uuid: bigint, amounts: ReadonlyMap<string, bigint>, deadlineSec: number): void {
    const o = owner.toLowerCase();
    const held: [string, bigint][] = [...amounts].map(([t, a]) => [t.toLowerCase(), a]);
    for (const [token, amount] of held) this.ledger.freeze(o, token, amount);
    const hold: WithdrawHold = { owner: o, uuid: uuid.toString(), amounts: held, deadlineSec };
    this.withdrawHolds.set(`${o}|${hold.uuid}`, hold);
    this.log.append("withdraw_hold", this.clock.nowMs(), { owner: o, uuid: hold.uuid, amounts: held, deadline: deadlineSec });
  }

  /** Whether a co-signed withdrawal of `owner` under `uuid` still holds its amounts. */
  hasWithdrawHold(owner: string, uuid: bigint): boolean {
    return this.withdrawHolds.has(`${owner.toLowerCase()}|${uuid}`);
  }

  private releaseWithdrawHold(key: string, why: "mined" | "expired"): void {
    const hold = this.withdrawHolds.get(key);
    if (hold === undefined) return;
    this.withdrawHolds.delete(key);
    for (const [token, amount] of hold.amounts) this.ledger.release(hold.owner, token, amount);
    this.log.append("withdraw_hold_released", this.clock.nowMs(), { owner: hold.owner, uuid: hold.uuid, why });
  }

  /**
   * An order as errorCodeForSide weighs it: its signed expiration, whether it is a swap, and
   * whether its owner owes the vault the token it gives (withdrawn on chain beyond available,
   * so an INSUFFICIENT_VAULT_BALANCE revert is this side's).
   */
  private revertSide(o: OrderRecord, isMaker: boolean): RevertSide {
    return { expiration: o.expiration, isSwap: o.orderType === "swap", owesVault: this.vaultDebt.has(`${o.owner}|${o.fromToken}`), isMaker };
  }

  /**
   * Holds whose deadline has passed: the contract refuses their intents now, so the funds are
   * free again. Called only by a vault sync, once the chain's events up to now are applied:
   * an intent mined before its deadline but not synced yet must be paid from its hold, not
   * from funds an order took after the deadline.
   */
  private expireWithdrawHolds(): void {
    const nowSec = this.clock.nowSec();
    for (const [key, hold] of this.withdrawHolds) if (hold.deadlineSec <= nowSec) this.releaseWithdrawHold(key, "expired");
  }

  /**
   * Owed withdrawals are taken from available balances first; what is still owed then
   * cancels the owner's pending orders that give the token, newest first, until their
   * released reservations cover it. Their funds have left the vault: left in the book,
   * each would fail every taker that reached it.
   */
  private coverVaultDebts(): void {
    this.collectVaultDebts();
    for (const key of [...this.vaultDebt.keys()]) {
      const [owner, token] = key.split("|") as [string, string];
      const orders = this.ordersOf(owner);
      for (let i = orders.length - 1; i >= 0 && this.vaultDebt.has(key); i--) {
        const o = orders[i]!;
        if (o.status !== "pending" || o.fromToken !== token) continue;
        o.error = "cancelled: the order's funds were withdrawn from the vault on chain";
        o.errorCode = "INSUFFICIENT_EQUITY";
        this.cancelNow(o, "vault_withdrawn");
      }
    }
  }

  /** Take owed withdrawal amounts out of available balances that have grown since. */
  private collectVaultDebts(): void {
    for (const [k, debt] of this.vaultDebt) {
      const [owner, token] = k.split("|") as [string, string];
      const avail = this.ledger.available(owner, token);
      const take = debt < avail ? debt : avail;
      if (take === 0n) continue;
      this.ledger.debitAvailable(owner, token, take);
      if (take === debt) this.vaultDebt.delete(k);
      else this.vaultDebt.set(k, debt - take);
      this.log.append("withdrawal_debt_paid", this.clock.nowMs(), { owner, token, amount: take, left: debt - take });
    }
  }

  /**
   * The owner's vault columns as GET /balances shows them: the ledger net of owed
   * withdrawals (taken from available first, then from frozen), so they add up to
   * what the vault contract holds.
   */
  vaultAccount(owner: string, token: string): Account {
    const ow = owner.toLowerCase();
    const tk = token.toLowerCase();
    const acc = this.ledger.peek(ow, tk);
    const debt = this.vaultDebt.get(`${ow}|${tk}`);
    if (debt === undefined) return acc;
    const fromAvailable = debt < acc.available ? debt : acc.available;
    const rest = debt - fromAvailable;
    return { available: acc.available - fromAvailable, frozen: rest < acc.frozen ? acc.frozen - rest : 0n };
  }

  /** Available (unfrozen) vault balance net of owed withdrawals: what orders, swaps and co-signed withdrawals may spend. */
  available(owner: string, token: string): bigint {
    return this.spendable(owner.toLowerCase(), token.toLowerCase());
  }

  /** available() for keys already lowercase (order entry): one map read while nothing is owed. */
  private spendable(owner: string, token: string): bigint {
    const avail = this.ledger.available(owner, token);
    if (this.vaultDebt.size === 0) return avail;
    const debt = this.vaultDebt.get(`${owner}|${token}`) ?? 0n;
    return avail > debt ? avail - debt : 0n;
  }

  // ================================================================ placing orders

  /** POST /orders. Validation order: decimal → precision → market → floors → expiration → uuid_int → equity → STP. */
  placeOrder(body: OrderBody): PlaceResult {
    return this.placeParsed(this.validateOrder(body));
  }

  /**
   * The stateless half of POST /orders (decimal → precision → market → floors →
   * expiration → uuid_int): the body in engine units with its signature. It
   * reads the clock and the executor id, so place it before either moves.
   * `signature`: the one to keep when the caller has read the body's already (the
   * route passes its own, lowercased, and places the order only once it verified it);
   * by default the body's own when it is hex, else null. Reading 132 characters the
   * caller already read costs a few hundred ns per order.
   */
  validateOrder(body: OrderBody, signature: Hex | null = signatureOf(body.signature)): ParsedOrder {
    const v = this.intake.intake(body as unknown as Record<string, unknown>, this.intakeContext());
    v.signature = signature;
    return v;
  }

  /** The stateful half of POST /orders (duplicate id → equity → STP, then match and rest), for a validateOrder result. */
  placeParsed(v: ParsedOrder): PlaceResult {
    this.checkNewId(v.orderId, v);
    if (this.spendable(v.owner, v.fromToken) < v.fromAmount) throw this.equityError(v.owner, v.fromToken, v.fromAmount);
    const planned = this.planOrder(v, v.signature, null, v.lots, v.fromAmount);
    const first = this.fills.count + 1;
    this.commitOrder(planned, v.fromAmount);
    const last = this.fills.count;
    let fillIds = NO_FILL_IDS;
    if (last >= first) {
      const ids = new Array<number>(last - first + 1);
      for (let id = first; id <= last; id++) ids[id - first] = id;
      fillIds = ids;
    }
    return { orderId: v.orderId, status: planned.record.status, fillIds };
  }

  /** The intake's view of now and the executor id: one object, refreshed per call rather than built per order. */
  private intakeContext(): IntakeContext {
    const ctx = this.intakeCtx;
    ctx.nowSec = this.clock.nowSec();
    ctx.executorId = this.executorIdValue;
    return ctx;
  }

  private checkNewId(orderId: string, hashed?: HashedOrderId): void {
    if (this.orders.has(orderId, hashed)) throw new ExchangeError("CONFLICT", 409, `order_id ${orderId} already exists`);
  }

  private equityError(owner: string, token: string, need: bigint): ExchangeError {
    const available = this.spendable(owner, token);
    const t = this.registry.token(token);
    return new ExchangeError(
      "INSUFFICIENT_EQUITY",
      400,
      `available equity ${t ? formatRaw(available, t.decimals) : available} ${t?.symbol ?? token} is below the order's frozen-amount need ${t ? formatRaw(need, t.decimals) : need}`,
      { available_raw: available.toString(), required_raw: need.toString(), token },
    );
  }

  /** Build the record and its match plan; throws STP_BLOCKED without touching anything. */
  private planOrder(v: IntakeOrder, signature: Hex | null, vlBatchId: string | null, lots: bigint, need: bigint, match = true): PlannedOrder {
    const now = this.instants.now();
    const record = newOrderRecord(
      v.orderId,
      v.owner,
      this.orderSeq + 1,
      v.market,
      v.side,
      v.priceTicks,
      lots,
      v.fromToken,
      v.toToken,
      v.fromAmount,
      v.toAmount,
      v.uuidInt,
      v.expiration,
      this.registry.feeBps,
      signature,
      vlBatchId,
      "limit",
      now,
      need,
    );
    if (!match) return { record, plan: [], expired: [] };
    return planMatches(this.books.get(record.market.symbol)!.oppositeSide(record.side), this.units.get(record.market.symbol)!, record, this.clock.nowSec());
  }

  /** Apply a validated, planned order: freeze, insert, fill, rest. Cannot fail. */
  private commitOrder(p: PlannedOrder, need: bigint): void {
    const o = p.record;
    const now = o.createdAt;
    this.orderSeq = o.seq;
    this.ledger.freeze(o.owner, o.fromToken, need);
    this.orders.set(o.id, o);
    this.log.appendRef("order_placed", now.ms, o);
    for (const m of p.expired) m.inBook = false;
    for (const f of p.plan) this.executeFill(f, o, now);
    if (o.remainingLots > 0n) this.books.get(o.market.symbol)!.restingSide(o.side).add(o);
    else this.moveOrder(o, "matched", now);
  }

  private executeFill(f: PlannedFill, taker: OrderRecord, now: Instant): void {
    const maker = f.maker;
    const spread = fillSpread(f, taker, this.faults.spreadFills, this.spreadRng);
    // The maker gives its from-token's leg: the base amount to a bid taker, the quote amount to an ask taker.
    const makerGive = taker.side === "bid" ? f.baseRaw : f.quoteRaw;
    const id = this.fills.append(maker, taker, f.lots, f.baseRaw, f.quoteRaw, makerGive, takerGiveOf(f, taker, spread), spread, now.ms);
    this.applyFillProgress(maker, f.lots, now);
    this.applyFillProgress(taker, f.lots, now);
    this.log.appendRef("fill", now.ms, id);
    if (maker.remainingLots === 0n) {
      maker.inBook = false;
      this.moveOrder(maker, "matched", now);
    }
  }

  /** The VL response's trade items for fills [first, last]. */
  private tradesOf(first: number, last: number): TradeWire[] {
    const out: TradeWire[] = [];
    for (let id = first; id <= last; id++) {
      const f = this.fills.get(id);
      const m = this.orders.get(f.takerOrderId)!.market;
      out.push({
        quantity: formatUnits(f.lots, m.quantityPrecision),
        price: formatUnits(f.priceTicks, m.tickPrecision),
        counterparty_order_id: f.makerOrderId,
        ts: isoOf(f.at.ms),
      });
    }
    return out;
  }

  /** A fill of `lots` was appended for `o` (the store linked it into the order's list). */
  private applyFillProgress(o: OrderRecord, lots: bigint, now: Instant): void {
    // An exhausted order keeps the shared 0n literal rather than a fresh zero bigint of its own.
    o.remainingLots = o.remainingLots === lots ? 0n : o.remainingLots - lots;
    o.updatedAt = now;
  }

  /** Status change along the spec's table; leaving "pending" releases the unused reservation. */
  private moveOrder(o: OrderRecord, to: OrderStatus, now: Instant): void {
    if (!canTransition(o.status, to)) throw new Error(`illegal order transition ${o.status} → ${to} for ${o.id}`);
    const from = o.status;
    o.status = to;
    o.updatedAt = now;
    // error_code is a terminal failure code: a reverted fill that the order outlived (its
    // quantity went back to the book and filled again) does not make its success a failure.
    // `error` keeps the latest reverted fill's reason, as the spec describes it.
    if (to === "settled") o.errorCode = null;
    if (from === "pending") {
      o.inBook = false;
      const inflight = this.inflightOf(o);
      const unused = o.reserved - inflight;
      if (unused > 0n) {
        this.ledger.release(o.owner, o.fromToken, unused);
        o.reserved = inflight;
      }
    }
    // pending → matched is implied by the fill that exhausted the order; log the other moves.
    if (to !== "matched") this.log.append("order_status", now.ms, { order_id: o.id, from, to });
  }

  // ================================================================ cancels

  /** POST /orders/cancel (signature over CancelOrder verified by the caller). */
  cancelOrder(p: { owner: string; orderId: unknown; uuidInt: unknown }): { status: "ok" } {
    return cancelOrder(this.cancelHost, p);
  }

  private cancelNow(o: OrderRecord, reason: CancelReason): void {
    const now = this.instants.now();
    this.log.append("order_cancel", now.ms, { order_id: o.id, reason });
    this.moveOrder(o, "cancelled", now);
    if (this.vaultDebt.size > 0) this.collectVaultDebts();
  }

  /**
   * Withdraw a seeded market agent's quote at once (fixtures/activity.ts re-quotes every
   * step, inside the cancel cooldown users have). False when it is no longer pending.
   */
  cancelAgentOrder(orderId: string): boolean {
    const o = this.orders.get(orderId);
    if (!o || o.status !== "pending") return false;
    this.cancelNow(o, "agent_requote");
    return true;
  }

  /** DELETE /orders/cancel-all. */
  cancelAll(owner: string): CancelAllResult {
    return cancelAll(this.cancelHost, owner);
  }

  // ================================================================ VL batches

  /** POST /orders/vl/batch (every leg's signature verified by the caller). */
  placeVlBatch(bodies: readonly OrderBody[]): VlBatchResult {
    if (!Array.isArray(bodies)) throw new ExchangeError("VALIDATION", 400, "orders must be an array");
    checkBatchSize(bodies.length, this.vlLimits);
    const ctx = this.intakeContext();
    const leg0Id = bodies[0]!.order_id;
    const groupId = isUuid4(leg0Id) ? groupIdOf(leg0Id.toLowerCase()) : 0n;
    const legs: IntakeOrder[] = bodies.map((b, i) => {
      // The shared validator checks uuid_int as a standalone id, last; give it
      // that encoding and check the real one against the VL leg rule right after.
      const standalone = isUuid4(b.order_id) ? standaloneUuidInt(b.order_id.toLowerCase(), this.executorIdValue).toString() : b.uuid_int;
      const v = this.intake.intake({ ...(b as unknown as Record<string, unknown>), uuid_int: standalone }, ctx);
      const uuidInt = parseUint256(b.uuid_int, "uuid_int");
      checkVlLegUuidInt(v.orderId, uuidInt, this.executorIdValue, groupId, i);
      return { ...v, uuidInt };
    });
    const owner = legs[0]!.owner;
    const spent = legs[0]!.fromToken;
    legs.forEach((l, i) => {
      if (l.owner !== owner) throw new ExchangeError("VALIDATION", 400, `orders[${i}].owner_address differs from leg 0`);
      if (l.fromToken !== spent) throw new ExchangeError("VALIDATION", 400, `orders[${i}] spends a different token than leg 0`);
    });
    checkDistinctMarkets(legs);
    const ids = new Set<string>();
    for (const l of legs) {
      this.checkNewId(l.orderId, l);
      if (ids.has(l.orderId)) throw new ExchangeError("CONFLICT", 409, `order_id ${l.orderId} appears twice in the batch`);
      ids.add(l.orderId);
    }

    // Budget, in priority (array) order.
    const maxBudget = this.spendable(owner, spent);
    let left = maxBudget;
    const amendments: VlBatchResult["amendments"] = [];
    const cancelled: VlBatchResult["cancelled"] = [];
    const sized: { v: IntakeOrder; lots: bigint; need: bigint; dropped: boolean }[] = [];
    for (const v of legs) {
      const fullLots = v.lots;
      const need = v.fromAmount;
      if (need <= left) {
        sized.push({ v, lots: fullLots, need, dropped: false });
        left -= need;
        continue;
      }
      const ticks = v.priceTicks;
      const lots = maxLotsWithin(v.market, v.side, ticks, left);
      if (lots > 0n && passesFloor(v.market, v.side, lots, { units: ticks, scale: v.market.tickPrecision })) {
        const clippedNeed = needForLots(v.market, v.side, lots, ticks);
        sized.push({ v, lots, need: clippedNeed, dropped: false });
        left -= clippedNeed;
        amendments.push({
          order_id: v.orderId,
          original_amount: formatUnits(fullLots, v.market.quantityPrecision),
          actual_amount: formatUnits(lots, v.market.quantityPrecision),
          reason: "budget_clip",
        });
      } else {
        sized.push({ v, lots: fullLots, need: 0n, dropped: true });
        cancelled.push({ order_id: v.orderId, reason: "quota_exceeded" });
      }
    }
    if (sized.every((s) => s.dropped)) throw this.equityError(owner, spent, legs[0]!.fromAmount);

    // Plan every leg before committing any (STP may still reject the batch):
    // legs sit on distinct markets, so one leg's fills cannot change another's plan.
    const vlId = legs[0]!.orderId;
    const planned = sized.map((s, i) => ({ s, p: this.planOrder(s.v, signatureOf(bodies[i]!.signature), vlId, s.lots, s.need, !s.dropped) }));
    const fills: VlBatchResult["fills"] = [];
    let consumed = 0n;
    for (const { s, p } of planned) {
      // planOrder numbers every record as the next one; renumber in array order.
      const record: OrderRecord = { ...p.record, seq: this.orderSeq + 1 };
      if (s.dropped) {
        this.commitOrder({ record, plan: [], expired: [] }, 0n);
        this.cancelNow(record, "quota_exceeded");
        continue;
      }
      consumed += s.need;
      const first = this.fills.count + 1;
      this.commitOrder({ record, plan: p.plan, expired: p.expired }, s.need);
      if (this.fills.count >= first) {
        fills.push({ order_id: record.id, trades: this.tradesOf(first, this.fills.count), remaining: this.lotsText(record, record.remainingLots) });
      }
    }
    const rec: VlBatchRecord = { id: vlId, owner, spentToken: spent, legIds: legs.map((l) => l.orderId), maxBudget, budgetConsumed: consumed };
    this.vlBatches.set(vlId, rec);
    const token = this.registry.token(spent)!;
    this.log.append("vl_batch", this.clock.nowMs(), { vl_batch_id: vlId, owner, legs: [...rec.legIds], max_budget: maxBudget, consumed });
    return {
      order_ids: rec.legIds.slice(),
      amendments,
      cancelled,
      fills,
      vl_group: {
        primary_id: vlId,
        max_budget: formatRaw(maxBudget, token.decimals),
        budget_consumed: formatRaw(consumed, token.decimals),
        spent_token: token.symbol,
      },
    };
  }

  /** POST /orders/vl/cancel: every pending leg, or 429 (nothing changes) if any is in its cooldown. */
  cancelVlBatch(p: { owner: string; vlBatchId: unknown }): { status: "ok" } {
    return cancelVlBatch(this.cancelHost, p);
  }

  // ================================================================ swaps

  /** POST /swap/quote. */
  quoteSwap(body: unknown): Promise<QuoteWire> {
    return this.desk.quote(body);
  }

  /** POST /swap/quote/batch. */
  quoteSwapBatch(body: unknown): Promise<{ items: BatchItemWire[] }> {
    return this.desk.quoteBatch(body);
  }

  /** The Intent a POST /swap signature must verify against (410 QUOTE_GONE when the quote is not executable). */
  swapIntentOf(uuid: unknown): IntentMessage {
    return this.desk.intentOf(uuid);
  }

  /**
   * POST /swap after the HTTP layer verified the Intent signature (sub.signer).
   * Every check runs first (desk.prepare: 410 → 400 → 409 QUOTE_STALE → route
   * now: 409 STP_BLOCKED, 400 NO_LIQUIDITY / SLIPPAGE_EXCEEDED), so a rejection
   * changes nothing. Then the quote is consumed and a swap order (order_type
   * "swap") is created as the taker of one fill per route leg, freezing the vault
   * equity the legs need beyond the wallet deposit. Its fills settle as one
   * Router.executeIntent (settle()).
   */
  swap(sub: SwapSubmission): SwapResult {
    // Refuse up front rather than accept a swap that could never settle on this port.
    if (this.chain.submitIntent === undefined) throw new ExchangeError("UNAVAILABLE", 503, "swaps are not available on this chain");
    const p = this.desk.prepare(sub);
    const t = swapOrderTerms(p, this.registry);
    this.checkNewId(t.tradeId);
    if (this.spendable(t.owner, t.fromToken) < t.freeze) {
      throw new ExchangeError("QUOTE_STALE", 409, "vault equity changed since the quote; re-quote and re-submit");
    }
    this.desk.commit(p);
    const now = this.instants.now();
    const record = newOrderRecord(
      t.tradeId,
      t.owner,
      this.orderSeq + 1,
      t.market,
      t.side,
      t.priceTicks,
      t.amountLots,
      t.fromToken,
      t.toToken,
      t.fromAmount,
      t.toAmount,
      t.uuidInt,
      t.expiration,
      // No fee bps on the swap taker: the Router charges it the quoted gas instead (finishSwap).
      0,
      p.signature,
      null,
      "swap",
      now,
      t.freeze,
    );
    this.orderSeq = record.seq;
    this.ledger.freeze(record.owner, record.fromToken, t.freeze);
    this.orders.set(record.id, record);
    this.swapTerms.set(record.id, { intent: p.quote.intent, permit: p.permit, quoteUuid: p.quote.uuid, gas: t.gas });
    this.log.appendRef("order_placed", now.ms, record);
    this.log.append("swap_accepted", now.ms, {
      order_id: record.id,
      quote_uuid: p.quote.uuid,
      route: p.route.kind,
      input: p.route.input,
      output: p.route.output,
      deposit: t.deposit,
      freeze: t.freeze,
      gas: t.gas.amount,
    });
    this.swapFillStarts.set(this.fills.count + 1, record.id);
    for (const leg of p.route.legs) this.executeSwapLeg(leg, record, now);
    // Every leg crossed at acceptance: the swap is matched (the response still says pending, per spec).
    record.remainingLots = 0n;
    record.status = "matched";
    return { success: true, trade_id: record.id, status: "pending", fee_breakdown: { ...p.quote.wire.fee_breakdown } };
  }

  /** One route leg as a fill: the resting maker against the swap order (the taker). */
  private executeSwapLeg(leg: RouteLeg, swap: OrderRecord, now: Instant): void {
    const maker = leg.maker;
    const id = this.fills.append(
      maker,
      swap,
      leg.lots,
      leg.baseRaw,
      leg.quoteRaw,
      leg.makerAmount,
      leg.takerAmount,
      // What the taker pays above the maker's signed rate (a two-hop netting top-up); all the maker's.
      leg.takerAmount - minReceive(maker, leg.makerAmount),
      now.ms,
    );
    this.applyFillProgress(maker, leg.lots, now);
    this.log.appendRef("fill", now.ms, id);
    if (maker.remainingLots === 0n) {
      maker.inBook = false;
      this.moveOrder(maker, "matched", now);
    }
  }

  /** Pending fill ids → settlement transactions: match batches of `cap`, and one executeIntent per swap. */
  private planSettlements(pending: number[]): { ids: number[]; swapId: string | null }[] {
    const cap = this.settlementBatchSize;
    if (this.swapFillStarts.size === 0) return planBatches(pending, cap).map((ids) => ({ ids, swapId: null }));
    const out: { ids: number[]; swapId: string | null }[] = [];
    let run: number[] = [];
    const flush = () => {
      for (const ids of planBatches(run, cap)) out.push({ ids, swapId: null });
      run = [];
    };
    for (let i = 0; i < pending.length; ) {
      const id = pending[i]!;
      const swapId = this.swapFillStarts.get(id);
      if (swapId === undefined) {
        run.push(id);
        i++;
        continue;
      }
      flush();
      const n = this.fills.countOf(this.orders.get(swapId)!);
      out.push({ ids: pending.slice(i, i + n), swapId });
      i += n;
    }
    flush();
    return out;
  }

  /**
   * Fault-plan reverts of a swap transaction, installed on the router-leg fault
   * hook: revertSettlements by nth (mode does not matter: the Router reverts the
   * whole intent) and revertFills by fill id. revertFraction draws only for match
   * batches, so adding a swap does not shift the RNG stream of other faults.
   */
  private swapFaults(nth: number, fills: readonly FillRecord[]): Map<number, string> {
    const reverts = new Map<number, string>();
    const s = this.faults.revertSettlements?.find((r) => r.nth === nth);
    if (s) reverts.set(0, s.reason);
    fills.forEach((f, i) => {
      const byId = this.faults.revertFills?.find((r) => r.fill === f.id);
      if (byId && !reverts.has(i)) reverts.set(i, byId.reason);
    });
    return reverts;
  }

  private swapIntentLegs(fills: readonly FillRecord[]): IntentLeg[] {
    return fills.map((f) => {
      const maker = this.orders.get(f.makerOrderId)!;
      return { order: orderMessageOf(maker), signature: maker.signature ?? "0x", makerAmount: f.makerGive, takerAmount: f.takerGive };
    });
  }

  private async broadcastSwap(swapId: string, ids: number[]): Promise<void> {
    const submit = this.chain.submitIntent?.bind(this.chain);
    if (submit === undefined) throw new Error("the chain port has no submitIntent: swaps cannot settle on it");
    const swap = this.orders.get(swapId)!;
    const terms = this.swapTerms.get(swapId)!;
    const fills = ids.map((id) => this.fills.get(id));
    const nth = this.settlements.length + 1;
    const legs = this.swapIntentLegs(fills);
    const ci: ChainIntent = { intent: terms.intent, takerSignature: swap.signature ?? "0x", legs, permit: terms.permit, gas: terms.gas };
    const reverts = this.swapFaults(nth, fills);
    if (reverts.size > 0 && this.chain.setIntentLegFault === undefined) throw new Error("the chain port has no setIntentLegFault");
    for (const [i, reason] of reverts) await this.chain.setIntentLegFault!(legs[i]!.order, terms.intent, reason);
    const { txHash } = await submit(ci);
    const now = this.instants.now();
    this.settlements.push({ id: nth, fillIds: ids, atomic: true, kind: "swap", swapOrderId: swapId, txHash, status: "pending", minedBlock: null });
    if (reverts.size > 0) this.faultedPairs.set(nth, [...reverts.keys()].map((i) => ids[i]!));
    for (const f of fills) {
      this.moveFill(f.id, "confirming", now);
      this.fills.setBroadcast(f.id, txHash, nth);
    }
    this.swapFillStarts.delete(ids[0]!);
    this.broadcastUpTo = ids[ids.length - 1]!;
    this.log.append("settlement_broadcast", now.ms, { settlement_id: nth, tx_hash: txHash, fills: ids, atomic: true, kind: "swap", swap_order_id: swapId });
  }

  /**
   * A mined executeIntent. Success: every leg settles for its maker and the
   * protocol fee; the taker's wallet deposit enters its vault, the input leaves
   * (frozen part first, the rest out of the deposit), the output arrives unless
   * the Intent sent it to a recipient; the intermediate of a two-hop nets to zero.
   * Revert: every fill fails, makers get their quantity or funds back, the
   * taker's frozen equity is released and the swap order fails. Returns success.
   */
  private finishSwap(batch: SettlementBatch, r: BatchReceipt, fills: readonly FillRecord[], now: Instant): boolean {
    const swap = this.orders.get(batch.swapOrderId!)!;
    const terms = this.swapTerms.get(swap.id)!;
    this.desk.markMined(swap.id);
    swap.updatedAt = now;
    if (r.status === "reverted") {
      batch.status = "failed";
      const reason = r.revertReason ?? "TRANSACTION_REVERTED";
      // The revert is the whole transaction's: each party is weighed against all the others.
      const swapSide = this.revertSide(swap, false);
      const makers = fills.map((f) => this.revertSide(this.orders.get(f.makerOrderId)!, true));
      fills.forEach((f, i) => this.finishSwapLeg(f, "failed", reason, now, [swapSide, ...makers.filter((_, j) => j !== i)]));
      swap.error = reason;
      swap.errorCode = errorCodeForSide(reason, swapSide, makers, this.clock.nowSec());
      this.ledger.release(swap.owner, swap.fromToken, swap.reserved);
      swap.reserved = 0n;
      this.moveOrder(swap, "failed", now);
      return false;
    }
    batch.status = "confirmed";
    let input = 0n;
    let output = 0n;
    for (const f of fills) {
      const maker = this.orders.get(f.makerOrderId)!;
      if (maker.toToken === swap.fromToken) input += f.takerGive;
      if (maker.fromToken === swap.toToken) output += f.makerGive;
      this.finishSwapLeg(f, "settled", null, now);
    }
    // The Router's gas charge: off the output (receive_less) or on top of the input (pay_more), to the protocol.
    const gas = terms.gas.amount;
    if (gas > 0n) {
      if (terms.gas.token === swap.toToken) output -= gas;
      else input += gas;
      this.ledger.credit(this.protocolOwner, terms.gas.token, gas);
    }
    const deposit = terms.intent.initialDepositAmount;
    if (deposit > 0n) this.ledger.credit(swap.owner, swap.fromToken, deposit);
    this.ledger.burnFrozen(swap.owner, swap.fromToken, swap.reserved);
    if (input > swap.reserved) this.ledger.debitAvailable(swap.owner, swap.fromToken, input - swap.reserved);
    swap.reserved = 0n;
    if (terms.intent.recipient === ZERO_ADDRESS) this.ledger.credit(swap.owner, swap.toToken, output);
    this.log.append("swap_settled", now.ms, { order_id: swap.id, input, output, deposit, gas });
    this.moveOrder(swap, "settled", now);
    return true;
  }

  /**
   * The maker's side of one router leg (the taker side is applied once per swap). `others`:
   * on a failed leg, the transaction's other parties as errorCodeForSide weighs them.
   */
  private finishSwapLeg(f: FillRecord, outcome: "settled" | "failed", reason: string | null, now: Instant, others: readonly RevertSide[] = []): void {
    this.moveFill(f.id, outcome, now);
    this.fills.setRevertReason(f.id, reason);
    const maker = this.orders.get(f.makerOrderId)!;
    if (outcome === "settled") {
      const mv = this.movesOf(f);
      this.settleSide(maker, f.makerGive, 0n, mv.makerCredit);
      if (mv.makerFee > 0n) this.ledger.credit(this.protocolOwner, maker.toToken, mv.makerFee);
    } else {
      this.unwindSide(maker, f.lots, f.makerGive, reason, errorCodeForSide(reason, this.revertSide(maker, true), others, this.clock.nowSec()), now);
    }
    maker.updatedAt = now;
    if (maker.status === "matched" && this.fills.allFinal(maker)) this.moveOrder(maker, "settled", now);
  }

  // ================================================================ settlement

  /**
   * One settlement step: broadcast every unsettled fill in batches, then apply
   * every receipt that has reached the confirmation depth.
   */
  settle(): Promise<SettleReport> {
    return this.serialised(async () => {
      const broadcast = await this.broadcast();
      const { confirmed, failed } = await this.applyReceipts();
      return { broadcast, confirmed, failed };
    });
  }

  /**
   * Run settle() until nothing is in flight, mining blocks: one per round, or at once as
   * many as the confirmation delay still asks of the mined batches.
   */
  async settleAll(maxRounds = 1000): Promise<void> {
    for (let i = 0; i < maxRounds; i++) {
      await this.settle();
      if (this.broadcastUpTo === this.fills.count && !this.settlements.some((s) => s.status === "pending")) return;
      await this.chain.mine(Math.max(1, this.confirmationsOwed));
    }
    throw new Error("settleAll: settlement did not finish");
  }

  /**
   * Run `fn` while no settlement step or vault sync is part way through its awaits (they
   * queue behind it): an all-layer snapshot or restore must not land between a step's
   * broadcast and its receipts. `fn` must not itself settle or sync (it would wait for itself).
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.serialised(fn);
  }

  private serialised<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private faultsFor(nth: number, fills: readonly FillRecord[]): BatchFaults {
    const reverts = new Map<number, string>();
    let atomic = false;
    const s = this.faults.revertSettlements?.find((r) => r.nth === nth);
    if (s) {
      if (s.mode === "batch") {
        atomic = true;
        reverts.set(0, s.reason);
      } else fills.forEach((_, i) => reverts.set(i, s.reason));
    }
    fills.forEach((f, i) => {
      const byId = this.faults.revertFills?.find((r) => r.fill === f.id);
      if (byId && !reverts.has(i)) reverts.set(i, byId.reason);
    });
    const frac = this.faults.revertFraction;
    if (frac) fills.forEach((_, i) => {
      // Draw for every fill so the RNG stream does not depend on other faults.
      const hit = this.revertRng.chance(frac.fraction);
      if (hit && !reverts.has(i)) reverts.set(i, frac.reason);
    });
    return { atomic, reverts };
  }

  private async broadcast(): Promise<number> {
    if (this.broadcastUpTo === this.fills.count) return 0;
    const pending: number[] = [];
    for (let id = this.broadcastUpTo + 1; id <= this.fills.count; id++) pending.push(id);
    let n = 0;
    for (const { ids, swapId } of this.planSettlements(pending)) {
      if (swapId !== null) {
        await this.broadcastSwap(swapId, ids);
        n++;
        continue;
      }
      const fills = ids.map((id) => this.fills.get(id));
      const nth = this.settlements.length + 1;
      const rngBefore = this.revertRng.snapshot();
      const bf = this.faultsFor(nth, fills);
      const matches: ChainMatch[] = fills.map((f) => {
        const maker = this.orders.get(f.makerOrderId)!;
        const taker = this.orders.get(f.takerOrderId)!;
        return {
          maker: orderMessageOf(maker),
          makerSignature: maker.signature ?? "0x",
          taker: orderMessageOf(taker),
          takerSignature: taker.signature ?? "0x",
          makerAmount: f.makerGive,
          takerAmount: f.takerGive,
        };
      });
      let txHash: Hex;
      try {
        for (const [i, reason] of bf.reverts) await this.chain.setMatchFault(matches[i]!.maker, matches[i]!.taker, reason);
        txHash = (await this.chain.submitBatch(matches, { atomic: bf.atomic })).txHash;
      } catch (e) {
        // Nothing was broadcast: leave the fills pending and the RNG where it was.
        this.revertRng.restore(rngBefore);
        throw e;
      }
      const now = this.instants.now();
      const batch: SettlementBatch = { id: nth, fillIds: ids, atomic: bf.atomic, txHash, status: "pending", minedBlock: null };
      this.settlements.push(batch);
      if (bf.reverts.size > 0) this.faultedPairs.set(nth, [...bf.reverts.keys()].map((i) => ids[i]!));
      for (const f of fills) {
        this.moveFill(f.id, "confirming", now);
        this.fills.setBroadcast(f.id, txHash, nth);
      }
      this.broadcastUpTo = ids[ids.length - 1]!;
      this.log.append("settlement_broadcast", now.ms, { settlement_id: nth, tx_hash: txHash, fills: ids, atomic: bf.atomic });
      n++;
    }
    return n;
  }

  private async applyReceipts(): Promise<{ confirmed: number; failed: number }> {
    let confirmed = 0;
    let failed = 0;
    const delay = BigInt(this.faults.confirmationDelayBlocks ?? 0);
    const head = await this.chain.blockNumber();
    this.confirmationsOwed = 0;
    let faultsCleared = false;
    for (const batch of this.settlements) {
      if (batch.status !== "pending") continue;
      const r = await this.chain.getReceipt(batch.txHash as Hex);
      if (r === null) continue;
      if (head - r.blockNumber < delay) {
        this.confirmationsOwed = Math.max(this.confirmationsOwed, Number(delay - (head - r.blockNumber)));
        continue;
      }
      const now = this.instants.now();
      batch.minedBlock = r.blockNumber;
      if (batch.kind === "swap") {
        if (this.finishSwap(batch, r, batch.fillIds.map((id) => this.fills.get(id)), now)) confirmed++;
        else failed++;
      } else if (r.status === "reverted") {
        batch.status = "failed";
        failed++;
        // A fault plan's batch revert names one pair: the other pairs' makers are not its cause.
        // Those go first, so an order in both kinds of pair ends with the cause's code.
        const faultedFills = this.faultedPairs.get(batch.id);
        const isCause = (id: number) => faultedFills === undefined || faultedFills.includes(id);
        const inOrder = [...batch.fillIds.filter((id) => !isCause(id)), ...batch.fillIds.filter(isCause)];
        for (const id of inOrder) this.finishFill(id, "failed", r.revertReason ?? "TRANSACTION_REVERTED", now, isCause(id));
      } else {
        batch.status = "confirmed";
        confirmed++;
        const reasons = r.failures.length === 0 ? null : new Map(r.failures.map((x) => [x.index, x.reason]));
        for (let i = 0; i < batch.fillIds.length; i++) {
          const reason = reasons?.get(i);
          if (reason === undefined) this.finishFill(batch.fillIds[i]!, "settled", null, now);
          else this.finishFill(batch.fillIds[i]!, "reverted", reason, now);
        }
      }
      this.log.append("settlement_receipt", now.ms, {
        settlement_id: batch.id,
        status: batch.status,
        block: r.blockNumber,
        failed_mask: r.failedMask,
        reason: r.revertReason,
      });
      const faulted = this.faultedPairs.get(batch.id);
      if (faulted) {
        faultsCleared = true;
        this.faultedPairs.delete(batch.id);
        for (const id of faulted) {
          const f = this.fills.get(id);
          if (batch.kind === "swap") {
            await this.chain.clearIntentLegFault?.(orderMessageOf(this.orders.get(f.makerOrderId)!), this.swapTerms.get(batch.swapOrderId!)!.intent);
            continue;
          }
          await this.chain.clearMatchFault(orderMessageOf(this.orders.get(f.makerOrderId)!), orderMessageOf(this.orders.get(f.takerOrderId)!));
        }
      }
    }
    // The fault clears above are signed after the round's last read: send them now, not
    // with whatever reads the chain next.
    if (faultsCleared) await this.chain.flush?.();
    // Collect only: cancelling for a debt waits for the next vault sync, which first lets go
    // of withdrawal holds whose deadline passed (they may cover it).
    if (this.vaultDebt.size > 0) this.collectVaultDebts();
    return { confirmed, failed };
  }

  private moveFill(id: number, to: FillStatus, now: Instant): void {
    // The store, not a record (a copy taken earlier), holds the current status.
    const from = this.fills.statusOf(id);
    if (!canMoveFill(from, to)) throw new Error(`illegal fill transition ${from} → ${to} for fill ${id}`);
    this.fills.setStatus(id, to, now.ms);
    this.log.append("fill_status", now.ms, { fill_id: id, from, to });
    // Both orders' views show their fills' settlement (settlement_summary, fills): a client
    // syncing with updated_after must see the move (pending → confirming changes no order status).
    this.orderAtSeq(this.fills.makerSeqOf(id)).updatedAt = now;
    this.orderAtSeq(this.fills.takerSeqOf(id)).updatedAt = now;
  }

  /** The order placed `seq`-th (how fills name their orders). */
  private orderAtSeq(seq: number): OrderRecord {
    const o = this.orders.atPosition(seq - 1);
    if (o?.seq !== seq) throw new Error(`order index out of step: position ${seq - 1} holds seq ${o?.seq}`);
    return o;
  }

  /**
   * Apply a final fill outcome to both orders and the ledger. Reads the fill's
   * columns by id rather than building its record: a round settles thousands.
   */
  /** `mayBeCause`: false for a pair failed only because its batch did (a fault plan named another pair). */
  private finishFill(id: number, outcome: "settled" | "reverted" | "failed", reason: string | null, now: Instant, mayBeCause = true): void {
    this.moveFill(id, outcome, now);
    this.fills.setRevertReason(id, reason);
    const maker = this.orderAtSeq(this.fills.makerSeqOf(id));
    const taker = this.orderAtSeq(this.fills.takerSeqOf(id));
    const makerGive = this.fills.makerGiveOf(id, maker.side);
    const takerGive = this.fills.takerGiveOf(id);
    if (outcome === "settled") {
      const mv = this.movesFor(maker, taker, makerGive, takerGive);
      this.settleSide(maker, makerGive, 0n, mv.makerCredit);
      this.settleSide(taker, takerGive, mv.takerRefund, mv.takerCredit);
      if (mv.makerFee + mv.protocolSpread > 0n) this.ledger.credit(this.protocolOwner, maker.toToken, mv.makerFee + mv.protocolSpread);
      if (mv.takerFee > 0n) this.ledger.credit(this.protocolOwner, maker.fromToken, mv.takerFee);
    } else {
      const lots = this.fills.lotsOf(id);
      const nowSec = this.clock.nowSec();
      // A pair that cannot be the cause has no maker to blame by default: only an order the
      // reason really concerns (expired, owing the vault) gets its code, the rest the catch-all.
      const makerSide = this.revertSide(maker, mayBeCause);
      const takerSide = this.revertSide(taker, false);
      this.unwindSide(maker, lots, makerGive, reason, errorCodeForSide(reason, makerSide, [takerSide], nowSec), now);
      this.unwindSide(taker, lots, takerGive, reason, errorCodeForSide(reason, takerSide, [makerSide], nowSec), now);
    }
    this.afterFillFinal(maker, now);
    this.afterFillFinal(taker, now);
  }

  /** One of a fill's orders after the fill became final: settled once every fill of a matched order is. */
  private afterFillFinal(o: OrderRecord, now: Instant): void {
    o.updatedAt = now;
    if (o.status === "matched" && this.fills.allFinal(o)) this.moveOrder(o, "settled", now);
  }

  /** Exact balance movements of a fill when it settles (derived, so fills stay small). */
  private movesOf(f: FillRecord): MatchMoves {
    return this.movesFor(this.orders.get(f.makerOrderId)!, this.orders.get(f.takerOrderId)!, f.makerGive, f.takerGive);
  }

  private movesFor(maker: OrderRecord, taker: OrderRecord, makerGive: bigint, takerGive: bigint): MatchMoves {
    const split = taker.orderType === "swap" ? ROUTER_SPREAD_SPLIT : this.spreadSplit;
    return matchMoves(maker, taker, makerGive, takerGive, split);
  }

  private settleSide(o: OrderRecord, give: bigint, refund: bigint, credit: bigint): void {
    this.ledger.burnFrozen(o.owner, o.fromToken, give);
    if (refund > 0n) this.ledger.credit(o.owner, o.fromToken, refund);
    if (credit > 0n) this.ledger.credit(o.owner, o.toToken, credit);
    o.reserved -= give;
  }

  /** From-token of the order's fills not final yet: the part of `reserved` settlement still needs. */
  inflightOf(o: Readonly<OrderRecord>): bigint {
    // A swap's legs may spend an intermediate token; what settlement needs of its input is what it froze.
    if (o.orderType === "swap") return o.status === "matched" ? o.reserved : 0n;
    return this.fills.inflightGive(o);
  }

  /**
   * A reverted or failed fill is undone for the order. A pending order (the spec
   * has no pending → failed move) gets the quantity back — the contract never
   * counted it — keeps its reservation and shows the error; any other order
   * releases the fill's funds, and a matched one moves to failed.
   */
  private unwindSide(o: OrderRecord, lots: bigint, give: bigint, reason: string | null, code: ErrorCode, now: Instant): void {
    o.error = reason;
    o.errorCode = code;
    if (o.status === "pending") {
      o.remainingLots += lots;
    } else {
      o.reserved -= give;
      this.ledger.release(o.owner, o.fromToken, give);
      if (o.status === "matched") this.moveOrder(o, "failed", now);
    }
  }

  // ================================================================ queries

  private lotsText(o: OrderRecord, lots: bigint): string {
    return formatUnits(lots, o.market.quantityPrecision);
  }

  private record(orderId: string): OrderRecord {
    const o = typeof orderId === "string" ? this.orders.get(orderId.toLowerCase()) : undefined;
    if (!o) throw notFound(`order ${orderId} not found`);
    return o;
  }

  /** An owner's orders (lowercase address) in placement order; files any placed since the last call first. */
  private ordersOf(owner: string): readonly OrderRecord[] {
    for (let seq = this.ownersIndexedUpTo + 1; seq <= this.orders.size; seq++) {
      const o = this.orders.atPosition(seq - 1)!;
      let list = this.ordersByOwner.get(o.owner);
      if (list === undefined) {
        list = [];
        this.ordersByOwner.set(o.owner, list);
      }
      list.push(o);
    }
    this.ownersIndexedUpTo = this.orders.size;
    return this.ordersByOwner.get(owner) ?? NO_ORDERS;
  }

  private fillsOf(o: OrderRecord): FillRecord[] {
    return this.fills.idsOf(o).map((id) => this.fills.get(id));
  }

  /** GET /orders/{order_id}. 404 when unknown. */
  getOrder(orderId: string): OrderWire {
    return this.viewOfOrder(this.record(orderId));
  }

  /** The wire Order of a record (its fills, economics and settlement summary read now). */
  viewOfOrder(o: Readonly<OrderRecord>): OrderWire {
    return orderView(o as OrderRecord, this.fillsOf(o as OrderRecord), this.settlements, this.registry, (f) => this.movesOf(f), this.swapTerms.get(o.id));
  }

  /** Where a swap order's output goes: its Intent's recipient (the zero address: the owner's vault); null for other orders. */
  swapRecipientOf(orderId: string): string | null {
    return this.swapTerms.get(orderId.toLowerCase())?.intent.recipient.toLowerCase() ?? null;
  }

  /** The ids of an owner's orders in placement order (the run viewer's account page). */
  orderIdsOf(owner: string): string[] {
    return this.ordersOf(owner.toLowerCase()).map((o) => o.id);
  }

  /** Every order of an owner in placement order (GET /orders filters, sorts and pages over this). */
  listOrders(owner: string): OrderWire[] {
    return this.ordersOf(owner.toLowerCase()).map((o) => this.viewOfOrder(o));
  }

  /** An owner's order records in placement order, read-only by convention (views only for what is shown: viewOfOrder). */
  orderRecordsOf(owner: string): readonly Readonly<OrderRecord>[] {
    return this.ordersOf(owner.toLowerCase());
  }

  /** GET /fills/{order_id}: fills of one order, from that order's perspective, in execution order. */
  /** The order's fills in execution order, from the order's perspective; `offset` and `limit` take a page of them. */
  fillsOfOrder(orderId: string, offset = 0, limit = Number.POSITIVE_INFINITY): FillWire[] {
    const o = this.record(orderId);
    const ids = this.fills.idsOf(o);
    const page = offset === 0 && limit >= ids.length ? ids : ids.slice(offset, offset + limit);
    return page.map((id) => {
      const f = this.fills.get(id);
      return fillView(f, o, this.registry, this.movesOf(f));
    });
  }

  /**
   * GET /fills?owner_address: every fill touching the owner, from the owner's
   * order's perspective (both sides when the owner was on both), with the
   * order's status for the order_status filter.
   */
  fillsOfOwner(owner: string, page: OwnerFillsPage = {}): (FillWire & { order_id: string; order_status: OrderStatus })[] {
    // The owner's fills through its own orders' lists (not a pass over every fill), in
    // fill id order, the maker's side first when the owner was on both; filtered and paged
    // on the store's columns, so only the page's views are built.
    const sides: { id: number; o: OrderRecord }[] = [];
    for (const o of this.ordersOf(owner.toLowerCase())) {
      if (page.orderStatus !== undefined && o.status !== page.orderStatus) continue;
      for (const id of this.fills.idsOf(o)) {
        if (page.settlementStatus === undefined || this.fills.statusOf(id) === page.settlementStatus) sides.push({ id, o });
      }
    }
    const makerFirst = (s: { id: number; o: OrderRecord }) => (this.fills.isMakerOf(s.id, s.o.seq) ? 0 : 1);
    sides.sort((a, b) => a.id - b.id || makerFirst(a) - makerFirst(b));
    const offset = page.offset ?? 0;
    return sides.slice(offset, page.limit === undefined ? undefined : offset + page.limit).map(({ id, o }) => {
      const f = this.fills.get(id);
      return { ...fillView(f, o, this.registry, this.movesOf(f)), order_id: o.id, order_status: o.status };
    });
  }

  /** GET /balances: wallet from the chain port, vault from the ledger; rows from balanceRows. */
  async balances(owner: string, includeZero = false): Promise<BalancesWire> {
    const ow = owner.toLowerCase();
    const tokens = this.registry.tokens();
    let wallets: Map<string, bigint> | null = new Map();
    for (const t of tokens) {
      try {
        wallets.set(t.address, await this.chain.walletBalance(ow as Address, t.address));
      } catch {
        // One unreadable wallet makes the whole column unknown (wallet_balance_available false).
        wallets = null;
        break;
      }
    }
    return balanceRows({
      owner: ow,
      tokens,
      vault: (t) => this.vaultAccount(ow, t),
      wallets,
      includeZero,
      updatedAt: this.clock.iso(),
    });
  }

  /** Raw records, read-only by convention (tests, invariants, the control API). */
  orderRecord(orderId: string): Readonly<OrderRecord> {
    return this.record(orderId);
  }

  /** Every fill as a record (built on each call: O(fills)); fillCount() for just the number. */
  fillRecords(): readonly FillRecord[] {
    return this.fills.records();
  }

  /** Fill `id` as a record (a fresh object), or undefined when there is none. */
  fillRecord(id: number): FillRecord | undefined {
    return Number.isInteger(id) && id >= 1 && id <= this.fills.count ? this.fills.get(id) : undefined;
  }

  /** The fill ids of an order in execution order ([] for an unknown order): no pass over other fills. */
  fillIdsOf(orderId: string): number[] {
    const o = this.orders.get(orderId);
    return o ? this.fills.idsOf(o) : [];
  }

  /**
   * The last `n` fills of each market that has any, newest first: a walk down from the newest
   * fill that stops once every market has `n` (a market with fewer reads all fills' markets,
   * one column lookup each, never a record).
   */
  recentFills(n: number): Map<string, FillRecord[]> {
    const out = new Map<string, FillRecord[]>();
    let full = 0;
    const markets = this.registry.markets().length;
    for (let id = this.fills.count; id >= 1 && full < markets; id--) {
      const symbol = this.fills.symbolOf(id);
      let list = out.get(symbol);
      if (list === undefined) out.set(symbol, (list = []));
      if (list.length >= n) continue;
      list.push(this.fills.get(id));
      if (list.length === n) full++;
    }
    return out;
  }

  /** Settlement batch `id` (batches are numbered 1, 2, ... in the order sent). */
  settlementBatch(id: number): Readonly<SettlementBatch> | undefined {
    return Number.isInteger(id) && id >= 1 ? this.settlements[id - 1] : undefined;
  }

  fillCount(): number {
    return this.fills.count;
  }

  /**
   * Fills by status, and the orders that have fills by status (each order once), each key
   * where its status first shows in fill order: read from the fill columns, with no record
   * built (a settle's summary, after every round, over every fill so far).
   */
  settlementCounts(): { fills: Partial<Record<FillStatus, number>>; orders: Partial<Record<OrderStatus, number>> } {
    const fills: Partial<Record<FillStatus, number>> = {};
    const orders: Partial<Record<OrderStatus, number>> = {};
    const counted = new Set<number>();
    const countOrder = (seq: number) => {
      if (counted.has(seq)) return;
      counted.add(seq);
      const status = this.orderAtSeq(seq).status;
      orders[status] = (orders[status] ?? 0) + 1;
    };
    for (let id = 1; id <= this.fills.count; id++) {
      const status = this.fills.statusOf(id);
      fills[status] = (fills[status] ?? 0) + 1;
      countOrder(this.fills.makerSeqOf(id));
      countOrder(this.fills.takerSeqOf(id));
    }
    return { fills, orders };
  }

  settlementBatches(): readonly Readonly<SettlementBatch>[] {
    return this.settlements;
  }

  vlBatch(id: string): VlBatchRecord | undefined {
    return this.vlBatches.get(id.toLowerCase());
  }

  /** Live orders of a market side, best first (depth view). */
  depth(symbol: string, side: "bid" | "ask"): { price: string; quantity: string; orders: number }[] {
    const m = this.registry.marketBySymbol(symbol);
    const book = this.books.get(symbol);
    if (!m || !book) throw notFound(`market ${symbol} not found`);
    return book.restingSide(side).depth().map((l) => ({
      price: formatUnits(l.ticks, m.tickPrecision),
      quantity: formatUnits(l.orders.reduce((s, o) => s + o.remainingLots, 0n), m.quantityPrecision),
      orders: l.orders.length,
    }));
  }

  eventHash(): string {
    return this.log.hash();
  }

  // ================================================================ snapshots

  /** Whole-engine snapshot: copies of mutable records, shared immutable events. */
  snapshot(): EngineSnapshot {
    return {
      clock: this.clock.snapshot(),
      rng: this.rng.snapshot(),
      log: this.log.snapshot(),
      ledger: this.ledger.snapshot(),
      orders: [...this.orders.values()].map(cloneOrder),
      fills: this.fills.snapshot(),
      vl: [...this.vlBatches.values()],
      settlements: this.settlements.map((s) => ({ ...s })),
      broadcastUpTo: this.broadcastUpTo,
      orderSeq: this.orderSeq,
      depositCursor: this.depositCursor,
      executorId: this.executorIdValue,
      faults: this.faults,
      faultedPairs: [...this.faultedPairs],
      desk: this.desk.snapshot(),
      swapTerms: [...this.swapTerms],
      vaultEventsSeen: [...this.vaultEventsSeen],
      vaultDebt: [...this.vaultDebt],
      withdrawHolds: [...this.withdrawHolds],
      faultRngs: { reverts: this.revertRng.snapshot(), spreads: this.spreadRng.snapshot() },
    };
  }

  /** Restore a snapshot; books are rebuilt from the resting orders in time priority. */
  restore(s: EngineSnapshot): void {
    // Checked before anything changes, so a refused snapshot leaves the engine as it was.
    const copies = s.orders.map(cloneOrder).sort((a, b) => a.seq - b.seq);
    // Fills name orders by seq, resolved by position in the index (see `fills`).
    copies.forEach((o, i) => {
      if (o.seq !== i + 1) throw new Error(`snapshot orders are not numbered 1..${copies.length}: position ${i} has seq ${o.seq}`);
    });
    checkFillStoreState(s.fills);
    checkEventLogState(s.log);
    this.clock.restore(s.clock);
    this.rng.restore(s.rng);
    if (s.faultRngs) {
      this.revertRng.restore(s.faultRngs.reverts);
      this.spreadRng.restore(s.faultRngs.spreads);
    }
    // The log's placements name the restored orders themselves, not the snapshot's records:
    // one object per order, and a --state-dir checkpoint writes each once, by reference.
    const byId = new Map(copies.map((o) => [o.id, o]));
    this.log.restore(s.log, (type, d) => (type === "order_placed" && d !== null && typeof d === "object" ? (byId.get((d as OrderRecord).id) ?? d) : d));
    this.ledger.restore(s.ledger);
    this.orders = new OrderIndex<OrderRecord>();
    this.ordersByOwner = new Map();
    this.ownersIndexedUpTo = 0;
    for (const m of this.registry.markets()) this.books.set(m.symbol, new MarketBook());
    for (const o of copies) {
      this.orders.set(o.id, o);
      if (o.inBook) this.books.get(o.market.symbol)!.restingSide(o.side).add(o);
    }
    this.fills.restore(s.fills);
    this.vlBatches = new Map(s.vl.map((b) => [b.id, b]));
    this.settlements = s.settlements.map((b) => ({ ...b }));
    this.broadcastUpTo = s.broadcastUpTo;
    this.orderSeq = s.orderSeq;
    this.depositCursor = s.depositCursor;
    this.executorIdValue = s.executorId;
    this.faults = s.faults;
    this.faultedPairs = new Map(s.faultedPairs.map(([k, v]) => [k, v.slice()]));
    this.desk.restore(s.desk);
    this.swapTerms = new Map(s.swapTerms);
    this.vaultEventsSeen = new Set(s.vaultEventsSeen);
    this.vaultDebt = new Map(s.vaultDebt);
    this.withdrawHolds = new Map(s.withdrawHolds);
    this.swapFillStarts = new Map();
    for (const o of copies) {
      if (o.orderType !== "swap") continue;
      const first = this.fills.firstOf(o);
      if (first > this.broadcastUpTo) this.swapFillStarts.set(first, o.id);
    }
  }
}

/** GET /fills?owner_address's filters and page, applied before any view is built. */
export interface OwnerFillsPage {
  orderStatus?: OrderStatus;
  settlementStatus?: FillStatus;
  offset?: number;
  limit?: number;
}

/** The orders of an owner without any (shared, never mutated). */
const NO_ORDERS: readonly OrderRecord[] = Object.freeze([]);

/** The fill ids of a placement that filled nothing (shared: most resting orders). */
const NO_FILL_IDS: readonly number[] = Object.freeze([]);

function signatureOf(sig: unknown): Hex | null {
  return typeof sig === "string" && /^0x[0-9a-fA-F]*$/.test(sig) ? (sig as Hex) : null;
}

export type { OrderWire, FillWire } from "./views.ts";
export type { EventValue };
