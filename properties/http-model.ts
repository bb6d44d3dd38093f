// Model-based testing of the exchange over HTTP (fc.commands + fc.asyncModelRun):
// signed orders, cancels, cancel-all, VL batches, swap quotes and swaps, clock
// steps and settlement rounds, against any deployment a ModelDriver reaches. After
// every command the real order and fill statuses are read back and every move
// since the last observation must be one the spec allows:
//   orders  pending → matched → settled | failed;  pending → cancelled;
//           a partial fill stays pending (remaining_amount > 0 never "matched");
//   fills   pending → confirming → settled | reverted | failed (or pending → failed);
//   quotes  issued → consumed (first valid POST /swap; a second one is 410)
//           issued → expired (POST /swap 410 after expires_at).
// Every order the model placed must be listed (and `total` must count the list), a
// failed order must carry a listed error_code, and a swap signed as quoted may be refused
// only with a reason in the POST /swap subset for what the model cannot follow (the book,
// the wallet's equity moved), never the catch-all; an informational quote (400) and one its
// wallet swapped after (409 QUOTE_STALE) are never taken.
// The read-backs (two per wallet per command) exceed the spec's read limit of 10 per
// second: run it with rate limits off (createFakeExchange({ rateLimits: false })).
import fc from "fast-check";
import type { PrivateKeyAccount } from "viem/accounts";
import { CANCEL_ORDER_TYPE, INTENT_TYPE, ORDER_TYPE, type Address, type ExchangeDomain, type Hex } from "../sim/core/typed-data.ts";
import type { Registry } from "../sim/core/registry.ts";
import { compareDecimal, parseCanonicalDecimal, pow10 } from "../sim/core/amounts.ts";
import { orderTerms } from "../sim/core/order-terms.ts";
import { floorLots, orderBodyOf, orderSpec, uuid4, vlBatchBodies, vlBatchSpec, type OrderSpec, type VlBatchSpec } from "./arbitraries.ts";
import { intentMessageOf } from "../fixtures/signing.ts";
import { WIRE_ERROR_CODES } from "./wire-vocabulary.ts";

export interface HttpReply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON of any route
}

/** How the model reaches a deployment: HTTP plus the test-only levers (clock, settlement). */
export interface ModelDriver {
  call(method: string, path: string, body?: unknown, auth?: string): Promise<HttpReply>;
  advanceSec(sec: number): Promise<void> | void;
  settle(): Promise<void>;
  nowSec(): number;
  executorId(): number;
  domain: ExchangeDomain;
  /** The registry's fee_bps that signed Orders carry (default 0). */
  feeBps?: number;
  /**
   * Inject a settlement fault for what comes next (optional: drivers without a
   * fault lever skip the command): "revert-legs" reverts every match of the next
   * batch inside a successful transaction, "fail-batch" fails its transaction,
   * "spread" gives every crossing fill a positive spread, "clear" restores the base plan.
   */
  injectFault?(kind: FaultKind): Promise<void> | void;
  /** Trading wallets, each with a bearer header for its API key. */
  wallets: readonly { account: PrivateKeyAccount; auth: string }[];
}

// Statuses reachable from each status (itself included): two observations can be
// several moves apart (one settlement round broadcasts and confirms), so a move
// is allowed when the spec's transitions can chain to it.
export type FaultKind = "revert-legs" | "fail-batch" | "spread" | "clear";

const ORDER_NEXT: Record<string, readonly string[]> = {
  pending: ["pending", "matched", "cancelled", "settled", "failed"],
  matched: ["matched", "settled", "failed"],
  settled: ["settled"],
  failed: ["failed"],
  cancelled: ["cancelled"],
};
const FILL_NEXT: Record<string, readonly string[]> = {
  pending: ["pending", "confirming", "failed", "settled", "reverted"],
  confirming: ["confirming", "settled", "reverted", "failed"],
  settled: ["settled"],
  reverted: ["reverted"],
  failed: ["failed"],
};

export interface ModelOrder {
  id: string;
  owner: number;
  uuidInt: string;
  status: string;
  createdSec: number;
  /** A VL leg the batch dropped (its `cancelled` list): the spec does not say it is listed as an order. */
  vlDropped?: boolean;
}

export interface ModelQuote {
  uuid: string;
  owner: number;
  expiresAt: number;
  state: "issued" | "consumed" | "expired";
  /** How many swaps its owner had had accepted when it was issued (one more makes it stale: 409). */
  ownerSwapsAtIssue: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- the quote as served
}

/** The model: what the spec lets a client know and predict. */
export interface ExchangeModel {
  orders: Map<string, ModelOrder>;
  fills: Map<string, string>;
  quotes: ModelQuote[];
  /** Swaps accepted (POST /swap 200) per wallet. */
  swapsAccepted: Map<number, number>;
  cooldownSec: number;
  /** Counts of what the run exercised (for the suite's coverage assertions). */
  seen: Record<string, number>;
}

export function newExchangeModel(cooldownSec: number): ExchangeModel {
  return { orders: new Map(), fills: new Map(), quotes: [], swapsAccepted: new Map(), cooldownSec, seen: {} };
}

function note(m: ExchangeModel, what: string): void {
  m.seen[what] = (m.seen[what] ?? 0) + 1;
}

function fail(msg: string): never {
  throw new Error(msg);
}

async function signOrder(d: ModelDriver, account: PrivateKeyAccount, body: Record<string, unknown>, spec: OrderSpec): Promise<Hex> {
  // The Order to sign, built as POST /orders/preview builds it (spec "Order mapping").
  const t = orderTerms(spec.market, spec.side, { units: spec.lots, scale: spec.market.quantityPrecision }, { units: spec.ticks, scale: spec.market.tickPrecision });
  return account.signTypedData({
    domain: d.domain,
    types: { Order: ORDER_TYPE },
    primaryType: "Order",
    message: {
      user: account.address,
      expiration: Number(body.expiration),
      feeBps: d.feeBps ?? 0,
      recipient: "0x0000000000000000000000000000000000000000",
      fromToken: t.fromToken,
      toToken: t.toToken,
      fromAmount: t.fromAmount,
      toAmount: t.toAmount,
      initialDepositAmount: 0n,
      uuid: BigInt(body.uuid_int as string),
    },
  });
}

/** Read every model order and fill back; each move since the last look must be allowed. */
export async function observe(m: ExchangeModel, d: ModelDriver): Promise<void> {
  for (const [wi, w] of d.wallets.entries()) {
    const owner = w.account.address.toLowerCase();
    const r = await d.call("GET", `/orders?owner_address=${owner}&limit=500`, undefined, w.auth);
    if (r.status !== 200) fail(`GET /orders ${r.status} ${JSON.stringify(r.body)}`);
    const listed = r.body.trades as any[];
    // Every order the model placed for this wallet is listed, and total counts what is listed.
    if (listed.length < 500) {
      if (r.body.total !== listed.length) fail(`GET /orders total ${r.body.total} with ${listed.length} orders listed`);
      const ids = new Set(listed.map((o) => o.trade_id as string));
      for (const mo of m.orders.values()) if (mo.owner === wi && !mo.vlDropped && !ids.has(mo.id)) fail(`GET /orders leaves out ${mo.id} (${mo.status})`);
    }
    for (const o of listed) {
      const mo = m.orders.get(o.trade_id);
      if (!mo) fail(`GET /orders lists ${o.trade_id}, which the model never placed`);
      if (mo.owner !== wi) fail(`order ${o.trade_id} listed for the wrong owner`);
      if (!ORDER_NEXT[mo.status]!.includes(o.status)) fail(`order ${o.trade_id}: ${mo.status} → ${o.status} is not a spec transition`);
      if (o.status === "matched" && o.remaining_amount !== "0") fail(`order ${o.trade_id} matched with remaining ${o.remaining_amount}`);
      // A partial fill stays pending; an order with nothing left is not pending any more.
      if (o.status === "pending" && o.order_type === "limit" && o.remaining_amount === "0") fail(`order ${o.trade_id} pending with nothing remaining`);
      // matched → failed: "error_code and settlement_summary expose the reason".
      if (o.status === "failed" && !WIRE_ERROR_CODES.includes(o.error_code)) fail(`failed order ${o.trade_id} with error_code ${JSON.stringify(o.error_code)}`);
      if (mo.status !== o.status) note(m, `order ${mo.status}→${o.status}`);
      mo.status = o.status;
    }
    const f = await d.call("GET", `/fills?owner_address=${owner}&limit=500`, undefined, w.auth);
    if (f.status !== 200) fail(`GET /fills ${f.status} ${JSON.stringify(f.body)}`);
    // A fill has no id on the wire: maker, taker and the pair's occurrence name it.
    const occurrences = new Map<string, number>();
    for (const fill of f.body.items as any[]) {
      const pair = `${fill.maker_order_id}|${fill.taker_order_id}`;
      const n = occurrences.get(pair) ?? 0;
      occurrences.set(pair, n + 1);
      const key = `${pair}|${n}`;
      const prev = m.fills.get(key) ?? "pending";
      if (!FILL_NEXT[prev]!.includes(fill.settlement_status)) fail(`fill ${key}: ${prev} → ${fill.settlement_status} is not a spec transition`);
      const st = fill.settlement_status as string;
      // pending: not broadcast, no tx_hash; confirming / settled / reverted: broadcast; failed: either.
      if (st === "pending" ? fill.tx_hash !== null : st !== "failed" && typeof fill.tx_hash !== "string") fail(`fill ${key}: ${st} with tx_hash ${fill.tx_hash}`);
      if (prev !== st) {
        note(m, `fill ${prev}→${st}`);
        note(m, `fill →${st}`);
      }
      m.fills.set(key, fill.settlement_status);
    }
  }
}

type Cmd = fc.AsyncCommand<ExchangeModel, ModelDriver>;

class PlaceOrder implements Cmd {
  constructor(
    readonly owner: number,
    readonly spec: OrderSpec,
    readonly orderId: string,
  ) {}
  check = () => true;
  async run(m: ExchangeModel, d: ModelDriver): Promise<void> {
    const w = d.wallets[this.owner]!;
    const body = orderBodyOf(this.spec, this.orderId, { owner: w.account.address.toLowerCase() as Address, executorId: d.executorId(), nowSec: d.nowSec() });
    const signature = await signOrder(d, w.account, body, this.spec);
    const r = await d.call("POST", "/orders", { ...body, signature });
    if (m.orders.has(this.orderId)) {
      // An order id already in use (shrinking makes ids collide): a conflict, nothing placed.
      if (r.status !== 409) fail(`POST /orders with a used order_id answered ${r.status}`);
      note(m, "place duplicate 409");
    } else if (r.status === 201) {
      if (r.body.order_id !== this.orderId) fail(`POST /orders answered order_id ${r.body.order_id}`);
      m.orders.set(this.orderId, { id: this.orderId, owner: this.owner, uuidInt: body.uuid_int as string, status: "pending", createdSec: d.nowSec() });
      note(m, "place 201");
    } else if ((r.status === 400 && r.body.detail?.error_code === "INSUFFICIENT_EQUITY") || (r.status === 409 && r.body.detail?.error_code === "STP_BLOCKED")) {
      note(m, `place ${r.body.detail.error_code}`);
    } else fail(`POST /orders ${r.status} ${JSON.stringify(r.body)}`);
    await observe(m, d);
  }
  toString = () => `place(${this.owner}, ${this.spec.side} ${this.spec.amount} ${this.spec.market.symbol} @ ${this.spec.price})`;
}

class CancelOrder implements Cmd {
  constructor(
    readonly owner: number,
    readonly pick: number,
  ) {}
  check = (m: Readonly<ExchangeModel>) => [...m.orders.values()].some((o) => o.owner === this.owner);
  async run(m: ExchangeModel, d: ModelDriver): Promise<void> {
    const mine = [...m.orders.values()].filter((o) => o.owner === this.owner);
    const o = mine[this.pick % mine.length]!;
    const w = d.wallets[this.owner]!;
    const signature = await w.account.signTypedData({ domain: d.domain, types: { CancelOrder: CANCEL_ORDER_TYPE }, primaryType: "CancelOrder", message: { owner: w.account.address, orderId: BigInt(o.uuidInt) } });
    const before = o.status;
    const r = await d.call("POST", "/orders/cancel", { owner_address: w.account.address.toLowerCase(), order_id: o.id, uuid_int: o.uuidInt, signature });
    const inCooldown = d.nowSec() - o.createdSec < m.cooldownSec;
    await observe(m, d);
    if (r.status === 200) {
      if (before !== "pending" || inCooldown) fail(`cancel of a ${before} order (cooldown ${inCooldown}) answered 200`);
      if (o.status !== "cancelled") fail(`cancelled order reads ${o.status}`);
      note(m, "cancel 200");
    } else if (r.status === 429) {
      if (r.body.detail?.error_code !== "CANCEL_COOLDOWN" || !inCooldown) fail(`cancel 429 ${JSON.stringify(r.body)} (in cooldown: ${inCooldown})`);
      if (before === "pending" && o.status === "cancelled") fail("an order cancelled inside its cooldown");
      note(m, "cancel 429");
    } else if (r.status === 409) {
      if (before === "pending" && o.status === "pending") fail("cancel of a pending order answered 409");
      note(m, "cancel 409");
    } else fail(`POST /orders/cancel ${r.status} ${JSON.stringify(r.body)}`);
  }
  toString = () => `cancel(${this.owner}, #${this.pick})`;
}

class CancelAll implements Cmd {
  constructor(readonly owner: number) {}
  check = () => true;
  async run(m: ExchangeModel, d: ModelDriver): Promise<void> {
    const w = d.wallets[this.owner]!;
    const r = await d.call("DELETE", `/orders/cancel-all?owner_address=${w.account.address.toLowerCase()}`, undefined, w.auth);
    if (r.status !== 200) fail(`cancel-all ${r.status} ${JSON.stringify(r.body)}`);
    if (r.body.total !== r.body.cancelled.length) fail("cancel-all total differs from cancelled.length");
    await observe(m, d);
    for (const id of r.body.cancelled as string[]) if (m.orders.get(id)?.status !== "cancelled") fail(`cancel-all listed ${id} but it reads ${m.orders.get(id)?.status}`);
    for (const id of r.body.skipped_cooldown as string[]) {
      const o = m.orders.get(id);
      if (!o || d.nowSec() - o.createdSec >= m.cooldownSec) fail(`cancel-all skipped ${id} outside its cooldown`);
    }
    note(m, "cancel-all");
  }
  toString = () => `cancelAll(${this.owner})`;
}

class PlaceVlBatch implements Cmd {
  constructor(
    readonly owner: number,
    readonly spec: VlBatchSpec,
    readonly ids: readonly string[],
  ) {}
  check = () => true;
  async run(m: ExchangeModel, d: ModelDriver): Promise<void> {
    const w = d.wallets[this.owner]!;
    const bodies = vlBatchBodies(this.spec, this.ids, { owner: w.account.address.toLowerCase() as Address, executorId: d.executorId(), nowSec: d.nowSec() });
    const signed = await Promise.all(bodies.map(async (b, i) => ({ ...b, signature: await signOrder(d, w.account, b, this.spec.legs[i]!) })));
    const r = await d.call("POST", "/orders/vl/batch", { orders: signed });
    if (this.ids.some((id) => m.orders.has(id))) {
      if (r.status !== 409) fail(`POST /orders/vl/batch with a used order_id answered ${r.status}`);
      note(m, "vl duplicate 409");
    } else if (r.status === 201) {
      if (JSON.stringify(r.body.order_ids) !== JSON.stringify(this.ids)) fail("VL order_ids are not the legs in submission order");
      if (r.body.vl_group.primary_id !== this.ids[0]) fail("vl_group.primary_id is not leg 0");
      const g = r.body.vl_group;
      if (compareDecimal(parseCanonicalDecimal(g.budget_consumed, "budget_consumed"), parseCanonicalDecimal(g.max_budget, "max_budget")) > 0) {
        fail(`VL budget_consumed ${g.budget_consumed} above max_budget ${g.max_budget}`);
      }
      const dropped = new Set((r.body.cancelled as { order_id: string }[]).map((c) => c.order_id));
      for (const [i, id] of this.ids.entries()) {
        m.orders.set(id, { id, owner: this.owner, uuidInt: bodies[i]!.uuid_int as string, status: dropped.has(id) ? "cancelled" : "pending", createdSec: d.nowSec(), ...(dropped.has(id) ? { vlDropped: true } : {}) });
      }
      note(m, "vl 201");
    } else if (r.status === 400 && ["INSUFFICIENT_EQUITY", "AMOUNT_BELOW_MIN"].includes(r.body.detail?.error_code)) {
      note(m, `vl ${r.body.detail.error_code}`);
    } else if (r.status === 409 && r.body.detail?.error_code === "STP_BLOCKED") note(m, "vl STP_BLOCKED");
    else fail(`POST /orders/vl/batch ${r.status} ${JSON.stringify(r.body)}`);
    await observe(m, d);
  }
  toString = () => `vl(${this.owner}, ${this.spec.legs.map((l) => `${l.side} ${l.amount} ${l.market.symbol} @ ${l.price}`).join("; ")})`;
}

class RequestQuote implements Cmd {
  constructor(
    readonly owner: number,
    readonly fromToken: Address,
    readonly toToken: Address,
    readonly fromAmount: bigint,
  ) {}
  check = () => true;
  async run(m: ExchangeModel, d: ModelDriver): Promise<void> {
    const owner = d.wallets[this.owner]!.account.address.toLowerCase();
    const r = await d.call("POST", "/swap/quote", {
      from_token: this.fromToken,
      to_token: this.toToken,
      from_amount: this.fromAmount.toString(),
      owner_address: owner,
      recipient: owner,
      expiration: d.nowSec() + 3600,
    });
    if (r.status === 200) {
      if (r.body.expires_at <= d.nowSec() || r.body.expires_at > d.nowSec() + 31) fail(`quote expires_at ${r.body.expires_at}, now ${d.nowSec()}`);
      m.quotes.push({ uuid: r.body.uuid, owner: this.owner, expiresAt: r.body.expires_at, state: "issued", ownerSwapsAtIssue: m.swapsAccepted.get(this.owner) ?? 0, body: r.body });
      note(m, "quote 200");
    } else if (r.status === 400 || r.status === 409 || r.status === 422) note(m, `quote ${r.status} ${r.body.detail?.code ?? ""}`);
    else fail(`POST /swap/quote ${r.status} ${JSON.stringify(r.body)}`);
  }
  toString = () => `quote(${this.owner}, ${this.fromToken.slice(0, 8)}→${this.toToken.slice(0, 8)} ${this.fromAmount})`;
}

/**
 * The POST /swap subset's reasons a swap signed as quoted may still be refused for (what moved
 * since the quote): never the catch-all TRANSIENT_SETTLEMENT_FAILURE, which no valid request earns.
 */
const SWAP_REFUSALS_400: readonly unknown[] = ["NO_LIQUIDITY", "SLIPPAGE_EXCEEDED", "ALLOWANCE_INSUFFICIENT", "INTENT_DEADLINE_EXPIRED", "AMOUNT_BELOW_MIN"];
const SWAP_REFUSALS_409: readonly unknown[] = ["QUOTE_STALE", "STP_BLOCKED"];

class ExecuteSwap implements Cmd {
  constructor(readonly pick: number) {}
  check = (m: Readonly<ExchangeModel>) => m.quotes.length > 0;
  async run(m: ExchangeModel, d: ModelDriver): Promise<void> {
    const q = m.quotes[this.pick % m.quotes.length]!;
    const w = d.wallets[q.owner]!;
    if (q.state === "issued" && d.nowSec() > q.expiresAt) q.state = "expired";
    const rp = q.body.route_params;
    const signature = await w.account.signTypedData({
      domain: d.domain,
      types: { Intent: INTENT_TYPE },
      primaryType: "Intent",
      message: intentMessageOf(rp),
    });
    const body: Record<string, unknown> = { uuid: q.uuid, signature };
    if (q.body.permit !== null && q.body.permit.eip712) {
      body.permit_signature = await w.account.signTypedData(q.body.permit.eip712);
      body.permit_deadline = q.body.permit.eip712.message.deadline;
    }
    const r = await d.call("POST", "/swap", body);
    const code = r.body?.detail?.error_code ?? r.body?.detail?.code ?? null;
    // What the model knows of this correctly signed submission: an informational quote has no
    // route (NO_LIQUIDITY), and a swap of the same wallet accepted since the quote makes it stale.
    const informational = String(rp.minOutputAmount) === "0";
    const stale = (m.swapsAccepted.get(q.owner) ?? 0) > q.ownerSwapsAtIssue;
    if (q.state !== "issued") {
      if (r.status !== 410) fail(`POST /swap on a ${q.state} quote answered ${r.status} ${JSON.stringify(r.body)}`);
      note(m, `swap 410 ${q.state}`);
    } else if (informational || stale) {
      // Never taken. The spec gives an informational quote 400 and a stale one 409 QUOTE_STALE
      // (its permit nonce is out of date too), in no stated order: either refusal will do.
      if (r.status !== 400 && r.status !== 409) fail(`POST /swap of ${informational ? "an informational quote (minOutputAmount 0)" : "a quote its wallet swapped after"} answered ${r.status} ${JSON.stringify(r.body)}`);
      if (informational && !stale && r.status !== 400) fail(`POST /swap of an informational quote (minOutputAmount 0) answered ${r.status} ${JSON.stringify(r.body)}`);
      note(m, `swap ${r.status} ${informational ? "informational" : "stale"}`);
    } else if (r.status === 200) {
      if (r.body.success !== true || r.body.status !== "pending") fail(`POST /swap 200 body ${JSON.stringify(r.body)}`);
      q.state = "consumed";
      m.swapsAccepted.set(q.owner, (m.swapsAccepted.get(q.owner) ?? 0) + 1);
      m.orders.set(r.body.trade_id, { id: r.body.trade_id, owner: q.owner, uuidInt: rp.uuid, status: "pending", createdSec: d.nowSec() });
      const again = await d.call("POST", "/swap", body);
      if (again.status !== 410) fail(`a consumed quote answered ${again.status}`);
      note(m, "swap 200");
    } else if ((r.status === 400 && SWAP_REFUSALS_400.includes(code)) || (r.status === 409 && SWAP_REFUSALS_409.includes(code))) {
      // What the model does not follow moved since the quote (the book, the wallet's equity or
      // balance, the clock): not consumed (spec), so a later valid POST /swap may still take it.
      note(m, `swap ${r.status} ${code}`);
    } else fail(`POST /swap of an issued quote, signed as quoted, answered ${r.status} ${JSON.stringify(r.body)}`);
    await observe(m, d);
  }
  toString = () => `swap(#${this.pick})`;
}

/** A quote swapped at once (before it can expire): the path to "consumed". */
class QuoteThenSwap implements Cmd {
  constructor(readonly quote: RequestQuote) {}
  check = () => true;
  async run(m: ExchangeModel, d: ModelDriver): Promise<void> {
    const n = m.quotes.length;
    await this.quote.run(m, d);
    if (m.quotes.length > n) await new ExecuteSwap(m.quotes.length - 1).run(m, d);
  }
  toString = () => `quoteThenSwap(${this.quote.toString()})`;
}

class InjectFault implements Cmd {
  constructor(readonly kind: FaultKind) {}
  check = () => true;
  async run(m: ExchangeModel, d: ModelDriver): Promise<void> {
    if (!d.injectFault) return;
    await d.injectFault(this.kind);
    note(m, `fault ${this.kind}`);
  }
  toString = () => `fault(${this.kind})`;
}

class Advance implements Cmd {
  constructor(readonly sec: number) {}
  check = () => true;
  async run(m: ExchangeModel, d: ModelDriver): Promise<void> {
    await d.advanceSec(this.sec);
    for (const q of m.quotes) if (q.state === "issued" && d.nowSec() > q.expiresAt) q.state = "expired";
  }
  toString = () => `advance(${this.sec})`;
}

class Settle implements Cmd {
  check = () => true;
  async run(m: ExchangeModel, d: ModelDriver): Promise<void> {
    await d.settle();
    await observe(m, d);
  }
  toString = () => "settle";
}

export interface HttpModelOptions {
  wallets: number;
  /** Prices within ±spreadBps of 1.0, so orders cross (default 150). */
  spreadBps?: number;
}

/** The command arbitraries of the HTTP model (pass to fc.commands with an explicit size). */
export function httpModelCommands(registry: Registry, o: HttpModelOptions): fc.Arbitrary<Cmd>[] {
  const spreadBps = BigInt(o.spreadBps ?? 150);
  const owner = fc.integer({ min: 0, max: o.wallets - 1 });
  const markets = registry.markets().filter((m) => m.active);
  const near = (tp: number, pick: bigint) => {
    const one = pow10(tp);
    const d = (one * spreadBps) / 10_000n;
    return one - d + (pick % (2n * d + 1n));
  };
  const spec = fc
    .record({ m: fc.constantFrom(...markets), side: fc.constantFrom("bid" as const, "ask" as const), pick: fc.bigInt({ min: 0n, max: 1n << 30n }), extra: fc.bigInt({ min: 0n, max: 2000n }) })
    .map(({ m, side, pick, extra }) => {
      const ticks = near(m.tickPrecision, pick);
      return orderSpec(m, side, floorLots(m, side, ticks) + extra, ticks);
    });
  const tokens = new Map<Address, bigint>();
  for (const m of markets) {
    tokens.set(m.base, pow10(m.baseDecimals));
    tokens.set(m.quote, pow10(m.quoteDecimals));
  }
  const pairs = markets.flatMap((m) => [
    [m.base, m.quote],
    [m.quote, m.base],
  ]) as [Address, Address][];
  // Small sizes (from the token floor up to a few units) so that resting orders can fill them.
  const quote = fc.tuple(owner, fc.constantFrom(...pairs), fc.bigInt({ min: 1n, max: 6n })).map(([w, [a, b], units]) => {
    const floor = registry.token(a)?.minTradeAmountRaw ?? 0n;
    const raw = units * tokens.get(a)!;
    return new RequestQuote(w, a, b, raw > floor ? raw : floor);
  });
  return [
    fc.tuple(owner, spec, uuid4()).map(([w, s, id]) => new PlaceOrder(w, s, id)),
    fc.tuple(owner, spec, uuid4()).map(([w, s, id]) => new PlaceOrder(w, s, id)),
    fc.tuple(owner, fc.nat()).map(([w, p]) => new CancelOrder(w, p)),
    owner.map((w) => new CancelAll(w)),
    fc
      .tuple(owner, vlBatchSpec(registry, { extraLots: 500n }), fc.uniqueArray(uuid4(), { minLength: 50, maxLength: 50 }))
      .map(([w, s, ids]) => {
        const legs = s.legs.map((l) => {
          const ticks = near(l.market.tickPrecision, l.ticks);
          return orderSpec(l.market, l.side, floorLots(l.market, l.side, ticks) + (l.lots % 500n), ticks);
        });
        return new PlaceVlBatch(w, { ...s, legs }, ids.slice(0, legs.length));
      }),
    // Small sizes (from the token floor up to a few units) so that resting orders can fill them.
    quote,
    quote.map((q) => new QuoteThenSwap(q)),
    fc.nat().map((p) => new ExecuteSwap(p)),
    fc.nat().map((p) => new ExecuteSwap(p)),
    fc.integer({ min: 1, max: 400 }).map((s) => new Advance(s)),
    fc.constant(new Settle()),
    fc.constantFrom<FaultKind>("revert-legs", "fail-batch", "spread", "clear").map((k) => new InjectFault(k)),
  ];
}
