// Property checks of the exact arithmetic against independent formulations.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  checkPrecision,
  compareDecimal,
  decimalToRaw,
  formatUnits,
  normalizeDecimal,
  parseCanonicalDecimal,
  pow10,
  quoteRaw,
  type Decimal,
} from "../../sim/core/amounts.ts";
import { ExchangeError } from "../../sim/core/errors.ts";
import { orderTerms } from "../../sim/core/order-terms.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry } from "../../sim/core/registry.ts";

const decimal = fc
  .record({ units: fc.bigInt({ min: 1n, max: 10n ** 30n }), scale: fc.integer({ min: 0, max: 20 }) })
  .map((d): Decimal => d);

describe("amount properties", () => {
  it("formatUnits output is canonical and parses back to the same value", () => {
    fc.assert(
      fc.property(decimal, (d) => {
        const s = formatUnits(d.units, d.scale);
        const back = parseCanonicalDecimal(s, "x");
        expect(compareDecimal(back, d)).toBe(0);
        expect(back).toEqual(normalizeDecimal(d));
      }),
    );
  });

  it("quoteRaw is the floor of the exact product", () => {
    fc.assert(
      fc.property(decimal, decimal, fc.integer({ min: 0, max: 18 }), (a, p, qd) => {
        const q = quoteRaw(a, p, qd);
        const exact = a.units * p.units * pow10(qd); // value * 10^(a.scale + p.scale)
        const den = pow10(a.scale + p.scale);
        expect(q * den <= exact).toBe(true);
        expect(exact < (q + 1n) * den).toBe(true);
      }),
    );
  });

  it("decimalToRaw is the floor of value * 10^decimals", () => {
    fc.assert(
      fc.property(decimal, fc.integer({ min: 0, max: 30 }), (d, decimals) => {
        const r = decimalToRaw(d, decimals);
        const den = pow10(d.scale);
        expect(r * den <= d.units * pow10(decimals)).toBe(true);
        expect(d.units * pow10(decimals) < (r + 1n) * den).toBe(true);
      }),
    );
  });

  it("checkPrecision rejects exactly when non-zero digits pass the grid", () => {
    fc.assert(
      fc.property(decimal, fc.integer({ min: 0, max: 20 }), (d, precision) => {
        const onGrid = (d.units * pow10(precision)) % pow10(d.scale) === 0n;
        let threw: ExchangeError | undefined;
        try {
          checkPrecision(d, precision, "amount");
        } catch (e) {
          threw = e as ExchangeError;
        }
        expect(threw === undefined).toBe(onGrid);
        if (threw) expect(threw.code).toBe("INVALID_PRECISION");
      }),
    );
  });
});

describe("order terms properties", () => {
  const registry = new Registry(DEFAULT_REGISTRY_CONFIG);
  const markets = registry.markets();
  it("a bid and an ask of the same size and price mirror each other", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: markets.length - 1 }),
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        fc.bigInt({ min: 1n, max: 10n ** 9n }),
        (mi, lots, ticks) => {
          const m = markets[mi]!;
          const amount = { units: lots, scale: m.quantityPrecision };
          const price = { units: ticks, scale: m.tickPrecision };
          const ask = orderTerms(m, "ask", amount, price);
          const bid = orderTerms(m, "bid", amount, price);
          expect(ask.fromAmount).toBe(bid.toAmount);
          expect(ask.toAmount).toBe(bid.fromAmount);
          expect(ask.fromToken).toBe(bid.toToken);
          expect(ask.fromToken).toBe(m.base);
          // on-grid quantities are exact in raw base units
          expect(ask.fromAmount).toBe(lots * pow10(m.baseDecimals - m.quantityPrecision));
        },
      ),
    );
  });
});
