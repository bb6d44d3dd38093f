// The control API over HTTP, mounted at /__fakex (off the /api/v1 surface, so
// it never shadows or changes an interface route). Each endpoint validates its
// JSON, calls the in-process ControlHandle and answers JSON; bad input is 400
// {"detail"}, an unknown control path 404 {"detail": "Not Found"}.
//
//   POST /clock/advance {"seconds"}            virtual clock and chain time together
//   GET  /clock                                 {"now", "iso"}
//   POST /mine {"blocks"}                       mine blocks (default 1)
//   GET|POST /block-mode {"mode", "seconds"}    automine | interval (seconds) | manual
//   POST /settle                                drive every matched fill to a final status
//   POST /fund {"address","token","amount","vault"}  mint (and deposit into the vault)
//   POST /snapshot → {"id"}; POST /restore {"id"}     all layers
//   GET  /events/hash → {"hash"}; GET /events?after&limit   the engine's event log
//   GET|POST|DELETE /faults {"plan"}            settlement fault plan
//   GET|POST /fx/quotes {"quotes","replace"}    FX provider quotes
//   POST /executor {"executor_id","relayer_follows"}  rotate the executor id
//   GET|POST /health {"degraded","signature_ready","unavailable","relayer_executor_id"}
//   GET|POST|DELETE /routes {"rules"}           forced faults / latency on /api/v1 routes
//   GET|POST|DELETE /activity {"markets","takers_per_min","volatility","step_sec"}
//                                               seeded market agents (start / retune, stop, read)
import type { EventType } from "../core/event-types.ts";
import express, { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from "express";
import { z } from "zod";
import { isExchangeError } from "../core/errors.ts";
import type { FxQuote } from "../core/fx.ts";
import type { FaultPlan } from "../core/faults.ts";
import type { FillStatus } from "../core/fills.ts";
import type { OrderStatus } from "../core/orders.ts";
import type { RouteFaultRule } from "./control-faults.ts";
import { zAddress, zUint256 } from "./fields.ts";
import { issueText } from "./validate.ts";
import { noteBodyRefusal, requestError } from "./errors.ts";
import { parseAhead } from "./body-ahead.ts";
import { MAX_MINE_BLOCKS } from "../chain/anvil.ts";
import { isNodeUnreachable } from "../chain/node-unreachable.ts";

export const CONTROL_PREFIX = "/__fakex";

/**
 * The one router every /__fakex route goes into (journal, views, viewer, control API, in that
 * order). A router that matches nothing hands the request on through the global
 * `setImmediate`, which a test's fake timers hold: one router that serves every control path
 * (its last route a 404) never does, so the control API answers under `vi.useFakeTimers()`.
 */
export function controlPrefixRouter(): Router {
  return Router({ caseSensitive: true });
}

/** Longest interval mining fakex takes (POST /block-mode, --block-time, the options). */
export const MAX_BLOCK_SECONDS = 3600;

export type ControlBlockMode = { kind: "automine" } | { kind: "interval"; seconds: number } | { kind: "manual" };

export interface ControlHealth {
  /** As GET /api/v1/health shows it: "unavailable" while it answers 503. */
  status: "healthy" | "degraded" | "unavailable";
  executor_id: number;
  relayer_executor_id: number | null;
  signature_ready: boolean;
  unavailable: boolean;
}

export interface ControlEvent {
  seq: number;
  /** Virtual clock reading in Unix milliseconds (control times elsewhere are seconds). */
  at: number;
  type: string;
  data: unknown;
}

export interface EventPageOptions {
  /** Only events with a smaller seq; the page is then the newest `limit` of them. */
  before?: number;
  /** Only these event types (sim/core/event-types.ts); an unknown name is refused. */
  types?: readonly EventType[];
}

export interface ControlEventPage {
  events: ControlEvent[];
  /** The log's length. */
  total: number;
  /** Without `before`: the `after` of the next page, null at the end. */
  next_after: number | null;
  /** With `before`: the `before` of the next older page, null at the start. */
  next_before: number | null;
}

/** Counts by status after settling; a status no fill (order) has is absent. */
export interface SettleSummary {
  /** Fills by settlement status. */
  fills: Partial<Record<FillStatus, number>>;
  /** Orders (those with fills) by status. */
  orders: Partial<Record<OrderStatus, number>>;
}

/** What the control API can do; createFakeExchange's `control` implements it. */
export interface ControlHandle {
  advanceClock(seconds: number): Promise<{ now: number; chain_timestamp: number }>;
  now(): { now: number; iso: string };
  mine(blocks: number): Promise<{ block_number: number }>;
  blockMode(): ControlBlockMode;
  setBlockMode(mode: ControlBlockMode): Promise<void>;
  settle(): Promise<SettleSummary>;
  /** Mint `amount` of `token` (symbol or address) to `address`; with vault, deposit it too. */
  fund(p: { address: string; token: string; amount: bigint; vault: boolean }): Promise<{ wallet_balance: string; vault_available: string }>;
  snapshot(): Promise<string>;
  restore(id: string): Promise<void>;
  eventHash(): string;
  /** A page of the event log: after `after` (a seq), and with `before` the newest ones below it; `types` filters. */
  events(after: number, limit: number, options?: EventPageOptions): ControlEventPage;
  faultPlan(): FaultPlan;
  /** null clears the plan. */
  setFaultPlan(plan: unknown): FaultPlan;
  /** EIP-7702 delegates a relayed type-4 transaction may authorise. */
  delegateAllowlist(): string[];
  /** Replace them (addresses, any letter case); RangeError on anything else. Returns the list. */
  setDelegateAllowlist(addresses: readonly string[]): string[];
  fxQuotes(): FxQuote[];
  setFxQuotes(quotes: readonly FxQuote[], replace: boolean): void;
  rotateExecutor(id: number, relayerFollows: boolean): void;
  health(): ControlHealth;
  setHealth(p: { degraded?: boolean; signature_ready?: boolean; unavailable?: boolean; relayer_executor_id?: number | null }): ControlHealth;
  routeFaults(): RouteFaultRule[];
  /** Validated by the handle (parseRouteFaultRules); [] clears. */
  setRouteFaults(rules: unknown): RouteFaultRule[];
  /** Seeded market activity (fixtures/activity.ts); absent where the handle has none (404). */
  activity?(): unknown;
  /** Start or retune the agents; the handle validates the fields (400 on bad input). */
  startActivity?(input: Record<string, unknown>): Promise<unknown>;
  /** Stop them on these markets (all when absent). */
  stopActivity?(markets?: "*" | string[]): unknown;
}

export class ControlInputError extends Error {
  readonly status = 400;
}

/**
 * The caller's input errors of the control routes (400): a ControlInputError, a RangeError
 * from a handle's checks, and a path segment with broken percent-encoding (/orders/%zz:
 * express's router cannot decode it and hands over a URIError).
 */
export function isControlInputError(err: unknown): err is Error {
  return err instanceof ControlInputError || err instanceof RangeError || err instanceof URIError;
}

/** A control or journal query with a key given twice (express reads it as an array) is refused, naming the key. */
export function checkQueryKeysOnce(query: unknown): void {
  if (query === null || typeof query !== "object") return;
  for (const [k, v] of Object.entries(query)) if (Array.isArray(v)) throw new ControlInputError(`${k}: given more than once; send it once`);
}

export const MAX_EVENTS_PAGE = 1000;

const schemas = {
  advance: z.object({ seconds: z.number().int().min(0).max(100 * 365 * 86400) }).strict(),
  mine: z.object({ blocks: z.number().int().min(1).max(MAX_MINE_BLOCKS).optional() }).strict(),
  blockMode: z
    .object({ mode: z.enum(["automine", "interval", "manual"]), seconds: z.number().int().min(1).max(MAX_BLOCK_SECONDS).optional() })
    .strict()
    .refine((b) => (b.mode === "interval") === (b.seconds !== undefined), { message: "seconds is required with mode interval, and only then" }),
  fund: z
    .object({
      address: zAddress,
      token: z.string().min(1).max(64),
      amount: zUint256("must be a positive raw uint256 decimal string", { canonical: true, positive: true }),
      vault: z.boolean().optional(),
    })
    .strict(),
  restore: z.object({ id: z.string().min(1).max(64) }).strict(),
  events: z
    .object({
      after: z.string().regex(/^\d{1,15}$/, "must be a whole decimal number (a seq)").optional(),
      before: z.string().regex(/^\d{1,15}$/, "must be a whole decimal number (a seq)").optional(),
      limit: z.string().regex(/^\d{1,6}$/, `must be a whole number 1-${MAX_EVENTS_PAGE}`).optional(),
      type: z.string().max(1000, "is too long (event types, comma-separated)").optional(),
    })
    .strict(),
  // Routes that take no options: a body with keys is refused, not ignored (a caller
  // sending {"blocks": 3} to /settle would otherwise believe it was obeyed).
  noOptions: z.object({}).strict(),
  faults: z.object({ plan: z.unknown().optional() }).strict(),
  // Each address is checked by the allowlist itself (a RangeError naming the entry: 400).
  delegates: z.object({ allowlist: z.array(z.unknown()) }).strict(),
  fxQuotes: z
    .object({
      quotes: z
        .array(
          z
            .object({
              provider: z.string().min(1).max(64),
              base: z.string().regex(/^[A-Za-z]{3}$/, "must be a 3-letter currency code"),
              quote: z.string().regex(/^[A-Za-z]{3}$/, "must be a 3-letter currency code"),
              rate: z.string().regex(/^(0|[1-9][0-9]*)(\.[0-9]+)?$/, 'must be a decimal string such as "1.0842"'),
              ts: z.number().int().min(0),
            })
            .strict(),
        )
        .max(10_000),
      replace: z.boolean().optional(),
    })
    .strict(),
  executor: z.object({ executor_id: z.number().int().min(0).max(15), relayer_follows: z.boolean().optional() }).strict(),
  health: z
    .object({ degraded: z.boolean().optional(), signature_ready: z.boolean().optional(), unavailable: z.boolean().optional(), relayer_executor_id: z.union([z.number().int().min(0).max(15), z.null()]).optional() })
    .strict(),
  routes: z.object({ rules: z.array(z.unknown()) }).strict(),
  // Its keys are checked by the activity itself; a record would drop a "__proto__" key unsaid (refused below).
  activity: z.record(z.string(), z.unknown()),
  activityStop: z.object({ markets: z.union([z.literal("*"), z.array(z.string())]).optional() }).strict(),
};

/** A body of a route that takes no options: empty or `{}` (the pool's reset checks with it too). */
export function checkNoOptions(body: unknown): void {
  parse(schemas.noOptions, body);
}

/** `where` names what a whole-value issue (an unknown key) is about: the body, or the query. */
function parse<S extends z.ZodType>(schema: S, value: unknown, where: "body" | "query" = "body"): z.output<S> {
  const r = schema.safeParse(value ?? {});
  if (r.success) return r.data;
  const detail = r.error.issues.map((i) => `${i.path.length ? i.path.join(".") : where}: ${issueText(i)}`).join("; ");
  throw new ControlInputError(detail);
}

/** Async handler → express handler with errors passed on. */
function h(fn: (req: Request, res: Response) => unknown): RequestHandler {
  return (req, res, next) => {
    Promise.resolve()
      .then(() => fn(req, res))
      .catch(next);
  };
}

/** 405 with Allow for the other methods on a control route (the control API's, the journal's and the views'). */
export function notAllowed(...methods: string[]): RequestHandler {
  return (_req, res) => {
    res.setHeader("Allow", methods.join(", "));
    res.status(405).json({ detail: "Method Not Allowed" });
  };
}

/** The largest control request body (a scenario or a state file can be large). */
export const CONTROL_BODY_LIMIT_BYTES = 5 * 1024 * 1024;

/** The control API's routes, last in the /__fakex router (they end it with a 404 for any other path). */
export function controlRouter(c: ControlHandle, r: Router = controlPrefixRouter()): Router {
  // parseAhead: with --state-dir the body was read before the log's lock (body-ahead.ts).
  // Any Content-Type is read as JSON (`curl -d` sends a form type, some clients text/plain):
  // left unparsed, a body would be ignored and the route would run on its defaults.
  r.use(parseAhead(express.json({ limit: CONTROL_BODY_LIMIT_BYTES, type: () => true })));

  r.route("/clock/advance")
    .post(h(async (req, res) => res.json(await c.advanceClock(parse(schemas.advance, req.body).seconds))))
    .all(notAllowed("POST"));
  r.route("/clock")
    .get(h((_req, res) => res.json(c.now())))
    .all(notAllowed("GET"));
  r.route("/mine")
    .post(h(async (req, res) => res.json(await c.mine(parse(schemas.mine, req.body).blocks ?? 1))))
    .all(notAllowed("POST"));
  r.route("/block-mode")
    .get(h((_req, res) => res.json(blockModeWire(c.blockMode()))))
    .post(
      h(async (req, res) => {
        const b = parse(schemas.blockMode, req.body);
        await c.setBlockMode(b.mode === "interval" ? { kind: "interval", seconds: b.seconds! } : { kind: b.mode });
        res.json(blockModeWire(c.blockMode()));
      }),
    )
    .all(notAllowed("GET", "POST"));
  r.route("/settle")
    .post(
      h(async (req, res) => {
        checkNoOptions(req.body);
        res.json(await c.settle());
      }),
    )
    .all(notAllowed("POST"));
  r.route("/fund")
    .post(
      h(async (req, res) => {
        const b = parse(schemas.fund, req.body);
        res.json(await c.fund({ address: b.address, token: b.token, amount: BigInt(b.amount), vault: b.vault ?? false }));
      }),
    )
    .all(notAllowed("POST"));
  r.route("/snapshot")
    .post(
      h(async (req, res) => {
        checkNoOptions(req.body);
        res.json({ id: await c.snapshot() });
      }),
    )
    .all(notAllowed("POST"));
  r.route("/restore")
    .post(
      h(async (req, res) => {
        const { id } = parse(schemas.restore, req.body);
        await c.restore(id);
        res.json({ status: "ok", id });
      }),
    )
    .all(notAllowed("POST"));
  r.route("/events/hash")
    .get(h((_req, res) => res.json({ hash: c.eventHash() })))
    .all(notAllowed("GET"));
  r.route("/events")
    .get(
      h((req, res) => {
        checkQueryKeysOnce(req.query);
        const q = parse(schemas.events, req.query, "query");
        const limit = q.limit === undefined ? 100 : Number(q.limit);
        if (limit < 1 || limit > MAX_EVENTS_PAGE) throw new ControlInputError(`limit must be 1-${MAX_EVENTS_PAGE}`);
        const options: EventPageOptions = {
          ...(q.before === undefined ? {} : { before: Number(q.before) }),
          // Checked by the handle (an unknown name is its RangeError: 400).
          ...(q.type === undefined ? {} : { types: q.type.split(",") as EventType[] }),
        };
        res.type("application/json").send(jsonWithBigints(c.events(q.after === undefined ? 0 : Number(q.after), limit, options)));
      }),
    )
    .all(notAllowed("GET"));
  r.route("/faults")
    .get(h((_req, res) => res.json({ plan: c.faultPlan() })))
    .post(
      h((req, res) => {
        const { plan } = parse(schemas.faults, req.body);
        if (plan === undefined) throw new ControlInputError("plan: is required (a fault plan object, or null to clear it as DELETE /__fakex/faults does)");
        res.json({ plan: c.setFaultPlan(plan) });
      }),
    )
    .delete(h((_req, res) => res.json({ plan: c.setFaultPlan(null) })))
    .all(notAllowed("GET", "POST", "DELETE"));
  r.route("/delegates")
    .get(h((_req, res) => res.json({ allowlist: c.delegateAllowlist() })))
    .post(h((req, res) => res.json({ allowlist: c.setDelegateAllowlist(parse(schemas.delegates, req.body).allowlist as string[]) })))
    .all(notAllowed("GET", "POST"));
  r.route("/fx/quotes")
    .get(h((_req, res) => res.json({ quotes: c.fxQuotes() })))
    .post(
      h((req, res) => {
        const b = parse(schemas.fxQuotes, req.body);
        c.setFxQuotes(b.quotes, b.replace ?? false);
        res.json({ count: c.fxQuotes().length });
      }),
    )
    .all(notAllowed("GET", "POST"));
  r.route("/executor")
    .post(
      h((req, res) => {
        const b = parse(schemas.executor, req.body);
        c.rotateExecutor(b.executor_id, b.relayer_follows ?? true);
        res.json(c.health());
      }),
    )
    .all(notAllowed("POST"));
  r.route("/health")
    .get(h((_req, res) => res.json(c.health())))
    .post(h((req, res) => res.json(c.setHealth(parse(schemas.health, req.body)))))
    .all(notAllowed("GET", "POST"));
  r.route("/routes")
    .get(h((_req, res) => res.json({ rules: c.routeFaults() })))
    .post(h((req, res) => res.json({ rules: c.setRouteFaults(parse(schemas.routes, req.body).rules) })))
    .delete(h((_req, res) => res.json({ rules: c.setRouteFaults([]) })))
    .all(notAllowed("GET", "POST", "DELETE"));
  if (c.activity && c.startActivity && c.stopActivity) {
    const [read, start, stop] = [c.activity.bind(c), c.startActivity.bind(c), c.stopActivity.bind(c)];
    r.route("/activity")
      .get(h((_req, res) => res.json(read())))
      .post(
        h(async (req, res) => {
          if (req.body !== null && typeof req.body === "object" && Object.hasOwn(req.body as object, "__proto__")) throw new ControlInputError("activity: unknown key __proto__");
          res.json(await start(parse(schemas.activity, req.body)));
        }),
      )
      .delete(h((req, res) => res.json(stop(parse(schemas.activityStop, req.body).markets))))
      .all(notAllowed("GET", "POST", "DELETE"));
  }

  r.use((_req, res) => {
    res.status(404).json({ detail: "Not Found" });
  });
  r.use(controlErrors);
  return r;
}

/** A block mode on the wire: `{"mode"}`, and `"seconds"` for interval mining. */
export function blockModeWire(m: ControlBlockMode): { mode: string; seconds?: number } {
  return m.kind === "interval" ? { mode: "interval", seconds: m.seconds } : { mode: m.kind };
}

/** Event data may hold bigints (raw amounts): they travel as decimal strings. */
function jsonWithBigints(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x));
}

const controlErrors: ErrorRequestHandler = (err: unknown, req, res, next) => {
  if (res.headersSent) return next(err);
  noteBodyRefusal(req, err);
  const e = err as { type?: string; status?: number; message?: string };
  if (isControlInputError(err)) {
    res.status(400).json({ detail: err.message });
  } else if (isExchangeError(err)) {
    // Core validation (fault plans, unknown tokens, FX quotes) is the caller's input: 400.
    res.status(err.status >= 500 ? err.status : 400).json({ detail: err.detail });
  } else if ((e?.status === 404 || e?.status === 410) && err instanceof Error) {
    // An unknown snapshot id and the like; a snapshot that can no longer be restored (410).
    res.status(e.status).json({ detail: err.message });
  } else if (e?.type === "entity.parse.failed") {
    // Not JSON, or JSON that is not an object (null, 1, "x"): the text says which.
    res.status(400).json({ detail: requestError(err)?.detail ?? "Request body is not valid JSON" });
  } else {
    // A body too large, in an unknown charset or encoding, or cut short: the caller's (413, 415, 400).
    const bodyError = requestError(err);
    if (bodyError) res.status(bodyError.status).json({ detail: bodyError.detail });
    else if (isNodeUnreachable(err)) res.status(503).set("Retry-After", "1").json({ detail: `the chain node does not answer (its Anvil stopped?): ${(err as Error).message}` });
    else res.status(500).json({ detail: err instanceof Error ? err.message : String(err) });
  }
};
