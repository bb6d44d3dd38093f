// GET /fx/rate: a consensus FX rate from provider quotes held as data. Quotes are
// injected at run time (tests, control API, scenario files); nothing is fetched.
// All arithmetic is exact decimal on bigints.
//
// How a rate is formed for a pair at a reference time R, over quotes whose
// timestamps lie in a window [from, to] (the quote's ts ≤ now always):
//   1. One vote per provider: its quote nearest to R (ties: the newer one).
//   2. Time clustering: the anchor is the vote nearest to R (ties: newer); votes
//      more than `clusterWindowSec` (default 600 s) away from the anchor are
//      dropped. For the current rate R = now, so this drops providers that went
//      quiet while others kept quoting.
//   3. Outlier filtering, only with 3 or more votes left: drop votes deviating
//      from their median by more than `outlierBps` (default 100 bps = 1 %),
//      i.e. |r - m| * 10000 > outlierBps * m. (With two votes there is no
//      majority to say which one is wrong, so both stay; likewise when the
//      filter would drop every vote, which an even split can cause.)
//   4. rate = median of the survivors (the mean of the two middle values for an
//      even count, exact); as_of = the newest survivor timestamp.
// Current rate: R = now, window [now - recencyWindowSec (4 h), now].
// 24 h anchor: R = now - 24 h, window R ± 1 h; none → the three 24 h fields null.
// Direction: the requested pair when it has current data; otherwise the inverse
// pair, with rate = 1 / inverse quantised to 8 decimal places (half-even, fixed
// 8 places), and the 24 h anchor taken from the inverse as well.
// change_pct = (rate - rate_24h_ago) / rate_24h_ago * 100 on the returned
// values, computed on bigints and rounded half to even (banker's rounding: a
// remainder of exactly one half goes to the even last digit, so 0.00005 → "0.0000"
// and 0.00015 → "0.0002") to 4 decimal places, sent as a string that keeps all
// four ("0.1940", "-1.2500"): a JSON number cannot keep trailing zeros, and the
// live service's clients type the field string | null.

import type { Clock } from "./clock.ts";
import { compareDecimal, formatDecimal, parseCanonicalDecimal, pow10, type Decimal } from "./amounts.ts";
import { ExchangeError, isExchangeError } from "./errors.ts";

export interface FxQuote {
  provider: string;
  base: string;
  quote: string;
  /** Canonical positive decimal string: units of `quote` per one `base`. */
  rate: string;
  /** Unix seconds. */
  ts: number;
}

export interface FxOptions {
  recencyWindowSec?: number;
  clusterWindowSec?: number;
  outlierBps?: number;
}

export interface FxRateResponse {
  pair: string;
  rate: string;
  as_of: number;
  rate_24h_ago: string | null;
  as_of_24h_ago: number | null;
  /** Signed percentage with exactly 4 decimal places, e.g. "0.1940"; null without a 24 h anchor. */
  change_pct: string | null;
}

/**
 * Providers that keep quoting: each quote counts as sent again at every FX_FEED_STEP_SEC
 * mark from `since` on (`lagSec` before the mark), as a live feed re-sends its rates,
 * with nothing stored per mark; a rate the same provider sends for the pair (addQuote)
 * is the one it re-sends from that quote's ts on (kept with the feed, so pruning old
 * quotes does not bring an earlier rate back). The default quotes run as one, so
 * the rate and the moving market's anchors stay fresh however far the clock moves;
 * replacing the quotes (clear) stops it.
 */
export interface FxFeed {
  since: number;
  quotes: FxFeedQuote[];
}

export interface FxFeedQuote {
  provider: string;
  base: string;
  quote: string;
  rate: string;
  lagSec: number;
  /** Rates the provider sent for the pair since (addQuote), by ts: each one is what it re-sends from its ts on. */
  changes?: { ts: number; rate: string }[];
}

export const FX_FEED_STEP_SEC = 60;

export interface FxState {
  quotes: FxQuote[];
  options: Required<FxOptions>;
  /** Absent in states saved before the feed existed: no feed. */
  feed?: FxFeed | null;
}

export const DEFAULT_FX_OPTIONS: Required<FxOptions> = {
  recencyWindowSec: 4 * 3600,
  clusterWindowSec: 600,
  outlierBps: 100,
};
const DAY_SEC = 86400;
const ANCHOR_TOLERANCE_SEC = 3600;
const INVERSE_DECIMALS = 8;
const CHANGE_PCT_DECIMALS = 4;
const CODE = /^[A-Za-z]+$/;

interface Vote {
  provider: string;
  rate: Decimal;
  ts: number;
}

interface Consensus {
  rate: Decimal;
  asOf: number;
}

export class FxRates {
  /** `${BASE}/${QUOTE}` → quotes; at most one per (provider, ts). */
  private byPair = new Map<string, FxQuote[]>();
  private options: Required<FxOptions>;
  private feed: FxFeed | null = null;

  constructor(
    private readonly clock: Clock,
    options: FxOptions = {},
  ) {
    this.options = checkedOptions({ ...DEFAULT_FX_OPTIONS, ...options });
  }

  /** Add a provider quote. A quote with the same provider, pair and ts replaces the old one. */
  addQuote(q: FxQuote): void {
    const clean = checkedQuote(q);
    const key = `${clean.base}/${clean.quote}`;
    const list = (this.byPair.get(key) ?? []).filter((x) => !(x.provider === clean.provider && x.ts === clean.ts));
    list.push(clean);
    list.sort((a, b) => a.ts - b.ts || (a.provider < b.provider ? -1 : a.provider > b.provider ? 1 : 0));
    this.byPair.set(key, list);
    const fed = this.feed?.quotes.find((f) => f.provider === clean.provider && `${f.base}/${f.quote}` === key);
    if (fed !== undefined) {
      const changes = (fed.changes ?? []).filter((c) => c.ts !== clean.ts);
      changes.push({ ts: clean.ts, rate: clean.rate });
      fed.changes = changes.sort((a, b) => a.ts - b.ts);
    }
    this.prune();
  }

  addQuotes(qs: readonly FxQuote[]): void {
    for (const q of qs) this.addQuote(q);
  }

  /** Clears the quotes and stops the feed. */
  clear(): void {
    this.byPair.clear();
    this.feed = null;
  }

  /** Start (or replace) the standing feed; its quotes are checked like any other. */
  runFeed(feed: FxFeed): void {
    if (!Number.isSafeInteger(feed.since) || feed.since < 0) throw new RangeError(`FX feed start must be Unix seconds, got ${feed.since}`);
    const quotes = feed.quotes.map((q) => {
      if (!Number.isSafeInteger(q.lagSec) || q.lagSec < 0) throw new RangeError(`FX feed lag must be a non-negative number of seconds, got ${q.lagSec}`);
      const c = checkedQuote({ ...q, ts: feed.since });
      return { provider: c.provider, base: c.base, quote: c.quote, rate: c.rate, lagSec: q.lagSec, changes: [] };
    });
    this.feed = { since: feed.since, quotes };
  }

  quotes(): FxQuote[] {
    return [...this.byPair.keys()].sort().flatMap((k) => this.byPair.get(k)!.map((q) => ({ ...q })));
  }

  configure(options: FxOptions): void {
    this.options = checkedOptions({ ...this.options, ...options });
  }

  /** The GET /fx/rate body. 400 VALIDATION on bad codes, 503 UNAVAILABLE without data. */
  rate(base: unknown, quote: unknown): FxRateResponse {
    if (typeof base !== "string" || typeof quote !== "string" || !CODE.test(base) || !CODE.test(quote)) {
      throw new ExchangeError("VALIDATION", 400, "base and quote are required, each once, as alphabetic currency codes");
    }
    const b = base.toUpperCase();
    const q = quote.toUpperCase();
    const pair = `${b}/${q}`;
    const now = this.clock.nowSec();
    if (b === q) {
      return { pair, rate: "1", as_of: now, rate_24h_ago: "1", as_of_24h_ago: now - DAY_SEC, change_pct: fixedPlaces(0n, CHANGE_PCT_DECIMALS) };
    }

    const recent = [now - this.options.recencyWindowSec, now] as const;
    const dayAgo = now - DAY_SEC;
    const anchorWindow = [dayAgo - ANCHOR_TOLERANCE_SEC, Math.min(now, dayAgo + ANCHOR_TOLERANCE_SEC)] as const;

    let current: Consensus | undefined;
    let anchor: Consensus | undefined;
    let fmt: (d: Decimal) => Decimal;
    const direct = this.consensus(`${b}/${q}`, now, ...recent);
    if (direct) {
      current = direct;
      anchor = this.consensus(`${b}/${q}`, dayAgo, ...anchorWindow);
      fmt = (d) => d;
    } else {
      current = this.consensus(`${q}/${b}`, now, ...recent);
      anchor = current && this.consensus(`${q}/${b}`, dayAgo, ...anchorWindow);
      fmt = invert;
    }
    if (!current) {
      throw new ExchangeError(
        "UNAVAILABLE",
        503,
        `no FX provider data for ${pair} or ${q}/${b} within the last ${this.options.recencyWindowSec} seconds`,
      );
    }
    const rate = fmt(current.rate);
    const rate24 = anchor ? fmt(anchor.rate) : undefined;
    return {
      pair,
      rate: formatRate(rate),
      as_of: current.asOf,
      rate_24h_ago: rate24 ? formatRate(rate24) : null,
      as_of_24h_ago: anchor ? anchor.asOf : null,
      change_pct: rate24 ? changePct(rate, rate24) : null,
    };
  }

  snapshot(): FxState {
    return { quotes: this.quotes(), options: { ...this.options }, feed: cloneFeed(this.feed) };
  }

  restore(state: FxState): void {
    this.options = checkedOptions({ ...state.options });
    this.feed = cloneFeed(state.feed ?? null);
    this.byPair.clear();
    for (const q of state.quotes) {
      const key = `${q.base}/${q.quote}`;
      const list = this.byPair.get(key) ?? [];
      list.push({ ...q });
      this.byPair.set(key, list);
    }
  }

  private consensus(key: string, ref: number, from: number, to: number): Consensus | undefined {
    // 1. one vote per provider, nearest to ref (ties → newer); the feed's latest mark in the window is a quote too
    const votes = new Map<string, Vote>();
    const consider = (q: FxQuote) => {
      if (q.ts < from || q.ts > to) return;
      const prev = votes.get(q.provider);
      if (!prev || nearer(q.ts, prev.ts, ref)) {
        votes.set(q.provider, { provider: q.provider, rate: parseCanonicalDecimal(q.rate, "rate"), ts: q.ts });
      }
    };
    for (const q of this.byPair.get(key) ?? []) consider(q);
    if (this.feed !== null) {
      const mark = Math.floor(Math.min(ref, to) / FX_FEED_STEP_SEC) * FX_FEED_STEP_SEC;
      for (const q of this.feed.quotes) {
        const ts = mark - q.lagSec;
        if (`${q.base}/${q.quote}` !== key || ts < this.feed.since) continue;
        // The provider re-sends the latest rate it had sent by then.
        let rate = q.rate;
        for (const c of q.changes ?? []) if (c.ts <= ts) rate = c.rate;
        consider({ provider: q.provider, base: q.base, quote: q.quote, rate, ts });
      }
    }
    if (votes.size === 0) return undefined;
    // 2. time cluster around the vote nearest to ref
    let anchorTs: number | undefined;
    for (const v of votes.values()) if (anchorTs === undefined || nearer(v.ts, anchorTs, ref)) anchorTs = v.ts;
    let kept = [...votes.values()].filter((v) => Math.abs(v.ts - anchorTs!) <= this.options.clusterWindowSec);
    // 3. outliers against the cluster median
    if (kept.length >= 3) {
      const m = median(kept.map((v) => v.rate));
      const inliers = kept.filter((v) => !isOutlier(v.rate, m, this.options.outlierBps));
      // An even split (e.g. 0.9, 0.9, 1.1, 1.1) can leave every vote off the averaged
      // median; with no majority to trust, keep them all rather than answer nothing.
      if (inliers.length > 0) kept = inliers;
    }
    // 4. median of the survivors
    return { rate: median(kept.map((v) => v.rate)), asOf: Math.max(...kept.map((v) => v.ts)) };
  }

  /** Quotes older than any window can reach (24 h + 1 h back) are dead weight; the clock never goes back. */
  private prune(): void {
    const oldest = this.clock.nowSec() - DAY_SEC - ANCHOR_TOLERANCE_SEC;
    for (const [key, list] of this.byPair) {
      const kept = list.filter((q) => q.ts >= oldest);
      if (kept.length === 0) this.byPair.delete(key);
      else if (kept.length !== list.length) this.byPair.set(key, kept);
    }
  }
}

function cloneFeed(f: FxFeed | null): FxFeed | null {
  return f === null ? null : { since: f.since, quotes: f.quotes.map((q) => ({ ...q, changes: (q.changes ?? []).map((c) => ({ ...c })) })) };
}

/** Is a nearer to ref than b? Ties go to the newer timestamp. */
function nearer(a: number, b: number, ref: number): boolean {
  const da = Math.abs(a - ref);
  const db = Math.abs(b - ref);
  return da < db || (da === db && a > b);
}

function median(values: Decimal[]): Decimal {
  const sorted = [...values].sort(compareDecimal);
  const mid = sorted.length >> 1;
  if (sorted.length % 2 === 1) return sorted[mid]!;
  const a = sorted[mid - 1]!;
  const b = sorted[mid]!;
  const scale = Math.max(a.scale, b.scale);
  const sum = a.units * pow10(scale - a.scale) + b.units * pow10(scale - b.scale);
  // sum / 2 = sum * 5 / 10: exact with one more decimal place
  return normalize({ units: sum * 5n, scale: scale + 1 });
}

function isOutlier(r: Decimal, m: Decimal, bps: number): boolean {
  const scale = Math.max(r.scale, m.scale);
  const x = r.units * pow10(scale - r.scale);
  const y = m.units * pow10(scale - m.scale);
  const diff = x > y ? x - y : y - x;
  return diff * 10_000n > BigInt(bps) * y;
}

/** 1 / d quantised to 8 decimals, round half to even, keeping all 8 places. */
function invert(d: Decimal): Decimal {
  return { units: divRoundHalfEven(pow10(INVERSE_DECIMALS + d.scale), d.units), scale: INVERSE_DECIMALS };
}

function changePct(rate: Decimal, rate24: Decimal): string {
  const scale = Math.max(rate.scale, rate24.scale);
  const a = rate.units * pow10(scale - rate.scale);
  const b = rate24.units * pow10(scale - rate24.scale);
  // (a - b) / b * 100, at 4 decimals: (a - b) * 100 * 10^4 / b
  const units = divRoundHalfEven((a - b) * 100n * pow10(CHANGE_PCT_DECIMALS), b);
  return fixedPlaces(units, CHANGE_PCT_DECIMALS);
}

/** units / 10^places with every place kept ("0.1940", "-1.2500", "0.0000"); zero has no sign. */
export function fixedPlaces(units: bigint, places: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(places + 1, "0");
  const body = places === 0 ? digits : `${digits.slice(0, digits.length - places)}.${digits.slice(digits.length - places)}`;
  return negative ? `-${body}` : body;
}

/** n / d rounded half to even; d > 0, n any sign. */
export function divRoundHalfEven(n: bigint, d: bigint): bigint {
  if (d <= 0n) throw new RangeError("divisor must be positive");
  const negative = n < 0n;
  const abs = negative ? -n : n;
  let q = abs / d;
  const r2 = (abs % d) * 2n;
  if (r2 > d || (r2 === d && q % 2n === 1n)) q += 1n;
  return negative ? -q : q;
}

function normalize(d: Decimal): Decimal {
  let { units, scale } = d;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale--;
  }
  return { units, scale };
}

/** Direct rates trimmed; inverse rates keep their fixed 8 places (that is what quantising means). */
function formatRate(d: Decimal): string {
  if (d.scale === 0) return d.units.toString();
  const s = d.units.toString().padStart(d.scale + 1, "0");
  return `${s.slice(0, s.length - d.scale)}.${s.slice(s.length - d.scale)}`;
}

const MAX_RATE_CHARS = 32;

function checkedQuote(q: FxQuote): FxQuote {
  const bad = (detail: string) => new ExchangeError("VALIDATION", 400, `invalid FX quote: ${detail}`);
  if (q === null || typeof q !== "object") throw bad("must be an object");
  if (typeof q.provider !== "string" || q.provider.length === 0 || q.provider.length > 64) throw bad("provider must be a string of 1 to 64 characters");
  if (typeof q.base !== "string" || !CODE.test(q.base)) throw bad("base must be an alphabetic currency code");
  if (typeof q.quote !== "string" || !CODE.test(q.quote)) throw bad("quote must be an alphabetic currency code");
  if (q.base.toUpperCase() === q.quote.toUpperCase()) throw bad("base and quote must differ");
  if (!Number.isSafeInteger(q.ts) || q.ts < 0) throw bad("ts must be Unix seconds");
  // Bounded so every figure derived from a rate (a swap quote's gas cost in a token) stays far inside uint256.
  if (typeof q.rate === "string" && q.rate.length > MAX_RATE_CHARS) throw bad(`rate must be at most ${MAX_RATE_CHARS} characters`);
  let rate: Decimal;
  try {
    rate = parseCanonicalDecimal(q.rate, "rate");
  } catch (e) {
    if (isExchangeError(e)) throw bad("rate must be a canonical positive decimal string");
    throw e;
  }
  // Store the shortest spelling so snapshots compare equal however the rate was written.
  return { provider: q.provider, base: q.base.toUpperCase(), quote: q.quote.toUpperCase(), rate: formatDecimal(rate), ts: q.ts };
}

function checkedOptions(o: Required<FxOptions>): Required<FxOptions> {
  for (const [k, v] of Object.entries(o)) {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`FX option ${k} must be a non-negative integer, got ${v}`);
  }
  return { recencyWindowSec: o.recencyWindowSec, clusterWindowSec: o.clusterWindowSec, outlierBps: o.outlierBps };
}

/**
 * Seed quotes for the default currencies (USD, EUR, GBP, CHF, JPY) from three
 * providers, fresh at `nowSec` and 24 h earlier, so every default pair answers
 * with a 24 h change. CHF and JPY are quoted against USD the market way round
 * (USD/CHF, USD/JPY), so CHF/USD exercises the inverse path. One provider is an
 * outlier on EUR/USD to show the filter at work. installDefaultFx also runs the
 * current ones as a feed, so they stay fresh as the clock moves.
 */
export function defaultFxQuotes(nowSec: number): FxQuote[] {
  const table: [string, string, [string, string, string, string], [string, string, string]][] = [
    // base, quote, [alpha, beta, gamma, delta(now)], [alpha, beta, gamma] 24 h ago
    ["EUR", "USD", ["1.0842", "1.0845", "1.0843", "1.1300"], ["1.0821", "1.0824", "1.0822"]],
    ["GBP", "USD", ["1.2701", "1.2705", "1.2703", "1.2704"], ["1.2688", "1.2690", "1.2689"]],
    ["USD", "CHF", ["0.8841", "0.8843", "0.8842", "0.8842"], ["0.8850", "0.8852", "0.8851"]],
    ["USD", "JPY", ["152.35", "152.38", "152.36", "152.37"], ["151.90", "151.94", "151.92"]],
    ["EUR", "GBP", ["0.8536", "0.8538", "0.8537", "0.8537"], ["0.8529", "0.8531", "0.8530"]],
  ];
  const out: FxQuote[] = [];
  for (const [base, quote, now, dayAgo] of table) {
    ["alpha", "beta", "gamma", "delta"].forEach((provider, i) => {
      out.push({ provider, base, quote, rate: now[i]!, ts: nowSec - 30 - 15 * i });
    });
    ["alpha", "beta", "gamma"].forEach((provider, i) => {
      out.push({ provider, base, quote, rate: dayAgo[i]!, ts: nowSec - DAY_SEC + 20 * i });
    });
  }
  return out;
}

/** The default quotes' current rates as a standing feed from `nowSec` (same providers, same lags). */
export function defaultFxFeed(nowSec: number): FxFeed {
  const quotes = defaultFxQuotes(nowSec)
    .filter((q) => q.ts > nowSec - DAY_SEC / 2)
    .map((q) => ({ provider: q.provider, base: q.base, quote: q.quote, rate: q.rate, lagSec: nowSec - q.ts }));
  return { since: nowSec, quotes };
}

/** The default FX data every exchange starts with: the seed quotes, and their current rates kept quoting. */
export function installDefaultFx(fx: FxRates, nowSec: number): void {
  fx.addQuotes(defaultFxQuotes(nowSec));
  fx.runFeed(defaultFxFeed(nowSec));
}
