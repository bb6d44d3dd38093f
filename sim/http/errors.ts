// The one place where errors become HTTP responses. Routes and the engine throw
// ExchangeError; this module picks the envelope the spec gives for the route, puts
// in it the wire code wire-codes.ts maps the error to (never an internal code name),
// turns body-parser failures into 4xx, and hides every unexpected exception behind
// the spec's 503 (logged, never leaking a stack).

import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from "express";
import { ExchangeError, isExchangeError } from "../core/errors.ts";
import { TYPED_QUOTE_CODES } from "../core/quotes.ts";
import { noteError } from "./journal-notes.ts";
import { markBareValueRefused, sentAsOtherType } from "./body.ts";
import { markBodyRefused } from "./body-refusal.ts";
import { requiredWireCode, wireCodeOf } from "./wire-codes.ts";

/**
 * Error body shapes of the spec (codes: wire-codes.ts):
 * - plain:     {"detail": "..."}                                   (everything not listed below)
 * - typed:     {"detail": {"detail": "...", "error_code": "..."}}  (POST /orders, every 4xx)
 * - preview:   {"ok": false, "error_code": "...", "detail": "..."} (POST /orders/preview)
 * - swapQuote: {"detail": {"code", "detail", ...extra}} for the typed pricing codes
 *              (AMOUNT_BELOW_MIN with min_amount_raw / min_amount, NO_LIQUIDITY,
 *              SLIPPAGE_EXCEEDED, INTENT_DEADLINE_EXPIRED, QUOTE_STALE: the codes the
 *              batch forwards as rejectionCategory); plain otherwise (POST /swap/quote)
 */
export type EnvelopeStyle = "plain" | "typed" | "preview" | "swapQuote";

/**
 * Envelope per route (method + path under /api/v1). Kept here, next to the mapping,
 * so the whole error contract reads in one file. Routes not listed are plain.
 * - POST /orders/vl/batch: "each sibling has the same semantics as POST /orders",
 *   so its rejections use the same typed envelope.
 * - POST /swap: the spec names typed codes for it (QUOTE_STALE with error_code, and
 *   a typed subset) but does not show the wire shape; the POST /orders envelope is
 *   the one shape the service is known to use for error_code, so we use it.
 */
export const ROUTE_ENVELOPES: Readonly<Record<string, EnvelopeStyle>> = {
  "POST /orders": "typed",
  "POST /orders/vl/batch": "typed",
  "POST /swap": "typed",
  "POST /orders/preview": "preview",
  "POST /swap/quote": "swapQuote",
};

export const SERVICE_UNAVAILABLE_DETAIL = "Service temporarily unavailable; please retry";
export const RATE_LIMIT_DETAIL = "Rate limit exceeded";
export const NOT_FOUND_DETAIL = "Not Found";
export const METHOD_NOT_ALLOWED_DETAIL = "Method Not Allowed";

export interface ErrorResponse {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/**
 * The only ExchangeError.extra keys an envelope shows: the spec gives AMOUNT_BELOW_MIN "the
 * minimum in raw and decimal form" and no other error any field beyond its code and text.
 * The rest (field, reason, server_time, resting_order_id, available_raw, ...) stay inside
 * the simulator: a client tested against fakex must not come to read keys the live service
 * is not known to send, and a strict decoder of the documented envelope must not fail.
 * Their facts are in the detail text.
 */
const WIRE_EXTRAS = ["min_amount_raw", "min_amount"] as const;

function extras(err: ExchangeError): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of WIRE_EXTRAS) if (Object.hasOwn(err.extra, k)) out[k] = err.extra[k];
  return out;
}

function unavailable(): ErrorResponse {
  return { status: 503, body: { detail: SERVICE_UNAVAILABLE_DETAIL }, headers: { "Retry-After": "1" } };
}

/**
 * The response for an ExchangeError on a route using `style`. `route` ("POST /swap")
 * narrows the codes where the spec gives the route a subset.
 */
export function errorResponse(err: ExchangeError, style: EnvelopeStyle = "plain", route?: string): ErrorResponse {
  // 5xx never discloses its cause, whatever the route.
  if (err.status >= 500) return unavailable();
  // The rate limiter answers before any route logic, with its own fixed plain body
  // (FACTS: plain rate limit 429 {"detail": "Rate limit exceeded"}).
  if (err.code === "RATE_LIMITED") {
    // Retry-After (whole seconds) when the limiter knows when the window frees up.
    const ms = err.extra["retry_after_ms"];
    const headers: Record<string, string> = typeof ms === "number" ? { "Retry-After": String(Math.max(1, Math.ceil(ms / 1000))) } : {};
    return { status: 429, body: { detail: RATE_LIMIT_DETAIL }, headers };
  }
  // The cancel cooldown is typed on every cancel route (FACTS), though cancels are otherwise plain.
  if (err.code === "CANCEL_COOLDOWN") {
    return { status: err.status, body: { detail: { detail: err.detail, error_code: "CANCEL_COOLDOWN" } }, headers: {} };
  }
  switch (style) {
    case "typed": {
      const wire = requiredWireCode(err, route);
      // The floor rejection is documented on POST /orders as detail.code, and the
      // typed envelope as detail.error_code: carry both so either reading works.
      const code = wire === "AMOUNT_BELOW_MIN" ? { code: wire } : {};
      return { status: err.status, body: { detail: { detail: err.detail, error_code: wire, ...code, ...extras(err) } }, headers: {} };
    }
    case "preview":
      // "Failures return a body with error_code and detail" at the top level; the
      // success body leads with ok: true, so a failure says ok: false as well.
      return { status: err.status, body: { ok: false, error_code: requiredWireCode(err, route), detail: err.detail, ...extras(err) }, headers: {} };
    case "swapQuote": {
      const wire = wireCodeOf(err);
      if (wire !== null && TYPED_QUOTE_CODES.includes(wire)) {
        return { status: err.status, body: { detail: { code: wire, detail: err.detail, ...extras(err) } }, headers: {} };
      }
      return { status: err.status, body: { detail: err.detail }, headers: {} };
    }
    case "plain":
      return { status: err.status, body: { detail: err.detail }, headers: {} };
  }
}

/**
 * Shape of the errors body-parser (express.json) raises: its own carry a `type`; a body
 * whose gzip, deflate or brotli data is corrupt comes back as zlib's error (its `code`
 * and `errno`, no type) with status 400 set by body-parser.
 */
interface BodyParserError {
  type?: string;
  status: number;
  /** The body text (body-parser sets it on a parse failure). */
  body?: unknown;
  code?: unknown;
  errno?: unknown;
}

function isBodyParserError(e: unknown): e is BodyParserError {
  if (typeof e !== "object" || e === null) return false;
  const b = e as BodyParserError;
  return typeof b.status === "number" && (typeof b.type === "string" || isDecompressionError(b));
}

/** Strict JSON refuses a top-level string, number, true, false or null that is itself valid JSON. */
function isBareJsonValue(body: unknown): boolean {
  if (typeof body !== "string") return false;
  try {
    const v: unknown = JSON.parse(body);
    return v === null || typeof v !== "object";
  } catch {
    return false;
  }
}

function isDecompressionError(e: BodyParserError): boolean {
  return e.type === undefined && typeof e.code === "string" && typeof e.errno === "number";
}

/**
 * A body the reader refused before any route ran (anything but JSON that does not parse,
 * whose text a durable log keeps instead): marked on the request, so such a log records
 * the refusal and its replay answers the same (body-refusal.ts).
 */
export function noteBodyRefusal(req: object, err: unknown): void {
  if (!isBodyParserError(err)) return;
  if (err.type === "entity.parse.failed") {
    // Which of the two refusals it was, for a --state-dir replay to be refused in the same words.
    if (isBareJsonValue(err.body)) markBareValueRefused(req);
    return;
  }
  const { status, type, code, errno } = err;
  markBodyRefused(req, { status, ...(type === undefined ? {} : { type }), ...(typeof code === "string" ? { code } : {}), ...(typeof errno === "number" ? { errno } : {}) });
}

/**
 * Request-level failures as ExchangeErrors, so they get the route's envelope.
 * Malformed JSON is 422: the live service is FastAPI-shaped ({"detail"} bodies,
 * 422 for validation), and FastAPI answers an unparseable body with 422; it is a
 * client error either way, never a 500. Returns null for anything unexpected.
 */
export function requestError(e: unknown): ExchangeError | null {
  if (isExchangeError(e)) return e;
  // A path segment with broken percent-encoding (/orders/%ff): the router cannot decode
  // it into a parameter, so no resource by that name exists. 404 like any unknown id
  // (Starlette decodes leniently and then finds nothing), never an unexpected 503.
  if (e instanceof URIError) return new ExchangeError("NOT_FOUND", 404, NOT_FOUND_DETAIL);
  if (!isBodyParserError(e)) return null;
  if (isDecompressionError(e)) return new ExchangeError("VALIDATION", 400, "Request body does not decode under its Content-Encoding");
  switch (e.type) {
    case "entity.parse.failed":
      return new ExchangeError("VALIDATION", 422, isBareJsonValue(e.body) ? "Request body must be a JSON object, not a bare JSON value" : "Request body is not valid JSON");
    case "entity.too.large":
      return new ExchangeError("VALIDATION", 413, "Request body too large");
    case "encoding.unsupported":
    case "charset.unsupported":
      return new ExchangeError("VALIDATION", 415, "Unsupported request body encoding");
    default:
      // Aborted or truncated uploads and the like: the client's fault, a 4xx.
      return e.status >= 400 && e.status < 500 ? new ExchangeError("VALIDATION", e.status, "Malformed request body") : null;
  }
}

export interface HttpLogger {
  error(message: string, meta: Record<string, unknown>): void;
}

/** Default logger: one line on stderr (the stack goes to the log, never to the client). */
export const stderrLogger: HttpLogger = {
  error(message, meta) {
    process.stderr.write(`${message} ${JSON.stringify(meta)}\n`);
  },
};

/** "METHOD /path" of the request, the path relative to /api/v1 (the keys of ROUTE_ENVELOPES). */
export function routeKeyOf(req: Request): string {
  // req.path is relative to the router that failed; originalUrl carries the full path
  // (possibly under an outer mount point), so cut everything up to /api/v1.
  const path = (req.originalUrl.split("?")[0] ?? "").replace(/^.*?\/api\/v1(?=\/|$)/, "").replace(/\/+$/, "") || "/";
  return `${req.method} ${path}`;
}

/** Envelope of the request's route: a route may override via res.locals.envelope. */
export function envelopeOf(req: Request, res: Response): EnvelopeStyle {
  const override = res.locals["envelope"] as EnvelopeStyle | undefined;
  if (override) return override;
  return ROUTE_ENVELOPES[routeKeyOf(req)] ?? "plain";
}

function send(res: Response, r: ErrorResponse): void {
  for (const [k, v] of Object.entries(r.headers)) res.setHeader(k, v);
  res.status(r.status).json(r.body);
}

/**
 * A validation error of a route that reads a body, on a request whose body went unread
 * because its Content-Type is not JSON, says so: the client sent an object (as
 * `text/plain`, say) and is told it sent none.
 */
function withContentTypeHint(err: ExchangeError, req: Request): ExchangeError {
  if (err.code !== "VALIDATION" || req.body !== undefined || !sentAsOtherType(req)) return err;
  return new ExchangeError(err.code, err.status, `${err.detail} (the body was sent as Content-Type ${req.headers["content-type"]}, which is not read: send JSON as application/json)`, { ...err.extra });
}

/** Final express error handler: ExchangeError → envelope; anything else → logged 503. */
export function errorHandler(logger: HttpLogger = stderrLogger): ErrorRequestHandler {
  return (err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    const found = requestError(err);
    noteBodyRefusal(req, err);
    if (found) {
      const known = withContentTypeHint(found, req);
      const field = known.extra["field"];
      noteError(known.code, known.detail, typeof field === "string" ? field : undefined);
      if (known.status >= 500) logger.error("service unavailable", { method: req.method, path: req.originalUrl, code: known.code, detail: known.detail });
      send(res, errorResponse(known, envelopeOf(req, res), routeKeyOf(req)));
      return;
    }
    noteError("UNEXPECTED", err instanceof Error ? err.message : String(err));
    logger.error("unexpected error", {
      method: req.method,
      path: req.originalUrl,
      error: err instanceof Error ? err.stack ?? err.message : String(err),
    });
    send(res, unavailable());
  };
}

/** Unknown routes: 404 {"detail": "Not Found"} (FACTS), the same text FastAPI uses. */
export const notFoundHandler: RequestHandler = (_req, res) => {
  res.status(404).json({ detail: NOT_FOUND_DETAIL });
};

/**
 * A known path asked with a method it does not serve. FastAPI/Starlette (the shape
 * the live service follows) answer 405 {"detail": "Method Not Allowed"} with an
 * Allow header here, not 404; the spec's table omits 405 only because no documented
 * call provokes it. Attach with `router.route(p).get(h).all(methodNotAllowed("GET"))`.
 */
export function methodNotAllowed(...allowed: string[]): RequestHandler {
  const methods = allowed.map((m) => m.toUpperCase());
  // A GET route answers HEAD too (express serves it), so Allow names it (RFC 9110 §10.2.1).
  if (methods.includes("GET") && !methods.includes("HEAD")) methods.splice(methods.indexOf("GET") + 1, 0, "HEAD");
  const allow = methods.join(", ");
  return (_req, res) => {
    res.setHeader("Allow", allow);
    res.status(405).json({ detail: METHOD_NOT_ALLOWED_DETAIL });
  };
}
