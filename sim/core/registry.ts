// Tokens and markets the fake exchange lists (GET /tokens, GET /markets), built
// from a config file whose format the CLI's --config also uses. Markets are kept in
// the spec's canonical orientation: base_address < quote_address (lowercase hex).

import { keccak256, stringToBytes } from "viem";
import { formatRaw } from "./amounts.ts";
import { baseBeforeQuoteOrder } from "./market-orientation.ts";
import type { Address } from "./typed-data.ts";
import { sameClassAcrossBuilds } from "../platform/cross-build.ts";

export interface TokenInfo {
  symbol: string;
  currency: string;
  address: Address; // lowercase
  decimals: number;
  minTradeAmountRaw: bigint;
  permit: boolean;
}

export interface MarketInfo {
  symbol: string; // `${baseSymbol}/${quoteSymbol}`
  base: Address;
  quote: Address;
  baseSymbol: string;
  quoteSymbol: string;
  baseDecimals: number;
  quoteDecimals: number;
  tickPrecision: number;
  quantityPrecision: number;
  minAskAmountRaw: bigint; // in base-token raw units
  minBidQuoteAmountRaw: bigint; // in quote-token raw units
  active: boolean;
  /** True when the config named the pair the other way round and we swapped it. */
  reoriented: boolean;
}

export interface TokenConfig {
  symbol: string;
  currency: string;
  decimals: number;
  min_trade_amount_raw: string;
  permit?: boolean;
  address?: string;
}

export interface MarketConfig {
  base: string;
  quote: string;
  tick_precision: number;
  quantity_precision: number;
  min_ask_amount_raw: string;
  min_bid_quote_amount_raw: string;
  active?: boolean;
}

export interface RegistryConfig {
  tokens: TokenConfig[];
  markets: MarketConfig[];
  fee_bps?: number;
}

/** Every key of the three config objects above (a config file with any other is refused). */
export const REGISTRY_CONFIG_KEYS = {
  config: ["tokens", "markets", "fee_bps"],
  token: ["symbol", "currency", "decimals", "min_trade_amount_raw", "permit", "address"],
  market: ["base", "quote", "tick_precision", "quantity_precision", "min_ask_amount_raw", "min_bid_quote_amount_raw", "active"],
} as const satisfies { config: readonly (keyof RegistryConfig)[]; token: readonly (keyof TokenConfig)[]; market: readonly (keyof MarketConfig)[] };

/** A config file that cannot describe a sane registry. The message names the offending path. */
export class RegistryConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RegistryConfigError";
  }
}
sameClassAcrossBuilds(RegistryConfigError, "RegistryConfigError");

/** Largest decimals for which every raw amount still fits a uint256 at value >= 1. */
const MAX_DECIMALS = 77;
/** Price grids finer than this are not meaningful for any FX pair. */
const MAX_TICK_PRECISION = 18;
/** feeBps is a uint48 in the signed Order, but a fee above 100 % makes no sense. */
const MAX_FEE_BPS = 10_000;
const UINT256_DEC = /^(0|[1-9][0-9]{0,77})$/;
const SYMBOL = /^[A-Za-z0-9.\-_]{1,32}$/;
const CURRENCY = /^[A-Za-z]{3}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Whether `text` is written as an address: 0x and 40 hex digits, any case. */
export function isAddressText(text: string): boolean {
  return ADDRESS.test(text);
}

/**
 * Placeholder address for a token with no deployed address: 2 bytes of its rank
 * (its place in the markets' base-before-quote order, so every market keeps the
 * orientation the config writes; config order when the markets loop) followed by
 * 18 bytes of keccak256 of the symbol (so the address is stable and unique).
 * Deployment replaces these with the real addresses through the constructor's
 * `addresses` map.
 */
export function placeholderTokenAddress(symbol: string, index: number): Address {
  const hash = keccak256(stringToBytes(`fakex-token:${symbol}`)).slice(2);
  return `0x${(index + 1).toString(16).padStart(4, "0")}${hash.slice(0, 36)}` as Address;
}

export class Registry {
  readonly feeBps: number;
  private readonly tokenList: TokenInfo[];
  private readonly tokensByAddress = new Map<string, TokenInfo>();
  private readonly tokensBySymbol = new Map<string, TokenInfo>();
  private readonly marketList: MarketInfo[];
  private readonly marketsByPair = new Map<string, MarketInfo>();
  private readonly marketsBySymbol = new Map<string, MarketInfo>();

  /**
   * @param addresses symbol → deployed address. Takes precedence over a config
   *   `address`; tokens with neither get `placeholderTokenAddress`.
   */
  constructor(config: RegistryConfig, addresses: Record<string, Address> = {}) {
    if (config === null || typeof config !== "object") throw new RegistryConfigError("registry config must be an object");
    if (!Array.isArray(config.tokens) || config.tokens.length === 0) {
      throw new RegistryConfigError("tokens must be a non-empty array");
    }
    if (!Array.isArray(config.markets)) throw new RegistryConfigError("markets must be an array");

    const fee = config.fee_bps ?? 0;
    if (!Number.isInteger(fee) || fee < 0 || fee > MAX_FEE_BPS) {
      throw new RegistryConfigError(`fee_bps must be an integer 0-${MAX_FEE_BPS}, got ${JSON.stringify(config.fee_bps)}`);
    }
    this.feeBps = fee;

    for (const sym of Object.keys(addresses)) {
      if (!config.tokens.some((t) => t?.symbol === sym)) {
        throw new RegistryConfigError(`deployed address given for unknown token symbol ${JSON.stringify(sym)}`);
      }
    }

    const rank = placeholderRanks(config);
    this.tokenList = config.tokens.map((t, i) => this.buildToken(t, i, addresses, rank.get(t?.symbol) ?? i));
    for (const t of this.tokenList) {
      this.tokensBySymbol.set(t.symbol, t);
      this.tokensByAddress.set(t.address, t);
    }

    this.marketList = config.markets.map((m, i) => this.buildMarket(m, i));
    for (const m of this.marketList) {
      this.marketsByPair.set(pairKey(m.base, m.quote), m);
      this.marketsBySymbol.set(m.symbol, m);
    }
  }

  private buildToken(t: TokenConfig, i: number, addresses: Record<string, Address>, rank: number): TokenInfo {
    const at = `tokens[${i}]`;
    if (t === null || typeof t !== "object") throw new RegistryConfigError(`${at} must be an object`);
    if (typeof t.symbol !== "string" || !SYMBOL.test(t.symbol)) {
      throw new RegistryConfigError(`${at}.symbol must be 1-32 letters, digits, '.', '-' or '_', got ${JSON.stringify(t.symbol)}`);
    }
    if (this.tokensBySymbol.has(t.symbol)) throw new RegistryConfigError(`${at}.symbol ${t.symbol} is listed twice`);
    if (typeof t.currency !== "string" || !CURRENCY.test(t.currency)) {
      throw new RegistryConfigError(`${at}.currency must be a 3-letter ISO currency code, got ${JSON.stringify(t.currency)}`);
    }
    if (!Number.isInteger(t.decimals) || t.decimals < 0 || t.decimals > MAX_DECIMALS) {
      throw new RegistryConfigError(`${at}.decimals must be an integer 0-${MAX_DECIMALS}, got ${JSON.stringify(t.decimals)}`);
    }
    const minTrade = uint256Field(t.min_trade_amount_raw, `${at}.min_trade_amount_raw`);
    if (t.permit !== undefined && typeof t.permit !== "boolean") {
      throw new RegistryConfigError(`${at}.permit must be true or false`);
    }
    const rawAddress: string = addresses[t.symbol] ?? t.address ?? placeholderTokenAddress(t.symbol, rank);
    if (typeof rawAddress !== "string" || !ADDRESS.test(rawAddress)) {
      throw new RegistryConfigError(`${at}: address of ${t.symbol} must be 0x plus 40 hex digits, got ${JSON.stringify(rawAddress)}`);
    }
    const address = rawAddress.toLowerCase() as Address;
    const clash = this.tokensByAddress.get(address);
    if (clash) throw new RegistryConfigError(`${at}: ${t.symbol} has the same address as ${clash.symbol}`);
    const info: TokenInfo = {
      symbol: t.symbol,
      currency: t.currency.toUpperCase(),
      address,
      decimals: t.decimals,
      minTradeAmountRaw: minTrade,
      permit: t.permit ?? false,
    };
    // Register as we go so later entries see duplicates.
    this.tokensBySymbol.set(info.symbol, info);
    this.tokensByAddress.set(info.address, info);
    return info;
  }

  private buildMarket(m: MarketConfig, i: number): MarketInfo {
    const at = `markets[${i}]`;
    if (m === null || typeof m !== "object") throw new RegistryConfigError(`${at} must be an object`);
    const base = this.tokensBySymbol.get(m.base);
    if (!base) throw new RegistryConfigError(`${at}.base: unknown token symbol ${JSON.stringify(m.base)}`);
    const quote = this.tokensBySymbol.get(m.quote);
    if (!quote) throw new RegistryConfigError(`${at}.quote: unknown token symbol ${JSON.stringify(m.quote)}`);
    if (base === quote) throw new RegistryConfigError(`${at}: base and quote are both ${m.base}`);
    const key = pairKey(base.address, quote.address);
    const dup = this.marketsByPair.get(key);
    if (dup) throw new RegistryConfigError(`${at}: ${m.base}/${m.quote} duplicates market ${dup.symbol}`);
    if (!Number.isInteger(m.tick_precision) || m.tick_precision < 0 || m.tick_precision > MAX_TICK_PRECISION) {
      throw new RegistryConfigError(`${at}.tick_precision must be an integer 0-${MAX_TICK_PRECISION}, got ${JSON.stringify(m.tick_precision)}`);
    }
    const minAsk = uint256Field(m.min_ask_amount_raw, `${at}.min_ask_amount_raw`);
    const minBid = uint256Field(m.min_bid_quote_amount_raw, `${at}.min_bid_quote_amount_raw`);
    if (m.active !== undefined && typeof m.active !== "boolean") throw new RegistryConfigError(`${at}.active must be true or false`);

    // Canonical orientation. The floors are tied to tokens, not to the words
    // "base"/"quote": the sell floor was in the file's base token, which becomes
    // the quote token and so the buy floor of the canonical market, and vice versa.
    // The precisions are kept as written: they describe the canonical market.
    const reoriented = base.address > quote.address;
    const [b, q] = reoriented ? [quote, base] : [base, quote];
    const [minAskRaw, minBidRaw] = reoriented ? [minBid, minAsk] : [minAsk, minBid];
    // quantity_precision past the base decimals would make from_amount a fraction of a raw unit.
    if (!Number.isInteger(m.quantity_precision) || m.quantity_precision < 0 || m.quantity_precision > b.decimals) {
      throw new RegistryConfigError(
        `${at}.quantity_precision must be an integer 0-${b.decimals} (the decimals of base token ${b.symbol}), got ${JSON.stringify(m.quantity_precision)}`,
      );
    }
    const info: MarketInfo = {
      symbol: `${b.symbol}/${q.symbol}`,
      base: b.address,
      quote: q.address,
      baseSymbol: b.symbol,
      quoteSymbol: q.symbol,
      baseDecimals: b.decimals,
      quoteDecimals: q.decimals,
      tickPrecision: m.tick_precision,
      quantityPrecision: m.quantity_precision,
      minAskAmountRaw: minAskRaw,
      minBidQuoteAmountRaw: minBidRaw,
      active: m.active ?? true,
      reoriented,
    };
    this.marketsByPair.set(key, info);
    return info;
  }

  tokens(): TokenInfo[] {
    return [...this.tokenList];
  }

  /** By address, any letter case. */
  token(address: string): TokenInfo | undefined {
    return typeof address === "string" ? this.tokensByAddress.get(address.toLowerCase()) : undefined;
  }

  tokenBySymbol(symbol: string): TokenInfo | undefined {
    return this.tokensBySymbol.get(symbol);
  }

  /** By address when `name` is one (0x and 40 hex digits, any case), else by symbol. */
  tokenNamed(name: string): TokenInfo | undefined {
    return isAddressText(name) ? this.token(name) : this.tokenBySymbol(name);
  }

  markets(): MarketInfo[] {
    return [...this.marketList];
  }

  /** Markets open for trading: what GET /markets lists (PAIR_INACTIVE tells clients to look there). */
  activeMarkets(): MarketInfo[] {
    return this.marketList.filter((m) => m.active);
  }

  /** The market of two token addresses, given in either order, any letter case. */
  market(a: string, b: string): MarketInfo | undefined {
    if (typeof a !== "string" || typeof b !== "string") return undefined;
    return this.marketsByPair.get(pairKey(a.toLowerCase(), b.toLowerCase()));
  }

  /** By "BASE/QUOTE" in canonical orientation. */
  marketBySymbol(symbol: string): MarketInfo | undefined {
    return this.marketsBySymbol.get(symbol);
  }
}

/** Symbol → rank in the markets' base-before-quote order; empty (config order) when they loop or are malformed. */
function placeholderRanks(config: RegistryConfig): Map<string, number> {
  try {
    const { order } = baseBeforeQuoteOrder(
      config.tokens.map((t) => t.symbol),
      config.markets.map((m) => ({ base: m.base, quote: m.quote })),
    );
    return new Map((order ?? []).map((s, k) => [s, k]));
  } catch {
    // Entries the constructor rejects with a precise message further on.
    return new Map();
  }
}

function pairKey(a: string, b: string): string {
  return a < b ? `${a}|${b}` : `${b}|${a}`;
}

function uint256Field(v: unknown, at: string): bigint {
  if (typeof v !== "string" || !UINT256_DEC.test(v) || BigInt(v) >= 1n << 256n) {
    throw new RegistryConfigError(`${at} must be a uint256 decimal string, got ${JSON.stringify(v)}`);
  }
  return BigInt(v);
}

/** GET /tokens element. */
export function tokenView(t: TokenInfo): Record<string, unknown> {
  return {
    currency: t.currency,
    symbol: t.symbol,
    address: t.address,
    decimals: t.decimals,
    min_trade_amount_raw: t.minTradeAmountRaw.toString(),
    min_trade_amount: formatRaw(t.minTradeAmountRaw, t.decimals),
  };
}

/** GET /markets element. */
export function marketView(m: MarketInfo): Record<string, unknown> {
  return {
    symbol: m.symbol,
    base_symbol: m.baseSymbol,
    quote_symbol: m.quoteSymbol,
    base_address: m.base,
    quote_address: m.quote,
    tick_precision: m.tickPrecision,
    quantity_precision: m.quantityPrecision,
    base_decimals: m.baseDecimals,
    quote_decimals: m.quoteDecimals,
    min_ask_amount_raw: m.minAskAmountRaw.toString(),
    min_ask_amount: formatRaw(m.minAskAmountRaw, m.baseDecimals),
    min_bid_quote_amount_raw: m.minBidQuoteAmountRaw.toString(),
    min_bid_quote_amount: formatRaw(m.minBidQuoteAmountRaw, m.quoteDecimals),
  };
}

/**
 * A stablecoin FX deployment in miniature: USD, EUR, GBP, CHF and JPY tokens with
 * the decimals real ones use (6, 18, 2), mixed permit support, one token without
 * a trade floor, and one inactive market. Tokens are listed bases first so the
 * placeholder addresses keep every market in the orientation written here (deployments
 * keep it too: fixtures/token-addresses.ts chooses the token addresses).
 */
export const DEFAULT_REGISTRY_CONFIG: RegistryConfig = {
  tokens: [
    { symbol: "EURC", currency: "EUR", decimals: 6, min_trade_amount_raw: "1000000", permit: true },
    { symbol: "GBPT", currency: "GBP", decimals: 18, min_trade_amount_raw: "1000000000000000000", permit: true },
    { symbol: "XCHF", currency: "CHF", decimals: 18, min_trade_amount_raw: "0", permit: false },
    { symbol: "USDT", currency: "USD", decimals: 6, min_trade_amount_raw: "1000000", permit: false },
    { symbol: "USDC", currency: "USD", decimals: 6, min_trade_amount_raw: "1000000", permit: true },
    { symbol: "JPYS", currency: "JPY", decimals: 2, min_trade_amount_raw: "10000", permit: false },
  ],
  markets: [
    // price ~1.08 USDC per EURC
    { base: "EURC", quote: "USDC", tick_precision: 5, quantity_precision: 2, min_ask_amount_raw: "5000000", min_bid_quote_amount_raw: "5000000" },
    // price ~1.27 USDC per GBPT
    { base: "GBPT", quote: "USDC", tick_precision: 5, quantity_precision: 2, min_ask_amount_raw: "5000000000000000000", min_bid_quote_amount_raw: "5000000" },
    // price ~1.0001 USDC per USDT
    { base: "USDT", quote: "USDC", tick_precision: 4, quantity_precision: 2, min_ask_amount_raw: "10000000", min_bid_quote_amount_raw: "10000000" },
    // price ~1.13 USDC per XCHF
    { base: "XCHF", quote: "USDC", tick_precision: 5, quantity_precision: 2, min_ask_amount_raw: "5000000000000000000", min_bid_quote_amount_raw: "5000000" },
    // price ~152.35 JPYS per USDC: quote token has 2 decimals. Tick precision 6 so the
    // market stays tradable if a registry with fixed addresses reorients it to JPYS/USDC (~0.00656).
    { base: "USDC", quote: "JPYS", tick_precision: 6, quantity_precision: 2, min_ask_amount_raw: "5000000", min_bid_quote_amount_raw: "75000" },
    // price ~0.85 GBPT per EURC
    { base: "EURC", quote: "GBPT", tick_precision: 5, quantity_precision: 2, min_ask_amount_raw: "5000000", min_bid_quote_amount_raw: "5000000000000000000" },
    // listed but not trading: PAIR_INACTIVE
    { base: "EURC", quote: "JPYS", tick_precision: 6, quantity_precision: 2, min_ask_amount_raw: "5000000", min_bid_quote_amount_raw: "75000", active: false },
  ],
  fee_bps: 0,
};
