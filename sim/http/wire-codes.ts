// The one mapping from the simulator's rejection codes to the codes the wire shows.
// The wire carries only the spec's error_code vocabulary (its Errors table, the
// POST /swap subset there) plus CANCEL_COOLDOWN, which the live service sends
// (FACTS). sim/core names rejections more finely (VALIDATION, QUOTE_GONE, ...) so
// tests and this module can tell them apart; every such name is mapped here, case
// by case, to the listed code whose "client action" fits, or to none. README
// "Error codes on the wire" is this table in prose.
//
// Envelopes that always carry a code (POST /orders, POST /orders/vl/batch and
// POST /swap: {"detail": {"detail", "error_code"}}; POST /orders/preview: top-level
// error_code) show TRANSIENT_SETTLEMENT_FAILURE where no code fits: the spec's
// catch-all "for ... any unknown internal code". Plain envelopes ({"detail": "..."})
// carry no code at all, and POST /swap/quote shows detail.code only for its typed
// pricing codes.

import {
  SWAP_ERROR_CODES,
  WIRE_ERROR_CODES,
  isWireErrorCode,
  type ExchangeError,
  type InternalCode,
  type WireErrorCode,
} from "../core/errors.ts";

/** What an envelope that must carry a code shows when no listed code fits. */
export const CATCH_ALL_CODE = "TRANSIENT_SETTLEMENT_FAILURE" satisfies WireErrorCode;

type ToWire = (e: ExchangeError) => WireErrorCode | null;
const none: ToWire = () => null;

/**
 * Internal code → wire code (null: none fits). A Record over every internal code, so
 * a new internal code does not compile until it is mapped here.
 */
const INTERNAL_TO_WIRE: Record<InternalCode, ToWire> = {
  // Field and shape errors, bodies that are not JSON, too large or wrongly encoded: fix the request.
  VALIDATION: none,
  // A signature that does not recover the owner: sign again.
  SIGNATURE_INVALID: none,
  // A reused API-key management signature (409): sign again with a fresh timestamp.
  SIGNATURE_REPLAYED: none,
  UNAUTHORIZED: none,
  FORBIDDEN: none,
  NOT_FOUND: none,
  // order_id already used, twice in one batch, or a cancel of an order no longer pending.
  CONFLICT: none,
  // A swap quote expired, consumed or unknown (410): "request fresh quote".
  QUOTE_GONE: () => "QUOTE_STALE",
  // Plain 429 {"detail": "Rate limit exceeded"} (FACTS): no code.
  RATE_LIMITED: none,
  // A live wire code itself, so wireCodeOf returns it before reading this table (the
  // Record still has to name every internal code).
  CANCEL_COOLDOWN: () => "CANCEL_COOLDOWN",
  // A signed expiration already past: "signed deadline expired before submission";
  // missing, non-integer or too far ahead is a field error.
  EXPIRATION_INVALID: (e) => (e.extra["reason"] === "not_future" ? "QUOTE_STALE" : null),
  // Built for an executor id that has rotated since ("a changed executor_id invalidates
  // outstanding signed identifiers"): build a fresh order. Any other part wrong is a field error.
  UUID_INT_MISMATCH: (e) => (e.extra["reason"] === "executor_id" ? "QUOTE_STALE" : null),
  // Too many API keys: revoke one first.
  LIMIT_EXCEEDED: none,
  // 503: the spec's fixed body, no code.
  UNAVAILABLE: none,
};

/** The listed code that fits `err`, or null when none does. */
export function wireCodeOf(err: ExchangeError): WireErrorCode | null {
  if (isWireErrorCode(err.code)) return err.code;
  return INTERNAL_TO_WIRE[err.code as InternalCode](err);
}

/** Codes a route may show, where the spec narrows the vocabulary for it. */
const ROUTE_CODES: Readonly<Record<string, readonly WireErrorCode[]>> = {
  "POST /swap": SWAP_ERROR_CODES,
};

/**
 * The code an envelope that always carries one shows on `route` ("POST /swap"):
 * the fitting code when the route allows it, else the catch-all.
 */
export function requiredWireCode(err: ExchangeError, route?: string): WireErrorCode {
  const code = wireCodeOf(err);
  const allowed = (route !== undefined ? ROUTE_CODES[route] : undefined) ?? WIRE_ERROR_CODES;
  return code !== null && allowed.includes(code) ? code : CATCH_ALL_CODE;
}
