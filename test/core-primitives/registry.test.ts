import { describe, expect, it } from "vitest";
import {
  DEFAULT_REGISTRY_CONFIG,
  marketView,
  placeholderTokenAddress,
  Registry,
  RegistryConfigError,
  tokenView,
  type RegistryConfig,
} from "../../sim/core/registry.ts";
import type { Address } from "../../sim/core/typed-data.ts";

const small = (): RegistryConfig => ({
  tokens: [
    { symbol: "AAA", currency: "usd", decimals: 6, min_trade_amount_raw: "100", permit: true },
    { symbol: "BBB", currency: "EUR", decimals: 18, min_trade_amount_raw: "0" },
  ],
  markets: [
    { base: "AAA", quote: "BBB", tick_precision: 4, quantity_precision: 2, min_ask_amount_raw: "1000000", min_bid_quote_amount_raw: "2000000000000000000" },
  ],
});

const LOW = "0x1000000000000000000000000000000000000001" as Address;
const HIGH = "0xF000000000000000000000000000000000000002" as Address;

describe("Registry from the default config", () => {
  const r = new Registry(DEFAULT_REGISTRY_CONFIG);

  it("lists every default token with lowercase, unique addresses", () => {
    const tokens = r.tokens();
    expect(tokens.map((t) => t.symbol)).toEqual(["EURC", "GBPT", "XCHF", "USDT", "USDC", "JPYS"]);
    for (const t of tokens) expect(t.address).toMatch(/^0x[0-9a-f]{40}$/);
    expect(new Set(tokens.map((t) => t.address)).size).toBe(tokens.length);
    expect(r.tokenBySymbol("JPYS")?.decimals).toBe(2);
    expect(r.tokenBySymbol("GBPT")?.decimals).toBe(18);
    expect(r.tokenBySymbol("USDT")?.permit).toBe(false);
    expect(r.feeBps).toBe(0);
  });

  it("keeps every default market in its written, canonical orientation", () => {
    for (const m of r.markets()) {
      expect(m.reoriented).toBe(false);
      expect(m.base < m.quote).toBe(true);
    }
    expect(r.marketBySymbol("USDC/JPYS")?.quoteDecimals).toBe(2);
    expect(r.marketBySymbol("EURC/JPYS")?.active).toBe(false);
    expect(r.activeMarkets().some((m) => m.symbol === "EURC/JPYS")).toBe(false);
    expect(r.activeMarkets().length).toBe(r.markets().length - 1);
  });

  it("finds a market by its two addresses in either order and any case", () => {
    const eurc = r.tokenBySymbol("EURC")!.address;
    const usdc = r.tokenBySymbol("USDC")!.address;
    expect(r.market(eurc, usdc)?.symbol).toBe("EURC/USDC");
    expect(r.market(usdc.toUpperCase().replace("0X", "0x"), eurc)?.symbol).toBe("EURC/USDC");
    expect(r.market(usdc, r.tokenBySymbol("USDT")!.address)?.symbol).toBe("USDT/USDC");
    expect(r.market(r.tokenBySymbol("JPYS")!.address, r.tokenBySymbol("XCHF")!.address)).toBeUndefined();
    expect(r.token(eurc.toUpperCase().replace("0X", "0x"))?.symbol).toBe("EURC");
    expect(r.token("0x0000000000000000000000000000000000000000")).toBeUndefined();
  });

  it("placeholder addresses are deterministic and ordered by rank", () => {
    expect(placeholderTokenAddress("USDC", 4)).toBe(new Registry(DEFAULT_REGISTRY_CONFIG).tokenBySymbol("USDC")!.address);
    expect(placeholderTokenAddress("X", 0) < placeholderTokenAddress("A", 1)).toBe(true);
  });

  it("placeholders follow the markets' base-before-quote order, so a config listing quotes first keeps its orientation", () => {
    const tok = (symbol: string) => ({ symbol, currency: "USD", decimals: 6, min_trade_amount_raw: "0" });
    const mkt = (base: string, quote: string) => ({ base, quote, tick_precision: 4, quantity_precision: 2, min_ask_amount_raw: "0", min_bid_quote_amount_raw: "0" });
    const r = new Registry({ tokens: [tok("Q"), tok("P"), tok("O")], markets: [mkt("O", "P"), mkt("P", "Q"), mkt("O", "Q")] });
    expect(r.markets().map((m) => [m.symbol, m.reoriented])).toEqual([
      ["O/P", false],
      ["P/Q", false],
      ["O/Q", false],
    ]);
    // A loop cannot be kept: config order decides, and one market is turned round.
    const loop = new Registry({ tokens: [tok("A"), tok("B"), tok("C")], markets: [mkt("A", "B"), mkt("B", "C"), mkt("C", "A")] });
    expect(loop.markets().map((m) => m.symbol)).toEqual(["A/B", "B/C", "A/C"]);
  });

  it("shapes GET /tokens and GET /markets rows with raw and decimal floors", () => {
    expect(tokenView(r.tokenBySymbol("USDC")!)).toEqual({
      currency: "USD",
      symbol: "USDC",
      address: r.tokenBySymbol("USDC")!.address,
      decimals: 6,
      min_trade_amount_raw: "1000000",
      min_trade_amount: "1",
    });
    expect(tokenView(r.tokenBySymbol("XCHF")!).min_trade_amount).toBe("0");
    const m = marketView(r.marketBySymbol("USDC/JPYS")!);
    expect(m).toMatchObject({
      symbol: "USDC/JPYS",
      base_symbol: "USDC",
      quote_symbol: "JPYS",
      base_decimals: 6,
      quote_decimals: 2,
      min_ask_amount_raw: "5000000",
      min_ask_amount: "5",
      min_bid_quote_amount_raw: "75000",
      min_bid_quote_amount: "750",
    });
  });
});

describe("Registry orientation and deployed addresses", () => {
  it("uses deployed addresses (lowercased) over placeholders", () => {
    const r = new Registry(small(), { AAA: LOW, BBB: HIGH });
    expect(r.tokenBySymbol("BBB")!.address).toBe(HIGH.toLowerCase());
    expect(r.markets()[0]!.reoriented).toBe(false);
  });

  it("swaps base/quote and the floors when addresses disagree with the file", () => {
    const r = new Registry(small(), { AAA: HIGH, BBB: LOW });
    const m = r.markets()[0]!;
    expect(m.reoriented).toBe(true);
    expect(m.symbol).toBe("BBB/AAA");
    expect(m.base).toBe(LOW.toLowerCase());
    expect(m.baseDecimals).toBe(18);
    expect(m.quoteDecimals).toBe(6);
    // the old sell floor (in AAA) is now the buy floor on the quote (AAA) side
    expect(m.minBidQuoteAmountRaw).toBe(1_000_000n);
    expect(m.minAskAmountRaw).toBe(2_000_000_000_000_000_000n);
    expect(r.marketBySymbol("AAA/BBB")).toBeUndefined();
    expect(r.marketBySymbol("BBB/AAA")).toBe(m);
  });

  it("uses a config address when no deployed one is given and uppercases the currency", () => {
    const cfg = small();
    cfg.tokens[0]!.address = LOW;
    const r = new Registry(cfg);
    expect(r.tokenBySymbol("AAA")!.address).toBe(LOW);
    expect(r.tokenBySymbol("AAA")!.currency).toBe("USD");
    expect(r.tokenBySymbol("BBB")!.permit).toBe(false);
  });
});

describe("Registry config validation", () => {
  const bad: [string, (c: RegistryConfig) => void, RegExp][] = [
    ["no tokens", (c) => (c.tokens = []), /tokens must be a non-empty array/],
    ["unknown base", (c) => (c.markets[0]!.base = "ZZZ"), /markets\[0\]\.base: unknown token symbol "ZZZ"/],
    ["unknown quote", (c) => (c.markets[0]!.quote = "ZZZ"), /markets\[0\]\.quote: unknown/],
    ["same token", (c) => (c.markets[0]!.quote = "AAA"), /base and quote are both AAA/],
    ["duplicate market", (c) => c.markets.push({ ...c.markets[0]! }), /duplicates market AAA\/BBB/],
    ["inverse duplicate", (c) => c.markets.push({ ...c.markets[0]!, base: "BBB", quote: "AAA" }), /duplicates market/],
    ["duplicate symbol", (c) => c.tokens.push({ ...c.tokens[0]! }), /tokens\[2\]\.symbol AAA is listed twice/],
    ["bad decimals", (c) => (c.tokens[0]!.decimals = -1), /tokens\[0\]\.decimals must be an integer/],
    ["fractional decimals", (c) => (c.tokens[0]!.decimals = 6.5), /decimals/],
    ["bad min trade", (c) => (c.tokens[0]!.min_trade_amount_raw = "-1"), /min_trade_amount_raw must be a uint256/],
    ["numeric min trade", (c) => ((c.tokens[0] as any).min_trade_amount_raw = 5), /min_trade_amount_raw/],
    ["bad currency", (c) => (c.tokens[0]!.currency = "US1"), /currency must be a 3-letter/],
    ["bad symbol", (c) => (c.tokens[0]!.symbol = "A B"), /symbol must be/],
    ["bad permit", (c) => ((c.tokens[0] as any).permit = "yes"), /permit must be true or false/],
    ["bad address", (c) => (c.tokens[0]!.address = "0x12"), /address of AAA must be/],
    ["same address", (c) => {
      c.tokens[0]!.address = LOW;
      c.tokens[1]!.address = LOW.toUpperCase().replace("0X", "0x");
    }, /BBB has the same address as AAA/],
    ["bad tick", (c) => (c.markets[0]!.tick_precision = 19), /tick_precision must be an integer 0-18/],
    ["quantity finer than base", (c) => (c.markets[0]!.quantity_precision = 7), /quantity_precision must be an integer 0-6/],
    ["bad ask floor", (c) => (c.markets[0]!.min_ask_amount_raw = "1.5"), /min_ask_amount_raw/],
    ["bad bid floor", (c) => (c.markets[0]!.min_bid_quote_amount_raw = ""), /min_bid_quote_amount_raw/],
    ["bad active", (c) => ((c.markets[0] as any).active = 1), /active must be true or false/],
    ["bad fee", (c) => (c.fee_bps = 10_001), /fee_bps must be an integer/],
  ];
  it.each(bad)("rejects %s", (_name, mutate, message) => {
    const c = small();
    mutate(c);
    expect(() => new Registry(c)).toThrow(RegistryConfigError);
    expect(() => new Registry(c)).toThrow(message);
  });

  it("rejects a deployed address for an unknown symbol", () => {
    expect(() => new Registry(small(), { CCC: LOW })).toThrow(/unknown token symbol "CCC"/);
  });
});
