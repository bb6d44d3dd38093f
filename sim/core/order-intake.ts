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
import { orderIdHash, uuidWordsHash, type HashedOrderId } from "./order-index.ts";

export interface IntakeContext {
  registry: Registry;
  nowSec: number;
  executorId: number;
}

/** A validated limit order in the engine's units, with its id's index hashes. */
export interface IntakeOrder extends HashedOrderId {
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
const CANONICAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

interface MarketGrid {
  market: MarketInfo;
  /**
   * Number-path constants: with lots, ticks and every product below 2^53 the
   * amounts are exact in doubles, so the hot path makes a bigint only for each
   * value the order keeps. 0 (baseUnit, quoteDiv) marks a market whose units do
   * not fit a double; it takes the bigint path.
   */
  baseUnitNum: number; // raw base per lot
  quoteMul: number; // raw quote = lots × ticks × quoteMul / quoteDiv (one of them is 1)
  quoteDiv: number;
  minAskLots: number; // ceil(min_ask_amount_raw / baseUnit): the ask floor in lots
  minBidProduct: number; // ceil(min_bid_quote_amount_raw × gridScale / quoteScale): the bid floor in lots × ticks
  /**
   * Price bigints by tick count, shared between the market's orders: prices
   * cluster, and every order keeps its price for good (one heap object fewer
   * per order for the collector to copy and mark). Bounded; cleared when full.
   */
  prices: Map<number, bigint>;
  baseUnit: bigint;
  quoteScale: bigint; // 10^quote_decimals
  gridScale: bigint; // 10^(quantity_precision + tick_precision)
}

const MEMO_LIMIT = 16_384;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const UINT256_LIMIT = 1n << 256n;

/** 10^0 .. 10^15 as literals (exact doubles; `**` is implementation-approximated). */
const EXACT_POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/** A power of ten as a double when it is exact there (10^0 .. 10^15), else 0. */
function exactPow10(n: number): number {
  return n >= 0 && n <= 15 ? EXACT_POW10[n]! : 0;
}

/** ceil(n / d) of positive bigints as a double (rounded up past 2^53, where the hot path never reaches). */
function ceilToNumber(n: bigint, d: bigint): number {
  return Number((n + d - 1n) / d);
}

/**
 * Units of a canonical positive decimal string on a grid of `precision` digits,
 * as an exact double; -1 when not canonical, zero or off-grid, or when it would
 * not be exact (then the string route decides). Scanned by hand: at most 15
 * significant digits, so every step is exact.
 */
function gridUnits(s: unknown, precision: number): number {
  if (typeof s !== "string") return -1;
  const n = s.length;
  if (n === 0 || n > 16) return -1;
  let value = 0;
  let digits = 0;
  let dot = -1;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (dot >= 0 || i === 0 || i === n - 1) return -1;
      dot = i;
      continue;
    }
    if (c < 48 || c > 57) return -1;
    // Canonical integer part: "0" alone or no leading zero.
    if (i === 1 && dot < 0 && s.charCodeAt(0) === 48) return -1;
    value = value * 10 + (c - 48);
    digits++;
  }
  if (digits > 15) return -1;
  let frac = dot < 0 ? 0 : n - dot - 1;
  // Trailing zeros past the grid are allowed; other digits past it are not.
  while (frac > precision && value % 10 === 0) {
    value /= 10;
    frac--;
  }
  if (frac > precision || value === 0) return -1;
  const units = value * exactPow10(precision - frac);
  return units > 0 && units <= MAX_SAFE ? units : -1;
}

/** Hex digit value by char code (-1: not one); capitals carry bit 16 so a scan can tell them apart. */
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let c = 48; c <= 57; c++) HEX_VALUE[c] = c - 48;
for (let c = 97; c <= 102; c++) HEX_VALUE[c] = c - 87;
for (let c = 65; c <= 70; c++) HEX_VALUE[c] = (c - 55) | 16;

/** The string index of each of a uuid's 32 hex digits (8-4-4-4-12 groups, dashes skipped). */
const UUID_DIGIT_INDEX = Int8Array.from({ length: 32 }, (_, j) => j + (j >= 8 ? 1 : 0) + (j >= 12 ? 1 : 0) + (j >= 16 ? 1 : 0) + (j >= 20 ? 1 : 0));

/** The last uuid4Words id's 128 bits as four 32-bit words, most significant first. */
const UUID_WORDS = new Uint32Array(4);

/**
 * 0 when `id` is not a uuid4 (version nibble 4, variant 10xx, any letter case),
 * 1 when it is one in lowercase, 2 when it has capitals. One table scan reads
 * the digits into UUID_WORDS on the way, for the uuid_int check.
 */
function uuid4Words(id: string): number {
  if (id.length !== 36 || id.charCodeAt(8) !== 45 || id.charCodeAt(13) !== 45 || id.charCodeAt(18) !== 45 || id.charCodeAt(23) !== 45) return 0;
  let seen = 0;
  for (let w = 0; w < 4; w++) {
    let word = 0;
    for (let j = w * 8; j < w * 8 + 8; j++) {
      const c = id.charCodeAt(UUID_DIGIT_INDEX[j]!);
      const d = c < 128 ? HEX_VALUE[c]! : -1;
      seen |= d;
      word = word * 16 + (d & 15);
    }
    UUID_WORDS[w] = word;
  }
  if (seen < 0 || (HEX_VALUE[id.charCodeAt(14)]! & 15) !== 4 || (HEX_VALUE[id.charCodeAt(19)]! & 12) !== 8) return 0;
  return seen & 16 ? 2 : 1;
}

/**
 * A decimal string that starts with 1-9 and ends with a digit, as a bigint; null
 * otherwise. BigInt() parses such a string only when every character is a digit
 * (it throws on anything else), so that is the whole digits check. At most 78
 * digits (a uint256), so a hostile megabyte string never reaches the parser.
 */
function decimalUint(s: unknown): bigint | null {
  if (typeof s !== "string" || s.length === 0 || s.length > 78) return null;
  const first = s.charCodeAt(0);
  const last = s.charCodeAt(s.length - 1);
  if (first < 49 || first > 57 || last < 48 || last > 57) return null;
  try {
    return BigInt(s);
  } catch {
    return null;
  }
}

/** A uint256's four 64-bit limbs (least significant first), read back as 32-bit words. */
const VALUE_LIMBS = new BigUint64Array(4);
const VALUE_WORDS = new Uint32Array(VALUE_LIMBS.buffer);
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/** Bits 32k .. 32k+31 of the value last stored in VALUE_LIMBS. */
function valueWord(k: number): number {
  return VALUE_WORDS[LITTLE_ENDIAN ? k : k ^ 1]!;
}

/**
 * Whether `value` is the standalone uuid_int of the uuid whose words uuid4Words
 * just read, under `executor`: executor · uuid (128 bits) · the uuid's first 112
 * bits (group) · leg 0 (12 bits). The expected value's eight 32-bit words are
 * made from the uuid's four and compared with the value's, so neither a string
 * nor the expected bigint is built.
 */
function isStandaloneUuidInt(value: bigint, executor: number): boolean {
  if (value >= UINT256_LIMIT) return false;
  // Storing into a BigUint64Array keeps the low 64 bits, allocation-free.
  VALUE_LIMBS[0] = value;
  VALUE_LIMBS[1] = value >> 64n;
  VALUE_LIMBS[2] = value >> 128n;
  VALUE_LIMBS[3] = value >> 192n;
  const u0 = UUID_WORDS[0]!;
  const u1 = UUID_WORDS[1]!;
  const u2 = UUID_WORDS[2]!;
  const u3 = UUID_WORDS[3]!;
  // The uuid starts at bit 124 and the group at bit 12, so both copies sit one nibble off the 32-bit words.
  const top28 = u0 >>> 4; // uuid bits 100..127
  const mid1 = ((u0 << 28) | (u1 >>> 4)) >>> 0; // uuid bits 68..99
  const mid2 = ((u1 << 28) | (u2 >>> 4)) >>> 0; // uuid bits 36..67
  return (
    valueWord(7) === ((executor << 28) | top28) >>> 0 &&
    valueWord(6) === mid1 &&
    valueWord(5) === mid2 &&
    valueWord(4) === ((u2 << 28) | (u3 >>> 4)) >>> 0 &&
    valueWord(3) === ((u3 << 28) | top28) >>> 0 &&
    valueWord(2) === mid1 &&
    valueWord(1) === mid2 &&
    // uuid bits 16..35 (the group's last 20 bits), then the 12-bit leg 0.
    valueWord(0) === ((((u2 & 15) << 16) | (u3 >>> 16)) << 12) >>> 0
  );
}

function gridUnitsLong(s: unknown, precision: number): bigint | null {
  if (typeof s !== "string" || s.length === 0 || s.length > 100 || !CANONICAL.test(s)) return null;
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


export class OrderIntake {
  private readonly registry: Registry;
  private readonly grids = new Map<string, Map<string, MarketGrid | null>>();
  private gridEntries = 0;
  private readonly addresses = new Map<string, string | null>();

  constructor(registry: Registry) {
    this.registry = registry;
  }

  /**
   * Market by the body's raw from/to strings, memoised without lowercasing on
   * the hot path; only pairs of well-formed addresses enter the memo.
   */
  private grid(from: string, to: string): MarketGrid | null {
    const g = this.grids.get(from)?.get(to);
    if (g !== undefined) return g;
    if (!ADDRESS.test(from) || !ADDRESS.test(to)) return null;
    const f = from.toLowerCase();
    const t = to.toLowerCase();
    const m = this.registry.market(f, t);
    const grid = m && m.active && m.base === f && m.quote === t ? marketGrid(m) : null;
    if (this.gridEntries >= MEMO_LIMIT) {
      this.grids.clear();
      this.gridEntries = 0;
    }
    let byTo = this.grids.get(from);
    if (byTo === undefined) {
      byTo = new Map();
      this.grids.set(from, byTo);
    }
    byTo.set(to, grid);
    this.gridEntries++;
    return grid;
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
      hashedId: v.orderId,
      idHash: orderIdHash(v.orderId),
      idHashEveryDigit: orderIdHash(v.orderId, true),
    };
  }

  private fast(b: Record<string, unknown>, ctx: IntakeContext): IntakeOrder | null {
    if (b === null || typeof b !== "object") return null;
    // Refused fields (spec: client_id, fee_bps): the shared validator names them.
    if (b.client_id !== undefined || b.fee_bps !== undefined) return null;
    const side = b.side;
    if (side !== "bid" && side !== "ask") return null;
    if (b.order_type !== "limit") return null;
    const owner = this.address(b.owner_address);
    if (owner === null) return null;
    const from = b.from_address;
    const to = b.to_address;
    if (typeof from !== "string" || typeof to !== "string") return null;
    const orderId = b.order_id;
    if (typeof orderId !== "string") return null;
    const idCase = uuid4Words(orderId);
    if (idCase === 0) return null;
    const exp = b.expiration;
    if (typeof exp !== "number" || !Number.isSafeInteger(exp) || exp <= ctx.nowSec || exp > ctx.nowSec + EXPIRATION_MAX_AHEAD_SEC) return null;
    const executor = ctx.executorId;
    if (!Number.isInteger(executor) || executor < 0 || executor > 15) return null;
    const uuidInt = decimalUint(b.uuid_int);
    if (uuidInt === null || !isStandaloneUuidInt(uuidInt, executor)) return null;
    const g = this.grid(from, to);
    if (g === null) return null;
    const m = g.market;
    let lots: bigint;
    let ticks: bigint;
    let baseRaw: bigint;
    let quoteRaw: bigint;
    const lotsN = gridUnits(b.amount, m.quantityPrecision);
    const ticksN = gridUnits(b.price, m.tickPrecision);
    const product = lotsN * ticksN;
    const baseN = lotsN * g.baseUnitNum;
    if (lotsN > 0 && ticksN > 0 && g.baseUnitNum > 0 && g.quoteDiv > 0 && product <= MAX_SAFE && baseN <= MAX_SAFE && product * g.quoteMul <= MAX_SAFE) {
      // Every figure is an integer below 2^53, hence exact. Floors as checkFloor compares them.
      if (side === "ask" ? lotsN < g.minAskLots : product < g.minBidProduct) return null;
      const quoteN = g.quoteDiv === 1 ? product * g.quoteMul : (product - (product % g.quoteDiv)) / g.quoteDiv;
      if (quoteN === 0) return null; // a zero quote leg: the shared validator's floor refuses it
      lots = BigInt(lotsN);
      ticks = sharedPrice(g, ticksN);
      baseRaw = BigInt(baseN);
      quoteRaw = BigInt(quoteN);
    } else {
      const l = lotsN > 0 ? BigInt(lotsN) : gridUnitsLong(b.amount, m.quantityPrecision);
      const t = ticksN > 0 ? BigInt(ticksN) : gridUnitsLong(b.price, m.tickPrecision);
      if (l === null || t === null) return null;
      lots = l;
      ticks = t;
      baseRaw = lots * g.baseUnit;
      const quoteExact = lots * ticks * g.quoteScale; // quote raw × 10^(qp+tp), exact
      if (side === "ask" ? baseRaw < m.minAskAmountRaw : quoteExact < m.minBidQuoteAmountRaw * g.gridScale) return null;
      quoteRaw = quoteExact / g.gridScale;
      if (quoteRaw === 0n) return null;
      // Legs beyond uint256 cannot be signed: the full validator rejects them (400).
      if (baseRaw >= UINT256_LIMIT || quoteRaw >= UINT256_LIMIT) return null;
    }
    const ask = side === "ask";
    const id = idCase === 2 ? orderId.toLowerCase() : orderId;
    const w0 = UUID_WORDS[0]!;
    const w1 = UUID_WORDS[1]!;
    const w2 = UUID_WORDS[2]!;
    const w3 = UUID_WORDS[3]!;
    return {
      owner,
      side,
      market: m,
      // A lowercase id is kept as the body's own string (no copy).
      orderId: id,
      priceTicks: ticks,
      lots,
      expiration: exp,
      uuidInt,
      fromToken: ask ? m.base : m.quote,
      toToken: ask ? m.quote : m.base,
      fromAmount: ask ? baseRaw : quoteRaw,
      toAmount: ask ? quoteRaw : baseRaw,
      signature: null,
      // The index's hashes from the digits read above: placing the order need not read the id again.
      hashedId: id,
      idHash: uuidWordsHash(w0, w1, w2, w3, false),
      idHashEveryDigit: uuidWordsHash(w0, w1, w2, w3, true),
    };
  }
}

const PRICE_MEMO_LIMIT = 4096;

function sharedPrice(g: MarketGrid, ticks: number): bigint {
  let t = g.prices.get(ticks);
  if (t === undefined) {
    if (g.prices.size >= PRICE_MEMO_LIMIT) g.prices.clear();
    t = BigInt(ticks);
    g.prices.set(ticks, t);
  }
  return t;
}

function marketGrid(m: MarketInfo): MarketGrid {
  const baseUnit = pow10(m.baseDecimals - m.quantityPrecision);
  const quoteScale = pow10(m.quoteDecimals);
  const gridScale = pow10(m.quantityPrecision + m.tickPrecision);
  const shift = m.quoteDecimals - m.quantityPrecision - m.tickPrecision;
  return {
    market: m,
    baseUnitNum: exactPow10(m.baseDecimals - m.quantityPrecision),
    quoteMul: shift >= 0 ? exactPow10(shift) : 1,
    // 0 (no number path) when the multiplier is not exact either.
    quoteDiv: shift >= 0 ? (exactPow10(shift) > 0 ? 1 : 0) : exactPow10(-shift),
    minAskLots: ceilToNumber(m.minAskAmountRaw, baseUnit),
    minBidProduct: ceilToNumber(m.minBidQuoteAmountRaw * gridScale, quoteScale),
    prices: new Map(),
    baseUnit,
    quoteScale,
    gridScale,
  };
}
