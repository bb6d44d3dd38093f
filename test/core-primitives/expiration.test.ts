import { describe, expect, it } from "vitest";
import { checkExpiration, EXPIRATION_MAX_AHEAD_SEC } from "../../sim/core/expiration.ts";
import { ExchangeError } from "../../sim/core/errors.ts";

const NOW = 1_767_225_600;

function caught(f: () => unknown): ExchangeError {
  try {
    f();
  } catch (e) {
    if (e instanceof ExchangeError) return e;
    throw e;
  }
  throw new Error("expected an ExchangeError");
}

describe("checkExpiration", () => {
  it("has the spec's window: 365 days minus 300 s", () => {
    expect(EXPIRATION_MAX_AHEAD_SEC).toBe(31_535_700);
  });

  it("accepts now+1 and the exact upper bound, in number, bigint and string form", () => {
    expect(checkExpiration(NOW + 1, NOW)).toBe(NOW + 1);
    expect(checkExpiration(NOW + EXPIRATION_MAX_AHEAD_SEC, NOW)).toBe(NOW + EXPIRATION_MAX_AHEAD_SEC);
    expect(checkExpiration(BigInt(NOW + 60), NOW)).toBe(NOW + 60);
    expect(checkExpiration(String(NOW + 60), NOW, "deadline")).toBe(NOW + 60);
  });

  it.each([
    [undefined, "missing"],
    [null, "missing"],
    ["", "missing"],
    [0, "missing"],
    ["0", "missing"],
    [NOW, "not_future"],
    [NOW - 1, "not_future"],
    [1, "not_future"],
    [NOW + EXPIRATION_MAX_AHEAD_SEC + 1, "too_far"],
    ["999999999999999999999999999999", "too_far"],
    [NOW + 1.5, "not_integer"],
    [-5, "not_future"],
    ["-5", "not_integer"],
    ["1e10", "not_integer"],
    [" 1800000000", "not_integer"],
    [Number.NaN, "not_integer"],
    [{}, "not_integer"],
    [true, "not_integer"],
    // Past 2^53 a JSON number is no longer exact; past 78 digits a string is no uint256.
    [2 ** 53, "not_integer"],
    ["9".repeat(79), "not_integer"],
  ])("rejects %j (%s) with EXPIRATION_INVALID 400", (t, reason) => {
    const e = caught(() => checkExpiration(t, NOW));
    expect(e.code).toBe("EXPIRATION_INVALID");
    expect(e.status).toBe(400);
    expect(e.extra.reason).toBe(reason);
    expect(e.extra.server_time).toBe(NOW);
    expect(e.extra.max_expiration).toBe(NOW + EXPIRATION_MAX_AHEAD_SEC);
  });

  it("names the field and the server time in the detail", () => {
    const e = caught(() => checkExpiration(NOW - 10, NOW, "deadline"));
    expect(e.detail).toContain("deadline");
    expect(e.detail).toContain(String(NOW));
    expect(e.extra.field).toBe("deadline");
  });
});
