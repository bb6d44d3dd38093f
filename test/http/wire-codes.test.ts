// The one mapping from internal rejection codes to wire codes (sim/http/wire-codes.ts),
// case by case as README "Error codes on the wire" lists it, and the vocabulary walker
// the conformance kit and fuzz tests use.

import { describe, expect, it } from "vitest";
import { ERROR_CODES, ExchangeError, WIRE_ERROR_CODES, type InternalCode } from "../../sim/core/errors.ts";
import { checkExpiration } from "../../sim/core/expiration.ts";
import { checkStandaloneUuidInt, standaloneUuidInt } from "../../sim/core/uuid-int.ts";
import { errorResponse } from "../../sim/http/errors.ts";
import { CATCH_ALL_CODE, requiredWireCode, wireCodeOf } from "../../sim/http/wire-codes.ts";
import { strayWireCodes } from "../../properties/wire-vocabulary.ts";

const ID = "0f8fad5b-d9cb-469f-a165-70867728950e";
const OTHER = "7c9e6679-7425-40de-944b-e07fc1f90ae7";

function thrown(f: () => unknown): ExchangeError {
  try {
    f();
  } catch (e) {
    if (e instanceof ExchangeError) return e;
    throw e;
  }
  throw new Error("did not throw");
}

describe("wireCodeOf: internal case → wire code", () => {
  it("the spec's codes and CANCEL_COOLDOWN pass through unchanged", () => {
    for (const code of WIRE_ERROR_CODES) expect(wireCodeOf(new ExchangeError(code, 400, "x"))).toBe(code);
  });

  it("maps each internal code as the README table says", () => {
    const table: [InternalCode, number, string | null][] = [
      ["VALIDATION", 400, null],
      ["SIGNATURE_INVALID", 400, null],
      ["SIGNATURE_REPLAYED", 409, null],
      ["UNAUTHORIZED", 401, null],
      ["FORBIDDEN", 403, null],
      ["NOT_FOUND", 404, null],
      ["CONFLICT", 409, null],
      ["QUOTE_GONE", 410, "QUOTE_STALE"],
      ["RATE_LIMITED", 429, null],
      ["CANCEL_COOLDOWN", 429, "CANCEL_COOLDOWN"],
      ["LIMIT_EXCEEDED", 400, null],
      ["UNAVAILABLE", 503, null],
    ];
    for (const [code, status, wire] of table) expect([code, wireCodeOf(new ExchangeError(code, status, "x"))]).toEqual([code, wire]);
  });

  it("an expiration already past is QUOTE_STALE; missing, zero, fractional or too far is none", () => {
    const now = 1_800_000_000;
    expect(wireCodeOf(thrown(() => checkExpiration(now, now)))).toBe("QUOTE_STALE");
    expect(wireCodeOf(thrown(() => checkExpiration(now - 5, now)))).toBe("QUOTE_STALE");
    for (const t of [undefined, 0, 1.5, "soon", now + 400 * 86400]) expect(wireCodeOf(thrown(() => checkExpiration(t, now)))).toBeNull();
  });

  it("a uuid_int of this order for a rotated executor id is QUOTE_STALE; another order's, group or leg is none", () => {
    expect(wireCodeOf(thrown(() => checkStandaloneUuidInt(ID, standaloneUuidInt(ID, 2), 3)))).toBe("QUOTE_STALE");
    expect(wireCodeOf(thrown(() => checkStandaloneUuidInt(ID, standaloneUuidInt(OTHER, 3), 3)))).toBeNull();
    expect(wireCodeOf(thrown(() => checkStandaloneUuidInt(ID, standaloneUuidInt(ID, 3) + 1n, 3)))).toBeNull();
    // garbage carries another order id too: a field error, not a rotation
    expect(wireCodeOf(thrown(() => checkStandaloneUuidInt(ID, 1n, 3)))).toBeNull();
  });

  it("envelopes that must carry a code fall back to the catch-all; POST /swap keeps to its subset", () => {
    expect(CATCH_ALL_CODE).toBe("TRANSIENT_SETTLEMENT_FAILURE");
    expect(requiredWireCode(new ExchangeError("VALIDATION", 422, "x"))).toBe(CATCH_ALL_CODE);
    expect(requiredWireCode(new ExchangeError("QUOTE_GONE", 410, "x"), "POST /swap")).toBe("QUOTE_STALE");
    for (const code of ["INVALID_PRECISION", "INVALID_DECIMAL_FORMAT", "INSUFFICIENT_EQUITY", "PAIR_INACTIVE"] as const) {
      expect(requiredWireCode(new ExchangeError(code, 400, "x"), "POST /swap")).toBe(CATCH_ALL_CODE);
      expect(requiredWireCode(new ExchangeError(code, 400, "x"), "POST /orders")).toBe(code);
    }
  });

  it("no envelope ever shows an internal name: every internal code, every style", () => {
    const internal: InternalCode[] = ["VALIDATION", "SIGNATURE_INVALID", "SIGNATURE_REPLAYED", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT", "QUOTE_GONE", "RATE_LIMITED", "CANCEL_COOLDOWN", "EXPIRATION_INVALID", "UUID_INT_MISMATCH", "LIMIT_EXCEEDED", "UNAVAILABLE"];
    for (const code of [...internal, ...ERROR_CODES]) {
      for (const style of ["plain", "typed", "preview", "swapQuote"] as const) {
        for (const status of [400, 409, 410, 422, 503]) {
          const r = errorResponse(new ExchangeError(code, status, "x"), style);
          expect([code, style, strayWireCodes(r.body)]).toEqual([code, style, []]);
        }
      }
    }
  });
});

describe("strayWireCodes", () => {
  it("finds codes outside the vocabulary at any depth, under error_code, code and rejectionCategory", () => {
    expect(strayWireCodes({ detail: { detail: "x", error_code: "QUOTE_GONE" } })).toEqual([{ path: "detail.error_code", key: "error_code", value: "QUOTE_GONE" }]);
    expect(strayWireCodes({ ok: false, error_code: "VALIDATION", detail: "x" })).toEqual([{ path: "error_code", key: "error_code", value: "VALIDATION" }]);
    expect(strayWireCodes({ detail: { code: 7 } })).toEqual([{ path: "detail.code", key: "code", value: 7 }]);
    expect(strayWireCodes({ items: [{ error: null }, { error: { rejectionCategory: "VALIDATION" } }] })).toEqual([
      { path: "items[1].error.rejectionCategory", key: "rejectionCategory", value: "VALIDATION" },
    ]);
    expect(strayWireCodes({ trades: [{ error_code: "UUID_INT_MISMATCH" }] })).toHaveLength(1);
  });

  it("accepts the vocabulary, null, the batch's lowercase categories, and ignores other keys", () => {
    expect(strayWireCodes({ detail: { detail: "x", error_code: "CANCEL_COOLDOWN" } })).toEqual([]);
    expect(strayWireCodes({ detail: { detail: "x", code: "AMOUNT_BELOW_MIN", error_code: "AMOUNT_BELOW_MIN" } })).toEqual([]);
    expect(strayWireCodes({ trades: [{ error_code: null, error: "BAD_SIGNATURE" }] })).toEqual([]);
    expect(strayWireCodes({ items: [{ error: { rejectionCategory: "no_liquidity" } }, { error: { rejectionCategory: "QUOTE_STALE" } }] })).toEqual([]);
    expect(strayWireCodes({ failure_reason: "ORDER_EXPIRED", detail: "Not Found", constructor: "x", toString: 1 })).toEqual([]);
    expect(strayWireCodes("plain text")).toEqual([]);
    // rejectionCategory has its own list: a lowercase category is not an error_code
    expect(strayWireCodes({ error_code: "no_liquidity" })).toHaveLength(1);
  });
});
