// `fakex conformance`: the spec's checks against any base URL — fakex itself in
// CI, or a real deployment with --read-only. Each check is one HTTP exchange (or
// a short flow) and one verdict; the table says pass, fail or skip per check.
//
// Read-only checks need no wallet and change nothing. The write set (a private
// key, not --read-only) creates an API key (ManageApiKey signature), reads
// /balances, places a signed ask far above the market and cancels it, reads the
// order and fill lists, runs cancel-all (only when the wallet has no other open
// order), then self-revokes the key; it skips the order when the wallet has no
// vault funds.
import { setTimeout } from "node:timers";
import { parseArgs } from "node:util";
import { domainSeparator } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { MANAGE_API_KEY_TYPE, ORDER_TYPE, CANCEL_ORDER_TYPE, type Address, type Hex } from "../sim/core/typed-data.ts";
import { strayWireCodes } from "./wire-vocabulary.ts";
import { TYPED_QUOTE_CODES } from "../sim/core/quotes.ts";

export type CheckStatus = "pass" | "fail" | "skip";

export interface CheckResult {
  name: string;
  group: "read" | "write";
  status: CheckStatus;
  detail: string;
}

export interface ConformanceOptions {
  /** The service base address, ending in /api/v1. */
  baseUrl: string;
  privateKey?: Hex;
  readOnly?: boolean;
  fetch?: typeof fetch;
  /** How long one request may take before its check fails (default 30 s). */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

interface Reply {
  status: number;
  body: unknown;
  headers: Headers;
}

class CheckFailed extends Error {}
class CheckSkipped extends Error {}

function must(cond: unknown, what: string): asserts cond {
  if (!cond) throw new CheckFailed(what);
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const RAW = /^(0|[1-9][0-9]*)$/;
const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;
/** GET /fx/rate change_pct: signed, exactly 4 decimal places. */
const CHANGE_PCT = /^-?(0|[1-9][0-9]*)\.[0-9]{4}$/;
// ISO 8601 date-time; the zone is optional (Python's isoformat() of a naive time omits it).
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/;
const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => x !== null && typeof x === "object" && !Array.isArray(x);
const isInt = (x: unknown): x is number => typeof x === "number" && Number.isInteger(x);

/** value of a raw string scaled by decimals, as the exact decimal string the spec's companions carry. */
function scaled(raw: string, decimals: number): string {
  const s = raw.padStart(decimals + 1, "0");
  const int = s.slice(0, s.length - decimals);
  const frac = s.slice(s.length - decimals).replace(/0+$/, "");
  return frac === "" ? int : `${int}.${frac}`;
}

/** Two decimal strings denote the same number (trailing zeros aside). */
/** The spec's Order resource (GET /orders/{order_id}) of a resting limit ask just placed: every field, its type. */
function orderShape(o: Obj, owner: string, orderId: string): void {
  const str = (k: string) => must(typeof o[k] === "string", `order.${k} string`);
  const addr = (k: string) => must(typeof o[k] === "string" && ADDRESS.test(o[k] as string), `order.${k} address`);
  must(String(o.owner_address).toLowerCase() === owner && o.trade_id === orderId, "order.owner_address and trade_id");
  must(o.order_type === "limit" && o.side === "ask", `order_type limit, side ask (${String(o.order_type)}, ${String(o.side)})`);
  for (const k of ["symbol", "base_symbol", "quote_symbol", "price", "amount", "remaining_amount", "filled_base_amount", "filled_quote_amount", "notional", "remaining_notional", "from_amount", "to_amount", "filled_amount", "uuid_int"]) str(k);
  for (const k of ["base_token", "quote_token", "from_token", "to_token"]) addr(k);
  must(String(o.from_token).toLowerCase() === String(o.base_token).toLowerCase() && String(o.to_token).toLowerCase() === String(o.quote_token).toLowerCase(), "an ask spends the base token for the quote token");
  must(typeof o.created_at === "string" && ISO.test(o.created_at) && typeof o.updated_at === "string" && ISO.test(o.updated_at), "created_at, updated_at ISO 8601");
  must(o.expiration === undefined || o.expiration === null || typeof o.expiration === "string", "expiration echoed as a string");
  must(o.error === null || typeof o.error === "string", "error string or null");
  must(o.error_code === null || typeof o.error_code === "string", "error_code string or null");
  must(o.vl_batch_id === null, `vl_batch_id present and null for a standalone order, got ${JSON.stringify(o.vl_batch_id)}`);
  must(isObj(o.settlement_summary) && isObj(o.settlement_economics), "settlement_summary and settlement_economics objects");
  settlementShapes(o.settlement_summary as Obj, o.settlement_economics as Obj);
  must(sameDecimal(String(o.remaining_amount), String(o.amount)) && isZero(o.filled_amount), "a resting order: remaining = amount, nothing filled");
}

/** The spec's settlement_summary and settlement_economics members, each with its type. */
function settlementShapes(summary: Obj, economics: Obj): void {
  must(typeof summary.status === "string", "settlement_summary.status string");
  for (const k of ["total_fill_count", "pending_fill_count", "settled_fill_count", "failed_fill_count", "reverted_fill_count"]) must(isInt(summary[k]), `settlement_summary.${k} integer`);
  must(summary.latest_settlement_id === null || isInt(summary.latest_settlement_id), "settlement_summary.latest_settlement_id integer or null");
  for (const k of ["latest_tx_hash", "latest_parent_status", "latest_fill_settlement_status", "latest_failed_fill_failure_reason"]) {
    must(k in summary && (summary[k] === null || typeof summary[k] === "string"), `settlement_summary.${k} string or null`);
  }
  must(typeof economics.perspective_order_id === "string", "settlement_economics.perspective_order_id string");
  for (const k of ["gross_debits", "gross_credits", "balance_debits", "balance_credits", "fees_paid"]) must(Array.isArray(economics[k]), `settlement_economics.${k} array`);
}

const FILL_SETTLEMENT_STATUSES = ["pending", "confirming", "settled", "failed", "reverted"];

/** The spec's Fill resource (an element of `items` in the fills endpoints). */
function fillShape(f: unknown): void {
  must(isObj(f), "a fill is an object");
  must(typeof f.maker_order_id === "string" && typeof f.taker_order_id === "string", "fill maker_order_id, taker_order_id strings");
  must(typeof f.quantity === "string" && DECIMAL.test(f.quantity) && typeof f.price === "string" && DECIMAL.test(f.price), "fill quantity, price decimal strings");
  must(typeof f.settlement_status === "string" && FILL_SETTLEMENT_STATUSES.includes(f.settlement_status), `fill settlement_status one of ${FILL_SETTLEMENT_STATUSES.join(", ")}, got ${String(f.settlement_status)}`);
  must(f.tx_hash === null || typeof f.tx_hash === "string", "fill tx_hash string or null");
  must(typeof f.timestamp === "string" && ISO.test(f.timestamp), "fill timestamp ISO 8601");
  must(f.failure_reason === null || typeof f.failure_reason === "string", "fill failure_reason string or null");
  must(isObj(f.settlement_economics), "fill settlement_economics object");
}

/** Zero as a number or a decimal string in any spelling ("0", "0.0000", "+0.00", "-0"). */
function isZero(v: unknown): boolean {
  if (typeof v === "number") return v === 0;
  return typeof v === "string" && /^[+-]?0+(\.0+)?$/.test(v);
}

function sameDecimal(a: string, b: string): boolean {
  const norm = (s: string) => (s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s);
  return norm(a) === norm(b);
}

/** A typed error body: {detail: {detail, error_code}} (POST /orders) or {detail: {code}} (quotes) or top-level (preview). */
function errorCodeOf(body: unknown): string | undefined {
  if (!isObj(body)) return undefined;
  if (typeof body.error_code === "string") return body.error_code;
  const d = body.detail;
  if (isObj(d)) return typeof d.error_code === "string" ? d.error_code : typeof d.code === "string" ? d.code : undefined;
  return undefined;
}

export class ConformanceRun {
  readonly results: CheckResult[] = [];
  private readonly base: string;
  private readonly fetchFn: typeof fetch;
  /** Facts later checks build on. */
  private health: Obj | undefined;
  private config: Obj | undefined;
  private markets: Obj[] = [];
  private serverTime: number | undefined;
  /** Every response seen, and the codes outside the spec's vocabulary among them. */
  private responsesSeen = 0;
  private readonly strays: string[] = [];
  /** Answers that broke the spec's envelope rules (JSON bodies; every error carries detail). */
  private readonly badEnvelopes: string[] = [];

  constructor(private readonly o: ConformanceOptions) {
    this.base = o.baseUrl.replace(/\/+$/, "");
    this.fetchFn = o.fetch ?? fetch;
  }

  /**
   * One request, as a polite client sends it: a wallet rate limit's 429 (the plain one,
   * not a typed refusal like CANCEL_COOLDOWN) is waited out (its Retry-After, else 1 s)
   * and the request sent again, up to three times. Still limited, the check is skipped, not
   * failed: a rate limit is the spec's behaviour, and the kit learnt nothing either way (on
   * a fakex virtual clock the budget refills only when the clock moves, so a second run in
   * the same virtual second finds the write set's reads spent).
   */
  async call(method: string, path: string, o: { json?: unknown; raw?: string; auth?: string } = {}): Promise<Reply> {
    for (let attempt = 1; ; attempt++) {
      const r = await this.callOnce(method, path, o);
      if (r.status !== 429 || errorCodeOf(r.body) !== undefined) return r;
      if (attempt > 3) throw new CheckSkipped(`${method} ${path.split("?")[0]}: still rate limited (429) after waiting three times; on a fakex virtual clock, advance it`);
      const wait = Number(r.headers.get("retry-after"));
      await new Promise((resolve) => setTimeout(resolve, Number.isFinite(wait) && wait > 0 ? Math.min(wait, 5) * 1000 : 1000));
    }
  }

  private async callOnce(method: string, path: string, o: { json?: unknown; raw?: string; auth?: string }): Promise<Reply> {
    const headers: Record<string, string> = {};
    let body: string | undefined;
    if (o.raw !== undefined) {
      headers["content-type"] = "application/json";
      body = o.raw;
    } else if (o.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(o.json);
    }
    if (o.auth) headers["authorization"] = o.auth;
    const timeoutMs = this.o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    let res: Response;
    let text: string;
    try {
      res = await this.fetchFn(`${this.base}${path}`, { method, headers, signal: AbortSignal.timeout(timeoutMs), ...(body !== undefined ? { body } : {}) });
      text = await res.text();
    } catch (e) {
      if (e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError")) throw new Error(`${method} ${path}: no answer within ${timeoutMs / 1000} s`);
      throw e;
    }
    let parsed: unknown = text;
    try {
      parsed = text === "" ? null : JSON.parse(text);
    } catch {
      // non-JSON body stays text; checks that need JSON fail on it
    }
    this.responsesSeen++;
    // "All request and response bodies are JSON"; every error body carries `detail`.
    const type = res.headers.get("content-type") ?? "";
    if (text !== "" && !/^application\/json\b/i.test(type)) this.badEnvelopes.push(`${method} ${path} → ${res.status} content-type ${JSON.stringify(type)}`);
    else if (res.status >= 400 && !(isObj(parsed) && "detail" in parsed)) this.badEnvelopes.push(`${method} ${path} → ${res.status} without detail: ${text.slice(0, 80)}`);
    // "Server-side failures are mapped to 503 with body detail ... and the header Retry-After: 1;
    // the cause is not disclosed": a text detail, and the header.
    if (res.status === 503) {
      if (!/^\d+$/.test(res.headers.get("retry-after") ?? "")) this.badEnvelopes.push(`${method} ${path} → 503 without Retry-After (whole seconds)`);
      if (!(isObj(parsed) && typeof parsed.detail === "string")) this.badEnvelopes.push(`${method} ${path} → 503 whose detail is not a text: ${text.slice(0, 80)}`);
    }
    // A `code` key is an error's only in an error answer (a success body's `code` may be anything,
    // a token's for one); error_code and rejectionCategory are the spec's wherever they appear.
    for (const s of strayWireCodes(parsed)) {
      if (s.key === "code" && res.status < 400) continue;
      this.strays.push(`${method} ${path} → ${res.status} ${s.path} = ${JSON.stringify(s.value)}`);
    }
    return { status: res.status, body: parsed, headers: res.headers };
  }

  private async check(group: "read" | "write", name: string, f: () => Promise<string | void>): Promise<void> {
    try {
      const detail = await f();
      this.results.push({ name, group, status: "pass", detail: detail ?? "" });
    } catch (e) {
      if (e instanceof CheckSkipped) this.results.push({ name, group, status: "skip", detail: e.message });
      else this.results.push({ name, group, status: "fail", detail: e instanceof Error ? e.message : String(e) });
    }
  }

  private expectStatus(r: Reply, status: number, what: string): void {
    must(r.status === status, `${what}: expected ${status}, got ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
  }

  async run(): Promise<CheckResult[]> {
    await this.readChecks();
    if (this.o.privateKey && !this.o.readOnly) await this.writeChecks(privateKeyToAccount(this.o.privateKey));
    await this.envelopeCheck();
    await this.vocabularyCheck();
    return this.results;
  }

  /**
   * Last: no response of the whole run carried an error_code / code outside the spec's
   * vocabulary (its table plus CANCEL_COOLDOWN, seen live) or a rejectionCategory
   * outside the batch-quote list.
   */
  private async envelopeCheck(): Promise<void> {
    await this.check("read", "every answer is JSON and every error carries detail (every response above)", async () => {
      must(this.badEnvelopes.length === 0, `${this.badEnvelopes.length} answer(s): ${this.badEnvelopes.slice(0, 5).join("; ")}`);
      return `${this.responsesSeen} responses`;
    });
  }

  private async vocabularyCheck(): Promise<void> {
    await this.check("read", "error codes only from the spec's vocabulary (every response above)", async () => {
      must(this.strays.length === 0, `${this.strays.length} out-of-vocabulary code(s): ${this.strays.slice(0, 5).join("; ")}`);
      return `${this.responsesSeen} responses`;
    });
  }

  // ------------------------------------------------------------------ read-only

  private async readChecks(): Promise<void> {
    await this.check("read", "GET /health shape and rules", async () => {
      const r = await this.call("GET", "/health");
      this.expectStatus(r, 200, "health");
      const b = r.body;
      must(isObj(b), "body is an object");
      // Kept before the rules below: a complaint about one field must not send the order
      // checks off with the wrong executor id.
      if (isInt(b.executor_id)) this.health = b;
      must(b.status === "healthy" || b.status === "degraded", `status ${String(b.status)}`);
      must(b.version === "v1", `version ${String(b.version)}`);
      must(typeof b.timestamp === "string" && ISO.test(b.timestamp), "timestamp ISO 8601");
      must(isInt(b.executor_id) && b.executor_id >= 0 && b.executor_id <= 15, "executor_id integer 0-15");
      must(b.relayer_executor_id === null || isInt(b.relayer_executor_id), "relayer_executor_id integer or null");
      must(typeof b.signature_ready === "boolean", "signature_ready boolean");
      const consistent = b.signature_ready === true && (b.relayer_executor_id === null || b.relayer_executor_id === b.executor_id);
      must((b.status === "healthy") === consistent, `status ${b.status} but signature_ready ${b.signature_ready}, executor ${b.executor_id}/${b.relayer_executor_id}`);
      return `${b.status}, executor_id ${b.executor_id}`;
    });

    await this.check("read", "GET /system/time", async () => {
      const r = await this.call("GET", "/system/time");
      this.expectStatus(r, 200, "system/time");
      // Above 10^12 it is a millisecond count (any instant since 2001), not seconds (10^12 s is the year 33658).
      must(isObj(r.body) && isInt(r.body.timestamp) && r.body.timestamp > 1_500_000_000 && r.body.timestamp < 1e12, `timestamp integer Unix seconds (got ${isObj(r.body) ? JSON.stringify(r.body.timestamp) : "no object"})`);
      this.serverTime = r.body.timestamp;
      return String(r.body.timestamp);
    });

    const tokens: Obj[] = [];
    await this.check("read", "GET /tokens shape", async () => {
      const r = await this.call("GET", "/tokens");
      this.expectStatus(r, 200, "tokens");
      must(isObj(r.body) && Array.isArray(r.body.tokens) && r.body.tokens.length > 0, "tokens: non-empty array");
      for (const t of r.body.tokens as unknown[]) {
        must(isObj(t), "token is an object");
        const s = String(t.symbol);
        for (const k of ["currency", "symbol"]) must(typeof t[k] === "string", `${s}.${k} string`);
        must(typeof t.address === "string" && ADDRESS.test(t.address), `${s}.address`);
        must(isInt(t.decimals) && t.decimals >= 0, `${s}.decimals integer`);
        must(typeof t.min_trade_amount_raw === "string" && RAW.test(t.min_trade_amount_raw), `${s}.min_trade_amount_raw raw`);
        must(typeof t.min_trade_amount === "string" && sameDecimal(t.min_trade_amount, scaled(t.min_trade_amount_raw, t.decimals)), `${s}.min_trade_amount = raw / 10^decimals`);
        tokens.push(t);
      }
      return `${tokens.length} tokens`;
    });

    await this.check("read", "GET /markets shape and canonical orientation", async () => {
      const r = await this.call("GET", "/markets");
      this.expectStatus(r, 200, "markets");
      must(isObj(r.body) && Array.isArray(r.body.markets), "markets: array");
      const byAddr = new Map(tokens.map((t) => [String(t.address).toLowerCase(), t]));
      for (const m of r.body.markets as unknown[]) {
        must(isObj(m), "market is an object");
        const s = String(m.symbol);
        must(m.symbol === `${String(m.base_symbol)}/${String(m.quote_symbol)}`, `${s}: symbol = base_symbol/quote_symbol`);
        must(typeof m.base_address === "string" && ADDRESS.test(m.base_address), `${s}.base_address`);
        must(typeof m.quote_address === "string" && ADDRESS.test(m.quote_address), `${s}.quote_address`);
        must(m.base_address.toLowerCase() < m.quote_address.toLowerCase(), `${s}: base_address < quote_address`);
        for (const k of ["tick_precision", "quantity_precision", "base_decimals", "quote_decimals"]) must(isInt(m[k]) && (m[k] as number) >= 0, `${s}.${k} integer`);
        for (const [raw, dec, decimals] of [
          ["min_ask_amount_raw", "min_ask_amount", m.base_decimals],
          ["min_bid_quote_amount_raw", "min_bid_quote_amount", m.quote_decimals],
        ] as const) {
          must(typeof m[raw] === "string" && RAW.test(m[raw] as string), `${s}.${raw} raw`);
          must(typeof m[dec] === "string" && sameDecimal(m[dec] as string, scaled(m[raw] as string, decimals as number)), `${s}.${dec} = ${raw} / 10^decimals`);
        }
        const bt = byAddr.get(m.base_address.toLowerCase());
        const qt = byAddr.get(m.quote_address.toLowerCase());
        if (bt) must(bt.decimals === m.base_decimals, `${s}.base_decimals matches GET /tokens`);
        if (qt) must(qt.decimals === m.quote_decimals, `${s}.quote_decimals matches GET /tokens`);
        this.markets.push(m);
      }
      return `${this.markets.length} markets`;
    });

    await this.check("read", "GET /config shape", async () => {
      const r = await this.call("GET", "/config");
      this.expectStatus(r, 200, "config");
      const b = r.body;
      must(isObj(b), "body is an object");
      must(isInt(b.chain_id), "chain_id integer");
      // The live service names the exchange contract sera_address (FACTS); either name serves.
      const exchange = b.exchange_address ?? b.sera_address;
      must(typeof exchange === "string" && ADDRESS.test(exchange), "exchange_address (or sera_address) address");
      for (const k of ["vault_address", "sor_address"]) must(typeof b[k] === "string" && ADDRESS.test(b[k] as string), `${k} address`);
      must(typeof b.domain_separator === "string" && /^0x[0-9a-fA-F]{64}$/.test(b.domain_separator), "domain_separator 32-byte hex");
      const d = b.eip712_domain;
      must(isObj(d) && typeof d.name === "string" && d.version === "1", "eip712_domain {name, version: 1}");
      must(d.chainId === b.chain_id, "eip712_domain.chainId = chain_id");
      must(typeof d.verifyingContract === "string" && d.verifyingContract.toLowerCase() === String(exchange).toLowerCase(), "verifyingContract = exchange_address");
      // When both names are served they must agree.
      if ("sera_address" in b && "exchange_address" in b) must(String(b.sera_address).toLowerCase() === String(b.exchange_address).toLowerCase(), "sera_address = exchange_address");
      // The separator is the EIP-712 hash of the domain it is served with.
      const sep = domainSeparator({ domain: { name: d.name as string, version: "1", chainId: Number(d.chainId), verifyingContract: d.verifyingContract as Address } });
      must(String(b.domain_separator).toLowerCase() === sep, `domain_separator is the hash of eip712_domain (${sep})`);
      const vl = isObj(b.limits) ? b.limits.vl_batch : undefined;
      // The spec's VL batch rule: 2 to 50 orders (the active cap may be lower).
      must(isObj(vl) && isInt(vl.min) && isInt(vl.max) && vl.min >= 2 && vl.min <= vl.max && vl.max <= 50, "limits.vl_batch {min, max} within 2-50");
      this.config = b;
      return `chain ${b.chain_id}`;
    });

    await this.check("read", "GET /fx/rate shape, same-currency rule and 400s", async () => {
      const same = await this.call("GET", "/fx/rate?base=usd&quote=USD");
      this.expectStatus(same, 200, "fx usd/USD");
      must(isObj(same.body) && sameDecimal(String(same.body.rate), "1") && sameDecimal(String(same.body.rate_24h_ago), "1") && isZero(same.body.change_pct), "base = quote gives rate 1, rate_24h_ago 1, change_pct 0");
      must(typeof same.body.pair === "string", "pair string");
      const missing = await this.call("GET", "/fx/rate?base=EUR");
      this.expectStatus(missing, 400, "fx without quote");
      must(isObj(missing.body) && "detail" in missing.body, "400 carries detail");
      const bad = await this.call("GET", "/fx/rate?base=EUR1&quote=USD");
      this.expectStatus(bad, 400, "fx non-alphabetic base");
      const r = await this.call("GET", "/fx/rate?base=EUR&quote=USD");
      if (r.status === 503) return "EUR/USD: 503 (no provider data), shape not checked";
      this.expectStatus(r, 200, "fx EUR/USD");
      const b = r.body;
      must(isObj(b) && b.pair === "EUR/USD", "pair in the requested orientation");
      must(typeof b.rate === "string" && DECIMAL.test(b.rate), "rate decimal string");
      must(typeof b.as_of === "number", "as_of number");
      for (const k of ["rate_24h_ago", "as_of_24h_ago", "change_pct"]) must(k in b, `${k} present (nullable)`);
      // "signed with 4 decimal places": a string keeps them (FACTS: clients type it string | null).
      must(b.change_pct === null || (typeof b.change_pct === "string" && CHANGE_PCT.test(b.change_pct)), `change_pct null or a 4-place decimal string, got ${JSON.stringify(b.change_pct)}`);
      return `EUR/USD ${b.rate}`;
    });

    await this.check("read", "unknown route: 404 {detail: Not Found}", async () => {
      const r = await this.call("GET", "/no-such-route-fakex-conformance");
      this.expectStatus(r, 404, "unknown route");
      must(isObj(r.body) && r.body.detail === "Not Found", `body ${JSON.stringify(r.body)}`);
    });

    await this.previewChecks();

    await this.check("read", "POST /swap/quote: the quote resource, or a typed refusal", async () => {
      const m = this.markets[0];
      if (!m) throw new CheckSkipped("no market listed");
      const now = this.serverTime ?? Math.floor(Date.now() / 1000);
      // The market's minimum ask size: at the floor, so a live book can usually price it.
      const req = { from_token: m.base_address, to_token: m.quote_address, from_amount: minAskRaw(m).toString(), owner_address: PROBE_OWNER, recipient: PROBE_OWNER, expiration: now + 600 };
      const r = await this.call("POST", "/swap/quote", { json: req });
      // A server-side failure is the spec's 503 (its envelope is checked over every answer): no quote to check.
      if (r.status === 503) return "503 (quoting unavailable), shape not checked";
      if (r.status !== 200) {
        // The spec: quotes report the minimum as 400 with detail.code AMOUNT_BELOW_MIN; FACTS: clients read
        // typed codes from detail.code. A quote at the floor is refused only with one of those codes.
        must(r.status >= 400 && r.status < 500 && isObj(r.body) && isObj(r.body.detail) && TYPED_QUOTE_CODES.includes(String(r.body.detail.code)), `a refusal is a 4xx with a typed detail.code (${TYPED_QUOTE_CODES.join(", ")}), got ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
        return `refused: ${r.status} ${errorCodeOf(r.body) ?? ""}`.trim();
      }
      const q = r.body;
      must(isObj(q) && typeof q.uuid === "string" && UUID4.test(q.uuid), "uuid is a UUID4");
      const rp = q.route_params;
      must(isObj(rp), "route_params object");
      for (const k of ["taker", "inputToken", "outputToken", "maxInputAmount", "minOutputAmount", "recipient", "initialDepositAmount", "uuid", "deadline"]) must(k in rp, `route_params.${k}`);
      must(String(rp.taker).toLowerCase() === PROBE_OWNER && String(rp.recipient).toLowerCase() === PROBE_OWNER, "route_params taker and recipient as requested");
      must(String(rp.inputToken).toLowerCase() === String(m.base_address).toLowerCase() && String(rp.outputToken).toLowerCase() === String(m.quote_address).toLowerCase(), "route_params input and output tokens as requested");
      must(typeof rp.uuid === "string" && /^\d+$/.test(rp.uuid) && isInt(rp.deadline) && rp.deadline === req.expiration, "route_params.uuid a decimal string, deadline the requested expiration");
      const qb = q.quote_breakdown;
      must(isObj(qb) && (qb.gas_mode === undefined || qb.gas_mode === "receive_less"), "quote_breakdown, receive_less by default");
      if (String(rp.minOutputAmount) !== "0") must(String(rp.minOutputAmount) === String(qb.output_amount_after_gas), "receive_less: minOutputAmount = output_amount_after_gas");
      must(isInt(q.expires_at) && q.expires_at > now && q.expires_at <= now + 120, "expires_at Unix seconds, about 30 s ahead");
      const needsPermit = BigInt(String(rp.initialDepositAmount)) > 0n;
      must(needsPermit ? isObj(q.permit) : q.permit === null, "permit non-null exactly when initialDepositAmount > 0");
      return String(rp.minOutputAmount) === "0" ? "informational quote (no route at this size)" : `quote ${q.uuid}`;
    });

    // The spec fixes 422 for the batch's field failures; a single quote's may be 400 or 422.
    await this.check("read", "POST /swap/quote field validation: 4xx (422 for the batch)", async () => {
      const t = this.markets[0];
      if (!t) throw new CheckSkipped("no market listed");
      const now = this.serverTime ?? Math.floor(Date.now() / 1000);
      const ok = { from_token: t.base_address, to_token: t.quote_address, from_amount: "1000000", owner_address: PROBE_OWNER, recipient: PROBE_OWNER, expiration: now + 600 };
      const cases: [string, Obj][] = [
        ["same token both sides", { ...ok, to_token: t.base_address }],
        ["bad address", { ...ok, from_token: "0x123" }],
        ["bad gas_mode", { ...ok, gas_mode: "free" }],
        ["negative amount", { ...ok, from_amount: "-5" }],
      ];
      for (const [what, body] of cases) {
        const r = await this.call("POST", "/swap/quote", { json: body });
        must(r.status === 400 || r.status === 422, `${what}: expected 400 or 422, got ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      }
      this.expectStatus(await this.call("POST", "/swap/quote/batch", { json: { quotes: [] } }), 422, "empty batch");
      this.expectStatus(await this.call("POST", "/swap/quote/batch", { json: { quotes: Array.from({ length: 51 }, () => ok) } }), 422, "51 quotes");
      this.expectStatus(await this.call("POST", "/swap/quote/batch", { json: { quotes: [ok, { ...ok, gas_mode: "free" }] } }), 422, "one bad item fails the batch");
    });

    await this.check("read", "API-key routes: 401 without or with a bad key", async () => {
      const q = `owner_address=${PROBE_OWNER}`;
      const routes: [string, string][] = [
        ["GET", `/balances?${q}`],
        ["GET", `/orders?${q}`],
        ["GET", `/fills?${q}`],
        ["DELETE", `/orders/cancel-all?${q}`],
      ];
      for (const [m, p] of routes) {
        this.expectStatus(await this.call(m, p), 401, `${m} ${p} without a key`);
        this.expectStatus(await this.call(m, p, { auth: "Bearer fakex_nokey:nosecret" }), 401, `${m} ${p} with a bad key`);
      }
      const v = await this.call("POST", "/api-keys/verify", { json: { api_key: "fakex_nokey", api_secret: "nosecret" } });
      this.expectStatus(v, 401, "verify of an unknown pair");
    });

    await this.check("read", "malformed JSON: 4xx, never 5xx", async () => {
      for (const p of ["/orders", "/orders/preview", "/swap/quote", "/orders/cancel", "/api-keys/verify"]) {
        const r = await this.call("POST", p, { raw: '{"owner_address": ' });
        must(r.status >= 400 && r.status < 500, `POST ${p} with broken JSON: ${r.status}`);
        must(isObj(r.body) && "detail" in r.body, `POST ${p}: body carries detail`);
        // POST /orders answers every 4xx in its typed envelope.
        if (p === "/orders") must(isObj(r.body.detail) && typeof r.body.detail.error_code === "string", `POST /orders with broken JSON: typed {detail: {detail, error_code}}, got ${JSON.stringify(r.body)}`);
      }
    });
  }

  /** A preview body for the first active market with a floor, an ask of `amount` at `price`. */
  private previewBody(m: Obj, amount: string, price: string, owner: string = PROBE_OWNER): Obj {
    const orderId = "3f2b8c1e-9d4a-4b6f-8e2a-1c5d7e9f0a3b";
    return {
      owner_address: owner,
      side: "ask",
      amount,
      price,
      order_type: "limit",
      from_address: m.base_address,
      to_address: m.quote_address,
      order_id: orderId,
      uuid_int: composite(isInt(this.health?.executor_id) ? this.health.executor_id : 0, orderId).toString(),
      expiration: (this.serverTime ?? Math.floor(Date.now() / 1000)) + 3600,
    };
  }

  private async previewChecks(): Promise<void> {
    await this.check("read", "POST /orders/preview: valid ask returns the Order to sign", async () => {
      const m = this.markets[0];
      if (!m) throw new CheckSkipped("no market listed");
      const amount = minAskAmount(m);
      const r = await this.call("POST", "/orders/preview", { json: this.previewBody(m, amount, "1") });
      if (r.status === 400 && errorCodeOf(r.body) === "PAIR_INACTIVE") throw new CheckSkipped(`${String(m.symbol)} inactive`);
      this.expectStatus(r, 200, "preview");
      const b = r.body;
      must(isObj(b) && b.ok === true && b.rounding_mode === "reject_extra_precision", "ok, rounding_mode");
      const o = b.eip712_order;
      must(isObj(o), "eip712_order object");
      for (const k of ORDER_TYPE.map((x) => x.name)) must(typeof o[k] === "string", `eip712_order.${k} string`);
      must(String(o.fromToken).toLowerCase() === String(m.base_address).toLowerCase(), "an ask spends the base token");
      must(o.initialDepositAmount !== undefined && o.recipient === "0x0000000000000000000000000000000000000000", "recipient is the zero address");
      must(isObj(b.eip712_types) && Array.isArray(b.eip712_types.Order), "eip712_types.Order");
      // The full Order type: a client signs with the types it is served.
      const served = (b.eip712_types.Order as unknown[]).map((x) => (isObj(x) ? `${String(x.type)} ${String(x.name)}` : String(x)));
      must(JSON.stringify(served) === JSON.stringify(ORDER_TYPE.map((x) => `${x.type} ${x.name}`)), `eip712_types.Order is the spec's Order type, got ${served.join(", ")}`);
      for (const k of ["symbol", "side", "normalized_amount", "normalized_price", "amount_step", "price_step", "from_token", "to_token", "from_amount", "to_amount", "notional"]) must(typeof b[k] === "string", `preview ${k} string, got ${JSON.stringify(b[k])}`);
      must(typeof b.canonicalization_required === "boolean", "preview canonicalization_required boolean");
      return String(m.symbol);
    });

    await this.check("read", "POST /orders/preview: typed errors at the top level", async () => {
      const m = this.markets[0];
      if (!m) throw new CheckSkipped("no market listed");
      const amount = minAskAmount(m);
      const cases: [string, Obj, string][] = [
        ["non-canonical amount", this.previewBody(m, `+${amount}`, "1"), "INVALID_DECIMAL_FORMAT"],
        ["exponent price", this.previewBody(m, amount, "1e0"), "INVALID_DECIMAL_FORMAT"],
        ["extra precision", this.previewBody(m, extraDigit(amount, Number(m.quantity_precision)), "1"), "INVALID_PRECISION"],
      ];
      if (BigInt(String(m.min_ask_amount_raw)) > 0n) {
        const step = 10n ** BigInt(Number(m.base_decimals) - Number(m.quantity_precision));
        const minLots = (BigInt(String(m.min_ask_amount_raw)) + step - 1n) / step;
        if (minLots > 1n) cases.push(["below the ask floor", this.previewBody(m, scaled((minLots - 1n).toString(), Number(m.quantity_precision)), "1"), "AMOUNT_BELOW_MIN"]);
      }
      for (const [what, body, code] of cases) {
        const r = await this.call("POST", "/orders/preview", { json: body });
        must(r.status === 400 || r.status === 422, `${what}: expected 400 or 422, got ${r.status}`);
        must(isObj(r.body) && r.body.error_code === code && typeof r.body.detail === "string", `${what}: top-level error_code ${code}, got ${JSON.stringify(r.body)}`);
      }
      return `${cases.length} cases`;
    });
  }

  // ------------------------------------------------------------------ write set

  private async writeChecks(account: PrivateKeyAccount): Promise<void> {
    const owner = account.address.toLowerCase() as Address;
    const cfg = this.config;
    const domain = cfg && isObj(cfg.eip712_domain) ? (cfg.eip712_domain as { name: string; version: string; chainId: number; verifyingContract: Address }) : undefined;
    let auth: string | undefined;
    let apiKey: string | undefined;

    await this.check("write", "POST /api-keys with a ManageApiKey signature", async () => {
      if (!domain) throw new CheckFailed("GET /config gave no eip712_domain");
      const now = await this.now();
      // A run a moment ago (a CI retry, the same key, the same server second) spent this
      // second's signature: sign for a later second, still well inside the ±300 s window.
      let timestamp = now;
      let signature: Hex;
      let r: Reply;
      for (let ahead = 0; ; ahead++) {
        timestamp = now + ahead;
        signature = await account.signTypedData({ domain, types: { ManageApiKey: MANAGE_API_KEY_TYPE }, primaryType: "ManageApiKey", message: { owner: account.address, action: "create", timestamp: BigInt(timestamp) } });
        r = await this.call("POST", "/api-keys", { json: { owner_address: owner, action: "create", timestamp, signature, label: "fakex-conformance" } });
        if (r.status !== 409 || ahead === 10) break;
      }
      must(r.status === 200 || r.status === 201, `create: ${r.status} ${JSON.stringify(r.body)}`);
      must(isObj(r.body) && typeof r.body.api_key === "string" && typeof r.body.api_secret === "string", "api_key and api_secret");
      apiKey = r.body.api_key;
      auth = `Bearer ${r.body.api_key}:${r.body.api_secret}`;
      const replay = await this.call("POST", "/api-keys", { json: { owner_address: owner, action: "create", timestamp, signature, label: "fakex-conformance" } });
      this.expectStatus(replay, 409, "the same signature again");
      return String(apiKey).slice(0, 12) + "…";
    });

    // Null until GET /balances answered: a later skip must not blame the wallet for a refused read.
    let balances: Obj[] | null = null;
    await this.check("write", "GET /balances with the key", async () => {
      if (!auth) throw new CheckSkipped("no API key");
      const r = await this.call("GET", `/balances?owner_address=${owner}&include_zero=true`, { auth });
      this.expectStatus(r, 200, "balances");
      const b = r.body;
      must(isObj(b) && String(b.owner_address).toLowerCase() === owner && Array.isArray(b.balances), "owner_address and balances");
      must(typeof b.updated_at === "string" && ISO.test(b.updated_at) && typeof b.wallet_balance_available === "boolean", "updated_at, wallet_balance_available");
      for (const row of b.balances as Obj[]) {
        const k = ["wallet_balance", "vault_available", "vault_frozen", "vault_total", "total"] as const;
        for (const f of k) must(typeof row[f] === "string" && RAW.test(row[f] as string), `${String(row.symbol)}.${f} raw`);
        const [w, a, f, vt, t] = k.map((x) => BigInt(row[x] as string));
        must(vt === a! + f!, `${String(row.symbol)}: vault_total = vault_available + vault_frozen`);
        must(t === w! + vt!, `${String(row.symbol)}: total = wallet_balance + vault_total`);
      }
      balances = b.balances as Obj[];
      const other = await this.call("GET", `/balances?owner_address=${PROBE_OWNER}`, { auth });
      this.expectStatus(other, 403, "another owner's balances");
      return `${balances.length} rows`;
    });

    // The order the next check places: the list and cancel-all check looks for it.
    let placed: { orderId: string; open: boolean } | undefined;
    await this.check("write", "POST /orders signed ask, GET /orders/{id}, cancel", async () => {
      if (!auth || !domain) throw new CheckSkipped("no API key");
      const rows = balances;
      if (rows === null) throw new CheckSkipped("GET /balances failed above, so the wallet's vault funds are unknown");
      const funded = this.markets.find((m) => {
        const row = rows.find((r) => String(r.token).toLowerCase() === String(m.base_address).toLowerCase());
        return row !== undefined && BigInt(String(row.vault_available)) >= minAskRaw(m);
      });
      if (!funded) throw new CheckSkipped("the wallet has no vault funds for a minimum ask on any market");
      // Far above any plausible market price, so the order rests instead of trading.
      const price = scaled((10n ** BigInt(Number(funded.tick_precision) + 6)).toString(), Number(funded.tick_precision));
      const orderId = randomUuid4();
      const body = { ...this.previewBody(funded, minAskAmount(funded), price, owner), order_id: orderId, uuid_int: composite(Number(this.health?.executor_id ?? 0), orderId).toString() };
      const p = await this.call("POST", "/orders/preview", { json: body });
      this.expectStatus(p, 200, "preview");
      const o = (p.body as Obj).eip712_order as Record<string, string>;
      const message = {
        user: o.user as Address,
        expiration: Number(o.expiration),
        feeBps: Number(o.feeBps),
        recipient: o.recipient as Address,
        fromToken: o.fromToken as Address,
        toToken: o.toToken as Address,
        fromAmount: BigInt(o.fromAmount!),
        toAmount: BigInt(o.toAmount!),
        initialDepositAmount: BigInt(o.initialDepositAmount!),
        uuid: BigInt(o.uuid!),
      };
      const signature = await account.signTypedData({ domain, types: { Order: ORDER_TYPE }, primaryType: "Order", message });
      const tampered = await this.call("POST", "/orders", { json: { ...body, signature: flipLastByte(signature) } });
      must(tampered.status === 400 && isObj(tampered.body) && isObj(tampered.body.detail) && typeof tampered.body.detail.error_code === "string", `bad signature: typed 400, got ${tampered.status} ${JSON.stringify(tampered.body)}`);
      const accepted = await this.call("POST", "/orders", { json: { ...body, signature } });
      this.expectStatus(accepted, 201, "place");
      must(isObj(accepted.body) && accepted.body.order_id === orderId, "order_id echoed");
      const got = await this.call("GET", `/orders/${orderId}`, { auth });
      this.expectStatus(got, 200, "GET /orders/{id}");
      must(isObj(got.body) && got.body.status === "pending" && got.body.uuid_int === body.uuid_int && got.body.trade_id === orderId, "pending, same uuid_int");
      orderShape(got.body, owner, orderId);
      const cancelSig = await account.signTypedData({ domain, types: { CancelOrder: CANCEL_ORDER_TYPE }, primaryType: "CancelOrder", message: { owner: account.address, orderId: BigInt(body.uuid_int) } });
      const c = await this.call("POST", "/orders/cancel", { json: { owner_address: owner, order_id: orderId, uuid_int: body.uuid_int, signature: cancelSig } });
      if (c.status === 429) {
        must(errorCodeOf(c.body) === "CANCEL_COOLDOWN", `429 without CANCEL_COOLDOWN: ${JSON.stringify(c.body)}`);
        const still = await this.call("GET", `/orders/${orderId}`, { auth });
        must(isObj(still.body) && still.body.status === "pending", "inside the cooldown the order stays pending");
        placed = { orderId, open: true };
        return `placed ${orderId}; cancel inside the cooldown: 429 CANCEL_COOLDOWN (order left resting)`;
      }
      this.expectStatus(c, 200, "cancel");
      must(isObj(c.body) && c.body.status === "ok", "cancel answers {status: ok}");
      const after = await this.call("GET", `/orders/${orderId}`, { auth });
      must(isObj(after.body) && after.body.status === "cancelled", "cancelled after cancel");
      placed = { orderId, open: false };
      return `placed and cancelled ${orderId}`;
    });

    await this.check("write", "GET /orders and GET /fills lists, DELETE /orders/cancel-all with the key", async () => {
      if (!auth) throw new CheckSkipped("no API key");
      if (!placed) throw new CheckSkipped("no order was placed");
      const { orderId, open } = placed;
      const list = async (query: string): Promise<{ trades: Obj[]; total: number }> => {
        const r = await this.call("GET", `/orders?owner_address=${owner}${query}`, { auth });
        this.expectStatus(r, 200, `GET /orders?…${query}`);
        const b = r.body;
        must(isObj(b) && Array.isArray(b.trades) && isInt(b.total), `GET /orders${query}: {trades: array, total: integer}, got ${JSON.stringify(b).slice(0, 200)}`);
        must(b.total >= b.trades.length, `GET /orders${query}: total ${b.total} counts the whole filtered set, not fewer than the page's ${b.trades.length}`);
        for (const t of b.trades as unknown[]) must(isObj(t) && typeof t.trade_id === "string" && String(t.owner_address).toLowerCase() === owner, `GET /orders${query}: every trade is one of the owner's orders`);
        return { trades: b.trades as Obj[], total: b.total };
      };
      // Few reads: the spec allows a wallet 10 a second, and on a frozen virtual clock the
      // budget never refills, so the write set as a whole stays within one second's worth.
      const pending = await list("&status=pending&limit=500&offset=0");
      if (pending.trades.length < 500) must(pending.total === pending.trades.length, `status=pending on one page: total ${pending.total} is the ${pending.trades.length} trades listed`);
      if (pending.trades.length >= 2) {
        // A total that is the page size passes the line above: a page of one must say the same total.
        const one = await list("&status=pending&limit=1&offset=0");
        must(one.trades.length === 1 && one.total === pending.total, `limit=1: one trade and the filtered set's total (${pending.total}), got ${one.trades.length} and ${one.total}`);
      }
      const own = await list(`&status=${open ? "pending" : "cancelled"}&trade_ids=${orderId}`);
      must(own.total === 1 && own.trades.length === 1 && own.trades[0]!.trade_id === orderId, `status and trade_ids filters: exactly our ${open ? "pending" : "cancelled"} order (total ${own.total})`);
      orderShape(own.trades[0]!, owner, orderId);
      const elsewhere = await list(`&status=settled&trade_ids=${orderId}`);
      must(elsewhere.total === 0 && elsewhere.trades.length === 0, "status=settled leaves our order out");

      const fillsOf = await this.call("GET", `/fills/${orderId}`, { auth });
      this.expectStatus(fillsOf, 200, "GET /fills/{order_id}");
      must(isObj(fillsOf.body) && Array.isArray(fillsOf.body.items) && fillsOf.body.items.length === 0, `GET /fills/{order_id} of an order that never traded: {items: []}, got ${JSON.stringify(fillsOf.body).slice(0, 200)}`);
      const fills = await this.call("GET", `/fills?owner_address=${owner}&limit=5`, { auth });
      this.expectStatus(fills, 200, "GET /fills");
      must(isObj(fills.body) && Array.isArray(fills.body.items) && fills.body.items.length <= 5, `GET /fills?limit=5: {items: array} of at most 5, got ${JSON.stringify(fills.body).slice(0, 200)}`);
      for (const f of fills.body.items as unknown[]) fillShape(f);

      // cancel-all cancels every open order of the wallet: not when it holds others than ours,
      // counted from the trades listed (a wrong total must not make the kit cancel them).
      const others = pending.trades.length >= 500 ? Infinity : pending.trades.filter((t) => t.trade_id !== orderId).length;
      const lists = `lists checked (${pending.total} open order(s), ${(fills.body.items as unknown[]).length} fill(s) on the first page)`;
      if (others > 0) return `${lists}; cancel-all not run: the wallet has ${others === Infinity ? "500 or more" : others} other open order(s)`;
      const c = await this.call("DELETE", `/orders/cancel-all?owner_address=${owner}`, { auth });
      this.expectStatus(c, 200, "cancel-all");
      const cb = c.body;
      must(isObj(cb) && Array.isArray(cb.cancelled) && Array.isArray(cb.failed) && Array.isArray(cb.skipped_cooldown) && isInt(cb.total), `cancel-all: {cancelled, failed, skipped_cooldown: arrays, total: integer}, got ${JSON.stringify(cb).slice(0, 200)}`);
      must(cb.total === cb.cancelled.length, `cancel-all: total ${cb.total} counts the cancelled (${cb.cancelled.length})`);
      const named = [...(cb.cancelled as unknown[]), ...(cb.skipped_cooldown as unknown[])];
      if (open) must(named.includes(orderId), `cancel-all names the open order ${orderId} as cancelled or skipped_cooldown`);
      else must(!named.includes(orderId), "cancel-all leaves an order cancelled before out");
      return `${lists}; cancel-all: ${cb.cancelled.length} cancelled, ${cb.skipped_cooldown.length} skipped by the cooldown`;
    });

    await this.check("write", "POST /api-keys/self-revoke", async () => {
      if (!auth || !apiKey) throw new CheckSkipped("no API key");
      const r = await this.call("POST", "/api-keys/self-revoke", { json: { api_key: apiKey }, auth });
      must(r.status >= 200 && r.status < 300, `self-revoke: expected 2xx, got ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      const after = await this.call("GET", `/balances?owner_address=${owner}`, { auth });
      this.expectStatus(after, 401, "the revoked key");
    });
  }

  private async now(): Promise<number> {
    const r = await this.call("GET", "/system/time");
    return isObj(r.body) && isInt(r.body.timestamp) ? r.body.timestamp : Math.floor(Date.now() / 1000);
  }
}

/** A wallet no test owns, for probes that need an address. */
const PROBE_OWNER = "0x000000000000000000000000000000000000c0de";

function minAskRaw(m: Obj): bigint {
  const step = 10n ** BigInt(Number(m.base_decimals) - Number(m.quantity_precision));
  const floor = BigInt(String(m.min_ask_amount_raw));
  const lots = floor === 0n ? 1n : (floor + step - 1n) / step;
  return lots * step;
}

function minAskAmount(m: Obj): string {
  return scaled(minAskRaw(m).toString(), Number(m.base_decimals));
}

/** `amount` with a non-zero digit one place past the grid. */
function extraDigit(amount: string, precision: number): string {
  const [int, frac = ""] = amount.split(".");
  return `${int}.${frac.padEnd(precision, "0")}1`;
}

function composite(executorId: number, orderId: string): bigint {
  const u = BigInt(`0x${orderId.replace(/-/g, "")}`);
  return (BigInt(executorId) << 252n) | (u << 124n) | ((u >> 16n) << 12n);
}

function randomUuid4(): string {
  const h = crypto.randomUUID();
  if (!UUID4.test(h)) throw new Error("randomUUID gave a non-v4 id");
  return h;
}

function flipLastByte(sig: Hex): Hex {
  // Change s, not v: the signature stays well-formed and recovers another address.
  const body = sig.slice(2);
  const i = 64 + 60;
  const byte = (parseInt(body.slice(i, i + 2), 16) ^ 0x01).toString(16).padStart(2, "0");
  return `0x${body.slice(0, i)}${byte}${body.slice(i + 2)}` as Hex;
}

export async function runConformance(o: ConformanceOptions): Promise<CheckResult[]> {
  return new ConformanceRun(o).run();
}

/** The pass / fail table, one line per check, then a summary line. */
export function formatConformanceTable(results: readonly CheckResult[]): string {
  const w = Math.max(5, ...results.map((r) => r.name.length));
  const lines = [`${"CHECK".padEnd(w)}  GROUP  RESULT  DETAIL`];
  for (const r of results) lines.push(`${r.name.padEnd(w)}  ${r.group.padEnd(5)}  ${r.status.toUpperCase().padEnd(6)}  ${r.detail}`);
  const n = (s: CheckStatus) => results.filter((r) => r.status === s).length;
  lines.push(`${n("pass")} passed, ${n("fail")} failed, ${n("skip")} skipped`);
  return lines.join("\n") + "\n";
}

export const CONFORMANCE_USAGE = "usage: fakex conformance --base-url URL [--private-key KEY] [--read-only]\n";

/** What --help adds to the usage line. */
const CONFORMANCE_HELP = `
Runs the interface's checks against any /api/v1 deployment and prints a table.
  --base-url URL       the deployment's /api/v1 URL (or FAKEX_BASE_URL)
  --private-key KEY    a wallet's key (0x + 64 hex digits; or FAKEX_PRIVATE_KEY): turns the
                       write checks on (an order placed far from any market and cancelled);
                       they need vault funds for a minimum order, or they are skipped
  --read-only          only the read checks, even with a key
Exit 0 when nothing failed, 1 on any failure (an unreachable deployment too), 2 on usage errors.
`;

/**
 * Null when anything answers HTTP at the deployment (any status), else why not:
 * the network error's code (ECONNREFUSED, ENOTFOUND, ...) or a timeout.
 */
async function whyUnreachable(baseUrl: string): Promise<string | null> {
  try {
    const res = await fetch(`${baseUrl.replace(/\/+$/, "")}/health`, { signal: AbortSignal.timeout(10_000) });
    await res.body?.cancel();
    return null;
  } catch (e) {
    if (e instanceof Error && e.name === "TimeoutError") return "no answer within 10 s";
    const cause = e instanceof Error ? (e.cause as { code?: string; message?: string } | undefined) : undefined;
    return cause?.code ?? cause?.message ?? (e instanceof Error ? e.message : String(e));
  }
}

/** `fakex conformance`: exit 0 when nothing failed, 1 on any failure (an unreachable deployment included), 2 on usage errors. */
export async function conformanceCommand(
  argv: readonly string[],
  out: (s: string) => void = (s) => process.stdout.write(s),
  err: (s: string) => void = (s) => process.stderr.write(s),
): Promise<number> {
  // The table and --help go to stdout; why nothing ran (usage, an unreachable deployment) to stderr.
  let values: { "base-url"?: string; "private-key"?: string; "read-only"?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { "base-url": { type: "string" }, "private-key": { type: "string" }, "read-only": { type: "boolean" }, help: { type: "boolean", short: "h" } },
      strict: true,
    }));
  } catch (e) {
    err(`fakex conformance: ${e instanceof Error ? e.message : String(e)}\n${CONFORMANCE_USAGE}`);
    return 2;
  }
  if (values.help) {
    out(CONFORMANCE_USAGE + CONFORMANCE_HELP);
    return 0;
  }
  const baseUrl = values["base-url"] ?? process.env.FAKEX_BASE_URL;
  if (!baseUrl) {
    err(CONFORMANCE_USAGE);
    return 2;
  }
  const key = values["private-key"] ?? process.env.FAKEX_PRIVATE_KEY;
  if (key !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(key)) {
    err("fakex conformance: --private-key must be 0x followed by 64 hex digits\n");
    return 2;
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    err(`fakex conformance: --base-url ${JSON.stringify(baseUrl)} is not a URL\n${CONFORMANCE_USAGE}`);
    return 2;
  }
  // control_url and base_url sit side by side in fakex's info file: the swap is an easy slip,
  // and every check would then fail with nothing said about why.
  if (/\/__fakex\/?$/.test(url.pathname)) {
    err(`fakex conformance: --base-url ${baseUrl} is fakex's control URL; give its base_url (${baseUrl.replace(/\/__fakex\/?$/, "/api/v1")})\n`);
    return 2;
  }
  const unreachable = await whyUnreachable(baseUrl);
  if (unreachable !== null) {
    // Every check would fail the same way; say why once instead of printing a table of "fetch failed".
    err(`fakex conformance: cannot reach ${baseUrl}: ${unreachable}\n`);
    return 1;
  }
  let results: CheckResult[];
  try {
    results = await runConformance({ baseUrl, ...(key ? { privateKey: key as Hex } : {}), readOnly: values["read-only"] === true });
  } catch (e) {
    err(`fakex conformance: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  out(formatConformanceTable(results));
  return results.some((r) => r.status === "fail") ? 1 : 0;
}
