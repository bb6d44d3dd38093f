// One typed error for every rejection the exchange can give. The HTTP layer maps
// these to the spec's envelopes in one place; nothing else builds error bodies.
import { sameClassAcrossBuilds } from "../platform/cross-build.ts";

/** The spec's typed error_code vocabulary (Errors table). */
export const ERROR_CODES = [
  "ALLOWANCE_INSUFFICIENT",
  "INTENT_DEADLINE_EXPIRED",
  "SLIPPAGE_EXCEEDED",
  "NO_LIQUIDITY",
  "QUOTE_STALE",
  "AMOUNT_BELOW_MIN",
  "INVALID_PRECISION",
  "INVALID_DECIMAL_FORMAT",
  "STP_BLOCKED",
  "INSUFFICIENT_EQUITY",
  "PAIR_INACTIVE",
  "TRANSIENT_SETTLEMENT_FAILURE",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The subset the spec gives for POST /swap. */
export const SWAP_ERROR_CODES = [
  "ALLOWANCE_INSUFFICIENT",
  "INTENT_DEADLINE_EXPIRED",
  "SLIPPAGE_EXCEEDED",
  "NO_LIQUIDITY",
  "QUOTE_STALE",
  "AMOUNT_BELOW_MIN",
  "STP_BLOCKED",
  "TRANSIENT_SETTLEMENT_FAILURE",
] as const satisfies readonly ErrorCode[];

/** Codes outside the spec's table that the live service is seen to send (FACTS: cancel inside the cooldown). */
export const LIVE_WIRE_CODES = ["CANCEL_COOLDOWN"] as const;

/** Every code that may appear on the wire (error_code, detail.code); nothing else ever does. */
export const WIRE_ERROR_CODES = [...ERROR_CODES, ...LIVE_WIRE_CODES] as const;
export type WireErrorCode = (typeof WIRE_ERROR_CODES)[number];

export function isWireErrorCode(x: unknown): x is WireErrorCode {
  return typeof x === "string" && (WIRE_ERROR_CODES as readonly string[]).includes(x);
}

/**
 * Codes that are not in the spec's typed vocabulary but name a rejection so that
 * tests and the HTTP mapper can branch on it. They never appear on the wire:
 * sim/http/wire-codes.ts maps each to a code of WIRE_ERROR_CODES or to none.
 */
export type InternalCode =
  | "VALIDATION" // 400/422 field validation
  | "SIGNATURE_INVALID" // 400 signature mismatch
  | "SIGNATURE_REPLAYED" // 409 reused signature
  | "UNAUTHORIZED" // 401
  | "FORBIDDEN" // 403
  | "NOT_FOUND" // 404
  | "CONFLICT" // 409 other
  | "QUOTE_GONE" // 410 expired / consumed / unknown quote
  | "RATE_LIMITED" // 429 plain rate limit
  | "CANCEL_COOLDOWN" // 429 inside the per-order cancel cooldown
  | "EXPIRATION_INVALID" // 400 expiration / deadline outside the window
  | "UUID_INT_MISMATCH" // 400 composite id does not encode order_id
  | "LIMIT_EXCEEDED" // 400/409 e.g. too many API keys
  | "UNAVAILABLE"; // 503

export type FakexErrorCode = ErrorCode | InternalCode;

export class ExchangeError extends Error {
  readonly code: FakexErrorCode;
  readonly status: number;
  readonly detail: string;
  /** Extra structured fields some envelopes carry (e.g. min_amount_raw for AMOUNT_BELOW_MIN). */
  readonly extra: Readonly<Record<string, unknown>>;

  constructor(code: FakexErrorCode, status: number, detail: string, extra: Record<string, unknown> = {}) {
    super(`${code}: ${detail}`);
    this.name = "ExchangeError";
    this.code = code;
    this.status = status;
    this.detail = detail;
    this.extra = extra;
  }
}
sameClassAcrossBuilds(ExchangeError, "ExchangeError");

export function isExchangeError(e: unknown): e is ExchangeError {
  return e instanceof ExchangeError;
}

// Short constructors for the common statuses keep call sites readable.
export const unprocessable = (detail: string, extra?: Record<string, unknown>) =>
  new ExchangeError("VALIDATION", 422, detail, extra);
export const notFound = (detail: string) => new ExchangeError("NOT_FOUND", 404, detail);
