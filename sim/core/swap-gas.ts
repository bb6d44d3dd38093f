// The swap gas model and the two gas modes. Deterministic by construction:
//   gas_cost_usd = baseUsd + perLegUsd × (number of maker legs)
// converted into a token's raw units through that token's USD price (one whole
// token in USD, from the FX rates or a fixed table), rounded UP so the service
// never under-charges:  raw = ceil(gas_cost_usd × 10^decimals / usd_price).
// Modes (spec, POST /swap/quote):
//   receive_less (default): the spend stays from_amount; gas reduces the output.
//     maxInputAmount = from_amount, minOutputAmount = output_amount_after_gas
//     = output_before − gas in output units (0, i.e. informational, when gas eats it).
//   pay_more: the output target stays; the input budget rises by the gas.
//     maxInputAmount = input_amount_after_gas = from_amount + gas in input units,
//     minOutputAmount = output_amount_after_gas = output_before.
// The route itself always spends at most from_amount; the Router then charges the
// gas (quotes.swapGasCharge) off the output or on top of the input, inside the
// signed bounds, for the fee recipient.
import { formatDecimal, parseCanonicalDecimal, pow10, type Decimal } from "./amounts.ts";
import { ExchangeError, isExchangeError } from "./errors.ts";
import type { FxRates } from "./fx.ts";
import type { TokenInfo } from "./registry.ts";

export type GasMode = "receive_less" | "pay_more";
export const GAS_MODES: readonly GasMode[] = ["receive_less", "pay_more"];

export interface GasConfig {
  /** USD per swap transaction (canonical decimal string). */
  baseUsd: string;
  /** USD per maker leg settled in it. */
  perLegUsd: string;
}

export const DEFAULT_GAS_CONFIG: GasConfig = { baseUsd: "0.20", perLegUsd: "0.05" };

/** USD value of one whole token, or null when no price is known. */
export type UsdPrice = (token: TokenInfo) => Decimal | null;

/** USD tokens are worth 1; others through the FX rate currency/USD (null without data). */
export function fxUsdPrice(fx: FxRates): UsdPrice {
  return (t) => {
    if (t.currency === "USD") return { units: 1n, scale: 0 };
    try {
      return parseCanonicalDecimal(fx.rate(t.currency, "USD").rate, "rate");
    } catch (e) {
      if (isExchangeError(e)) return null;
      throw e;
    }
  };
}

/** A fixed table by currency (an Engine built without usdPrice, and tests); the fixtures price at their FX rates. */
export function fixedUsdPrice(byCurrency: Readonly<Record<string, string>>): UsdPrice {
  return (t) => {
    if (t.currency === "USD") return { units: 1n, scale: 0 };
    const r = byCurrency[t.currency];
    return r === undefined ? null : parseCanonicalDecimal(r, "usd_price");
  };
}

export function gasCostUsd(cfg: GasConfig, legs: number): Decimal {
  const base = parseCanonicalDecimalOrZero(cfg.baseUsd);
  const per = parseCanonicalDecimalOrZero(cfg.perLegUsd);
  const scale = Math.max(base.scale, per.scale);
  const units = base.units * pow10(scale - base.scale) + per.units * pow10(scale - per.scale) * BigInt(legs);
  return { units, scale };
}

function parseCanonicalDecimalOrZero(s: string): Decimal {
  return /^0(\.0+)?$/.test(s) ? { units: 0n, scale: 0 } : parseCanonicalDecimal(s, "gas usd");
}

/** ceil(usd × 10^decimals / price): a USD amount in a token's raw units. */
export function usdToRaw(usd: Decimal, price: Decimal, decimals: number): bigint {
  if (price.units <= 0n) throw new RangeError("usd price must be positive");
  const n = usd.units * pow10(decimals) * pow10(price.scale);
  const d = pow10(usd.scale) * price.units;
  return (n + d - 1n) / d;
}

export function gasInToken(usd: Decimal, token: TokenInfo, price: UsdPrice): bigint {
  const p = price(token);
  if (p === null || p.units <= 0n) {
    throw new ExchangeError("UNAVAILABLE", 503, `no USD price for ${token.symbol}; cannot price swap gas`);
  }
  return usdToRaw(usd, p, token.decimals);
}

export interface GasBreakdown {
  gasMode: GasMode;
  gasUsd: Decimal;
  gasInput: bigint;
  gasOutput: bigint;
  inputBefore: bigint;
  inputAfter: bigint;
  outputBefore: bigint;
  outputAfter: bigint;
  /** The Intent bounds the quote signs. */
  maxInputAmount: bigint;
  minOutputAmount: bigint;
}

/** Apply a gas mode to a routed amount; the identities of the spec hold by construction. */
export function applyGasMode(p: {
  mode: GasMode;
  gasUsd: Decimal;
  gasInput: bigint;
  gasOutput: bigint;
  fromAmount: bigint;
  routedOutput: bigint;
}): GasBreakdown {
  const common = { gasMode: p.mode, gasUsd: p.gasUsd, gasInput: p.gasInput, gasOutput: p.gasOutput, inputBefore: p.fromAmount, outputBefore: p.routedOutput };
  if (p.mode === "pay_more") {
    const inputAfter = p.fromAmount + p.gasInput;
    return { ...common, inputAfter, outputAfter: p.routedOutput, maxInputAmount: inputAfter, minOutputAmount: p.routedOutput };
  }
  const outputAfter = p.routedOutput > p.gasOutput ? p.routedOutput - p.gasOutput : 0n;
  return { ...common, inputAfter: p.fromAmount, outputAfter, maxInputAmount: p.fromAmount, minOutputAmount: outputAfter };
}

export function formatUsd(d: Decimal): string {
  return formatDecimal(d);
}
