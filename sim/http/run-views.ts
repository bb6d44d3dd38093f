// Read-only JSON views of a run for the viewer (/__fakex/ui) and the report, mounted
// under /__fakex. Tests can read them too: the viewer has no other data path.
//
//   GET /run                       clock, block mode, fault plan, route faults, health, counts
//   GET /orders?limit&offset&upto  most recent orders first (id, owner, market, side, status, ...);
//                                  upto=n: only the first n orders placed (pages that stay put)
//   GET /orders/{id}               the order (GET /orders/{id} shape), its fills with ids,
//                                  settlement batches and tx hashes, and the requests that touched it
//   GET /batches?limit&offset&upto settlement batches, newest first, with revert reasons
//   GET /markets                   every market with its depth ladder and recent trades
import { EVENT_TYPES } from "../core/event-types.ts";
import type { ErrorRequestHandler, Request, RequestHandler, Router } from "express";
import { formatUnits } from "../core/amounts.ts";
import type { Engine } from "../core/engine.ts";
import type { OrderWire } from "../core/views.ts";
import type { OrderRecord, OrderStatus } from "../core/orders.ts";
import type { FillRecord } from "../core/fills.ts";
import type { Registry } from "../core/registry.ts";
import { controlPrefixRouter, ControlInputError, blockModeWire, isControlInputError, checkQueryKeysOnce, notAllowed, type ControlBlockMode, type ControlHandle } from "./control.ts";
import { batchLink, type RequestJournal } from "./journal.ts";

export interface RunViewParts {
  engine: Engine;
  registry: Registry;
  control: Pick<ControlHandle, "now" | "blockMode" | "faultPlan" | "routeFaults" | "health">;
  journal: RequestJournal;
}

export const MAX_VIEW_PAGE = 500;
const RECENT_TRADES = 30;

const PAGE_KEYS = new Set(["limit", "offset", "upto"]);
/** The largest offset or upto (nine digits: more orders than any run holds). */
const MAX_POSITION = 999_999_999;

/**
 * `limit`, `offset` and `upto` as whole decimal numbers; any other query key is refused, not
 * ignored. `upto` holds a list at its first n entries (orders in placement order, batches by
 * settlement id), so pages past the first stay put while the run goes on.
 */
function page(req: Request, def = 50, keys: { allowed: ReadonlySet<string>; named: string } = { allowed: PAGE_KEYS, named: "limit, offset and upto" }): { limit: number; offset: number; upto: number } {
  checkViewQuery(req, keys.allowed, keys.named);
  const limit = queryWholeNumber(req, "limit", def);
  const offset = queryWholeNumber(req, "offset", 0);
  const upto = queryWholeNumber(req, "upto", Number.MAX_SAFE_INTEGER);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_VIEW_PAGE) throw new ControlInputError(`limit must be 1-${MAX_VIEW_PAGE}`);
  if (!Number.isInteger(offset)) throw new ControlInputError(`offset must be a whole number from 0 to ${MAX_POSITION}`);
  if (!Number.isInteger(upto)) throw new ControlInputError(`upto must be a whole number from 0 to ${MAX_POSITION}`);
  return { limit, offset, upto };
}

/** An order as the order lists show it (the run's, an account's). */
export function orderListRow(o: OrderWire) {
  return {
    order_id: o.trade_id,
    owner: o.owner_address,
    symbol: o.symbol,
    side: o.side,
    order_type: o.order_type,
    status: o.status,
    price: o.price,
    amount: o.amount,
    filled_amount: o.filled_amount,
    filled_base_amount: o.filled_base_amount,
    created_at: o.created_at,
    settlement_summary: o.settlement_summary,
  };
}

/** In front of a view's GET handler: any other method is the control API's 405 (HEAD is a GET without its body). */
export const onlyGet: RequestHandler = (req, res, next) => (req.method === "GET" || req.method === "HEAD" ? next() : notAllowed("GET")(req, res, next));

/** A view's query: each key once, and only the `allowed` ones (named in the refusal as `named`). */
export function checkViewQuery(req: Request, allowed: ReadonlySet<string>, named: string): void {
  checkQueryKeysOnce(req.query);
  for (const k of Object.keys(req.query)) if (!allowed.has(k)) throw new ControlInputError(`unknown query parameter ${JSON.stringify(k)}; this view takes ${named}`);
}

/** Query value `k` as a whole decimal number of at most nine digits; `fallback` when absent, NaN when malformed. */
export function queryWholeNumber(req: Request, k: string, fallback: number): number {
  const v = req.query[k];
  if (v === undefined) return fallback;
  return typeof v === "string" && /^\d{1,9}$/.test(v) ? Number(v) : Number.NaN;
}

const FILL_PAGE_KEYS = new Set(["fills_offset", "fills_limit"]);

/**
 * `fills_offset` and `fills_limit` of a view that lists one order's or one request's fills
 * (in execution order): that page of them, or null (every fill) without either.
 */
export function fillPage(req: Request): { offset: number; limit: number } | null {
  checkViewQuery(req, FILL_PAGE_KEYS, "fills_offset and fills_limit");
  if (req.query["fills_offset"] === undefined && req.query["fills_limit"] === undefined) return null;
  const offset = queryWholeNumber(req, "fills_offset", 0);
  const limit = queryWholeNumber(req, "fills_limit", MAX_VIEW_PAGE);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_VIEW_PAGE) throw new ControlInputError(`fills_limit must be 1-${MAX_VIEW_PAGE}`);
  if (!Number.isInteger(offset)) throw new ControlInputError(`fills_offset must be a whole number from 0 to ${MAX_POSITION}`);
  return { offset, limit };
}

const ORDER_LIST_KEYS = { allowed: new Set([...PAGE_KEYS, "status", "symbol"]), named: "limit, offset, upto, status and symbol" };
const ORDER_STATUSES: readonly OrderStatus[] = ["pending", "matched", "settled", "failed", "cancelled"];

/** The order list's `status` and `symbol` filters as one test of a record; null without either. */
function orderFilter(req: Request, registry: Registry): ((o: Readonly<OrderRecord>) => boolean) | null {
  const status = req.query["status"];
  const symbol = req.query["symbol"];
  if (status === undefined && symbol === undefined) return null;
  if (status !== undefined && !ORDER_STATUSES.includes(status as OrderStatus)) throw new ControlInputError(`status must be one of ${ORDER_STATUSES.join(", ")}`);
  if (symbol !== undefined && (typeof symbol !== "string" || registry.marketBySymbol(symbol)?.symbol !== symbol)) {
    throw new ControlInputError(`symbol: no market ${JSON.stringify(String(symbol).slice(0, 40))} (one of ${registry.markets().map((m) => m.symbol).join(", ")})`);
  }
  return (o) => (status === undefined || o.status === status) && (symbol === undefined || o.market.symbol === symbol);
}

/** The `limit` entries from `offset`, newest first, of the first `upto` of `all` (oldest first); total counts those `upto`. */
function newestFirst<T>(all: readonly T[], { limit, offset, upto }: { limit: number; offset: number; upto: number }): { rows: T[]; total: number; next_offset: number | null } {
  const total = Math.min(all.length, upto);
  const end = total - offset;
  const rows = end <= 0 ? [] : all.slice(Math.max(0, end - limit), end).reverse();
  return { rows, total, next_offset: offset + limit < total ? offset + limit : null };
}

/**
 * Order ids in placement order, read from the engine's event log (the engine keeps no
 * global list). The viewer polls: only events appended since the last read are scanned,
 * unless a restore replaced the log since, which starts the scan over (the log may have
 * grown back past where the last read stopped, with other events in between).
 */
export class OrderIdIndex {
  private ids: string[] = [];
  private scanned = 0;
  private restores = 0;

  constructor(private readonly engine: Pick<Engine, "log">) {}

  /** Every order id, oldest first (the array is the index's own: do not change it). */
  all(): readonly string[] {
    const log = this.engine.log;
    if (log.restores !== this.restores) {
      this.ids = [];
      this.scanned = 0;
      this.restores = log.restores;
    }
    for (; this.scanned < log.length; this.scanned++) {
      const ev = log.at(this.scanned);
      if (ev.type === "order_placed") this.ids.push(String(ev.data["order_id"]));
    }
    return this.ids;
  }
}

function fillRow(f: FillRecord, registry: Registry) {
  const m = registry.marketBySymbol(f.symbol);
  return {
    fill_id: f.id,
    symbol: f.symbol,
    maker_order_id: f.makerOrderId,
    taker_order_id: f.takerOrderId,
    maker_side: f.makerSide,
    price: m ? formatUnits(f.priceTicks, m.tickPrecision) : f.priceTicks.toString(),
    quantity: m ? formatUnits(f.lots, m.quantityPrecision) : f.lots.toString(),
    status: f.status,
    settlement_id: f.settlementId,
    tx_hash: f.txHash,
    revert_reason: f.revertReason,
    at: f.at.ms,
  };
}

/**
 * The run's block mode in /block-mode's words ({"mode", "seconds"}), plus `kind`: the
 * name this view used before it matched, kept so scripts that read it go on working.
 */
function runBlockMode(m: ControlBlockMode): { mode: string; seconds?: number; kind: string } {
  return { ...blockModeWire(m), kind: m.kind };
}

/** Run views made in this process (one per exchange, a pool's instances included): part of log_epoch. */
let viewsMade = 0;

export function runViewsRouter(p: RunViewParts, r: Router = controlPrefixRouter()): Router {
  const { engine, registry, control, journal } = p;
  const orderIds = new OrderIdIndex(engine);
  const instance = `${process.pid}.${++viewsMade}`;

  r.route("/run").all(onlyGet).get((_req, res) => {
    res.json({
      clock: control.now(),
      block_mode: runBlockMode(control.blockMode()),
      fault_plan: control.faultPlan(),
      route_faults: control.routeFaults(),
      health: control.health(),
      counts: {
        orders: orderIds.all().length,
        fills: engine.fillCount(),
        settlement_batches: engine.settlementBatches().length,
        events: engine.log.length,
        requests: journal.length,
      },
      markets: registry.markets().map((m) => m.symbol),
      // Which event log this is: another once a restore replaced it, or for another instance or
      // server (a pool id made anew, a restart); a window of it read before is stale once this moves.
      log_epoch: `${instance}.${engine.log.restores}`,
      // What GET /events?type= takes (the timeline offers them).
      event_types: EVENT_TYPES,
    });
  });

  r.route("/orders").all(onlyGet).get((req, res) => {
    const p = page(req, 50, ORDER_LIST_KEYS);
    const match = orderFilter(req, registry);
    // `upto` holds the list at the first n orders placed, filtered or not; `placed` says that n.
    const all = orderIds.all();
    const placed = Math.min(all.length, p.upto);
    const listed = match === null ? all : all.slice(0, placed).filter((id) => match(engine.orderRecord(id)));
    const { rows: ids, total, next_offset } = newestFirst(listed, match === null ? p : { ...p, upto: Number.MAX_SAFE_INTEGER });
    const orders = ids.map((id) => orderListRow(engine.getOrder(id)));
    res.json({ orders, total, next_offset, placed });
  });

  r.route("/orders/:id").all(onlyGet).get((req, res) => {
    const id = String(req.params["id"]);
    const paged = fillPage(req);
    let order;
    try {
      order = engine.getOrder(id);
    } catch {
      res.status(404).json({ detail: `no order ${JSON.stringify(id)}` });
      return;
    }
    // The wire fills (this order's view, with economics) beside the records' ids and batches.
    // The order's own fills and batches, looked up by id: polled every second, it must not
    // pass over every fill of the run. A page of them (fills_offset, fills_limit) when asked,
    // and then the batches of that page's fills: a resting order can collect thousands.
    const allIds = engine.fillIdsOf(id);
    const { offset, limit } = paged ?? { offset: 0, limit: allIds.length };
    const wire = engine.fillsOfOrder(id, offset, limit);
    const records = allIds.slice(offset, offset + limit).map((fillId) => engine.fillRecord(fillId)!);
    const fills = records.map((f, i) => ({ ...fillRow(f, registry), wire: wire[i] ?? null }));
    const batchIds = [...new Set(records.map((f) => f.settlementId).filter((x): x is number => x !== null))].sort((a, b) => a - b);
    const batches = batchIds
      .map((b) => engine.settlementBatch(b))
      .filter((b) => b !== undefined)
      .map((b) => batchLink(b, (fillId) => engine.fillRecord(fillId)?.revertReason));
    const requests = journal
      .all()
      .filter((e) => e.links.orders_created.includes(id) || e.links.orders_cancelled.includes(id))
      .map((e) => ({ id: e.id, method: e.method, path: e.path, status: e.status, at_iso: e.at_iso }));
    // What the order holds frozen in its owner's vault now (its from-token): what the owner cannot spend elsewhere.
    const record = engine.orderRecord(id);
    const from = registry.token(record.fromToken);
    const frozen = { token: record.fromToken, symbol: from?.symbol ?? null, decimals: from?.decimals ?? null, amount: record.reserved.toString() };
    res.json({ order, fills, fills_total: allIds.length, settlement_batches: batches, requests, swap_recipient: engine.swapRecipientOf(id), frozen });
  });

  r.route("/batches").all(onlyGet).get((req, res) => {
    // Batches are numbered 1, 2, ... in the order they were sent: the first `upto` are those up to that number.
    const { rows: held, total, next_offset } = newestFirst(engine.settlementBatches(), page(req));
    // The page's fills only, by id.
    const fills = new Map<number, FillRecord | undefined>();
    const fill = (id: number) => (fills.has(id) ? fills.get(id) : fills.set(id, engine.fillRecord(id)).get(id));
    const rows = held.map((b) => ({
      ...batchLink(b, (id) => fill(id)?.revertReason),
      symbols: [...new Set(b.fillIds.map((id) => fill(id)?.symbol).filter((x): x is string => typeof x === "string"))],
    }));
    res.json({ batches: rows, total, next_offset });
  });

  r.route("/markets").all(onlyGet).get((_req, res) => {
    const recent = engine.recentFills(RECENT_TRADES);
    const markets = registry.markets().map((m) => ({
      symbol: m.symbol,
      base: m.baseSymbol,
      quote: m.quoteSymbol,
      bids: engine.depth(m.symbol, "bid"),
      asks: engine.depth(m.symbol, "ask"),
      recent_trades: (recent.get(m.symbol) ?? []).map((f) => fillRow(f, registry)),
    }));
    res.json({ markets });
  });

  r.use(viewErrors);
  return r;
}

/** The views' errors as JSON: the caller's input a 400, anything else a 500 saying what failed. */
export const viewErrors: ErrorRequestHandler = (err, _req, res, next) => {
  if (res.headersSent) return next(err);
  if (isControlInputError(err)) res.status(400).json({ detail: err.message });
  else res.status(500).json({ detail: err instanceof Error ? err.message : String(err) });
};
