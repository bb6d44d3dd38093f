import { describe, expect, it } from "vitest";
import { VirtualClock } from "../../sim/core/clock.ts";
import { ExchangeError } from "../../sim/core/errors.ts";
import { defaultFxQuotes, divRoundHalfEven, FX_FEED_STEP_SEC, FxRates, installDefaultFx, type FxQuote } from "../../sim/core/fx.ts";

const DAY = 86400;

function caught(f: () => unknown): ExchangeError {
  try {
    f();
  } catch (e) {
    if (e instanceof ExchangeError) return e;
    throw e;
  }
  throw new Error("expected an ExchangeError");
}

function setup(opts = {}) {
  const clock = new VirtualClock();
  clock.advanceSec(10 * DAY); // room to place quotes in the past
  const fx = new FxRates(clock, opts);
  const now = clock.nowSec();
  const q = (provider: string, rate: string, ago: number, base = "EUR", quote = "USD"): FxQuote => ({
    provider,
    base,
    quote,
    rate,
    ts: now - ago,
  });
  return { clock, fx, now, q };
}

describe("validation and trivial pairs", () => {
  it.each([
    [undefined, "USD"],
    ["EUR", undefined],
    ["", "USD"],
    ["EU1", "USD"],
    ["EUR", "US D"],
    ["EUR", "US-D"],
    [5, "USD"],
  ])("400 VALIDATION for base %j quote %j", (b, q) => {
    const { fx } = setup();
    const e = caught(() => fx.rate(b, q));
    expect(e.status).toBe(400);
    expect(e.code).toBe("VALIDATION");
  });

  it("base equal to quote is 1 / 1 / 0, case-insensitively, with no data at all", () => {
    const { fx, now } = setup();
    expect(fx.rate("usd", "USD")).toEqual({
      pair: "USD/USD",
      rate: "1",
      as_of: now,
      rate_24h_ago: "1",
      as_of_24h_ago: now - DAY,
      change_pct: "0.0000",
    });
  });

  it("503 UNAVAILABLE when neither direction has data within 4 hours", () => {
    const { fx, q } = setup();
    fx.addQuote(q("a", "1.08", 4 * 3600 + 1));
    fx.addQuote(q("a", "0.92", 5 * 3600, "USD", "EUR"));
    const e = caught(() => fx.rate("EUR", "USD"));
    expect(e.status).toBe(503);
    expect(e.code).toBe("UNAVAILABLE");
    expect(caught(() => fx.rate("XAU", "USD")).status).toBe(503);
  });

  it("a quote exactly 4 hours old still counts; a future-dated one does not", () => {
    const { fx, q } = setup();
    fx.addQuote(q("a", "1.08", 4 * 3600));
    expect(fx.rate("EUR", "USD").rate).toBe("1.08");
    const { fx: fx2, q: q2 } = setup();
    fx2.addQuote(q2("a", "1.08", -10));
    expect(caught(() => fx2.rate("EUR", "USD")).status).toBe(503);
  });
});

describe("consensus", () => {
  it("takes the median of the providers' latest quotes, case-insensitive request, pair as requested", () => {
    const { fx, q, now } = setup();
    fx.addQuotes([q("a", "1.0800", 100), q("a", "1.0900", 10), q("b", "1.0850", 20), q("c", "1.0870", 30)]);
    const r = fx.rate("eur", "usd");
    expect(r.pair).toBe("EUR/USD");
    expect(r.rate).toBe("1.087"); // median of 1.09, 1.085, 1.087
    expect(r.as_of).toBe(now - 10);
  });

  it("even counts average the two middle values exactly", () => {
    const { fx, q } = setup();
    fx.addQuotes([q("a", "1.0841", 10), q("b", "1.0842", 10)]);
    expect(fx.rate("EUR", "USD").rate).toBe("1.08415");
  });

  it("time clustering drops providers more than 600 s older than the freshest", () => {
    const { fx, q, now } = setup();
    fx.addQuotes([q("a", "1.10", 0), q("b", "1.12", 600), q("c", "1.00", 601)]);
    const r = fx.rate("EUR", "USD");
    expect(r.rate).toBe("1.11");
    expect(r.as_of).toBe(now);
  });

  it("outliers beyond 100 bps of the median are dropped when 3+ votes remain", () => {
    const { fx, q } = setup();
    fx.addQuotes([q("a", "1.0842", 1), q("b", "1.0845", 1), q("c", "1.0843", 1), q("d", "1.1300", 1)]);
    // median of 4 = 1.0844; 1.13 deviates ~4.2 % → dropped; median of rest = 1.0843
    expect(fx.rate("EUR", "USD").rate).toBe("1.0843");
  });

  it("a deviation of exactly the threshold stays; two votes are never filtered", () => {
    const { fx, q } = setup();
    fx.addQuotes([q("a", "1.00", 1), q("b", "1.01", 1), q("c", "0.99", 1)]);
    expect(fx.rate("EUR", "USD").rate).toBe("1"); // 1 % off exactly: all kept, median 1.00
    const two = setup();
    two.fx.addQuotes([two.q("a", "1", 1), two.q("b", "2", 1)]);
    expect(two.fx.rate("EUR", "USD").rate).toBe("1.5");
  });

  it("an even split that would filter every vote keeps them all", () => {
    const { fx, q } = setup();
    fx.addQuotes([q("a", "0.9", 1), q("b", "0.9", 1), q("c", "1.1", 1), q("d", "1.1", 1)]);
    expect(fx.rate("EUR", "USD").rate).toBe("1");
  });

  it("outlier threshold and windows are configurable", () => {
    const { fx, q } = setup({ outlierBps: 50, clusterWindowSec: 5, recencyWindowSec: 60 });
    fx.addQuotes([q("a", "1.000", 1), q("b", "1.007", 1), q("c", "1.001", 1), q("d", "2", 7)]);
    // d is 6 s from the freshest (cluster 5 s); b is 59.9 bps from the median 1.001 (limit 50)
    expect(fx.rate("EUR", "USD").rate).toBe("1.0005");
    fx.configure({ recencyWindowSec: 0 });
    expect(caught(() => fx.rate("EUR", "USD")).status).toBe(503);
    expect(() => fx.configure({ outlierBps: -1 })).toThrow(RangeError);
  });

  it("a later quote from the same provider at the same ts replaces the earlier one", () => {
    const { fx, q } = setup();
    fx.addQuote(q("a", "1.05", 5));
    fx.addQuote(q("a", "1.0600", 5));
    expect(fx.quotes()).toHaveLength(1);
    expect(fx.rate("EUR", "USD").rate).toBe("1.06");
  });
});

describe("24 h anchor and change", () => {
  it("uses quotes within 1 h of 24 h ago and a signed 4-decimal change_pct", () => {
    const { fx, q, now } = setup();
    fx.addQuotes([q("a", "1.10", 0), q("a", "1.20", DAY - 3600), q("b", "1.25", DAY + 3600), q("c", "9", DAY + 3601)]);
    const r = fx.rate("EUR", "USD");
    // a and b are both 1 h from the anchor time; the tie goes to the newer (a), and b is
    // then 2 h from it, outside the 600 s cluster; c is outside the ±1 h window
    expect(r.rate_24h_ago).toBe("1.2");
    expect(r.as_of_24h_ago).toBe(now - DAY + 3600);
    // (1.10 - 1.2) / 1.2 * 100 = -8.33333... → -8.3333
    expect(r.change_pct).toBe("-8.3333");
  });

  it("the anchor cluster is centred on the quote nearest to 24 h ago", () => {
    const { fx, q } = setup();
    fx.addQuotes([q("a", "1.10", 0), q("a", "1.00", DAY), q("b", "1.02", DAY - 100), q("c", "5", DAY + 3000)]);
    expect(fx.rate("EUR", "USD").rate_24h_ago).toBe("1.01");
  });

  it("24 h fields are null (and still 200) when nothing lies within 1 h of 24 h ago", () => {
    const { fx, q } = setup();
    fx.addQuotes([q("a", "1.10", 0), q("a", "1.00", DAY + 3601), q("b", "1.00", DAY - 3601)]);
    const r = fx.rate("EUR", "USD");
    expect(r.rate).toBe("1.1");
    expect(r.rate_24h_ago).toBeNull();
    expect(r.as_of_24h_ago).toBeNull();
    expect(r.change_pct).toBeNull();
  });

  it("positive change keeps its sign; rounding is half-even at 4 decimals", () => {
    const { fx, q } = setup();
    // (1.000025 - 1) / 1 * 100 = 0.0025 exactly
    fx.addQuotes([q("a", "1.000025", 0), q("a", "1", DAY)]);
    expect(fx.rate("EUR", "USD").change_pct).toBe("0.0025");
    const s = setup();
    // 0.000005 % → 0.00005 at 5 places → half-even to 0.0000
    s.fx.addQuotes([s.q("a", "1.00000005", 0), s.q("a", "1", DAY)]);
    expect(s.fx.rate("EUR", "USD").change_pct).toBe("0.0000");
    const t = setup();
    t.fx.addQuotes([t.q("a", "1.5", 0), t.q("a", "1.2", DAY)]);
    expect(t.fx.rate("EUR", "USD").change_pct).toBe("25.0000");
  });

  it("change_pct is a string with exactly 4 places: ties to even, negatives signed, no negative zero", () => {
    const pct = (now: string, before: string) => {
      const s = setup();
      s.fx.addQuotes([s.q("a", now, 0), s.q("a", before, DAY)]);
      return s.fx.rate("EUR", "USD").change_pct;
    };
    expect(pct("1.0000015", "1")).toBe("0.0002"); // 0.00015 → up to the even 2
    expect(pct("1.0000025", "1")).toBe("0.0002"); // 0.00025 → down to the even 2
    expect(pct("1.00000251", "1")).toBe("0.0003"); // above the half → up
    expect(pct("0.9875", "1")).toBe("-1.2500");
    expect(pct("0.99995", "1")).toBe("-0.0050");
    expect(pct("0.99999995", "1")).toBe("0.0000"); // -0.000005 rounds to zero, unsigned
    expect(pct("2", "1")).toBe("100.0000");
    expect(pct("1", "3")).toBe("-66.6667");
  });
});

describe("inverse direction", () => {
  it("when only the inverse has data: 1 / rate quantised to 8 places, anchor from the inverse", () => {
    const { fx, q, now } = setup();
    fx.addQuotes([q("a", "0.8842", 10, "USD", "CHF"), q("a", "0.8851", DAY, "USD", "CHF")]);
    const r = fx.rate("CHF", "USD");
    expect(r.pair).toBe("CHF/USD");
    expect(r.rate).toBe("1.13096584"); // 1/0.8842 = 1.1309658448...
    expect(r.rate_24h_ago).toBe("1.12981584"); // 1/0.8851 = 1.129815840...
    expect(r.as_of).toBe(now - 10);
    // change on the returned values: (1.13096585 - 1.12981584) / 1.12981584 * 100 = 0.10178...
    expect(r.change_pct).toBe("0.1018");
  });

  it("keeps all 8 places, e.g. 1/1.25 = 0.80000000", () => {
    const { fx, q } = setup();
    fx.addQuote(q("a", "1.25", 10, "USD", "EUR"));
    expect(fx.rate("EUR", "USD").rate).toBe("0.80000000");
  });

  it("the anchor follows the direction of the current rate even if the other side has 24 h data", () => {
    const { fx, q } = setup();
    fx.addQuotes([q("a", "2", 10, "USD", "EUR"), q("a", "0.25", DAY, "EUR", "USD")]);
    const r = fx.rate("EUR", "USD");
    expect(r.rate).toBe("0.50000000");
    expect(r.rate_24h_ago).toBeNull();
  });

  it("direct data wins over inverse data", () => {
    const { fx, q } = setup();
    fx.addQuotes([q("a", "1.5", 10), q("a", "2", 10, "USD", "EUR")]);
    expect(fx.rate("EUR", "USD").rate).toBe("1.5");
  });

  it("divRoundHalfEven rounds halves to even for both signs", () => {
    expect(divRoundHalfEven(5n, 2n)).toBe(2n);
    expect(divRoundHalfEven(7n, 2n)).toBe(4n);
    expect(divRoundHalfEven(-5n, 2n)).toBe(-2n);
    expect(divRoundHalfEven(-7n, 2n)).toBe(-4n);
    expect(divRoundHalfEven(10n, 3n)).toBe(3n);
    expect(divRoundHalfEven(11n, 3n)).toBe(4n);
    expect(() => divRoundHalfEven(1n, 0n)).toThrow(RangeError);
  });
});

describe("quote injection, defaults, snapshot", () => {
  it.each([
    [{ provider: "" }],
    [{ base: "E1" }],
    [{ quote: "" }],
    [{ quote: "eur" }],
    [{ rate: "1e3" }],
    [{ rate: "0" }],
    [{ rate: 1.08 }],
    [{ ts: -1 }],
    [{ ts: 1.5 }],
  ])("rejects a malformed quote %j with 400", (over) => {
    const { fx, q } = setup();
    const e = caught(() => fx.addQuote({ ...q("a", "1.08", 0), ...over } as FxQuote));
    expect(e.status).toBe(400);
    expect(e.code).toBe("VALIDATION");
  });

  it("default quotes answer every default pair both ways, with the outlier filtered", () => {
    const { fx, now } = setup();
    fx.addQuotes(defaultFxQuotes(now));
    const eurUsd = fx.rate("EUR", "USD");
    expect(eurUsd.rate).toBe("1.0843");
    expect(eurUsd.rate_24h_ago).toBe("1.0822");
    expect(eurUsd.change_pct).toBe("0.1940");
    for (const [b, q] of [["GBP", "USD"], ["USD", "CHF"], ["CHF", "USD"], ["JPY", "USD"], ["USD", "JPY"], ["GBP", "EUR"], ["USD", "EUR"]]) {
      const r = fx.rate(b, q);
      expect(r.rate_24h_ago, `${b}/${q}`).not.toBeNull();
      expect(r.as_of).toBeLessThanOrEqual(now);
    }
    expect(fx.rate("JPY", "USD").rate).toBe("0.00656319"); // 1/152.365 (median of four)
  });

  it("a vote exactly 100 bps off the median is no outlier (the rule is more than): it stays and is the newest", () => {
    const { fx, q, now } = setup();
    fx.addQuotes([q("a", "1", 10), q("b", "1", 10), q("c", "1.01", 0)]);
    expect(fx.rate("EUR", "USD")).toMatchObject({ rate: "1", as_of: now });
    fx.addQuote(q("c", "1.0101", 0)); // 101 bps: dropped, the newest survivor is 10 s old
    expect(fx.rate("EUR", "USD")).toMatchObject({ rate: "1", as_of: now - 10 });
  });

  it("quotes alone go stale: 503 after 4 h of virtual time; new quotes bring the rate back", () => {
    const { fx, clock } = setup();
    fx.addQuotes(defaultFxQuotes(clock.nowSec()));
    clock.advanceSec(4 * 3600);
    expect(caught(() => fx.rate("EUR", "USD")).status).toBe(503);
    fx.addQuotes(defaultFxQuotes(clock.nowSec()));
    expect(fx.rate("EUR", "USD").rate).toBe("1.0843");
  });

  it("the default feed keeps every default pair fresh however far the clock moves (the outlier still filtered)", () => {
    const { fx, clock, now } = setup();
    installDefaultFx(fx, now);
    expect(fx.rate("EUR", "USD")).toMatchObject({ rate: "1.0843", as_of: now - 30, change_pct: "0.1940" });
    clock.advanceSec(5 * 3600 + 17);
    const later = fx.rate("EUR", "USD");
    expect(later.rate).toBe("1.0843");
    // The newest provider quote is the latest minute mark less the quickest provider's lag (30 s).
    expect(later.as_of).toBe(Math.floor(clock.nowSec() / FX_FEED_STEP_SEC) * FX_FEED_STEP_SEC - 30);
    expect(later.rate_24h_ago).toBeNull(); // nothing was quoted 19 h before the feed began
    clock.advanceSec(10 * DAY);
    for (const [b, q] of [["GBP", "USD"], ["CHF", "USD"], ["USD", "JPY"], ["GBP", "EUR"]]) {
      const r = fx.rate(b, q);
      expect(r.rate_24h_ago, `${b}/${q}`).toBe(r.rate); // a day ago the feed quoted the same rates
      expect(r.change_pct, `${b}/${q}`).toBe("0.0000");
    }
    expect(fx.rate("EUR", "USD").rate).toBe("1.0843");
  });

  it("a provider's own later quote is the rate the feed re-sends for it from then on", () => {
    const { fx, clock, now } = setup();
    installDefaultFx(fx, now);
    clock.advanceSec(600);
    const t = clock.nowSec();
    const gbp = fx.rate("GBP", "USD").rate;
    for (const provider of ["alpha", "beta", "gamma"]) fx.addQuote({ provider, base: "EUR", quote: "USD", rate: "1.1", ts: t });
    expect(fx.rate("EUR", "USD").rate).toBe("1.1");
    clock.advanceSec(120); // the feed's next marks are nearer now than the added quotes
    expect(fx.rate("EUR", "USD").rate).toBe("1.1");
    clock.advanceSec(5 * 3600);
    expect(fx.rate("EUR", "USD").rate).toBe("1.1");
    expect(fx.rate("GBP", "USD").rate).toBe(gbp); // other pairs carry on as they were
    // Past the 25 h the quotes themselves are kept (pruned by the next quote), the rate holds.
    clock.advanceSec(26 * 3600);
    fx.addQuote({ provider: "omega", base: "USD", quote: "CHF", rate: "0.9", ts: clock.nowSec() });
    expect(fx.rate("EUR", "USD").rate).toBe("1.1");
    // The day-old anchor reads the rates as they were then: 1.1 only from its quotes' ts on.
    expect(fx.rate("EUR", "USD").rate_24h_ago).toBe("1.1");
  });

  it("a provider's quote from before the feed began counts from its own ts (a scenario's aged quotes), and snapshots keep it", () => {
    const { fx, clock, now } = setup();
    installDefaultFx(fx, now);
    for (const provider of ["alpha", "beta", "gamma"]) fx.addQuote({ provider, base: "EUR", quote: "USD", rate: "1.1", ts: now - 5 });
    const snap = fx.snapshot();
    clock.advanceSec(300);
    expect(fx.rate("EUR", "USD").rate).toBe("1.1");
    fx.restore(snap);
    clock.advanceSec(3600);
    expect(fx.rate("EUR", "USD").rate).toBe("1.1");
  });

  it("replacing the quotes stops the feed: the new quotes go stale on their own; snapshots carry the feed", () => {
    const { fx, clock, now, q } = setup();
    installDefaultFx(fx, now);
    const withFeed = fx.snapshot();
    fx.clear();
    fx.addQuote(q("mine", "1.2", 0));
    expect(fx.rate("EUR", "USD").rate).toBe("1.2");
    clock.advanceSec(4 * 3600 + 1);
    expect(caught(() => fx.rate("EUR", "USD")).status).toBe(503);
    fx.restore(withFeed);
    expect(fx.rate("EUR", "USD").rate).toBe("1.0843");
    // A state saved before the feed existed restores without one.
    fx.restore({ quotes: withFeed.quotes, options: withFeed.options });
    expect(caught(() => fx.rate("EUR", "USD")).status).toBe(503);
  });

  it("snapshot/restore round-trips quotes and options; old quotes are pruned", () => {
    const { fx, q, clock } = setup();
    fx.addQuote(q("a", "1.0800", 10));
    const snap = fx.snapshot();
    expect(snap.quotes[0]!.rate).toBe("1.08");
    fx.addQuote(q("b", "2", 10));
    fx.configure({ outlierBps: 1 });
    fx.restore(snap);
    expect(fx.snapshot()).toEqual(snap);
    expect(fx.rate("EUR", "USD").rate).toBe("1.08");
    clock.advanceSec(DAY + 3600);
    fx.addQuote(q("c", "1.1", 0)); // triggers pruning of everything older than 25 h
    expect(fx.quotes().map((x) => x.provider)).toEqual(["c"]);
    fx.clear();
    expect(fx.quotes()).toEqual([]);
  });
});

describe("fx properties", () => {
  it("the consensus lies between the lowest and highest fresh quote and ignores quote order", async () => {
    const fc = (await import("fast-check")).default;
    fc.assert(
      fc.property(
        fc.array(fc.record({ bp: fc.integer({ min: 9000, max: 11000 }), ago: fc.integer({ min: 0, max: 900 }) }), { minLength: 1, maxLength: 8 }),
        (raw) => {
          const { fx, q, clock } = setup();
          const quotes = raw.map((r, i) => q(`p${i}`, (r.bp / 10000).toString(), r.ago));
          fx.addQuotes(quotes);
          const r = fx.rate("EUR", "USD");
          const v = Number(r.rate);
          expect(v).toBeGreaterThanOrEqual(Math.min(...raw.map((x) => x.bp / 10000)));
          expect(v).toBeLessThanOrEqual(Math.max(...raw.map((x) => x.bp / 10000)));
          const fx2 = new FxRates(clock);
          fx2.addQuotes([...quotes].reverse());
          expect(fx2.rate("EUR", "USD")).toEqual(r);
        },
      ),
    );
  });
});
