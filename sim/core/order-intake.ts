// Hot-path intake of POST /orders bodies. Accepts exactly what
// preview.validateOrderFields accepts and computes the same numbers, in
// integer ticks and lots, without its allocations. Anything unusual — and every
// rejection — falls through to validateOrderFields, so error codes, texts and
// their order stay those of the one shared validator.
import { pow10 } from "./amounts.ts";
import type { MarketInfo, Registry } from "./registry.ts";
import type { Side } from "./order-terms.ts";
import type { Hex } from "./typed-data.ts";
import { validateOrderFields } from "./preview.ts";
import { EXPIRATION_MAX_AHEAD_SEC } from "./expiration.ts";

export interface IntakeContext {
  registry: Registry;
  nowSec: number;
  executorId: number;
}

/** A validated limit order in the engine's units. */
export interface IntakeOrder {
  owner: string;
  side: Side;
  market: MarketInfo;
  orderId: string;
  priceTicks: bigint;
  lots: bigint;
  expiration: number;
  uuidInt: bigint;
  fromToken: string;
  toToken: string;
  fromAmount: bigint;
  toAmount: bigint;
  /** Filled in by the engine from the body (the intake does not judge signatures). */
  signature: Hex | null;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const CANONICAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;
const UINT256_DEC = /^(0|[1-9][0-9]{0,77})$/;

interface MarketGrid {
  market: MarketInfo;
  baseUnit: bigint; // raw base per lot
  quoteScale: bigint; // 10^quote_decimals
  gridScale: bigint; // 10^(quantity_precision + tick_precision)
}

const MEMO_LIMIT = 16_384;

/**
 * Units of a canonical positive decimal string on a grid of `precision` digits;
 * null when not canonical, zero or off-grid. Short strings (at most 15 digits,
 * exact in a double) are scanned by hand; anything longer takes the string route.
 */
function gridUnits(s: unknown, precision: number): bigint | null {
  if (typeof s !== "string") return null;
  const n = s.length;
  if (n === 0 || n > 16) return gridUnitsLong(s, precision);
  let value = 0;
  let digits = 0;
  let dot = -1;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (dot >= 0 || i === 0 || i === n - 1) return null;
      dot = i;
      continue;
    }
    if (c < 48 || c > 57) return null;
    // Canonical integer part: "0" alone or no leading zero.
    if (i === 1 && dot < 0 && s.charCodeAt(0) === 48) return null;
    value = value * 10 + (c - 48);
    digits++;
  }
  let frac = dot < 0 ? 0 : n - dot - 1;
  // Trailing zeros past the grid are allowed; other digits past it are not.
  while (frac > precision && value % 10 === 0) {
    value /= 10;
    frac--;
  }
  if (frac > precision || value === 0 || digits > 15) return digits > 15 ? gridUnitsLong(s, precision) : null;
  return BigInt(value) * POW10[precision - frac]!;
}

const POW10: bigint[] = Array.from({ length: 80 }, (_, i) => 10n ** BigInt(i));

function gridUnitsLong(s: string, precision: number): bigint | null {
  if (s.length > 100 || !CANONICAL.test(s)) return null;
  const dot = s.indexOf(".");
  const intPart = dot < 0 ? s : s.slice(0, dot);
  let frac = dot < 0 ? "" : s.slice(dot + 1);
  let end = frac.length;
  while (end > precision && frac.charCodeAt(end - 1) === 48) end--;
  if (end > precision) return null;
  frac = frac.slice(0, end).padEnd(precision, "0");
  const units = BigInt(intPart + frac);
  return units > 0n ? units : null;
}

const HEX_DIGITS = "0123456789abcdef";
const UINT256_LIMIT = 1n << 256n;

export class OrderIntake {
  private readonly registry: Registry;
  private readonly grids = new Map<string, Map<string, MarketGrid | null>>();
  private readonly addresses = new Map<string, string | null>();

  constructor(registry: Registry) {
    this.registry = registry;
  }

  /** Market by the body's raw from/to strings (memoised without lowercasing on the hot path). */
  private grid(from: string, to: string): MarketGrid | null {
    let byTo = this.grids.get(from);
    if (byTo === undefined) {
      byTo = new Map();
      this.grids.set(from, byTo);
    }
    let g = byTo.get(to);
    if (g === undefined) {
      const f = from.toLowerCase();
      const t = to.toLowerCase();
      const m = this.registry.market(f, t);
      g =
        m && m.active && m.base === f && m.quote === t
          ? {
              market: m,
              baseUnit: pow10(m.baseDecimals - m.quantityPrecision),
              quoteScale: pow10(m.quoteDecimals),
              gridScale: pow10(m.quantityPrecision + m.tickPrecision),
            }
          : null;
      byTo.set(to, g);
    }
    return g;
  }

  /** Lowercase of a valid address, memoised (owners repeat); null when not an address. */
  private address(a: unknown): string | null {
    if (typeof a !== "string") return null;
    let v = this.addresses.get(a);
    if (v === undefined) {
      v = ADDRESS.test(a) ? a.toLowerCase() : null;
      if (this.addresses.size >= MEMO_LIMIT) this.addresses.clear();
      this.addresses.set(a, v);
    }
    return v;
  }

  /**
   * Validate a POST /orders body. Uses the shared validator whenever the fast
   * path is not certain, so the result (or the thrown ExchangeError) is always
   * the one validateOrderFields gives.
   */
  intake(body: Record<string, unknown>, ctx: IntakeContext): IntakeOrder {
    return this.fast(body, ctx) ?? this.slow(body, ctx);
  }

  private slow(body: Record<string, unknown>, ctx: IntakeContext): IntakeOrder {
    const v = validateOrderFields(body, ctx);
    const m = v.market;
    const lotsScale = m.quantityPrecision;
    const ticksScale = m.tickPrecision;
    const scaleTo = (units: bigint, from: number, to: number) => (to >= from ? units * pow10(to - from) : units / pow10(from - to));
    return {
      owner: v.owner,
      side: v.side,
      market: m,
      orderId: v.orderId,
      priceTicks: scaleTo(v.price.units, v.price.scale, ticksScale),
      lots: scaleTo(v.amount.units, v.amount.scale, lotsScale),
      expiration: v.expiration,
      uuidInt: v.uuidInt,
      fromToken: v.terms.fromToken,
      toToken: v.terms.toToken,
      fromAmount: v.terms.fromAmount,
      toAmount: v.terms.toAmount,
      signature: null,
    };
  }

  private fast(b: Record<string, unknown>, ctx: IntakeContext): IntakeOrder | null {
    if (b === null || typeof b !== "object") return null;
    // Refused fields (spec: client_id, fee_bps): the shared validator names them.
    if (b.client_id !== undefined || b.fee_bps !== undefined) return null;
    const side = b.side;
    const orderId = b.order_id;
    const owner = this.address(b.owner_address);
    if (owner === null) return null;
    if (side !== "bid" && side !== "ask") return null;
    if (b.order_type !== "limit") return null;
    const from = b.from_address;
    const to = b.to_address;
    if (typeof from !== "string" || typeof to !== "string" || this.address(from) === null || this.address(to) === null) return null;
    if (typeof orderId !== "string" || !UUID4.test(orderId)) return null;
    const g = this.grid(from, to);
    if (g === null) return null;
    const m = g.market;
    const lots = gridUnits(b.amount, m.quantityPrecision);
    const ticks = gridUnits(b.price, m.tickPrecision);
    if (lots === null || ticks === null) return null;
    const baseRaw = lots * g.baseUnit;
    const quoteExact = lots * ticks * g.quoteScale; // quote raw × 10^(qp+tp), exact
    // Floors compared exactly, as checkFloor does.
    if (side === "ask" ? baseRaw < m.minAskAmountRaw : quoteExact < m.minBidQuoteAmountRaw * g.gridScale) return null;
    const exp = b.expiration;
    if (typeof exp !== "number" || !Number.isSafeInteger(exp) || exp <= ctx.nowSec || exp > ctx.nowSec + EXPIRATION_MAX_AHEAD_SEC) return null;
    const uuidText = b.uuid_int;
    if (typeof uuidText !== "string" || !UINT256_DEC.test(uuidText)) return null;
    const executor = ctx.executorId;
    if (!Number.isInteger(executor) || executor < 0 || executor > 15) return null;
    // Every field of the composite id is nibble-aligned (4 | 12 | 124 | 252), so the
    // expected value in hex is: executor · uuid (32) · first 28 hex of uuid (group) · "000" (leg 0).
    const id = orderId.toLowerCase();
    const uuidHex = id.slice(0, 8) + id.slice(9, 13) + id.slice(14, 18) + id.slice(19, 23) + id.slice(24);
    const uuidInt = BigInt(uuidText);
    if (uuidInt.toString(16).padStart(64, "0") !== HEX_DIGITS[executor]! + uuidHex + uuidHex.slice(0, 28) + "000") return null;
    const quoteRaw = quoteExact / g.gridScale;
    // Legs beyond uint256 cannot be signed: the full validator rejects them (400).
    if (baseRaw >= UINT256_LIMIT || quoteRaw >= UINT256_LIMIT) return null;
    return {
      owner,
      side,
      market: m,
      orderId: id,
      priceTicks: ticks,
      lots,
      expiration: exp,
      uuidInt,
      fromToken: side === "ask" ? m.base : m.quote,
      toToken: side === "ask" ? m.quote : m.base,
      fromAmount: side === "ask" ? baseRaw : quoteRaw,
      toAmount: side === "ask" ? quoteRaw : baseRaw,
      signature: null,
    };
  }
}
