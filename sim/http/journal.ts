// The request journal: one entry per /api/v1 request, with what the request caused.
//
// It sits at the HTTP edge (the engine knows nothing of requests). Each request gets an
// id from a counter (returned as X-Request-Id) and, when it finishes, an entry: virtual
// and wall time, method, path, query, status, wallet, duration, bounded copies of both
// bodies, and links found in the engine's event log between the request's start and
// finish (orders created or cancelled, fills, quotes consumed, VL batches). What happens
// later to those orders and fills (settlement batches, transaction hashes, reverts) is
// resolved when the entry is read, from the ids it recorded, so a request placed before
// POST /__fakex/settle or an auto-settle round still leads to its transaction.
//
// Wall time (wall_time, duration_ms) is for people; nothing hashed reads it.
import { performance } from "node:perf_hooks";
import { isUtf8 } from "node:buffer";
import type { Request, RequestHandler } from "express";
import type { Engine } from "../core/engine.ts";
import type { FillRecord } from "../core/fills.ts";
import type { SettlementBatch } from "../core/settlement.ts";
import { withRequestNote, type FaultNote, type RequestNote, type SignatureNearMiss } from "./journal-notes.ts";
import { loggedBody, unparsedBody } from "./body.ts";
import { FAULT_ANSWERED, faultAnswerBody, faultAnswerStatus } from "./route-faults-outcome.ts";
import { SERVICE_UNAVAILABLE_DETAIL } from "./errors.ts";
import { ADDRESS_RE } from "./fields.ts";
import { realNowMs } from "../platform/real-time.ts";

export const DEFAULT_JOURNAL_SIZE = 10_000;
/** Bytes of each body kept in an entry. */
export const DEFAULT_JOURNAL_BODY_BYTES = 4 * 1024;
export const MAX_JOURNAL_PAGE = 1000;

export interface BodyCopy {
  /** The body as text (JSON as sent), cut at the journal's body limit; base64 of its bytes when `encoding` says so. */
  text: string;
  /** The whole body's size in bytes, as sent. */
  bytes: number;
  truncated: boolean;
  /** "base64": the body is not UTF-8 text, and `text` holds its first bytes in base64. */
  encoding?: "base64";
}

/** What the request caused, found in the engine's event log while it ran. */
export interface RecordedLinks {
  orders_created: string[];
  orders_cancelled: string[];
  fills: number[];
  quotes_consumed: string[];
  vl_batches: string[];
  /** Deposits and withdrawals of the request's wallet the exchange took in while it ran (a broadcast, a balance read's sync). */
  vault_moves?: VaultMoveLink[];
}

/** A vault deposit or withdrawal taken into the ledger: raw amount, token address. */
export interface VaultMoveLink {
  kind: "deposit" | "withdrawal";
  token: string;
  amount: string;
}

export interface Rejection {
  /** The exchange's error code behind the answer (also for 5xx, whose body hides it). */
  code: string | null;
  detail: string | null;
  /** Request fields the error names ("body.price", "signature"). */
  fields: string[];
  /** A signature that did not verify: the typed data expected and who it recovers to. */
  signature?: SignatureNearMiss;
}

export interface JournalEntry {
  id: string;
  seq: number;
  /** Virtual time (ms) when the request arrived, and as ISO-8601. */
  at: number;
  at_iso: string;
  /** Wall time when it arrived (ISO-8601); not deterministic. */
  wall_time: string;
  /** Wall milliseconds from arrival to the last byte of the answer. */
  duration_ms: number;
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  status: number;
  /** The API key's owner, or the wallet a signed body names (lowercase). */
  wallet: string | null;
  request_body: BodyCopy | null;
  response_body: BodyCopy | null;
  /** The engine events appended while it ran: seq in (from, to]. */
  events: { from: number; to: number };
  links: RecordedLinks;
  rejection: Rejection | null;
  /**
   * A forced route fault on this request: with after_commit the effect in `links` was
   * committed and `committed_status` is the answer the client never got; `status` is
   * what it got (0 for "reset" and "timeout": no answer at all).
   */
  fault: FaultNote | null;
}

export interface ResolvedOrderLink {
  order_id: string;
  status: string | null;
}

export interface ResolvedFillLink {
  fill_id: number;
  /** True: the fill happened during the request; false: later, against an order it created. */
  during_request: boolean;
  symbol: string;
  maker_order_id: string;
  taker_order_id: string;
  status: string;
  settlement_id: number | null;
  tx_hash: string | null;
  revert_reason: string | null;
}

export interface ResolvedBatchLink {
  settlement_id: number;
  tx_hash: string | null;
  status: string;
  block: string | null;
  kind: "match" | "swap";
  fill_ids: number[];
  /** Distinct revert reasons of the batch's fills (any owner's: the batch is one transaction). */
  revert_reasons: string[];
}

/** An entry as read: its recorded links resolved against the engine's state now. */
export interface ResolvedEntry extends Omit<JournalEntry, "links"> {
  links: {
    orders_created: ResolvedOrderLink[];
    orders_cancelled: ResolvedOrderLink[];
    fills: ResolvedFillLink[];
    /** How many fills link to the request: `fills` holds a page of them when one was asked. */
    fills_total: number;
    /** The batches of the fills in `fills`. */
    settlement_batches: ResolvedBatchLink[];
    /** How many batches the linked fills (all of them) went in. */
    settlement_batches_total: number;
    /** Distinct on-chain revert reasons of the linked fills (all of them, paged or not). */
    revert_reasons: string[];
    quotes_consumed: string[];
    vl_batches: string[];
    vault_moves: (VaultMoveLink & { symbol: string | null; decimals: number | null })[];
  };
}

export interface JournalFilter {
  method?: string;
  /** Exact path, or a pattern where * matches any run of characters. */
  path?: string;
  /** An exact status (404) or a class ("4xx"). */
  status?: string | number;
  owner?: string;
  /** Only requests that arrived at or after this virtual time (epoch ms). */
  sinceMs?: number;
  /**
   * Only requests received before this one (an id such as "r42", which need not still be
   * in the journal): a fixed end for paging while new requests keep arriving.
   */
  before?: string;
  limit?: number;
  offset?: number;
}

export interface JournalPage {
  entries: ResolvedEntry[];
  total: number;
  next_offset: number | null;
}

export interface JournalState {
  seq: number;
  entries: JournalEntry[];
}

/** What the journal reads from the simulator: the clock and the engine's log and records. */
export type JournalSource = Pick<Engine, "log" | "clock" | "orderRecord" | "fillRecord" | "fillIdsOf" | "settlementBatch" | "registry">;

export interface RequestJournalOptions {
  /** Entries kept (oldest dropped first); 0 keeps none but still numbers requests. */
  size?: number;
  bodyBytes?: number;
}

const LOGGED_SEQ = Symbol("fakex.journalSeq");
type WithLoggedSeq = { [LOGGED_SEQ]?: number };

/**
 * A request replayed from the --state-dir log is journaled under the id (`r<seq>`) it had
 * when it was served, so ids a client printed before a crash still name the same request.
 */
export function keepJournalSeq(req: object, seq: number): void {
  (req as WithLoggedSeq)[LOGGED_SEQ] = seq;
}

const ARRIVED = Symbol("fakex.arrived");
type WithArrival = { [ARRIVED]?: { wall: number; t0: number } };

/**
 * Notes when a request arrived, for its entry's wall_time and duration_ms. Mounted ahead of
 * anything that can hold a request back (--state-dir runs state-changing requests one at a
 * time), so the wait for its turn counts in its duration; `at` stays the virtual time at
 * which it was served.
 */
export function noteArrival(): RequestHandler {
  return (req, _res, next) => {
    (req as WithArrival)[ARRIVED] ??= { wall: realNowMs(), t0: performance.now() };
    next();
  };
}

/** The sequence number of a request id the journal handed out (`r12` → 12), or undefined. */
export function journalSeqOf(id: unknown): number | undefined {
  if (typeof id !== "string" || !/^r[1-9][0-9]{0,14}$/.test(id)) return undefined;
  return Number(id.slice(1));
}

export class RequestJournal {
  readonly size: number;
  readonly bodyBytes: number;
  private seq = 0;
  // A ring: `entries` grows to `size`, then `head` marks the oldest entry to overwrite next.
  private entries: JournalEntry[] = [];
  private head = 0;

  constructor(
    private readonly source: JournalSource,
    o: RequestJournalOptions = {},
  ) {
    this.size = o.size ?? DEFAULT_JOURNAL_SIZE;
    if (!Number.isInteger(this.size) || this.size < 0) throw new RangeError(`journal size must be a whole number >= 0, got ${this.size}`);
    this.bodyBytes = o.bodyBytes ?? DEFAULT_JOURNAL_BODY_BYTES;
  }

  get length(): number {
    return this.entries.length;
  }

  /** Entries oldest first. */
  private ordered(): JournalEntry[] {
    return this.head === 0 ? this.entries : [...this.entries.slice(this.head), ...this.entries.slice(0, this.head)];
  }

  /** Mount on /api/v1 ahead of everything else, so every answer carries its id. */
  middleware(): RequestHandler {
    return (req, res, next) => {
      // A request replayed from a durable log keeps the id its client was given.
      const logged = (req as WithLoggedSeq)[LOGGED_SEQ];
      const seq = logged ?? ++this.seq;
      if (logged !== undefined && logged > this.seq) this.seq = logged;
      const id = `r${seq}`;
      res.setHeader("X-Request-Id", id);
      // Size 0 (load tests): numbered, nothing recorded, nothing captured.
      if (this.size === 0) return next();
      const at = this.source.clock.nowMs();
      const arrived = (req as WithArrival)[ARRIVED];
      const wall = arrived?.wall ?? realNowMs();
      const t0 = arrived?.t0 ?? performance.now();
      const fromEvent = this.source.log.length;
      // Read now: when an error or not-found handler of an outer app answers, express has
      // already moved baseUrl back out of /api/v1 (a pool instance's path would keep its /<id>).
      const path = apiPath(req.baseUrl, req.path);
      const note: RequestNote = {};
      // The client can be gone before the answer (it hung up during a body read ahead of the
      // routes, body-ahead.ts, or while a latency rule held the request): no finish comes then,
      // so the answer written into nothing ends the entry.
      const answer = captureResponseBody(res, this.bodyBytes, () => {
        if (res.closed) finish();
      });
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        const fault = note.fault;
        const replayed = fault !== undefined && note.faultReplayed === true;
        // A replayed after-commit fault: the replay got the committed answer, so that is its status.
        if (replayed && fault.after_commit) fault.committed_status = res.statusCode;
        const body = replayed ? replayedFaultBody(fault.kind, answer.body(), this.bodyBytes) : answer.body();
        // What the client got: a reset or timed-out request no answer at all (0, never
        // express's default 200), a replayed 503 fault the 503 rather than the logged answer;
        // a client that hung up before anything was answered, no answer either (0).
        const status = fault ? faultAnswerStatus(fault.kind, res.statusCode) : answer.ended() ? res.statusCode : 0;
        // Turned away: by the answer, or, after commit, by the route whose answer a fault then
        // lost (a committed 201 lost to a 503 was not turned away).
        const refused = fault?.after_commit === true ? (fault.committed_status ?? 0) >= 400 : status >= 400;
        const toEvent = this.source.log.length;
        const wallet = (res.locals["owner"] as string | undefined) ?? note.wallet ?? null;
        this.append({
          id,
          seq,
          at,
          at_iso: new Date(at).toISOString(),
          wall_time: new Date(wall).toISOString(),
          duration_ms: Math.round((performance.now() - t0) * 1000) / 1000,
          method: req.method,
          path,
          query: { ...(req.query as Record<string, string | string[]>) },
          status,
          wallet,
          request_body: copyRequestBody(req, this.bodyBytes),
          response_body: body,
          events: { from: fromEvent, to: toEvent },
          links: this.linksIn(fromEvent, toEvent, wallet),
          // A fault before the route answered the 503's detail (a truncate cuts it, so it cannot be read back).
          rejection: refused ? rejectionOf(note, body, fault && !fault.after_commit ? SERVICE_UNAVAILABLE_DETAIL : null) : null,
          fault: fault ?? null,
        });
      };
      res.once("finish", finish);
      // A hang-up during a latency rule's delay: the request is served after it (above).
      res.once("close", () => {
        if (note.delayed !== true) finish();
      });
      // ...or, the client gone, a route fault's last answer, which may never end() it (a hold,
      // a reset); a truncate writes its status just after it tells, so the entry waits a microtask.
      res.once(FAULT_ANSWERED, () => {
        if (res.closed) queueMicrotask(finish);
      });
      withRequestNote(note, next);
    };
  }

  private append(e: JournalEntry): void {
    if (this.size === 0) return;
    if (this.entries.length < this.size) {
      this.entries.push(e);
      return;
    }
    this.entries[this.head] = e;
    this.head = (this.head + 1) % this.size;
  }

  /**
   * Links from the events the request's window holds. Other requests may run at the
   * same time (their events fall in the window too), so only the request's own wallet's
   * orders count, and fills and quotes only through those orders.
   */
  private linksIn(from: number, to: number, wallet: string | null): RecordedLinks {
    const links: RecordedLinks = { orders_created: [], orders_cancelled: [], fills: [], quotes_consumed: [], vl_batches: [], vault_moves: [] };
    // A request without a wallet (public reads, previews, a signature that did not check
    // out) caused no order of anyone's: whatever else ran meanwhile is not its doing.
    const mine = (owner: unknown) => wallet !== null && owner === wallet;
    const created = new Set<string>();
    for (let i = from; i < to; i++) {
      const ev = this.source.log.at(i);
      const d = ev.data as Record<string, unknown>;
      switch (ev.type) {
        case "order_placed":
          if (mine(d["owner"])) {
            created.add(String(d["order_id"]));
            links.orders_created.push(String(d["order_id"]));
          }
          break;
        case "order_cancel": {
          const id = String(d["order_id"]);
          if (mine(this.ownerOf(id))) links.orders_cancelled.push(id);
          break;
        }
        case "fill":
          if (created.has(String(d["maker"])) || created.has(String(d["taker"]))) links.fills.push(Number(d["fill_id"]));
          break;
        case "swap_accepted":
          if (created.has(String(d["order_id"]))) links.quotes_consumed.push(String(d["quote_uuid"]));
          break;
        case "vl_batch":
          if (mine(d["owner"])) links.vl_batches.push(String(d["vl_batch_id"]));
          break;
        case "deposit":
        case "withdrawal":
          if (mine(d["owner"])) links.vault_moves!.push({ kind: ev.type, token: String(d["token"]), amount: String(d["amount"]) });
          break;
      }
    }
    return links;
  }

  private ownerOf(orderId: string): string | null {
    try {
      return this.source.orderRecord(orderId).owner;
    } catch {
      return null;
    }
  }

  /**
   * Entries matching the filter, newest first, a page at a time; links resolved now.
   * `fillsLimit`: how many of each entry's fills (from its first) to list; all by default.
   */
  list(f: JournalFilter = {}, fillsLimit: number | null = null): JournalPage {
    const limit = f.limit ?? 100;
    const offset = f.offset ?? 0;
    // The same bounds over HTTP and from code (ex.control.requests()).
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_JOURNAL_PAGE) throw new RangeError(`limit must be a number 1-${MAX_JOURNAL_PAGE}, got ${shown(limit)}`);
    if (!Number.isInteger(offset) || offset < 0) throw new RangeError(`offset must be a whole number >= 0, got ${shown(offset)}`);
    const matching = this.matching(f);
    const page = matching.slice(offset, offset + limit);
    const resolve = this.resolver();
    const fills = fillsLimit === null ? null : { offset: 0, limit: fillsLimit };
    return { entries: page.map((e) => resolve(e, fills)), total: matching.length, next_offset: offset + limit < matching.length ? offset + limit : null };
  }

  count(f: JournalFilter = {}): number {
    return this.matching(f).length;
  }

  /** One entry, its links resolved; `fillsPage`: a page of its fills (in fill order) and their batches only. */
  get(id: string, fillsPage: { offset: number; limit: number } | null = null): ResolvedEntry | undefined {
    const e = this.entries.find((x) => x.id === id);
    return e ? this.resolver()(e, fillsPage) : undefined;
  }

  /** The raw entries, oldest first (the report and tests that want every field as recorded). */
  all(): readonly JournalEntry[] {
    return this.ordered();
  }

  clear(): number {
    const n = this.entries.length;
    this.entries = [];
    this.head = 0;
    return n;
  }

  snapshot(): JournalState {
    return { seq: this.seq, entries: this.ordered().slice() };
  }

  /** How many request ids it handed out. */
  get issued(): number {
    return this.seq;
  }

  /**
   * Number on from ids handed out before (a pool id's earlier instance): an id printed
   * then never names a request of this one.
   */
  continueNumberingAfter(issued: number): void {
    this.seq = Math.max(this.seq, issued);
  }

  /** Entries come back; the counter never goes back, so an id printed earlier stays unique. */
  restore(s: JournalState): void {
    if (!Array.isArray(s.entries) || !Number.isInteger(s.seq)) throw new RangeError("journal state: entries and seq expected");
    this.entries = this.size === 0 ? [] : s.entries.slice(-this.size);
    this.head = 0;
    this.seq = Math.max(this.seq, s.seq);
  }

  private matching(f: JournalFilter): JournalEntry[] {
    const method = f.method?.toUpperCase();
    const path = f.path === undefined ? undefined : pathMatcher(f.path);
    const status = f.status === undefined ? undefined : statusMatcher(String(f.status));
    const beforeSeq = f.before === undefined ? undefined : seqOfId(f.before);
    // A NaN or a string would match nothing (or everything) without a word.
    if (f.sinceMs !== undefined && (typeof f.sinceMs !== "number" || !Number.isFinite(f.sinceMs))) throw new RangeError(`sinceMs must be a finite number (virtual Unix milliseconds), got ${shown(f.sinceMs)}`);
    if (f.owner !== undefined && (typeof f.owner !== "string" || !ADDRESS_RE.test(f.owner))) throw new RangeError(`owner must be a 0x address, got ${shown(f.owner)}`);
    const owner = f.owner?.toLowerCase();
    const out: JournalEntry[] = [];
    const all = this.ordered();
    for (let i = all.length - 1; i >= 0; i--) {
      const e = all[i]!;
      if (method !== undefined && e.method !== method) continue;
      if (path !== undefined && !path(e.path)) continue;
      if (status !== undefined && !status(e.status)) continue;
      if (owner !== undefined && e.wallet !== owner) continue;
      if (f.sinceMs !== undefined && e.at < f.sinceMs) continue;
      if (beforeSeq !== undefined && e.seq >= beforeSeq) continue;
      out.push(e);
    }
    return out;
  }

  /**
   * Fills and batches looked up by id for a page's entries (shared by them): a read costs
   * what the page links to, not a pass over every fill of the run.
   */
  private resolver(): (e: JournalEntry, fillsPage?: { offset: number; limit: number } | null) => ResolvedEntry {
    const fills = new Map<number, FillRecord | undefined>();
    const fillById = (id: number) => (fills.has(id) ? fills.get(id) : fills.set(id, this.source.fillRecord(id)).get(id));
    const fillsOfOrder = (orderId: string) => this.source.fillIdsOf(orderId);
    const order = (id: string): ResolvedOrderLink => {
      try {
        return { order_id: id, status: this.source.orderRecord(id).status };
      } catch {
        return { order_id: id, status: null };
      }
    };
    return (e, fillsPage = null) => {
      const fillLinks: ResolvedFillLink[] = [];
      // The fills the request made, then later ones against the orders it created (a
      // resting order filled by someone else's request leads back here too).
      const during = new Set(e.links.fills);
      const ids = new Set(e.links.fills);
      for (const o of e.links.orders_created) for (const id of fillsOfOrder(o)) ids.add(id);
      const linked = [...ids].filter((id) => fillById(id) !== undefined).sort((a, b) => a - b);
      const revert_reasons = [...new Set(linked.map((id) => fillById(id)!.revertReason).filter((x): x is string => x !== null))];
      const batchesTotal = new Set(linked.map((id) => fillById(id)!.settlementId).filter((x) => x !== null)).size;
      const shown = fillsPage ? linked.slice(fillsPage.offset, fillsPage.offset + fillsPage.limit) : linked;
      for (const id of shown) {
        const f = fillById(id)!;
        fillLinks.push({
          fill_id: f.id,
          during_request: during.has(f.id),
          symbol: f.symbol,
          maker_order_id: f.makerOrderId,
          taker_order_id: f.takerOrderId,
          status: f.status,
          settlement_id: f.settlementId,
          tx_hash: f.txHash,
          revert_reason: f.revertReason,
        });
      }
      const batchIds = [...new Set(fillLinks.map((f) => f.settlement_id).filter((x): x is number => x !== null))].sort((a, b) => a - b);
      const settlement_batches = batchIds
        .map((id) => this.source.settlementBatch(id))
        .filter((b) => b !== undefined)
        .map((b) => batchLink(b, (id) => fillById(id)?.revertReason));
      return {
        ...e,
        links: {
          orders_created: e.links.orders_created.map(order),
          orders_cancelled: e.links.orders_cancelled.map(order),
          fills: fillLinks,
          fills_total: linked.length,
          settlement_batches,
          settlement_batches_total: batchesTotal,
          revert_reasons,
          quotes_consumed: e.links.quotes_consumed,
          vl_batches: e.links.vl_batches,
          // Entries saved before vault moves were recorded have none.
          vault_moves: (e.links.vault_moves ?? []).map((m) => {
            const t = this.source.registry.token(m.token);
            return { ...m, symbol: t?.symbol ?? null, decimals: t?.decimals ?? null };
          }),
        },
      };
    };
  }
}

/** A settlement batch as the journal and the run viewer show it; `reasonOf` reads a fill's revert reason. */
export function batchLink(b: Readonly<SettlementBatch>, reasonOf: (fillId: number) => string | null | undefined): ResolvedBatchLink {
  return {
    settlement_id: b.id,
    tx_hash: b.txHash,
    status: b.status,
    block: b.minedBlock === null ? null : b.minedBlock.toString(),
    kind: b.kind === "swap" ? "swap" : "match",
    fill_ids: [...b.fillIds],
    revert_reasons: [...new Set(b.fillIds.map(reasonOf).filter((x): x is string => typeof x === "string"))],
  };
}

/**
 * The request's path from /api/v1 on: a pool instance's app is mounted under /<id>, and
 * its journal (its own) records /api/v1/orders as any exchange's does, so filters and
 * tests read the same whichever instance served them.
 */
function apiPath(baseUrl: string, path: string): string {
  const at = baseUrl.lastIndexOf("/api/v1");
  return (at >= 0 ? baseUrl.slice(at) : baseUrl) + path;
}

/** A value in an error: numbers as they are, anything else as JSON ("5" is not 5). */
function shown(v: unknown): string {
  return typeof v === "number" ? String(v) : JSON.stringify(v) ?? String(v);
}

/** The arrival number of a journal id ("r42" → 42); RangeError for anything else. */
function seqOfId(id: string): number {
  if (typeof id !== "string" || !/^r[1-9][0-9]{0,14}$/.test(id)) throw new RangeError(`before: a request id such as r42, not ${JSON.stringify(id)}`);
  return Number(id.slice(1));
}

function pathMatcher(p: string): (path: string) => boolean {
  if (!p.includes("*")) return (x) => x === p;
  const parts = p.split("*");
  return (x) => globMatches(parts, x);
}

/**
 * Whether `x` is the pattern's pieces (split at each `*`) in order with anything between:
 * the first piece a prefix, the last a suffix, each middle one found leftmost after the one
 * before (leftmost leaves the most room for the rest, so no match is missed). Linear in the
 * path per piece; a regex `^a.*b.*c$` backtracks, and a few `*` on a long path froze the server.
 */
export function globMatches(parts: readonly string[], x: string): boolean {
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (x.length < first.length + last.length || !x.startsWith(first) || !x.endsWith(last)) return false;
  const end = x.length - last.length;
  let at = first.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const piece = parts[i]!;
    const found = x.indexOf(piece, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}

function statusMatcher(s: string): (status: number) => boolean {
  const cls = /^([1-5])xx$/i.exec(s);
  if (cls) return (x) => Math.floor(x / 100) === Number(cls[1]);
  // 0 is what a reset or timed-out request (a route fault) left: no answer at all.
  if (!/^([1-5]\d\d|0)$/.test(s)) throw new RangeError(`status must be a code (404, or 0 for no answer) or a class (4xx), got ${JSON.stringify(s)}`);
  return (x) => x === Number(s);
}

function cut(text: string, max: number): BodyCopy {
  const bytes = Buffer.byteLength(text);
  if (bytes <= max) return { text, bytes, truncated: false };
  return { text: Buffer.from(text).subarray(0, max).toString("utf8"), bytes, truncated: true };
}

/**
 * A body as its bytes came: counted and cut as bytes (decoding first would count each byte
 * that is not UTF-8 as the three of U+FFFD), and kept in base64 when it is not UTF-8 text.
 */
function cutBytes(raw: Buffer, max: number): BodyCopy {
  const kept = raw.length <= max ? raw : raw.subarray(0, max);
  const truncated = kept.length < raw.length;
  // Judged on what is kept (text with a bad byte past the cut is shown as text), a character cut at its end aside.
  if (truncated ? isUtf8Start(kept) : isUtf8(kept)) return { text: kept.toString("utf8"), bytes: raw.length, truncated };
  return { text: kept.toString("base64"), bytes: raw.length, truncated, encoding: "base64" };
}

/**
 * Whether bytes are the start of UTF-8 text: valid, but for a character the end may cut short.
 * A streaming decoder throws only on bytes no continuation could make valid (0xff, an
 * overlong or surrogate lead), and holds back an incomplete last character.
 */
function isUtf8Start(b: Buffer): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(b, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/** The parsed body as JSON text; a body that did not parse, as it was sent; null when none was read. */
function copyRequestBody(req: Request, max: number): BodyCopy | null {
  const body = req.body as unknown;
  if (typeof body === "string") return cut(body, max);
  if (body !== undefined) {
    const text = jsonTextOf(body);
    // In place of a body too deep to copy: the note, with the size the client sent.
    if (text === null) return { text: NOT_COPIED, bytes: Number(req.headers["content-length"]) || Buffer.byteLength(NOT_COPIED), truncated: true };
    return cut(text, max);
  }
  // A replayed request: the body of the request that was logged, whose text may be only its start.
  const logged = loggedBody(req);
  if (logged !== undefined) {
    if (logged === null) return null;
    if (logged.encoding === "base64") {
      const kept = Buffer.from(logged.text, "base64").subarray(0, max);
      return { text: kept.toString("base64"), bytes: logged.bytes, truncated: logged.bytes > max, encoding: "base64" };
    }
    return { text: cut(logged.text, max).text, bytes: logged.bytes, truncated: logged.bytes > max };
  }
  const raw = unparsedBody(req);
  return raw === undefined ? null : cutBytes(raw, max);
}

/**
 * JSON text of a parsed body. JSON.parse takes any depth but JSON.stringify recurses: a body
 * nested thousands deep (a few kB) overflows the stack, which here, after the answer went
 * out, would take the process down. Such a body is recorded by a note instead (null here).
 */
function jsonTextOf(body: unknown): string | null {
  try {
    return JSON.stringify(body);
  } catch {
    return null;
  }
}

const NOT_COPIED = "[not recorded: nested too deeply to copy]";

/**
 * Keep the first `max` bytes of what the response writes; read them back when it is done
 * (`body`), and whether it was ever ended (`ended`: an answer was given, even into a closed
 * connection). `onEnd` runs after each end().
 */
function captureResponseBody(res: import("express").Response, max: number, onEnd?: () => void): { body: () => BodyCopy | null; ended: () => boolean } {
  let ended = false;
  const chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  const take = (chunk: unknown, encoding: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === "function") return;
    const buf = Buffer.isBuffer(chunk) ? chunk : typeof chunk === "string" ? Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8") : null;
    if (!buf) return;
    total += buf.length;
    if (kept < max) {
      const part = buf.subarray(0, max - kept);
      chunks.push(part);
      kept += part.length;
    }
  };
  const write = res.write.bind(res) as (...a: unknown[]) => boolean;
  const end = res.end.bind(res) as (...a: unknown[]) => unknown;
  res.write = ((...a: unknown[]) => {
    take(a[0], a[1]);
    return write(...a);
  }) as typeof res.write;
  res.end = ((...a: unknown[]) => {
    ended = true;
    take(a[0], a[1]);
    const out = end(...a);
    onEnd?.();
    return out;
  }) as typeof res.end;
  return {
    body: () => (total === 0 ? null : { text: Buffer.concat(chunks).toString("utf8"), bytes: total, truncated: total > kept }),
    ended: () => ended,
  };
}

/**
 * The body a client got from a route fault, when the journal saw the request replayed
 * (the replay's own answer was the logged one): none, the 503's, or half of the answer.
 */
function replayedFaultBody(kind: string, replayAnswer: BodyCopy | null, max: number): BodyCopy | null {
  const routeBody = Buffer.from(replayAnswer?.text ?? "", "utf8");
  const got = faultAnswerBody(kind, routeBody);
  if (got === null) return null;
  if (kind === "truncate" && replayAnswer?.truncated) {
    // Only the journal's first `max` bytes of the answer were kept: half of all of it, cut there.
    const half = Math.floor(replayAnswer.bytes / 2);
    return half === 0 ? null : { text: routeBody.subarray(0, Math.min(half, max)).toString("utf8"), bytes: half, truncated: half > max };
  }
  if (got.length === 0) return null;
  return { text: got.subarray(0, max).toString("utf8"), bytes: got.length, truncated: got.length > max };
}

/** Why a request was turned away: the noted error, the fields it names, a signature's near miss. */
function rejectionOf(note: RequestNote, body: BodyCopy | null, faultDetail: string | null): Rejection {
  const detail = note.error?.detail ?? faultDetail ?? detailOf(body);
  const fields = new Set<string>();
  for (const m of (detail ?? "").matchAll(/\b((?:body|query|params)(?:\.[A-Za-z0-9_]+)*):/g)) fields.add(m[1]!);
  if (note.error?.field !== undefined) fields.add(`body.${note.error.field}`);
  if (note.signature) fields.add(note.signature.field);
  return { code: note.error?.code ?? null, detail, fields: [...fields], ...(note.signature ? { signature: note.signature } : {}) };
}

function detailOf(body: BodyCopy | null): string | null {
  if (!body || body.truncated) return null;
  try {
    const v = JSON.parse(body.text) as { detail?: unknown };
    const d = v.detail;
    if (typeof d === "string") return d;
    if (d && typeof d === "object" && typeof (d as { detail?: unknown }).detail === "string") return (d as { detail: string }).detail;
  } catch {
    // not JSON: no detail to read
  }
  return null;
}
