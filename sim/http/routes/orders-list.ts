// GET /orders (API key, read group): the owner's orders, filtered over the whole
// matching set, then sorted, then paged; `total` counts after filtering (spec
// "GET /orders" table). Pure selection over the engine's wire Orders, or over its
// order records for the fields a record holds (views then only for the page): no
// rule of the exchange lives here.
//
// Readings of the spec's one-line parameter descriptions (each tested):
// - status, type, side: exact values from the spec's lists (anything else 422).
// - symbol ("pair label search"): case-insensitive substring of `symbol`, so
//   "EURC" finds EURC/USDC and EURC/GBPT, "eurc/usdc" finds that pair.
// - base_currency / quote_currency: case-insensitive equality with base_symbol /
//   quote_symbol; address filters: case-insensitive equality.
// - trade_ids: comma-separated ids (blanks around commas ignored), any case.
// - search: case-insensitive substring of any scalar field of the Order.
// - has_error: true → error or error_code set; false → neither set.
// - min_/max_<field>: inclusive bounds compared exactly as decimals (filled_amount
//   is a raw integer string, compared the same way); a bound that is not a plain
//   non-negative decimal is 422.
// - created_/updated_ after/before: inclusive; ISO 8601 with a date and time (a
//   missing zone means UTC) or a Unix timestamp in seconds (fractions allowed).
// - sort_by: any scalar Order field; numbers compare as decimals, timestamps as
//   instants, the rest as strings (null first in ascending order); ties keep
//   placement order (reversed with order=desc, so desc is the exact mirror of asc).
// - limit 1..500 (default 50), offset >= 0 (default 0); outside → 422.

import type { Request, Response } from "express";
import { z } from "zod";
import type { Engine, OrderWire } from "../../core/engine.ts";
import type { OrderRecord } from "../../core/orders.ts";
import { ExchangeError } from "../../core/errors.ts";
import { compareDecimal, decimalOf, pow10, type Decimal } from "../../core/amounts.ts";
import { ORDER_FIGURES } from "../../core/views.ts";
import { requireOwner } from "../auth.ts";
import { parseInput } from "../validate.ts";
import { zAddress, zQueryInt } from "../fields.ts";
import { instantMs } from "../time-bounds.ts";

export type OrdersListEngine = Pick<Engine, "listOrders" | "orderRecordsOf" | "viewOfOrder">;

export const ORDER_STATUSES = ["pending", "matched", "settled", "cancelled", "failed"] as const;
export const LIST_LIMIT_DEFAULT = 50;
export const LIST_LIMIT_MAX = 500;

/** Range-filterable fields (min_<f> / max_<f>). */
export const RANGE_FIELDS = ["price", "amount", "remaining_amount", "filled_amount", "notional"] as const;
type RangeField = (typeof RANGE_FIELDS)[number];

/** Fields whose values are decimal strings: sorted by value, not text. */
const DECIMAL_FIELDS = new Set<string>([
  "price",
  "amount",
  "remaining_amount",
  "filled_base_amount",
  "filled_quote_amount",
  "notional",
  "remaining_notional",
  "from_amount",
  "to_amount",
  "filled_amount",
  "expiration",
  "uuid_int",
]);
const TIME_FIELDS = new Set<string>(["created_at", "updated_at"]);
/** Every scalar field of the spec's Order table (the nested settlement objects are not sortable). */
export const SORTABLE_FIELDS = [
  "trade_id", "owner_address", "status", "order_type", "symbol", "base_symbol", "quote_symbol", "side",
  "base_token", "quote_token", "price", "amount", "remaining_amount", "filled_base_amount", "filled_quote_amount",
  "notional", "remaining_notional", "from_token", "to_token", "from_amount", "to_amount", "filled_amount",
  "created_at", "updated_at", "expiration", "error", "error_code", "uuid_int", "vl_batch_id",
] as const;

const PLAIN_DECIMAL = /^(0|[1-9][0-9]*|0[0-9]*)(\.[0-9]+)?$/;

const decimalBound = z.string().max(100, "must be a non-negative decimal string of at most 100 characters").regex(PLAIN_DECIMAL, "must be a non-negative decimal string").transform(decimalOf);

/** ISO 8601 or Unix seconds → epoch milliseconds (possibly fractional). */
const instant = z.string().transform((s, c) => {
  const ms = instantMs(s);
  if (ms !== null) return ms;
  c.addIssue({ code: "custom", message: "must be an ISO 8601 date-time or a Unix timestamp in seconds" });
  return z.NEVER;
});

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address").transform((s) => s.toLowerCase());

const rangeShape: Record<string, z.ZodOptional<typeof decimalBound>> = {};
for (const f of RANGE_FIELDS) {
  rangeShape[`min_${f}`] = decimalBound.optional();
  rangeShape[`max_${f}`] = decimalBound.optional();
}

export const ListOrdersQuery = z.object({
  owner_address: zAddress,
  limit: zQueryInt(1, LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT),
  offset: zQueryInt(0, Number.MAX_SAFE_INTEGER, 0),
  status: z.enum(ORDER_STATUSES).optional(),
  type: z.enum(["swap", "limit"]).optional(),
  symbol: z.string().optional(),
  side: z.enum(["bid", "ask"]).optional(),
  from_token: address.optional(),
  to_token: address.optional(),
  base_token: address.optional(),
  quote_token: address.optional(),
  base_currency: z.string().optional(),
  quote_currency: z.string().optional(),
  trade_ids: z.string().optional(),
  search: z.string().optional(),
  has_error: z
    .enum(["true", "false", "1", "0", "True", "False"], { error: "must be true or false" })
    .transform((s) => s === "true" || s === "True" || s === "1")
    .optional(),
  created_after: instant.optional(),
  created_before: instant.optional(),
  updated_after: instant.optional(),
  updated_before: instant.optional(),
  sort_by: z.enum(SORTABLE_FIELDS, { error: `must be one of the Order fields: ${SORTABLE_FIELDS.join(", ")}` }).optional(),
  order: z.enum(["asc", "desc"]).optional(),
  ...rangeShape,
});
type ListQuery = z.output<typeof ListOrdersQuery> & Partial<Record<`${"min" | "max"}_${RangeField}`, Decimal>>;

type Pred = (o: OrderWire) => boolean;

function searchText(o: OrderWire): string {
  let t = "";
  for (const f of SORTABLE_FIELDS) {
    const v = o[f];
    if (v !== null) t += `\u0000${String(v).toLowerCase()}`;
  }
  return t;
}

/** trade_ids: comma-separated, blanks around commas ignored, any case. */
function tradeIdSet(list: string): Set<string> {
  return new Set(list.split(",").map((s) => s.trim().toLowerCase()).filter((s) => s.length > 0));
}

function predicates(q: ListQuery): Pred[] {
  const ps: Pred[] = [];
  if (q.status) ps.push((o) => o.status === q.status);
  if (q.type) ps.push((o) => o.order_type === q.type);
  if (q.side) ps.push((o) => o.side === q.side);
  if (q.symbol !== undefined) {
    const s = q.symbol.toLowerCase();
    ps.push((o) => o.symbol.toLowerCase().includes(s));
  }
  for (const f of ["from_token", "to_token", "base_token", "quote_token"] as const) {
    const want = q[f];
    if (want !== undefined) ps.push((o) => o[f].toLowerCase() === want);
  }
  if (q.base_currency !== undefined) {
    const s = q.base_currency.toLowerCase();
    ps.push((o) => o.base_symbol.toLowerCase() === s);
  }
  if (q.quote_currency !== undefined) {
    const s = q.quote_currency.toLowerCase();
    ps.push((o) => o.quote_symbol.toLowerCase() === s);
  }
  if (q.trade_ids !== undefined) {
    const ids = tradeIdSet(q.trade_ids);
    ps.push((o) => ids.has(o.trade_id.toLowerCase()));
  }
  if (q.search !== undefined && q.search.length > 0) {
    const s = q.search.toLowerCase();
    ps.push((o) => searchText(o).includes(s));
  }
  if (q.has_error !== undefined) {
    const want = q.has_error;
    ps.push((o) => (o.error !== null || o.error_code !== null) === want);
  }
  for (const f of RANGE_FIELDS) {
    const lo = q[`min_${f}`];
    const hi = q[`max_${f}`];
    if (lo) ps.push((o) => compareDecimal(decimalOf(o[f]), lo) >= 0);
    if (hi) ps.push((o) => compareDecimal(decimalOf(o[f]), hi) <= 0);
  }
  const times: [keyof ListQuery, "created_at" | "updated_at", 1 | -1][] = [
    ["created_after", "created_at", 1],
    ["created_before", "created_at", -1],
    ["updated_after", "updated_at", 1],
    ["updated_before", "updated_at", -1],
  ];
  for (const [param, field, dir] of times) {
    const bound = q[param] as number | undefined;
    if (bound === undefined) continue;
    ps.push((o) => {
      const t = Date.parse(o[field]);
      return dir === 1 ? t >= bound : t <= bound;
    });
  }
  return ps;
}

type SortField = (typeof SORTABLE_FIELDS)[number];

/** One Order's sort value: a decimal scaled to the list's common scale, an instant (ms), or text (null first). */
type SortKey = bigint | number | string | null;

function compareKeys(x: SortKey, y: SortKey): number {
  if (x === y) return 0;
  if (x === null) return -1;
  if (y === null) return 1;
  return x < y ? -1 : 1;
}

/** Decimals as integers at the largest scale among them: each comparison is then one bigint comparison. */
function scaledToCommon(ds: readonly Decimal[]): bigint[] {
  let scale = 0;
  for (const d of ds) if (d.scale > scale) scale = d.scale;
  return ds.map((d) => d.units * pow10(scale - d.scale));
}

/**
 * The page of `items` sorted by `keys` (one per item, computed once: a comparison only
 * compares), ties in list order, the whole order reversed with desc; views for the page only.
 */
function sortedPage<T>(items: readonly T[], keys: readonly SortKey[], q: ListQuery, view: (item: T) => OrderWire): OrderWire[] {
  const sign = (q.order ?? "desc") === "desc" ? -1 : 1;
  const order = items.map((_, i) => i);
  order.sort((a, b) => sign * (compareKeys(keys[a]!, keys[b]!) || a - b));
  return order.slice(q.offset, q.offset + q.limit).map((i) => view(items[i]!));
}

function viewSortKeys(views: readonly OrderWire[], field: SortField): SortKey[] {
  if (DECIMAL_FIELDS.has(field)) return scaledToCommon(views.map((o) => decimalOf(String(o[field]))));
  if (TIME_FIELDS.has(field)) return views.map((o) => Date.parse(String(o[field])));
  return views.map((o) => (o[field] === null ? null : String(o[field])));
}

/** Filter, sort and page an owner's orders (placement order in). */
export function selectOrders(all: readonly OrderWire[], q: ListQuery): { trades: OrderWire[]; total: number } {
  const ps = predicates(q);
  const matching = ps.length === 0 ? all : all.filter((o) => ps.every((p) => p(o)));
  const trades = sortedPage(matching, viewSortKeys(matching, q.sort_by ?? "created_at"), q, (o) => o);
  return { trades, total: matching.length };
}

type RecordValue = (o: Readonly<OrderRecord>) => string | null;
type RecordDecimal = (o: Readonly<OrderRecord>) => Decimal;

/**
 * The Order fields a record holds, read as its wire Order shows them (views.ts orderView):
 * text as is, decimals as exact values, instants in ms. The filled amounts are read from
 * the fills, so only the views answer them.
 */
const RECORD_TEXT: Partial<Record<SortField, RecordValue>> = {
  trade_id: (o) => o.id,
  owner_address: (o) => o.owner,
  status: (o) => o.status,
  order_type: (o) => o.orderType ?? "limit",
  symbol: (o) => o.market.symbol,
  base_symbol: (o) => o.market.baseSymbol,
  quote_symbol: (o) => o.market.quoteSymbol,
  side: (o) => o.side,
  base_token: (o) => o.market.base,
  quote_token: (o) => o.market.quote,
  from_token: (o) => o.fromToken,
  to_token: (o) => o.toToken,
  error: (o) => o.error,
  error_code: (o) => o.errorCode,
  vl_batch_id: (o) => o.vlBatchId,
};
const RECORD_DECIMAL: Partial<Record<SortField, RecordDecimal>> = {
  ...ORDER_FIGURES,
  from_amount: (o) => ({ units: o.fromAmount, scale: 0 }),
  to_amount: (o) => ({ units: o.toAmount, scale: 0 }),
  expiration: (o) => ({ units: BigInt(o.expiration), scale: 0 }),
  uuid_int: (o) => ({ units: o.uuidInt, scale: 0 }),
};

type RecordKeys = (records: readonly Readonly<OrderRecord>[]) => SortKey[];

/** How the records give `field`'s sort keys; null when only the views hold it. */
function recordSortKeys(field: SortField): RecordKeys | null {
  if (field === "created_at") return (records) => records.map((o) => o.createdAt.ms);
  if (field === "updated_at") return (records) => records.map((o) => o.updatedAt.ms);
  const decimal = RECORD_DECIMAL[field];
  if (decimal) return (records) => scaledToCommon(records.map(decimal));
  const text = RECORD_TEXT[field];
  return text ? (records) => records.map(text) : null;
}

/** Range filters the records answer (filled_amount is read from the fills). */
const RECORD_RANGES = ["price", "amount", "remaining_amount", "notional"] as const satisfies readonly RangeField[];

/** Query keys the records answer exactly as the wire Orders would. */
const RECORD_QUERY_KEYS = new Set<string>([
  "owner_address", "status", "type", "side", "trade_ids", "created_after", "created_before", "updated_after", "updated_before", "sort_by", "order", "offset", "limit",
  ...RECORD_RANGES.flatMap((f) => [`min_${f}`, `max_${f}`]),
]);

/**
 * selectOrders' answer from the records, with views built for the page only: a bot polling
 * its open orders, or its changes since a time, pays for its page, not for its whole
 * history. null: the query reads a field only the views hold (search, symbol, the filled
 * amounts, ...), and the views decide.
 */
export function selectOrderRecords(
  records: readonly Readonly<OrderRecord>[],
  q: ListQuery,
  view: (o: Readonly<OrderRecord>) => OrderWire,
): { trades: OrderWire[]; total: number } | null {
  const field = q.sort_by ?? "created_at";
  const sortKeys = recordSortKeys(field);
  if (sortKeys === null) return null;
  for (const [k, v] of Object.entries(q)) if (v !== undefined && !RECORD_QUERY_KEYS.has(k)) return null;
  const ps: ((o: Readonly<OrderRecord>) => boolean)[] = [];
  if (q.status) ps.push((o) => o.status === q.status);
  if (q.type) ps.push((o) => (o.orderType ?? "limit") === q.type);
  if (q.side) ps.push((o) => o.side === q.side);
  if (q.trade_ids !== undefined) {
    const ids = tradeIdSet(q.trade_ids);
    ps.push((o) => ids.has(o.id.toLowerCase()));
  }
  const times: [number | undefined, (o: Readonly<OrderRecord>) => number, 1 | -1][] = [
    [q.created_after, (o) => o.createdAt.ms, 1],
    [q.created_before, (o) => o.createdAt.ms, -1],
    [q.updated_after, (o) => o.updatedAt.ms, 1],
    [q.updated_before, (o) => o.updatedAt.ms, -1],
  ];
  for (const [bound, at, dir] of times) {
    if (bound !== undefined) ps.push((o) => (dir === 1 ? at(o) >= bound : at(o) <= bound));
  }
  for (const f of RECORD_RANGES) {
    const valueOf = ORDER_FIGURES[f];
    const lo = q[`min_${f}`];
    const hi = q[`max_${f}`];
    if (lo) ps.push((o) => compareDecimal(valueOf(o), lo) >= 0);
    if (hi) ps.push((o) => compareDecimal(valueOf(o), hi) <= 0);
  }
  const matching = ps.length === 0 ? records : records.filter((o) => ps.every((p) => p(o)));
  const n = matching.length;
  if (field === "created_at" && inPlacementTime(matching)) {
    // Placement order is created_at order: ties keep placement order, reversed with desc, so desc is the exact reverse.
    const desc = (q.order ?? "desc") === "desc";
    const trades: OrderWire[] = [];
    for (let k = q.offset; k < Math.min(n, q.offset + q.limit); k++) trades.push(view(matching[desc ? n - 1 - k : k]!));
    return { trades, total: n };
  }
  return { trades: sortedPage(matching, sortKeys(matching), q, view), total: n };
}

/** Whether creation times never go back along the list (a clock set back can make them). */
function inPlacementTime(records: readonly Readonly<OrderRecord>[]): boolean {
  for (let i = 1; i < records.length; i++) if (records[i]!.createdAt.ms < records[i - 1]!.createdAt.ms) return false;
  return true;
}

/** The GET /orders handler (mount after requireApiKey and the read rate limit). */
export function listOrdersHandler(engine: OrdersListEngine) {
  return (req: Request, res: Response): void => {
    const q = parseInput(ListOrdersQuery, req.query, "query") as ListQuery;
    // Every 422 before the owner comparison's 403 (401 → 429 → 422 → 403).
    if (q.search !== undefined && q.search.length > 256) throw new ExchangeError("VALIDATION", 422, "query.search: must be at most 256 characters");
    const owner = requireOwner(res, q.owner_address);
    res.json(selectOrderRecords(engine.orderRecordsOf(owner), q, (o) => engine.viewOfOrder(o)) ?? selectOrders(engine.listOrders(owner), q));
  };
}
