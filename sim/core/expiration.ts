// The bounded-expiration rule shared by orders, swap Intent deadlines and
// withdraw deadlines: now < t <= now + 365 days - 300 s, on the server clock.

import { ExchangeError } from "./errors.ts";

/** 365 days minus the 300-second skew guard. */
export const EXPIRATION_MAX_AHEAD_SEC = 365 * 86400 - 300;

/** Why an expiration was refused; carried in `extra.reason` so callers can map it. */
export type ExpirationProblem = "missing" | "not_integer" | "not_future" | "too_far";

/**
 * Validate a signed expiration / deadline and return it as a number.
 * Accepts a JSON integer, a bigint, or a decimal-digit string (withdraw deadlines
 * travel as uint256 strings). Missing, zero, past, non-integer and far-future
 * values all raise EXPIRATION_INVALID (400).
 *
 * The detail text names the field and the window in server time. POST /orders puts
 * it verbatim into its typed envelope, so it must read well to a client developer
 * and never leak internals.
 */
export function checkExpiration(t: unknown, nowSec: number, field = "expiration"): number {
  const max = nowSec + EXPIRATION_MAX_AHEAD_SEC;
  const window = `must satisfy now < ${field} <= now + ${EXPIRATION_MAX_AHEAD_SEC} seconds (365 days minus 300 s); server time is ${nowSec}`;
  const fail = (reason: ExpirationProblem, what: string) =>
    new ExchangeError("EXPIRATION_INVALID", 400, `${field} ${what}: it ${window}`, {
      field,
      reason,
      server_time: nowSec,
      max_expiration: max,
    });

  if (t === undefined || t === null || t === "") throw fail("missing", "is required");
  let value: bigint;
  if (typeof t === "number") {
    if (!Number.isSafeInteger(t)) throw fail("not_integer", "must be an integer Unix timestamp in seconds");
    value = BigInt(t);
  } else if (typeof t === "bigint") {
    value = t;
  } else if (typeof t === "string" && /^[0-9]{1,78}$/.test(t)) {
    value = BigInt(t);
  } else {
    throw fail("not_integer", "must be an integer Unix timestamp in seconds");
  }
  if (value === 0n) throw fail("missing", "is zero");
  if (value <= BigInt(nowSec)) throw fail("not_future", "is not in the future");
  if (value > BigInt(max)) throw fail("too_far", "is too far in the future");
  return Number(value);
}
