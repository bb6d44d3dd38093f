// A request body read before its route runs. With --state-dir every state-changing
// request is applied under one lock (fixtures/wal-persistence.ts); a route that read its
// body under that lock made every other client wait for a slow upload. So the log's
// middleware reads the body first, outside the lock, and the body parsers (body.ts, and
// the control API's) parse the bytes it kept instead of the stream.
//
// The bytes are kept as they came (still compressed, if they were): the parsers decode
// and check them exactly as they would the stream, so every answer stays the same.
import { AsyncResource } from "node:async_hooks";
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import type { RequestHandler } from "express";
import { bodyRefusal, refusalError } from "./body-refusal.ts";

/** A body read ahead: all of it ("whole"), more than the cap ("over": the rest was read and dropped), or cut short by the client. */
export interface BodyAhead {
  readonly outcome: "whole" | "over" | "cut";
  /** The bytes as sent, when whole. */
  readonly raw: Buffer;
  /** How many bytes arrived. */
  readonly bytes: number;
}

const AHEAD = Symbol("fakex.bodyAhead");
type WithAhead = { [AHEAD]?: BodyAhead };

/** The body readBodyAhead read for this request, if it did. */
export function bodyAhead(req: object): BodyAhead | undefined {
  return (req as WithAhead)[AHEAD];
}

/**
 * Read the request's whole body now, keeping up to `capBytes`, then call `done` (in the
 * request's async context). Waits as long as the client takes: the caller holds nothing
 * meanwhile. A body past the cap is read to its end and dropped, as body-parser reads it
 * before its 413.
 */
export function readBodyAhead(req: IncomingMessage, capBytes: number, done: () => void): void {
  const h = req.headers;
  const hasBody = h["transfer-encoding"] !== undefined || (h["content-length"] !== undefined && h["content-length"] !== "0");
  if (!hasBody || req.readableEnded || req.readableDidRead) {
    done();
    return;
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  const finish = AsyncResource.bind((outcome: BodyAhead["outcome"]) => {
    req.removeListener("data", onChunk);
    req.removeListener("end", onEnd);
    req.removeListener("aborted", onCut);
    req.removeListener("error", onCut);
    (req as WithAhead)[AHEAD] = { outcome, raw: outcome === "whole" ? Buffer.concat(chunks) : EMPTY, bytes };
    done();
  });
  const onChunk = (chunk: Buffer) => {
    bytes += chunk.length;
    // Past the cap: drop what was kept and read the rest without keeping it (body-parser does the same before its 413).
    if (bytes > capBytes) chunks.length = 0;
    else chunks.push(chunk);
  };
  const onEnd = () => finish(bytes > capBytes ? "over" : "whole");
  const onCut = () => finish("cut");
  req.on("data", onChunk);
  req.once("end", onEnd);
  req.once("aborted", onCut);
  req.once("error", onCut);
  // Stays after the read, so a late error on the stream is never unhandled.
  req.on("error", ignoreError);
}

const EMPTY = Buffer.alloc(0);

function ignoreError(): void {}

/** body-parser's error for a body the client cut short, or one past the limit. */
export function aheadError(ahead: BodyAhead): (Error & { status: number; type: string }) | null {
  if (ahead.outcome === "cut") return Object.assign(new Error("request.aborted"), { status: 400, type: "request.aborted" });
  if (ahead.outcome === "over") return Object.assign(new Error("request entity too large"), { status: 413, type: "entity.too.large" });
  return null;
}

/**
 * Run a body-parser middleware (express.json and the like) on a body read ahead: it is
 * handed a stream of the kept bytes with the request's headers, so it decodes, limits
 * and parses them as it would the request itself; its result (and what its `verify`
 * kept) goes back on the request. Requests with no body read ahead go straight to it.
 * Mount it where the parser would be.
 */
export function parseAhead(parser: RequestHandler, keep: (from: object, to: object) => void = () => undefined): RequestHandler {
  return (req, res, next) => {
    // A replay of a request whose body was refused: the same refusal (body-refusal.ts).
    const refused = bodyRefusal(req);
    if (refused !== undefined) {
      req.resume();
      return next(refusalError(refused));
    }
    const ahead = bodyAhead(req);
    if (ahead === undefined) return parser(req, res, next);
    const failure = aheadError(ahead);
    if (failure !== null) return next(failure);
    const stand = Object.assign(Readable.from([ahead.raw], { objectMode: false }), { headers: req.headers, method: req.method, url: req.url });
    parser(stand as unknown as typeof req, res, (err?: unknown) => {
      req.body = (stand as { body?: unknown }).body;
      keep(stand, req);
      next(err);
    });
  };
}
