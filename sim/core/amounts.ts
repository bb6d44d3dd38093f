// Exact decimal arithmetic for amounts and prices. Decimal strings exist only at
// the edges (request bodies, responses); inside, a value is an integer number of
// units at a known scale, and raw token amounts are plain bigints.

import { ExchangeError } from "./errors.ts";

/** value = units / 10^scale. `scale` is the number of fractional digits as written. */
export interface Decimal {
  units: bigint;
  scale: number;
}

/**
 * Longest decimal string we parse. A uint256 has 78 digits; allowing a fractional
 * tail on top of that covers every legitimate amount or price while keeping a
 * hostile megabyte string from reaching BigInt.
 */
export const MAX_DECIMAL_LENGTH = 100;

/**
 * Canonical form: `digits` or `digits.digits`. The integer part is "0" or starts
 * with 1-9, so "01.5" and "00" are rejected: the spec asks for a *canonical*
 * fixed-point string and a client that pads with zeros would be relying on
 * leniency the live service does not promise. Trailing fractional zeros ("1.50")
 * are accepted: they are harmless on the grid and preview reports them through
 * canonicalization_required.
 */
const CANONICAL_DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/**
 * Parse an order `amount` or `price`. Anything that is not a canonical positive
 * fixed-point string (wrong type, sign, exponent, separators, whitespace,
 * leading/trailing ".", leading zeros, zero value) is INVALID_DECIMAL_FORMAT.
 */
export function parseCanonicalDecimal(s: unknown, field: string): Decimal {
  if (typeof s !== "string") {
    throw invalidDecimal(field, `${field} must be a string holding a canonical decimal`);
  }
  if (s.length === 0 || s.length > MAX_DECIMAL_LENGTH || !CANONICAL_DECIMAL.test(s)) {
    throw invalidDecimal(field, `${field} must be a canonical positive decimal string (digits with an optional fractional part)`);
  }
  const d = decimalOf(s);
  if (d.units === 0n) throw invalidDecimal(field, `${field} must be greater than zero`);
  return d;
}

/**
 * A decimal string of digits with an optional fractional part (its form checked by the
 * caller: a field fakex printed, a matched filter bound) as a Decimal, exactly.
 */
export function decimalOf(s: string): Decimal {
  const dot = s.indexOf(".");
  return dot < 0 ? { units: BigInt(s), scale: 0 } : { units: BigInt(s.slice(0, dot) + s.slice(dot + 1)), scale: s.length - dot - 1 };
}

function invalidDecimal(field: string, detail: string): ExchangeError {
  return new ExchangeError("INVALID_DECIMAL_FORMAT", 400, detail, { field });
}

export function pow10(n: number): bigint {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`pow10 needs a non-negative integer, got ${n}`);
  return 10n ** BigInt(n);
}

/** Drop trailing fractional zeros: {150, 2} → {15, 1}. Same value, smallest scale. */
export function normalizeDecimal(d: Decimal): Decimal {
  let { units, scale } = d;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  return { units, scale };
}

/**
 * Non-zero digits beyond `precision` fractional digits are INVALID_PRECISION.
 * Trailing zeros past the grid are fine: "1.50" sits on a 0.1 grid.
 */
export function checkPrecision(d: Decimal, precision: number, field: string): void {
  if (normalizeDecimal(d).scale > precision) {
    throw new ExchangeError(
      "INVALID_PRECISION",
      400,
      `${field} has non-zero digits beyond ${precision} decimal places (step ${formatUnits(1n, precision)})`,
      { field, precision },
    );
  }
}

/** Units of `d` at `scale`: exact when the value sits on that grid, floored otherwise. */
export function toScale(d: Decimal, scale: number): bigint {
  if (scale >= d.scale) return d.units * pow10(scale - d.scale);
  return d.units / pow10(d.scale - scale); // bigint division truncates; values are non-negative, so this floors
}

/** floor(value * 10^decimals): a decimal quantity as raw token units. */
export function decimalToRaw(d: Decimal, decimals: number): bigint {
  return toScale(d, decimals);
}

/**
 * floor(amount * price * 10^quoteDecimals). The product is formed exactly first and
 * floored once at the end, as the live service does; flooring the factors first
 * would lose value on off-grid products.
 */
export function quoteRaw(amount: Decimal, price: Decimal, quoteDecimals: number): bigint {
  return floorDiv(amount.units * price.units * pow10(quoteDecimals), pow10(amount.scale + price.scale));
}

/** The exact product amount * price as a Decimal (notional). */
export function mulDecimal(a: Decimal, b: Decimal): Decimal {
  return { units: a.units * b.units, scale: a.scale + b.scale };
}

/** -1, 0 or 1 comparing two decimals exactly. */
export function compareDecimal(a: Decimal, b: Decimal): -1 | 0 | 1 {
  const scale = Math.max(a.scale, b.scale);
  const x = a.units * pow10(scale - a.scale);
  const y = b.units * pow10(scale - b.scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Floor division that is correct for negative numerators too. */
export function floorDiv(n: bigint, d: bigint): bigint {
  if (d <= 0n) throw new RangeError("floorDiv needs a positive divisor");
  const q = n / d;
  return n % d !== 0n && n < 0n ? q - 1n : q;
}

/** Canonical decimal of a raw token amount: trailing zeros trimmed, "0" for zero. */
export function formatRaw(raw: bigint, decimals: number): string {
  return formatUnits(raw, decimals);
}

/** Canonical decimal of units / 10^scale (any scale), trailing zeros trimmed, "0" for zero. */
export function formatUnits(units: bigint, scale: number): string {
  if (!Number.isInteger(scale) || scale < 0) throw new RangeError(`bad scale ${scale}`);
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const digits = abs.toString();
  let out: string;
  if (scale === 0) {
    out = digits;
  } else {
    const padded = digits.padStart(scale + 1, "0");
    const intPart = padded.slice(0, padded.length - scale);
    const fracPart = padded.slice(padded.length - scale).replace(/0+$/, "");
    out = fracPart.length > 0 ? `${intPart}.${fracPart}` : intPart;
  }
  return negative && abs !== 0n ? `-${out}` : out;
}

export function formatDecimal(d: Decimal): string {
  return formatUnits(d.units, d.scale);
}
