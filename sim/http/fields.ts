// Field schemas several routes share: addresses, UUID4 ids, uint256 decimal
// strings, Unix seconds and hex signatures. One definition each, so "what is a
// uint256 string" cannot drift between routes. The status a failure maps to (400 or
// 422) stays the route's choice (parseInput's option), not the field's.

import { z } from "zod";
import type { Address } from "../core/typed-data.ts";
import { UINT256_LIMIT } from "../core/uuid-int.ts";

export const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;
export const UUID4_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/;

const ADDRESS_MESSAGE = "must be a 0x-prefixed 20-byte hex address";

/** A string field's type error: absent is "is required", anything else "must be a string". */
export const stringTypeError = (iss: { input?: unknown }): string => (iss.input === undefined ? "is required" : "must be a string");

/** A 0x-prefixed 20-byte hex address, any letter case, kept as sent. */
export const zAddress = z.string({ error: stringTypeError }).regex(ADDRESS_RE, ADDRESS_MESSAGE);

/** The same address, parsed to lowercase (how addresses are stored). */
export const zAddressLower = zAddress.transform((a) => a.toLowerCase() as Address);

export const zUuid4 = z.string({ error: stringTypeError }).regex(UUID4_RE, "must be a UUID version 4");

export interface Uint256TextRules {
  /** No leading zeros ("0" alone is fine); default false (any 1-78 digits). */
  canonical?: boolean;
  /** Zero refused; default false. */
  positive?: boolean;
}

const DIGITS = /^[0-9]{1,78}$/;
const CANONICAL = /^(0|[1-9][0-9]{0,77})$/;

/** Whether `s` is a uint256 in decimal digits under `rules` (checked before BigInt, which throws on junk). */
export function isUint256Text(s: string, rules: Uint256TextRules = {}): boolean {
  if (!(rules.canonical ? CANONICAL : DIGITS).test(s)) return false;
  const v = BigInt(s);
  return v < UINT256_LIMIT && (!rules.positive || v > 0n);
}

/**
 * A uint256 decimal string, `message` on any failure. One refine, not regex +
 * refine: zod 4 runs a refine even after a failed regex, and BigInt("1.5") would
 * throw (a 503 for what is a bad field).
 */
export function zUint256(message: string, rules: Uint256TextRules = {}, notString = message) {
  return z.string({ error: (iss) => (iss.input === undefined ? "is required" : notString) }).refine((s) => isUint256Text(s, rules), message);
}

const UNIX_SECONDS_MESSAGE = "must be a non-negative integer (Unix seconds)";
/** uint256 Unix seconds: a JSON integer in bodies, or a digit string (queries carry only strings). */
export const zUnixSeconds = z.union(
  [z.int({ error: UNIX_SECONDS_MESSAGE }).nonnegative({ error: UNIX_SECONDS_MESSAGE }), zUint256(UNIX_SECONDS_MESSAGE)],
  { error: UNIX_SECONDS_MESSAGE },
);

/** 0x-prefixed whole bytes of hex (signatures, raw transactions); `nonEmpty` refuses a bare "0x". */
export function zHex(message: string, o: { nonEmpty?: boolean; error?: string } = {}) {
  const notString = o.error;
  return z.string({ error: notString === undefined ? stringTypeError : (iss) => (iss.input === undefined ? "is required" : notString) }).regex(o.nonEmpty ? /^0x([0-9a-fA-F]{2})+$/ : /^0x([0-9a-fA-F]{2})*$/, message);
}

/** A query-string integer within [min, max] (a longer number is refused by the bound that names the limit); `dflt` when absent. */
export function zQueryInt(min: number, max: number, dflt: number) {
  return z
    .string()
    .regex(/^[0-9]{1,30}$/, "must be a non-negative integer")
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .optional()
    .transform((n) => n ?? dflt);
}
