// JSON request bodies. Parsed per route (not app-wide) so that an unknown path is a
// 404 and a wrong method a 405 whatever the body holds, as in FastAPI-style services.
//
// The common request (Content-Length within the limit, no Content-Encoding, JSON in
// UTF-8) is read here directly: body-parser's general machinery (content-type parsing
// twice, raw-body, iconv, http-errors) costs more than the rest of a small request's
// edge. Everything else (compressed or chunked bodies, other charsets, oversized
// lengths) goes to express.json, and the direct read raises the same error types
// (entity.parse.failed, request.aborted) that errors.ts turns into the same answers.

import { clearTimeout, setTimeout } from "node:timers";
import { AsyncResource } from "node:async_hooks";
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import express, { type RequestHandler } from "express";
import { bodyAhead, parseAhead } from "./body-ahead.ts";
import { declaredLength, hasRequestBody, identityEncoded } from "./body-headers.ts";
import { bodyRefusal, CUT_SHORT, refusalError } from "./body-refusal.ts";
import { refuseBeforeUpload } from "./expect-continue.ts";

export { hasRequestBody };

export const DEFAULT_BODY_LIMIT = "1mb";
/** DEFAULT_BODY_LIMIT in bytes. */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

const UNPARSED = Symbol("fakex.unparsedBody");
const LOGGED_BODY = Symbol("fakex.loggedBody");
const OTHER_TYPE = Symbol("fakex.bodyOfOtherType");
type WithUnparsed = { [UNPARSED]?: Buffer; [LOGGED_BODY]?: LoggedBody | null; [OTHER_TYPE]?: true };

/** A logged body as the journal shows it: its text (perhaps only the start) and its full size in bytes. */
export interface LoggedBody {
  text: string;
  bytes: number;
  /** "base64": not UTF-8 text; `text` is base64 of its first bytes. */
  encoding?: "base64";
}

/**
 * A body that was read but did not parse as JSON, or that no route read (readUnroutedBody),
 * for the request journal: a client debugging its 400 or its lost request sees what it
 * sent, as the bytes that came (a body that is not UTF-8 is shown as such). Undefined for a
 * body that parsed or was not kept.
 */
export function unparsedBody(req: object): Buffer | undefined {
  return (req as WithUnparsed)[UNPARSED];
}

/**
 * A replayed request stands for one logged earlier, whose body it may not carry (a body
 * that did not parse is replayed as one that does not either): the journal shows `body`,
 * the one the logged request had, or none (null) when that one's was not kept.
 */
export function setLoggedBody(req: object, body: LoggedBody | null): void {
  (req as WithUnparsed)[LOGGED_BODY] = body;
}

/** What setLoggedBody gave the request (undefined: it is not a replay of such a body). */
export function loggedBody(req: object): LoggedBody | null | undefined {
  return (req as WithUnparsed)[LOGGED_BODY];
}

const BARE_VALUE = Symbol("fakex.bareValueRefused");

/** The body parsed as a bare JSON value (a string, a number), which no route takes: refused as such. */
export function markBareValueRefused(req: object): void {
  (req as { [BARE_VALUE]?: true })[BARE_VALUE] = true;
}

export function refusedAsBareValue(req: object): boolean {
  return (req as { [BARE_VALUE]?: true })[BARE_VALUE] === true;
}

/** True when the request's body was not read as JSON because its Content-Type is another (jsonBody). */
export function sentAsOtherType(req: object): boolean {
  return (req as WithUnparsed)[OTHER_TYPE] === true;
}

/** How long a body no route reads may take to arrive before the request goes on without it. */
export const UNROUTED_BODY_WAIT_MS = 100;

/**
 * Read a body that no route will parse (a route fault answers before the route runs, or
 * its Content-Type is not JSON), so the journal can show it, then call `done` (in the
 * request's async context) with the bytes that arrived. The body is kept (as UTF-8 text)
 * only when all of it arrives within `waitMs`, uncompressed and within `maxBytes`; a
 * client that is slower, sends more, or hangs up is not waited for. What is left of the
 * body is then read and dropped, so a kept-alive connection can take its next request.
 * Never fails.
 */
export function readUnroutedBody(req: IncomingMessage, maxBytes: number, done: (bytesSeen: number) => void, waitMs = UNROUTED_BODY_WAIT_MS): void {
  const h = req.headers;
  let keep = identityEncoded(h);
  // Read already (with --state-dir, before the log's lock): kept when all of it came, however slowly.
  const ahead = bodyAhead(req);
  if (ahead !== undefined) {
    if (ahead.outcome === "whole" && keep && ahead.bytes > 0 && ahead.bytes <= maxBytes) (req as WithUnparsed)[UNPARSED] = ahead.raw;
    done(ahead.bytes);
    return;
  }
  if (!hasRequestBody(h) || req.readableEnded || req.readableDidRead) {
    done(0);
    return;
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  let finished = false;
  const finish = AsyncResource.bind((complete: boolean) => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    req.removeListener("data", onChunk);
    req.removeListener("end", onEnd);
    req.removeListener("aborted", onStop);
    req.removeListener("error", onStop);
    if (complete && keep && chunks.length > 0) (req as WithUnparsed)[UNPARSED] = Buffer.concat(chunks);
    // The rest, if any, flows on unread.
    if (!complete) req.resume();
    done(bytes);
  });
  const onChunk = (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > maxBytes) return finish(false);
    if (keep) chunks.push(chunk);
  };
  const onEnd = () => finish(true);
  const onStop = () => finish(false);
  const timer = setTimeout(onStop, waitMs);
  timer.unref();
  req.on("data", onChunk);
  req.once("end", onEnd);
  req.once("aborted", onStop);
  req.once("error", onStop);
  // Stays after the read, so a late error on the stream is never unhandled.
  req.on("error", ignoreError);
}

function ignoreError(): void {}

/**
 * JSON parser for one app. A body without Content-Type is read as JSON too (FastAPI
 * does the same); other content types leave req.body undefined, so the route's schema
 * rejects it. Only objects and arrays are accepted at the top level. The bytes are read
 * as UTF-8 whatever charset the Content-Type names: JSON has no charset parameter and is
 * UTF-8 (RFC 8259 §8.1, §11), and the live service (FastAPI) ignores one.
 */
export function jsonBody(limit: string | number = DEFAULT_BODY_LIMIT): RequestHandler {
  // body-parser's raw reader (decoding, limit, hang-ups), which unlike express.json never
  // looks at the charset; the bytes are then parsed as the direct read parses them.
  const readBytes = express.raw({ limit, type: isJsonRequest });
  const general: RequestHandler = (req, res, next) => {
    readBytes(req, res, (err?: unknown) => {
      if (err !== undefined) return next(err);
      const raw: unknown = req.body;
      // No body at all: left undefined, as express.json leaves it.
      if (!Buffer.isBuffer(raw)) return next();
      // Not the bytes: a body that does not parse leaves none, as express.json leaves it.
      req.body = undefined;
      parseJsonText(req, raw.toString("utf8"), raw, next);
    });
  };
  const maxBytes = limitBytes(limit);
  if (maxBytes === null) return general;
  const generalAhead = parseAhead(general, keepUnparsed);
  return (req, res, next) => {
    const refused = bodyRefusal(req);
    if (refused !== undefined) {
      // A replayed request whose body was refused (cut short, too large...): the same answer as then.
      req.resume();
      next(refusalError(refused));
      return;
    }
    // Another content type: no route parses it (its schema refuses the missing body), but the journal shows what was sent.
    if (!isJsonRequest(req)) {
      return readUnroutedBody(req, maxBytes, (bytesSeen) => {
        if (bytesSeen > 0) (req as WithUnparsed)[OTHER_TYPE] = true;
        next();
      });
    }
    // Over the limit and its client waits for a 100 before uploading: the 413 without the upload.
    if (refuseBeforeUpload(req, maxBytes)) {
      next(bodyError(413, "entity.too.large"));
      return;
    }
    const ahead = bodyAhead(req);
    if (ahead !== undefined) {
      // The common body, read directly as below; anything else (cut short, too large, other encodings) through express.json.
      if (ahead.outcome === "whole" && ahead.bytes <= maxBytes && plainJson(req.headers)) return parseJsonText(req, ahead.raw.toString("utf8"), ahead.raw, next);
      return generalAhead(req, res, next);
    }
    const length = directLength(req, maxBytes);
    if (length < 0) {
      // A compressed body is piped into a decoder, which body-parser listens to instead of
      // the request: it would never hear the client hang up, and the request never be answered.
      if (identityEncoded(req.headers)) general(req, res, next);
      else general(req, res, refuseOnHangUp(req, next));
      return;
    }
    readJson(req, next);
  };
}

/** A body read as JSON: no Content-Type, or a JSON one (application/json, application/vnd.api+json, ...). */
export function isJsonRequest(req: IncomingMessage): boolean {
  const ct = req.headers["content-type"];
  return !ct || /(^|[/+])json\b/i.test(ct);
}

/** A plain JSON content type: absent, or application/json (with any parameters: a charset changes nothing). */
const PLAIN_JSON = /^application\/json\s*(?:;|$)/i;

/** Uncompressed JSON: what the direct read parses. */
function plainJson(h: IncomingHttpHeaders): boolean {
  const ct = h["content-type"];
  return h["content-encoding"] === undefined && (ct === undefined || PLAIN_JSON.test(ct));
}

/** The body's length when the direct read applies to `req`, else -1. */
function directLength(req: IncomingMessage, maxBytes: number): number {
  const h = req.headers;
  const length = plainJson(h) ? declaredLength(h) : -1;
  if (length < 0) return -1;
  // Over the limit: express.json's 413 (it drains the body first, so the client is not cut
  // off mid-upload); a stream already read is its business too.
  if (length > maxBytes || req.readableDidRead || !req.readable) return -1;
  return length;
}

const READING = Symbol("fakex.jsonBody");
type BodyRequest = IncomingMessage & { body?: unknown; [READING]?: BodyRead | undefined };

/**
 * One body being read. The listeners below are module functions (the request is their
 * `this`), so a request allocates this object and no closures. As an AsyncResource it
 * carries the request's async context (its journal note) to the tick the body ends in.
 */
class BodyRead extends AsyncResource {
  readonly chunks: Buffer[] = [];

  constructor(
    private readonly req: BodyRequest,
    private readonly next: (err?: unknown) => void,
  ) {
    super("FAKEX_JSON_BODY");
  }

  finish(err: unknown): void {
    if (err !== undefined) {
      this.next(err);
      return;
    }
    const chunks = this.chunks;
    const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    parseJsonText(this.req, raw.toString("utf8"), raw, this.next);
  }
}

/** req.body from the body's text, or body-parser's parse error (the bytes kept for the journal). */
function parseJsonText(req: BodyRequest, text: string, raw: Buffer, next: (err?: unknown) => void): void {
  try {
    req.body = parseStrict(text);
  } catch {
    (req as WithUnparsed)[UNPARSED] = raw;
    // The text rides along as on body-parser's error, so the answer can tell a bare value from broken JSON.
    next(Object.assign(bodyError(400, "entity.parse.failed"), { body: text }));
    return;
  }
  next();
}

/** What express.json's verify kept on the stand-in stream of a body read ahead goes to the request. */
function keepUnparsed(from: object, to: object): void {
  const raw = (from as WithUnparsed)[UNPARSED];
  if (raw !== undefined) (to as WithUnparsed)[UNPARSED] = raw;
}

/**
 * `next`, called once: with the reader's outcome, or with body-parser's request.aborted
 * refusal (400 "Malformed request body", as a cut identity body gets) when the client
 * hangs up first. The reader's own outcome after that is dropped.
 */
function refuseOnHangUp(req: IncomingMessage, next: (err?: unknown) => void): (err?: unknown) => void {
  let settled = false;
  const settle = (err?: unknown) => {
    if (settled) return;
    settled = true;
    req.removeListener("aborted", onHangUp);
    req.removeListener("error", onHangUp);
    next(err);
  };
  const onHangUp = AsyncResource.bind(() => settle(refusalError(CUT_SHORT)));
  req.once("aborted", onHangUp);
  req.once("error", onHangUp);
  // Stays after the read, so a late error on the stream is never unhandled.
  req.on("error", ignoreError);
  return settle;
}

/** The request body as JSON (body-parser's strict mode), then next(). */
function readJson(req: BodyRequest, next: (err?: unknown) => void): void {
  if (!("body" in req)) req.body = undefined;
  req[READING] = new BodyRead(req, next);
  req.on("data", onData);
  req.on("end", onEnd);
  // A client that hangs up mid-body: 400 like body-parser's request.aborted. The error
  // listener stays (a no-op once settled), so a late error is never unhandled.
  req.on("aborted", onAborted);
  req.on("error", onAborted);
}

function onData(this: BodyRequest, chunk: Buffer): void {
  this[READING]?.chunks.push(chunk);
}

function onEnd(this: BodyRequest): void {
  settle(this, undefined);
}

function onAborted(this: BodyRequest): void {
  settle(this, refusalError(CUT_SHORT));
}

function settle(req: BodyRequest, err: unknown): void {
  const read = req[READING];
  if (read === undefined) return;
  req[READING] = undefined;
  req.removeListener("data", onData);
  req.removeListener("end", onEnd);
  req.removeListener("aborted", onAborted);
  read.runInAsyncScope(read.finish, read, err);
}

const FIRST_CHAR = /^[\x20\x09\x0a\x0d]*([\s\S]|$)/;

/** body-parser's strict JSON: empty → {}, otherwise an object or array (a leading BOM dropped, as its UTF-8 decoder does). */
function parseStrict(raw: string): unknown {
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  if (text.length === 0) return {};
  const first = text[0] === "{" || text[0] === "[" ? text[0] : FIRST_CHAR.exec(text)![1];
  if (first !== "{" && first !== "[") throw new SyntaxError("strict JSON: object or array expected");
  return JSON.parse(text) as unknown;
}

/** The shape of body-parser's errors that errors.ts reads (type and status). */
function bodyError(status: number, type: string): Error & { status: number; type: string } {
  return Object.assign(new Error(type), { status, type });
}

// body-parser's limit syntax (the `bytes` package): a number of bytes, or a decimal with kb/mb/gb/tb/pb.
const UNITS: Record<string, number> = { kb: 1 << 10, mb: 1 << 20, gb: 1 << 30, tb: 2 ** 40, pb: 2 ** 50 };

function limitBytes(limit: string | number): number | null {
  if (typeof limit === "number") return Number.isNaN(limit) ? null : limit;
  const m = /^((-|\+)?(\d+(?:\.\d+)?)) *(kb|mb|gb|tb|pb)$/i.exec(limit);
  const n = m ? Math.floor(UNITS[m[4]!.toLowerCase()]! * parseFloat(m[1]!)) : parseInt(limit, 10);
  return Number.isNaN(n) ? null : n;
}
