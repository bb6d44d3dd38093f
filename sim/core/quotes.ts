// Swap quotes and their lifecycle (spec: "Swap quote", "Permit object",
// POST /swap/quote, /swap/quote/batch, /swap, "Swap quote lifecycle").
//
// A quote is a record: the Intent to sign (route_params), the gas breakdown, the
// permit to sign when the swap pulls wallet funds, and an expiry 30 s later on
// the virtual clock. Lifecycle:
//   issued → consumed   only by the first fully valid POST /swap (commit);
//   issued → expired    30 s after issue: POST /swap answers 410;
//   410 as well for an unknown or already consumed quote (the loser of a race);
//   400 and NOT consumed: signature mismatch, missing/mismatched permit fields,
//       an informational quote (minOutputAmount "0"),
//       no executable route / output below minOutputAmount now;
//   409 QUOTE_STALE and NOT consumed: the signed Intent deadline passed before
//       submission, or the wallet's swap state advanced.
// "Swap state" is concrete: a per-wallet swap sequence number, captured at quote
// time and advanced each time a swap of that wallet is accepted (a second quote
// signed against the old state would carry a permit nonce the first swap is
// about to use). A rotated executor id (the Intent uuid embeds it) and vault
// equity that no longer covers the equity part of maxInputAmount are stale too.
//
// initialDepositAmount = the part of maxInputAmount the wallet's available vault
// equity in the input token does not cover (0: equity-only swap, permit null).
// Otherwise a fresh permit per quote: spender = the vault (Router.executeIntent
// lets the vault pull the deposit), value = initialDepositAmount, nonce = the
// token's ERC-2612 nonce + this wallet's accepted-but-not-mined swaps that carry
// a permit for the same token (each will consume one nonce when mined).
// Tokens without ERC-2612: permit_supported false, permit_required false, no eip712
// block and — as in GET /permit/metadata — no nonce or domain; the client approves the
// router (spec: "build an approve for the live router address"), so spender is the
// router and current_allowance_raw its allowance (Router.executeIntent takes the
// deposit through either allowance).
//
// route_params.uuid is a composite uint256 built like a standalone order's
// uuid_int (spec "Composite order identifier"): executor id, the swap's future
// trade_id as the 128-bit UUID, group_id = its first 112 bits, leg_id 0. The
// swap order created by POST /swap carries that trade_id and uuid_int.
import { formatRaw } from "./amounts.ts";
import type { Clock } from "./clock.ts";
import { ExchangeError, isExchangeError, unprocessable, type ErrorCode } from "./errors.ts";
import { checkExpiration } from "./expiration.ts";
import type { Registry, TokenInfo } from "./registry.ts";
import type { Rng } from "./rng.ts";
import { findRoute, hasPath, type LiquiditySource, type Route } from "./routing.ts";
import {
  DEFAULT_GAS_CONFIG,
  GAS_MODES,
  applyGasMode,
  formatUsd,
  gasCostUsd,
  gasInToken,
  type GasBreakdown,
  type GasConfig,
  type GasMode,
  type UsdPrice,
} from "./swap-gas.ts";
import { PERMIT_TYPE, type Address, type Hex, type IntentMessage } from "./typed-data.ts";
import { decodeUuidInt, standaloneUuidInt } from "./uuid-int.ts";
import type { IntentGas } from "./swap-intent.ts";

export const QUOTE_TTL_MS = 30_000;
export const QUOTE_BATCH_MIN = 1;
export const QUOTE_BATCH_MAX = 50;
/** Expired records are dropped this long after expiry (410 either way). */
const QUOTE_RETENTION_MS = 5 * 60_000;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const UINT256 = /^[1-9][0-9]{0,77}$/;
const HEX_SIG = /^0x([0-9a-fA-F]{128}|[0-9a-fA-F]{130})$/;

// ------------------------------------------------------------------ wire shapes

export interface RouteParamsWire {
  taker: string;
  inputToken: string;
  outputToken: string;
  maxInputAmount: string;
  minOutputAmount: string;
  recipient: string;
  initialDepositAmount: string;
  uuid: string;
  deadline: number;
}

export interface QuoteBreakdownWire {
  gas_mode: GasMode;
  input_token: string;
  output_token: string;
  input_amount_before_gas: string;
  input_amount_after_gas: string;
  output_amount_before_gas: string;
  output_amount_after_gas: string;
  gas_cost_input_token: string;
  gas_cost_output_token: string;
  gas_cost_usd: string;
}

export interface PermitDomainWire {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: string;
}

export interface PermitEip712Wire {
  domain: PermitDomainWire;
  primaryType: "Permit";
  types: { Permit: { name: string; type: string }[] };
  message: { owner: string; spender: string; value: string; nonce: number; deadline: number };
}

export interface PermitWire {
  permit_supported: boolean;
  permit_required: boolean;
  token: string;
  spender: string;
  owner: string;
  value_raw: string;
  current_allowance_raw: string;
  nonce?: number;
  suggested_deadline: number;
  domain?: PermitDomainWire;
  eip712?: PermitEip712Wire;
}

export interface QuoteWire {
  uuid: string;
  route_params: RouteParamsWire;
  fee_breakdown: { gas_cost_usd: string; gas_cost_from_token: string };
  /** Present in the single-quote response only. */
  quote_breakdown?: QuoteBreakdownWire;
  expires_at: number;
  permit: PermitWire | null;
}

/** The spec's batch-quote rejectionCategory values: typed codes forwarded verbatim, or its lowercase categories. */
export const REJECTION_CATEGORIES = [
  "AMOUNT_BELOW_MIN",
  "NO_LIQUIDITY",
  "SLIPPAGE_EXCEEDED",
  "INTENT_DEADLINE_EXPIRED",
  "QUOTE_STALE",
  "no_liquidity",
  "invalid_quote",
  "upstream_unavailable",
  "quote_timeout",
  "internal_error",
] as const;
export type RejectionCategory = (typeof REJECTION_CATEGORIES)[number];

export interface BatchItemWire {
  ok: boolean;
  quote: QuoteWire | null;
  error: null | { rejectionCategory: RejectionCategory; message: string };
}

// ------------------------------------------------------------------ dependencies

/** ERC-2612 state of a token for one owner, read from the chain (memory: nonce 0, name = symbol). */
export interface PermitTokenState {
  nonce: bigint;
  name: string;
  version: string;
  allowance: bigint;
}

export type PermitReader = (token: TokenInfo, owner: Address, spender: Address) => PermitTokenState | Promise<PermitTokenState>;

/** The memory port's reader: no chain state, so nonce 0 and the symbol as the token name. */
export const memoryPermitReader: PermitReader = (token) => ({ nonce: 0n, name: token.symbol, version: "1", allowance: 0n });

/** Quote time-outs, as fault-plan data: batch positions (0-based) and/or a fraction under the seed. */
export interface QuoteTimeoutFaults {
  items?: number[];
  fraction?: number;
}

export interface SwapDeskOptions {
  registry: Registry;
  clock: Clock;
  rng: Rng;
  executorId: () => number;
  liquidity: LiquiditySource;
  /** Available (unfrozen) vault equity. */
  vaultAvailable: (owner: string, token: string) => bigint;
  permitReader?: PermitReader;
  usdPrice: UsdPrice;
  gas?: GasConfig;
  vaultAddress: Address;
  /** The swap router, which a token without a permit is approved to (absent: the vault). */
  routerAddress?: Address;
  chainId: number;
  quoteTimeouts?: () => QuoteTimeoutFaults | undefined;
}

// ------------------------------------------------------------------ records

export interface QuoteRecord {
  readonly uuid: string;
  /** Order id of the swap POST /swap creates (embedded in intent.uuid). */
  readonly tradeId: string;
  readonly owner: string;
  readonly intent: IntentMessage;
  readonly fromAmount: bigint;
  readonly breakdown: GasBreakdown;
  readonly permit: PermitWire | null;
  readonly createdMs: number;
  readonly expiresAt: number;
  readonly swapSeq: number;
  readonly executorId: number;
  readonly informational: boolean;
  consumed: boolean;
  readonly wire: QuoteWire;
}

export interface QuoteRequestFields {
  fromToken: string;
  toToken: string;
  fromAmount: bigint;
  owner: string;
  recipient: string;
  expiration: unknown;
  gasMode: GasMode;
}

/** POST /swap after the HTTP layer verified the Intent signature. */
export interface SwapSubmission {
  uuid: unknown;
  /** The address the signature verified for (ECDSA recovery or EIP-1271), null when it verified for nobody. */
  signer: string | null;
  signature: unknown;
  permit_signature?: unknown;
  permit_deadline?: unknown;
}

/**
 * The gas the Router charges a swap's taker (Router.GasFee): the quote's gas in the output
 * token off what the taker receives (receive_less), or in the input token on top of what it
 * spends (pay_more). Exactly what the quote priced, so the signed bounds hold it.
 */
export function swapGasCharge(rec: Pick<QuoteRecord, "intent" | "breakdown">): IntentGas {
  return rec.breakdown.gasMode === "pay_more"
    ? { token: rec.intent.inputToken, amount: rec.breakdown.gasInput }
    : { token: rec.intent.outputToken, amount: rec.breakdown.gasOutput };
}

export interface PreparedSwap {
  readonly quote: QuoteRecord;
  /** The route as of now (re-walked at submission; the book may have moved since the quote). */
  readonly route: Route;
  readonly signature: Hex;
  /** Router.PermitData; null when the quote has no (supported) permit. */
  readonly permit: { value: bigint; deadline: bigint; signature: Hex } | null;
}

interface PendingSwap {
  owner: string;
  token: string;
  withPermit: boolean;
  /** The nonce its permit was quoted with (absent in state saved before it was kept). */
  permitNonce?: number;
}

export interface SwapDeskState {
  quotes: [string, QuoteRecord][];
  swapSeq: [string, number][];
  pending: [string, PendingSwap][];
}

// ------------------------------------------------------------------ field validation

/**
 * Shape checks of one POST /swap/quote body: the failures the spec calls field
 * validation (422, and 422 for a whole batch): addresses, same token both sides,
 * gas_mode, a positive uint256 from_amount, an integer expiration.
 */
export function validateQuoteFields(body: unknown, at = "body"): QuoteRequestFields {
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw unprocessable(`${at} must be an object`);
  const b = body as Record<string, unknown>;
  const addr = (k: string): string => {
    const v = b[k];
    if (typeof v !== "string" || !ADDRESS.test(v)) throw unprocessable(`${at}.${k} must be a 0x-prefixed 20-byte hex address`, { field: k });
    return v.toLowerCase();
  };
  const fromToken = addr("from_token");
  const toToken = addr("to_token");
  if (fromToken === toToken) throw unprocessable(`${at}: from_token and to_token must differ`, { field: "to_token" });
  const owner = addr("owner_address");
  const recipient = addr("recipient");
  const amount = b.from_amount;
  if (typeof amount !== "string" || !UINT256.test(amount) || BigInt(amount) >= 1n << 256n) {
    throw unprocessable(`${at}.from_amount must be a positive uint256 decimal string (raw units)`, { field: "from_amount" });
  }
  const exp = b.expiration;
  if (typeof exp !== "number" || !Number.isSafeInteger(exp)) {
    throw unprocessable(`${at}.expiration must be an integer Unix timestamp in seconds`, { field: "expiration" });
  }
  const mode = b.gas_mode ?? "receive_less";
  if (typeof mode !== "string" || !(GAS_MODES as readonly string[]).includes(mode)) {
    throw unprocessable(`${at}.gas_mode must be receive_less or pay_more`, { field: "gas_mode" });
  }
  return { fromToken, toToken, fromAmount: BigInt(amount), owner, recipient, expiration: exp, gasMode: mode as GasMode };
}

/** Typed pricing codes a client branches on: forwarded verbatim by the batch, as detail.code by the single quote. */
export const TYPED_QUOTE_CODES: readonly string[] = ["AMOUNT_BELOW_MIN", "NO_LIQUIDITY", "SLIPPAGE_EXCEEDED", "INTENT_DEADLINE_EXPIRED", "QUOTE_STALE"];

/** The batch item vocabulary for a pricing failure. */
export function rejectionCategoryOf(e: unknown): RejectionCategory {
  if (!isExchangeError(e)) return "internal_error";
  if (TYPED_QUOTE_CODES.includes(e.code)) return e.code as RejectionCategory;
  if (e.status >= 500) return "upstream_unavailable";
  if (e.status >= 400) return "invalid_quote";
  return "internal_error";
}

// ------------------------------------------------------------------ the desk

export class SwapDesk {
  private quotes = new Map<string, QuoteRecord>();
  private swapSeq = new Map<string, number>();
  private pending = new Map<string, PendingSwap>();
  private readonly o: SwapDeskOptions;
  private readonly permitReader: PermitReader;
  private readonly gas: GasConfig;

  constructor(o: SwapDeskOptions) {
    this.o = o;
    this.permitReader = o.permitReader ?? memoryPermitReader;
    this.gas = o.gas ?? DEFAULT_GAS_CONFIG;
  }

  // -------------------------------------------------------------- quoting

  /** POST /swap/quote: 422 on field validation, then the pricing errors (400 AMOUNT_BELOW_MIN, NO_LIQUIDITY, ...). */
  async quote(body: unknown): Promise<QuoteWire> {
    const req = validateQuoteFields(body);
    // A single quote that exceeds its time budget surfaces as the spec's 503.
    const fraction = this.o.quoteTimeouts?.()?.fraction;
    if (fraction !== undefined && this.o.rng.chance(fraction)) throw new ExchangeError("UNAVAILABLE", 503, "quote timed out");
    const rec = await this.issue(req, true);
    return rec.wire;
  }

  /** POST /swap/quote/batch: 1-50 items, all field-validated first (one 422), then priced one by one. */
  async quoteBatch(body: unknown): Promise<{ items: BatchItemWire[] }> {
    const quotes = body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>).quotes : undefined;
    if (!Array.isArray(quotes)) throw unprocessable("quotes must be an array of quote requests");
    if (quotes.length < QUOTE_BATCH_MIN || quotes.length > QUOTE_BATCH_MAX) {
      throw unprocessable(`quotes must hold ${QUOTE_BATCH_MIN} to ${QUOTE_BATCH_MAX} items, got ${quotes.length}`);
    }
    const reqs = quotes.map((q, i) => validateQuoteFields(q, `quotes[${i}]`));
    const faults = this.o.quoteTimeouts?.();
    const items: BatchItemWire[] = [];
    for (let i = 0; i < reqs.length; i++) {
      // Draw for every item so one item's fate does not shift the others' stream.
      const drawn = faults?.fraction !== undefined ? this.o.rng.chance(faults.fraction) : false;
      if (drawn || faults?.items?.includes(i)) {
        items.push({ ok: false, quote: null, error: { rejectionCategory: "quote_timeout", message: "quote exceeded its time budget" } });
        continue;
      }
      try {
        const rec = await this.issue(reqs[i]!, false);
        items.push({ ok: true, quote: rec.wire, error: null });
      } catch (e) {
        items.push({ ok: false, quote: null, error: { rejectionCategory: rejectionCategoryOf(e), message: isExchangeError(e) ? e.detail : "internal error" } });
      }
    }
    return { items };
  }

  /** Price one validated request and store the quote record. */
  private async issue(req: QuoteRequestFields, withBreakdown: boolean): Promise<QuoteRecord> {
    const { registry, clock } = this.o;
    const inTok = registry.token(req.fromToken);
    const outTok = registry.token(req.toToken);
    if (!inTok || !outTok) {
      throw new ExchangeError("VALIDATION", 400, `token ${!inTok ? req.fromToken : req.toToken} is not listed (see GET /tokens)`);
    }
    if (req.fromAmount < inTok.minTradeAmountRaw) {
      throw new ExchangeError(
        "AMOUNT_BELOW_MIN",
        400,
        `from_amount is below the minimum of ${formatRaw(inTok.minTradeAmountRaw, inTok.decimals)} ${inTok.symbol}`,
        { min_amount_raw: inTok.minTradeAmountRaw.toString(), min_amount: formatRaw(inTok.minTradeAmountRaw, inTok.decimals) },
      );
    }
    const nowSec = clock.nowSec();
    const deadline = checkDeadline(req.expiration, nowSec);
    if (!hasPath(registry, inTok.address, outTok.address)) {
      throw new ExchangeError("NO_LIQUIDITY", 400, `no market connects ${inTok.symbol} and ${outTok.symbol}, directly or through one common token`);
    }
    const route = findRoute(registry, this.o.liquidity, {
      inputToken: inTok.address,
      outputToken: outTok.address,
      amountIn: req.fromAmount,
      taker: req.owner,
      nowSec,
    });
    // An informational quote (no route at this size) still prices gas for a one-leg swap.
    const gasUsd = gasCostUsd(this.gas, route ? route.legs.length : 1);
    const breakdown = applyGasMode({
      mode: req.gasMode,
      gasUsd,
      gasInput: gasInToken(gasUsd, inTok, this.o.usdPrice),
      gasOutput: gasInToken(gasUsd, outTok, this.o.usdPrice),
      fromAmount: req.fromAmount,
      routedOutput: route ? route.output : 0n,
    });
    // pay_more adds gas to from_amount: the Intent (and its permit) must still be signable.
    if (breakdown.maxInputAmount >= 1n << 256n) {
      throw new ExchangeError("VALIDATION", 400, `from_amount plus the gas in ${inTok.symbol} (gas_mode pay_more) exceeds uint256; ask for less`);
    }
    const equity = this.o.vaultAvailable(req.owner, inTok.address);
    const initialDeposit = equity >= breakdown.maxInputAmount ? 0n : breakdown.maxInputAmount - equity;
    const afterPending = this.permitNonceAfterPending(req.owner, inTok.address);
    // The wallet's swap state these reads belong to, read before the await below: a swap
    // accepted meanwhile makes the quote stale (its permit nonce did not count that swap).
    const swapSeq = this.swapSeq.get(req.owner) ?? 0;
    const tokenState = initialDeposit > 0n ? await this.permitReader(inTok, req.owner as Address, this.depositSpender(inTok)) : null;

    // Everything below is synchronous: ids are drawn only once the quote cannot fail.
    const createdMs = clock.nowMs();
    const quoteId = this.o.rng.uuid4();
    const tradeId = this.o.rng.uuid4();
    const executorId = this.o.executorId();
    const intent: IntentMessage = {
      taker: req.owner as Address,
      inputToken: inTok.address,
      outputToken: outTok.address,
      maxInputAmount: breakdown.maxInputAmount,
      minOutputAmount: breakdown.minOutputAmount,
      recipient: req.recipient as Address,
      initialDepositAmount: initialDeposit,
      uuid: standaloneUuidInt(tradeId, executorId),
      deadline: BigInt(deadline),
    };
    // The chain's nonce may already count a pending swap (mined, its receipt not processed
    // yet): the next nonce is past both, never their sum.
    const permitNonce = tokenState !== null ? Math.max(Number(tokenState.nonce) + afterPending.unrecorded, afterPending.next) : 0;
    const permit = tokenState !== null ? this.permitWire(inTok, req.owner, initialDeposit, deadline, tokenState, permitNonce) : null;
    const expiresAt = Math.floor((createdMs + QUOTE_TTL_MS) / 1000);
    const wire: QuoteWire = {
      uuid: quoteId,
      route_params: routeParamsWire(intent),
      fee_breakdown: { gas_cost_usd: formatUsd(gasUsd), gas_cost_from_token: formatRaw(breakdown.gasInput, inTok.decimals) },
      ...(withBreakdown ? { quote_breakdown: breakdownWire(breakdown, inTok.address, outTok.address) } : {}),
      expires_at: expiresAt,
      permit,
    };
    const rec: QuoteRecord = {
      uuid: quoteId,
      tradeId,
      owner: req.owner,
      intent,
      fromAmount: req.fromAmount,
      breakdown,
      permit,
      createdMs,
      expiresAt,
      swapSeq,
      executorId,
      informational: breakdown.minOutputAmount === 0n,
      consumed: false,
      wire,
    };
    this.prune(createdMs);
    this.quotes.set(quoteId, rec);
    return rec;
  }

  /** Who the wallet-funded part is approved to: the vault by permit, the router by approve. */
  private depositSpender(token: TokenInfo): Address {
    return token.permit ? this.o.vaultAddress : (this.o.routerAddress ?? this.o.vaultAddress);
  }

  private permitWire(
    token: TokenInfo,
    owner: string,
    value: bigint,
    deadline: number,
    state: PermitTokenState,
    nonce: number,
  ): PermitWire {
    const spender = this.depositSpender(token).toLowerCase();
    const base = {
      token: token.address,
      spender,
      owner,
      value_raw: value.toString(),
      suggested_deadline: deadline,
      current_allowance_raw: state.allowance.toString(),
    };
    if (!token.permit) return { permit_supported: false, permit_required: false, ...base };
    const domain: PermitDomainWire = { name: state.name, version: state.version, chainId: this.o.chainId, verifyingContract: token.address };
    return {
      permit_supported: true,
      permit_required: true,
      ...base,
      nonce,
      domain,
      eip712: {
        domain: { ...domain },
        primaryType: "Permit",
        types: { Permit: PERMIT_TYPE.map((m) => ({ name: m.name, type: m.type })) },
        message: { owner, spender, value: value.toString(), nonce, deadline },
      },
    };
  }

  // -------------------------------------------------------------- lifecycle

  /** The Intent the HTTP layer verifies the POST /swap signature against; 410 when not executable any more. */
  intentOf(uuid: unknown): IntentMessage {
    return this.live(uuid).intent;
  }

  private live(uuid: unknown): QuoteRecord {
    const rec = typeof uuid === "string" ? this.quotes.get(uuid.toLowerCase()) : undefined;
    if (rec === undefined) throw new ExchangeError("QUOTE_GONE", 410, "quote not found; request a new quote");
    if (rec.consumed) throw new ExchangeError("QUOTE_GONE", 410, "quote already consumed");
    if (this.o.clock.nowMs() >= rec.createdMs + QUOTE_TTL_MS) throw new ExchangeError("QUOTE_GONE", 410, "quote expired; request a new quote");
    return rec;
  }

  /**
   * Every POST /swap check, in the lifecycle's order, without changing anything:
   * 410 (unknown / consumed / expired) → 400 (informational quote, signature,
   * permit fields) → 409 QUOTE_STALE (Intent deadline, wallet swap state,
   * executor id, equity) → the route as of now (409 STP_BLOCKED, 400
   * NO_LIQUIDITY / SLIPPAGE_EXCEEDED).
   */
  prepare(sub: SwapSubmission): PreparedSwap {
    const rec = this.live(sub.uuid);
    const i = rec.intent;
    // No route at that size: the spec's NO_LIQUIDITY ("reduce size or change pair").
    if (rec.informational) {
      throw new ExchangeError("NO_LIQUIDITY", 400, "quote is informational (minOutputAmount 0): no executable route at that size");
    }
    if (typeof sub.signature !== "string" || !/^0x[0-9a-fA-F]+$/.test(sub.signature)) {
      throw new ExchangeError("VALIDATION", 400, "signature must be a 0x-prefixed hex string");
    }
    if (sub.signer === null || sub.signer.toLowerCase() !== i.taker) {
      throw new ExchangeError("SIGNATURE_INVALID", 400, "signature does not match quote.route_params signed by the taker");
    }
    let permit: PreparedSwap["permit"] = null;
    if (rec.permit?.eip712 !== undefined) {
      // A missing or unusable permit leaves the allowance short: ALLOWANCE_INSUFFICIENT
      // ("including invalid or expired permit": re-permit).
      if (sub.permit_signature === undefined || sub.permit_signature === null || sub.permit_deadline === undefined || sub.permit_deadline === null) {
        throw new ExchangeError("ALLOWANCE_INSUFFICIENT", 400, "permit_signature and permit_deadline are required when quote.permit is not null");
      }
      if (typeof sub.permit_signature !== "string" || !HEX_SIG.test(sub.permit_signature)) {
        throw new ExchangeError("ALLOWANCE_INSUFFICIENT", 400, "permit_signature must be a 65-byte or 64-byte (compact) hex signature");
      }
      if (sub.permit_deadline !== rec.permit.eip712.message.deadline) {
        throw new ExchangeError("ALLOWANCE_INSUFFICIENT", 400, "permit_deadline must equal quote.permit.eip712.message.deadline");
      }
      permit = { value: i.initialDepositAmount, deadline: BigInt(rec.permit.eip712.message.deadline), signature: sub.permit_signature as Hex };
    }
    const nowSec = this.o.clock.nowSec();
    // "signed deadline expired before submission" is QUOTE_STALE in the spec's table (409 on
    // POST /swap, quote not consumed); INTENT_DEADLINE_EXPIRED is one that passes before the tx lands.
    if (i.deadline <= BigInt(nowSec)) throw new ExchangeError("QUOTE_STALE", 409, "the signed Intent deadline passed before submission; request a new quote");
    if ((this.swapSeq.get(rec.owner) ?? 0) !== rec.swapSeq) {
      throw new ExchangeError("QUOTE_STALE", 409, "another swap of this wallet was accepted since the quote; re-quote and re-submit");
    }
    if (decodeUuidInt(i.uuid).executorId !== this.o.executorId()) {
      throw new ExchangeError("QUOTE_STALE", 409, "the executor changed since the quote; re-quote and re-submit");
    }
    const equityPart = i.maxInputAmount - i.initialDepositAmount;
    if (this.o.vaultAvailable(rec.owner, i.inputToken) < equityPart) {
      throw new ExchangeError("QUOTE_STALE", 409, "vault equity changed since the quote; re-quote and re-submit");
    }
    const route = findRoute(this.o.registry, this.o.liquidity, {
      inputToken: i.inputToken,
      outputToken: i.outputToken,
      amountIn: rec.fromAmount,
      taker: rec.owner,
      nowSec,
    });
    if (route === null) throw new ExchangeError("NO_LIQUIDITY", 400, "no executable depth for the quoted size any more");
    // receive_less: the gas comes off the output, which must still reach the signed minimum.
    const gas = swapGasCharge(rec);
    if (route.output < i.minOutputAmount + (gas.token === i.outputToken ? gas.amount : 0n)) {
      throw new ExchangeError("SLIPPAGE_EXCEEDED", 400, "the book moved: the output after gas now falls below the signed minOutputAmount");
    }
    return { quote: rec, route, signature: sub.signature as Hex, permit };
  }

  /** Consume the quote and advance the wallet's swap state (the caller has created the swap order). */
  commit(p: PreparedSwap): void {
    const rec = this.live(p.quote.uuid);
    if (rec !== p.quote) throw new Error("commit: quote record changed since prepare");
    rec.consumed = true;
    this.swapSeq.set(rec.owner, (this.swapSeq.get(rec.owner) ?? 0) + 1);
    const permitNonce = p.permit !== null && rec.permit?.permit_supported ? rec.permit.nonce : undefined;
    this.pending.set(rec.tradeId, { owner: rec.owner, token: rec.intent.inputToken, withPermit: p.permit !== null, ...(permitNonce !== undefined ? { permitNonce } : {}) });
  }

  /** prepare + commit for callers with nothing to do in between. */
  accept(sub: SwapSubmission): PreparedSwap {
    const p = this.prepare(sub);
    this.commit(p);
    return p;
  }

  /** The swap's transaction was mined (settled or reverted): it no longer holds a future permit nonce. */
  markMined(tradeId: string): void {
    this.pending.delete(tradeId);
  }

  /**
   * What the owner's pending permit swaps of `token` leave for the next permit: `next`, one
   * past the highest nonce they were quoted with (0 when none), and `unrecorded`, how many
   * carry no recorded nonce (state saved before nonces were kept) and add to the chain's.
   */
  permitNonceAfterPending(owner: string, token: string): { next: number; unrecorded: number } {
    let next = 0;
    let unrecorded = 0;
    for (const p of this.pending.values()) {
      if (!p.withPermit || p.owner !== owner || p.token !== token) continue;
      if (p.permitNonce === undefined) unrecorded++;
      else next = Math.max(next, p.permitNonce + 1);
    }
    return { next, unrecorded };
  }

  pendingPermitSwaps(owner: string, token: string): number {
    let n = 0;
    for (const p of this.pending.values()) if (p.withPermit && p.owner === owner && p.token === token) n++;
    return n;
  }

  swapSequence(owner: string): number {
    return this.swapSeq.get(owner.toLowerCase()) ?? 0;
  }

  quoteRecord(uuid: string): Readonly<QuoteRecord> | undefined {
    return this.quotes.get(uuid.toLowerCase());
  }

  private prune(nowMs: number): void {
    for (const [id, q] of this.quotes) {
      if (nowMs >= q.createdMs + QUOTE_TTL_MS + QUOTE_RETENTION_MS) this.quotes.delete(id);
    }
  }

  // -------------------------------------------------------------- snapshots

  snapshot(): SwapDeskState {
    return {
      quotes: [...this.quotes].map(([k, q]) => [k, { ...q }]),
      swapSeq: [...this.swapSeq],
      pending: [...this.pending].map(([k, p]) => [k, { ...p }]),
    };
  }

  restore(s: SwapDeskState): void {
    this.quotes = new Map(s.quotes.map(([k, q]) => [k, { ...q }]));
    this.swapSeq = new Map(s.swapSeq);
    this.pending = new Map(s.pending.map(([k, p]) => [k, { ...p }]));
  }
}

/** The Intent deadline: past → INTENT_DEADLINE_EXPIRED (400); too far → EXPIRATION_INVALID (400). */
function checkDeadline(t: unknown, nowSec: number): number {
  try {
    return checkExpiration(t, nowSec, "expiration");
  } catch (e) {
    if (isExchangeError(e) && e.extra["reason"] === "not_future") {
      throw new ExchangeError("INTENT_DEADLINE_EXPIRED" satisfies ErrorCode, 400, e.detail, { ...e.extra });
    }
    throw e;
  }
}

export function routeParamsWire(i: IntentMessage): RouteParamsWire {
  return {
    taker: i.taker,
    inputToken: i.inputToken,
    outputToken: i.outputToken,
    maxInputAmount: i.maxInputAmount.toString(),
    minOutputAmount: i.minOutputAmount.toString(),
    recipient: i.recipient,
    initialDepositAmount: i.initialDepositAmount.toString(),
    uuid: i.uuid.toString(),
    deadline: Number(i.deadline),
  };
}

function breakdownWire(b: GasBreakdown, input: string, output: string): QuoteBreakdownWire {
  return {
    gas_mode: b.gasMode,
    input_token: input,
    output_token: output,
    input_amount_before_gas: b.inputBefore.toString(),
    input_amount_after_gas: b.inputAfter.toString(),
    output_amount_before_gas: b.outputBefore.toString(),
    output_amount_after_gas: b.outputAfter.toString(),
    gas_cost_input_token: b.gasInput.toString(),
    gas_cost_output_token: b.gasOutput.toString(),
    gas_cost_usd: formatUsd(b.gasUsd),
  };
}
