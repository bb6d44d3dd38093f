import { describe, expect, it } from "vitest";
import { parseCanonicalDecimal } from "../../sim/core/amounts.ts";
import { ExchangeError } from "../../sim/core/errors.ts";
import { buildOrderToSign, checkFloor, orderMessageToStrings, orderTerms } from "../../sim/core/order-terms.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry } from "../../sim/core/registry.ts";
import type { Address } from "../../sim/core/typed-data.ts";

const r = new Registry(DEFAULT_REGISTRY_CONFIG);
const usdcJpy = r.marketBySymbol("USDC/JPYS")!;
const eurUsd = r.marketBySymbol("EURC/USDC")!;
const gbpUsd = r.marketBySymbol("GBPT/USDC")!;
const d = (s: string) => parseCanonicalDecimal(s, "x");

function caught(f: () => unknown): ExchangeError {
  try {
    f();
  } catch (e) {
    if (e instanceof ExchangeError) return e;
    throw e;
  }
  throw new Error("expected an ExchangeError");
}

describe("orderTerms", () => {
  it("an ask spends base and receives the floored quote", () => {
    const t = orderTerms(usdcJpy, "ask", d("10.01"), d("152.35"));
    expect(t.fromToken).toBe(usdcJpy.base);
    expect(t.toToken).toBe(usdcJpy.quote);
    expect(t.fromAmount).toBe(10_010_000n);
    // 10.01 * 152.35 = 1525.0235 -> 152502 at 2 decimals (floored)
    expect(t.toAmount).toBe(152_502n);
    expect(t.baseRaw).toBe(10_010_000n);
    expect(t.quoteRaw).toBe(152_502n);
  });

  it("a bid spends quote and receives base", () => {
    const t = orderTerms(gbpUsd, "bid", d("5.5"), d("1.27001"));
    expect(t.fromToken).toBe(gbpUsd.quote);
    expect(t.toToken).toBe(gbpUsd.base);
    expect(t.fromAmount).toBe(6_985_055n); // 6.985055 USDC
    expect(t.toAmount).toBe(5_500_000_000_000_000_000n);
  });
});

describe("checkFloor", () => {
  it("compares the ask quantity exactly against min_ask_amount_raw", () => {
    expect(() => checkFloor(eurUsd, "ask", d("5"), d("1"))).not.toThrow();
    const e = caught(() => checkFloor(eurUsd, "ask", d("4.99"), d("100")));
    expect(e.code).toBe("AMOUNT_BELOW_MIN");
    expect(e.status).toBe(400);
    expect(e.extra).toEqual({ min_amount_raw: "5000000", min_amount: "5" });
  });

  it("compares the unfloored bid value against min_bid_quote_amount_raw", () => {
    // 750 JPYS floor: 4.99 * 150.3 = 749.997 < 750 even though it rounds to 750.00
    const e = caught(() => checkFloor(usdcJpy, "bid", d("4.99"), d("150.3")));
    expect(e.code).toBe("AMOUNT_BELOW_MIN");
    expect(e.extra).toEqual({ min_amount_raw: "75000", min_amount: "750" });
    expect(() => checkFloor(usdcJpy, "bid", d("5"), d("150"))).not.toThrow();
    // the bid floor does not apply to asks and vice versa
    expect(() => checkFloor(usdcJpy, "ask", d("5"), d("0.01"))).not.toThrow();
    expect(() => checkFloor(usdcJpy, "bid", d("1"), d("750"))).not.toThrow();
  });

  it("expresses an 18-decimal floor in decimal form", () => {
    const e = caught(() => checkFloor(gbpUsd, "ask", d("4.99"), d("1")));
    expect(e.extra).toEqual({ min_amount_raw: "5000000000000000000", min_amount: "5" });
  });
});

describe("buildOrderToSign", () => {
  it("builds the signed Order with zero recipient, no initial deposit, lowercase user", () => {
    const user = "0xAbCdEf0123456789aBcDeF0123456789AbCdEf01" as Address;
    const m = buildOrderToSign({ user, market: eurUsd, side: "ask", amount: d("10"), price: d("1.08"), expiration: 1_800_000_000, uuidInt: 42n, feeBps: 3 });
    expect(m).toEqual({
      user: user.toLowerCase(),
      expiration: 1_800_000_000n,
      feeBps: 3n,
      recipient: "0x0000000000000000000000000000000000000000",
      fromToken: eurUsd.base,
      toToken: eurUsd.quote,
      fromAmount: 10_000_000n,
      toAmount: 10_800_000n,
      initialDepositAmount: 0n,
      uuid: 42n,
    });
    expect(orderMessageToStrings(m)).toEqual({
      user: user.toLowerCase(),
      expiration: "1800000000",
      feeBps: "3",
      recipient: "0x0000000000000000000000000000000000000000",
      fromToken: eurUsd.base,
      toToken: eurUsd.quote,
      fromAmount: "10000000",
      toAmount: "10800000",
      initialDepositAmount: "0",
      uuid: "42",
    });
  });
});
