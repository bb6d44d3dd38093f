// Wire shapes of the spec's Order and Fill resources, built from engine records.
// Economics are owner-perspective:
//  - gross_debits / gross_credits: what the owner gave and got at execution
//    prices over fills that have not reverted or failed (filled_amount and
//    filled_* report the same totals);
//  - balance_debits / balance_credits: actual vault movements of SETTLED fills
//    (net of the spread refund on the debit side, net of fees and incl. the
//    spread share on the credit side) — what a balance display should use;
//  - fees_paid: explicit fees of settled fills (type "fee") and a settled swap's
//    gas (type "gas", in the token it was charged in), never to be subtracted
//    again from balance_*.
// With a positive spread the taker's balance debit exceeds filled_amount.
import { formatRaw, formatUnits, type Decimal } from "./amounts.ts";
import { isoOf } from "./clock.ts";
import type { ErrorCode } from "./errors.ts";
import { line, type EconomicsLine, type FeeLine, type MatchMoves, type TokenRef } from "./economics.ts";
import type { FillRecord, FillStatus } from "./fills.ts";
import { filledTotals, type OrderRecord, type OrderStatus, type OrderType } from "./orders.ts";
import type { MarketInfo, Registry } from "./registry.ts";
import { publicFailureReason, type SettlementBatch } from "./settlement.ts";
import type { IntentGas } from "./swap-intent.ts";
import { ZERO_ADDRESS } from "./typed-data.ts";

export interface SettlementSummary {
  status: string;
  total_fill_count: number;
  pending_fill_count: number;
  settled_fill_count: number;
  failed_fill_count: number;
  reverted_fill_count: number;
  latest_settlement_id: number | null;
  latest_tx_hash: string | null;
  latest_parent_status: string | null;
  latest_fill_settlement_status: string | null;
  latest_failed_fill_failure_reason: string | null;
}

export interface OrderEconomics {
  perspective_order_id: string;
  gross_debits: EconomicsLine[];
  gross_credits: EconomicsLine[];
  balance_debits: EconomicsLine[];
  balance_credits: EconomicsLine[];
  fees_paid: FeeLine[];
}

export interface FillEconomics {
  perspective_order_id: string;
  gross_debits: EconomicsLine[];
  gross_credits: EconomicsLine[];
  fees_paid: FeeLine[];
}

export interface OrderWire {
  trade_id: string;
  owner_address: string;
  status: OrderStatus;
  order_type: OrderType;
  symbol: string;
  base_symbol: string;
  quote_symbol: string;
  side: "bid" | "ask";
  base_token: string;
  quote_token: string;
  price: string;
  amount: string;
  remaining_amount: string;
  filled_base_amount: string;
  filled_quote_amount: string;
  notional: string;
  remaining_notional: string;
  from_token: string;
  to_token: string;
  from_amount: string;
  to_amount: string;
  filled_amount: string;
  created_at: string;
  updated_at: string;
  expiration: string;
  error: string | null;
  error_code: ErrorCode | null;
  uuid_int: string;
  vl_batch_id: string | null;
  settlement_summary: SettlementSummary;
  settlement_economics: OrderEconomics;
}

export interface FillWire {
  maker_order_id: string;
  taker_order_id: string;
  quantity: string;
  price: string;
  settlement_status: FillStatus;
  tx_hash: string | null;
  timestamp: string;
  failure_reason: string | null;
  settlement_economics: FillEconomics;
}

function tokenRef(registry: Registry, address: string): TokenRef {
  const t = registry.token(address);
  if (!t) throw new Error(`token ${address} missing from the registry`);
  return { symbol: t.symbol, address: t.address, decimals: t.decimals };
}

const isLive = (f: FillRecord) => f.status !== "reverted" && f.status !== "failed";

function summary(orderStatus: OrderStatus, fills: readonly FillRecord[], settlements: readonly SettlementBatch[]): SettlementSummary {
  let pending = 0;
  let settled = 0;
  let failed = 0;
  let reverted = 0;
  let latestSettlement: number | null = null;
  let latestFailed: FillRecord | null = null;
  for (const f of fills) {
    if (f.status === "settled") settled++;
    else if (f.status === "failed") failed++;
    else if (f.status === "reverted") reverted++;
    else pending++;
    if (f.settlementId !== null && (latestSettlement === null || f.settlementId > latestSettlement)) latestSettlement = f.settlementId;
    if ((f.status === "failed" || f.status === "reverted") && (latestFailed === null || f.updatedAt.ms >= latestFailed.updatedAt.ms)) latestFailed = f;
  }
  const batch = latestSettlement === null ? undefined : settlements[latestSettlement - 1];
  const last = fills[fills.length - 1];
  // Nothing in flight: "failed" when the order failed or none of its fills settled; an order
  // that settled after a reverted fill (its quantity refilled) is "settled".
  const status = pending > 0 || fills.length === 0 ? "pending" : orderStatus === "failed" || settled === 0 ? "failed" : "settled";
  return {
    status,
    total_fill_count: fills.length,
    pending_fill_count: pending,
    settled_fill_count: settled,
    failed_fill_count: failed,
    reverted_fill_count: reverted,
    latest_settlement_id: latestSettlement,
    latest_tx_hash: batch?.txHash ?? null,
    latest_parent_status: batch?.status ?? null,
    latest_fill_settlement_status: last?.status ?? null,
    latest_failed_fill_failure_reason: latestFailed ? publicFailureReason(latestFailed.revertReason) : null,
  };
}

/**
 * A swap order's fill is one router leg, possibly on another market than the
 * swap's display pair (two hops): the swap paid takerGive of the maker's
 * to-token and got makerGive of the maker's from-token, with no fee.
 */
function legTokens(f: FillRecord, registry: Registry): { takerGives: string; makerGives: string; market: MarketInfo } {
  const m = registry.marketBySymbol(f.symbol);
  if (!m) throw new Error(`market ${f.symbol} missing from the registry`);
  return f.makerSide === "ask" ? { makerGives: m.base, takerGives: m.quote, market: m } : { makerGives: m.quote, takerGives: m.base, market: m };
}

/** A swap's totals in its own from/to tokens (intermediate legs of a two-hop net out and are left out). */
function swapTotals(o: OrderRecord, fills: readonly FillRecord[], registry: Registry, only: (f: FillRecord) => boolean) {
  let give = 0n;
  let get = 0n;
  for (const f of fills) {
    if (!only(f)) continue;
    const t = legTokens(f, registry);
    if (t.takerGives === o.fromToken) give += f.takerGive;
    if (t.makerGives === o.toToken) get += f.makerGive;
  }
  return { give, get };
}

/** This order's side of a fill: what it gave and got, gross and net. */
function sideOf(o: OrderRecord, f: FillRecord, mv: MatchMoves) {
  const isMaker = f.makerOrderId === o.id;
  return {
    grossGive: o.side === "ask" ? f.baseRaw : f.quoteRaw,
    grossGet: o.side === "ask" ? f.quoteRaw : f.baseRaw,
    debit: isMaker ? mv.makerDebit : mv.takerDebit,
    credit: isMaker ? mv.makerCredit : mv.takerCredit,
    fee: isMaker ? mv.makerFee : mv.takerFee,
  };
}

function feeLines(t: TokenRef, raw: bigint): FeeLine[] {
  return line(t, raw, formatRaw).map((l) => ({ ...l, type: "fee" }));
}

/** What a swap order's view needs of its signed terms: the Router's gas charge and where the output went. */
export interface SwapViewTerms {
  readonly gas: IntentGas;
  readonly intent: { readonly recipient: string };
}

/** The lots an Order shows as remaining: its open lots while it rests (or what a cancel left), none once matched. */
function shownRemainingLots(o: Readonly<OrderRecord>): bigint {
  return o.status === "pending" || o.status === "cancelled" ? o.remainingLots : 0n;
}

/**
 * The Order's figures read from its record, exactly (the wire prints each as a canonical
 * decimal): the one place each is derived, for the view and for GET /orders' record path.
 */
export const ORDER_FIGURES = {
  price: (o) => ({ units: o.priceTicks, scale: o.market.tickPrecision }),
  amount: (o) => ({ units: o.amountLots, scale: o.market.quantityPrecision }),
  remaining_amount: (o) => ({ units: shownRemainingLots(o), scale: o.market.quantityPrecision }),
  notional: (o) => ({ units: o.amountLots * o.priceTicks, scale: o.market.quantityPrecision + o.market.tickPrecision }),
  remaining_notional: (o) => ({ units: shownRemainingLots(o) * o.priceTicks, scale: o.market.quantityPrecision + o.market.tickPrecision }),
} as const satisfies Record<string, (o: Readonly<OrderRecord>) => Decimal>;

function figure(name: keyof typeof ORDER_FIGURES, o: Readonly<OrderRecord>): string {
  const d = ORDER_FIGURES[name](o);
  return formatUnits(d.units, d.scale);
}

export function orderView(
  o: OrderRecord,
  fills: readonly FillRecord[],
  settlements: readonly SettlementBatch[],
  registry: Registry,
  movesOf: (f: FillRecord) => MatchMoves,
  swap?: SwapViewTerms,
): OrderWire {
  const m = o.market;
  const from = tokenRef(registry, o.fromToken);
  const to = tokenRef(registry, o.toToken);
  let debits = 0n;
  let credits = 0n;
  let fees = 0n;
  let gasLines: FeeLine[] = [];
  const isSwap = o.orderType === "swap";
  if (isSwap) {
    const settled = swapTotals(o, fills, registry, (f) => f.status === "settled");
    debits = settled.give;
    credits = settled.get;
    // The Router charged the swap's gas when it settled: off the output or on top of the input.
    const swapGas = swap?.gas;
    if (o.status === "settled" && swapGas !== undefined && swapGas.amount > 0n) {
      const onOutput = swapGas.token === o.toToken;
      if (onOutput) credits -= swapGas.amount;
      else debits += swapGas.amount;
      gasLines = line(onOutput ? to : from, swapGas.amount, formatRaw).map((l) => ({ ...l, type: "gas" }));
    }
    // An Intent whose recipient is another wallet sent the output there: none of it reached the owner.
    const recipient = swap?.intent.recipient.toLowerCase();
    if (recipient !== undefined && recipient !== ZERO_ADDRESS && recipient !== o.owner) credits = 0n;
  } else {
    for (const f of fills) {
      if (f.status !== "settled") continue;
      const s = sideOf(o, f, movesOf(f));
      debits += s.debit;
      credits += s.credit;
      fees += s.fee;
    }
  }
  let filled = filledTotals(fills);
  if (isSwap) {
    const live = swapTotals(o, fills, registry, isLive);
    filled = o.side === "ask" ? { base: live.give, quote: live.get } : { base: live.get, quote: live.give };
  }
  const grossGive = o.side === "ask" ? filled.base : filled.quote;
  const grossGet = o.side === "ask" ? filled.quote : filled.base;
  return {
    trade_id: o.id,
    owner_address: o.owner,
    status: o.status,
    order_type: o.orderType ?? "limit",
    symbol: m.symbol,
    base_symbol: m.baseSymbol,
    quote_symbol: m.quoteSymbol,
    side: o.side,
    base_token: m.base,
    quote_token: m.quote,
    price: figure("price", o),
    amount: figure("amount", o),
    remaining_amount: figure("remaining_amount", o),
    filled_base_amount: formatRaw(filled.base, m.baseDecimals),
    filled_quote_amount: formatRaw(filled.quote, m.quoteDecimals),
    notional: figure("notional", o),
    remaining_notional: figure("remaining_notional", o),
    from_token: o.fromToken,
    to_token: o.toToken,
    from_amount: o.fromAmount.toString(),
    to_amount: o.toAmount.toString(),
    filled_amount: grossGive.toString(),
    created_at: isoOf(o.createdAt.ms),
    updated_at: isoOf(o.updatedAt.ms),
    expiration: String(o.expiration),
    error: o.error,
    error_code: o.errorCode,
    uuid_int: o.uuidInt.toString(),
    vl_batch_id: o.vlBatchId,
    settlement_summary: summary(o.status, fills, settlements),
    settlement_economics: {
      perspective_order_id: o.id,
      gross_debits: line(from, grossGive, formatRaw),
      gross_credits: line(to, grossGet, formatRaw),
      balance_debits: line(from, debits, formatRaw),
      balance_credits: line(to, credits, formatRaw),
      fees_paid: [...feeLines(to, fees), ...gasLines],
    },
  };
}

/** A fill row from the perspective of `o` (one of its two orders). */
export function fillView(f: FillRecord, o: OrderRecord, registry: Registry, moves: MatchMoves): FillWire {
  if (o.orderType === "swap" && f.takerOrderId === o.id) return swapLegView(f, o, registry);
  const m = o.market;
  const s = sideOf(o, f, moves);
  const from = tokenRef(registry, o.fromToken);
  const to = tokenRef(registry, o.toToken);
  const live = isLive(f);
  return {
    maker_order_id: f.makerOrderId,
    taker_order_id: f.takerOrderId,
    quantity: formatUnits(f.lots, m.quantityPrecision),
    price: formatUnits(f.priceTicks, m.tickPrecision),
    settlement_status: f.status,
    tx_hash: f.txHash,
    timestamp: isoOf(f.at.ms),
    failure_reason: publicFailureReason(f.revertReason),
    settlement_economics: {
      perspective_order_id: o.id,
      gross_debits: live ? line(from, s.grossGive, formatRaw) : [],
      gross_credits: live ? line(to, s.grossGet, formatRaw) : [],
      fees_paid: f.status === "settled" ? feeLines(to, s.fee) : [],
    },
  };
}

/** A router leg from the swap's perspective: the leg's own market and tokens, no fee. */
function swapLegView(f: FillRecord, o: OrderRecord, registry: Registry): FillWire {
  const t = legTokens(f, registry);
  const live = isLive(f);
  return {
    maker_order_id: f.makerOrderId,
    taker_order_id: f.takerOrderId,
    quantity: formatUnits(f.lots, t.market.quantityPrecision),
    price: formatUnits(f.priceTicks, t.market.tickPrecision),
    settlement_status: f.status,
    tx_hash: f.txHash,
    timestamp: isoOf(f.at.ms),
    failure_reason: publicFailureReason(f.revertReason),
    settlement_economics: {
      perspective_order_id: o.id,
      gross_debits: live ? line(tokenRef(registry, t.takerGives), f.takerGive, formatRaw) : [],
      gross_credits: live ? line(tokenRef(registry, t.makerGives), f.makerGive, formatRaw) : [],
      fees_paid: [],
    },
  };
}
