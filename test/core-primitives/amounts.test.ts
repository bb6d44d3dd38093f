import { describe, expect, it } from "vitest";
import {
  checkPrecision,
  compareDecimal,
  decimalToRaw,
  floorDiv,
  formatDecimal,
  formatRaw,
  formatUnits,
  mulDecimal,
  normalizeDecimal,
  parseCanonicalDecimal,
  quoteRaw,
  toScale,
  type Decimal,
} from "../../sim/core/amounts.ts";
import { ExchangeError } from "../../sim/core/errors.ts";

function caught(f: () => unknown): ExchangeError {
  try {
    f();
  } catch (e) {
    if (e instanceof ExchangeError) return e;
    throw e;
  }
  throw new Error("expected an ExchangeError");
}

const d = (s: string): Decimal => parseCanonicalDecimal(s, "amount");

describe("parseCanonicalDecimal", () => {
  it.each([
    ["1", 1n, 0],
    ["0.5", 5n, 1],
    ["1.50", 150n, 2],
    ["123456789012345678901234567890.000000000000000001", 123456789012345678901234567890000000000000000001n, 18],
    ["0.000001", 1n, 6],
    ["10", 10n, 0],
    // MAX_DECIMAL_LENGTH is inclusive: 100 characters still parse (101 are refused below).
    ["9".repeat(100), BigInt("9".repeat(100)), 0],
    [`1.${"0".repeat(97)}1`, 10n ** 98n + 1n, 98],
  ])("accepts %s", (s, units, scale) => {
    expect(d(s)).toEqual({ units, scale });
  });

  it.each([
    "",
    " 1",
    "1 ",
    "+1",
    "-1",
    "1e5",
    "1E5",
    "1,5",
    "1_000",
    "1,000.5",
    ".5",
    "5.",
    "01.5",
    "00",
    "0x10",
    "１",
    "1..2",
    "NaN",
    "Infinity",
    "1.2.3",
    "0",
    "0.000",
    "9".repeat(101),
    `1.${"0".repeat(98)}1`,
  ])("rejects %j with INVALID_DECIMAL_FORMAT 400", (s) => {
    const e = caught(() => d(s));
    expect(e.code).toBe("INVALID_DECIMAL_FORMAT");
    expect(e.status).toBe(400);
    expect(e.extra.field).toBe("amount");
  });

  it.each([1.5, 1, null, undefined, {}, [], 1n, true])("rejects the non-string %s", (v) => {
    const e = caught(() => parseCanonicalDecimal(v, "price"));
    expect(e.code).toBe("INVALID_DECIMAL_FORMAT");
    expect(e.status).toBe(400);
    expect(e.detail).toContain("price");
  });
});

describe("checkPrecision", () => {
  it("accepts values on the grid and trailing zeros beyond it", () => {
    expect(() => checkPrecision(d("1.5"), 1, "amount")).not.toThrow();
    expect(() => checkPrecision(d("1.50"), 1, "amount")).not.toThrow();
    expect(() => checkPrecision(d("1.5000000"), 1, "amount")).not.toThrow();
    expect(() => checkPrecision(d("7"), 0, "amount")).not.toThrow();
    expect(() => checkPrecision(d("7.0"), 0, "amount")).not.toThrow();
  });

  it("rejects non-zero digits beyond the grid with INVALID_PRECISION 400", () => {
    const e = caught(() => checkPrecision(d("1.55"), 1, "price"));
    expect(e.code).toBe("INVALID_PRECISION");
    expect(e.status).toBe(400);
    expect(e.detail).toContain("0.1");
    expect(e.extra).toMatchObject({ field: "price", precision: 1 });
    expect(caught(() => checkPrecision(d("0.5"), 0, "amount")).code).toBe("INVALID_PRECISION");
    expect(caught(() => checkPrecision(d("1.0000001"), 6, "amount")).code).toBe("INVALID_PRECISION");
  });
});

describe("scaling and raw conversion", () => {
  it("toScale is exact on the grid and floors off it", () => {
    expect(toScale(d("1.5"), 6)).toBe(1_500_000n);
    expect(toScale(d("1.999"), 2)).toBe(199n);
    expect(toScale(d("1.999"), 0)).toBe(1n);
    expect(toScale(d("12"), 0)).toBe(12n);
  });

  it("decimalToRaw floors value * 10^decimals", () => {
    expect(decimalToRaw(d("2.25"), 6)).toBe(2_250_000n);
    expect(decimalToRaw(d("1"), 18)).toBe(10n ** 18n);
    expect(decimalToRaw(d("0.129"), 2)).toBe(12n);
  });

  it("quoteRaw floors after multiplying at full precision", () => {
    // 0.3 * 0.3 = 0.09 exactly at 2 decimals
    expect(quoteRaw(d("0.3"), d("0.3"), 2)).toBe(9n);
    // 3.33 * 1.5 = 4.995 -> 4.99 at 2 decimals (flooring the factors first would give the same, so check a harder one)
    expect(quoteRaw(d("3.33"), d("1.5"), 2)).toBe(499n);
    // 0.7 * 0.15 = 0.105 -> at 1 decimal: floor(1.05) = 1; flooring 0.15 to 0.1 first would give 0
    expect(quoteRaw(d("0.7"), d("0.15"), 1)).toBe(1n);
    // 1.0001 * 149.99 = 150.004999 -> 15000 at 2 decimals
    expect(quoteRaw(d("1.0001"), d("149.99"), 2)).toBe(15000n);
    expect(quoteRaw(d("1000.5"), d("0.92345"), 6)).toBe(923_911_725n);
  });

  it("mulDecimal and compareDecimal are exact", () => {
    expect(formatDecimal(mulDecimal(d("1.5"), d("2.25")))).toBe("3.375");
    expect(compareDecimal(d("1.50"), d("1.5"))).toBe(0);
    expect(compareDecimal(d("1.49"), d("1.5"))).toBe(-1);
    expect(compareDecimal(d("2"), d("1.999999"))).toBe(1);
  });

  it("normalizeDecimal drops trailing zeros only", () => {
    expect(normalizeDecimal({ units: 1500n, scale: 3 })).toEqual({ units: 15n, scale: 1 });
    expect(normalizeDecimal({ units: 100n, scale: 0 })).toEqual({ units: 100n, scale: 0 });
  });

  it("floorDiv floors negatives", () => {
    expect(floorDiv(-7n, 2n)).toBe(-4n);
    expect(floorDiv(7n, 2n)).toBe(3n);
    expect(() => floorDiv(1n, 0n)).toThrow(RangeError);
  });
});

describe("formatting", () => {
  it.each([
    [0n, 6, "0"],
    [1n, 6, "0.000001"],
    [1_500_000n, 6, "1.5"],
    [1_000_000n, 6, "1"],
    [123n, 0, "123"],
    [120n, 2, "1.2"],
    [10n ** 18n + 1n, 18, "1.000000000000000001"],
    [-1_500_000n, 6, "-1.5"],
  ])("formatRaw(%s, %s) = %s", (raw, decimals, out) => {
    expect(formatRaw(raw, decimals)).toBe(out);
    expect(formatUnits(raw, decimals)).toBe(out);
  });

  it("formatDecimal trims and round-trips canonical strings", () => {
    expect(formatDecimal(d("1.50"))).toBe("1.5");
    expect(formatDecimal(d("0.000100"))).toBe("0.0001");
    for (const s of ["1", "0.5", "1234.5678", "0.000000000000000001"]) expect(formatDecimal(d(s))).toBe(s);
  });

  it("rejects a bad scale", () => {
    expect(() => formatUnits(1n, -1)).toThrow(RangeError);
  });
});
