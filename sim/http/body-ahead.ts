// A request body read before its route runs. With --state-dir every state-changing
// request is applied under one lock (fixtures/wal-persistence.ts); a route that read its
// body under that lock made every other client wait for a slow upload. So the log's
// middleware reads the body first, outside the lock, and the body parsers (body.ts, and
// the control API's) parse the bytes it kept instead of the stream.
//
// The bytes are kept as they came (still compressed, if they were): the parsers decode
// and check them exactly as they would the stream, so every answer stays the same.
import { setImmediate } from "node:timers";
import { AsyncResource } from "node:async_hooks";
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import type { RequestHandler } from "express";
import { bodyRefusal, CUT_SHORT, refusalError } from "./body-refusal.ts";
import { refuseBeforeUpload } from "./expect-continue.ts";
import { hasRequestBody, identityEncoded } from "./body-headers.ts";

/**
 * A body read ahead: all of it ("whole"), more than the parsers could take ("over": the
 * rest was read and dropped), or cut short by its client ("cut").
 */
export interface BodyAhead {
  readonly outcome: "whole" | "over" | "cut";
  /** The bytes as sent: all of them when whole, else the first ones that arrived (at most the keep limit). */
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
 * Read the request's whole body now, then call `done` (in the request's async context).
 * Waits as long as the client takes: the caller holds nothing meanwhile. `capBytes` is
 * the parsers' limit, which they apply to the decoded body: of a body past it, enough is
 * kept for them to refuse it as they would (cap + 1 bytes, or twice the cap when it is
 * compressed: stored blocks make a compressed body only slightly larger than its content),
 * and the rest is read and dropped, as body-parser reads it before its 413.
 */
export function readBodyAhead(req: IncomingMessage, capBytes: number, done: () => void): void {
  const h = req.headers;
  if (!hasRequestBody(h) || req.readableEnded || req.readableDidRead) {
    done();
    return;
  }
  // Over the limit and its client waits for a 100 before uploading: nothing to read, the parsers refuse it by its length.
  if (refuseBeforeUpload(req, capBytes)) {
    (req as WithAhead)[AHEAD] = { outcome: "over", raw: Buffer.alloc(0), bytes: 0 };
    done();
    return;
  }
  const keepBytes = (identityEncoded(h) ? capBytes : 2 * capBytes) + 1;
  const chunks: Buffer[] = [];
  let kept = 0;
  let bytes = 0;
  const finish = AsyncResource.bind((outcome: BodyAhead["outcome"]) => {
    req.removeListener("data", onChunk);
    req.removeListener("end", onEnd);
    req.removeListener("aborted", onCut);
    req.removeListener("error", onCut);
    (req as WithAhead)[AHEAD] = { outcome, raw: Buffer.concat(chunks), bytes };
    done();
  });
  const onChunk = (chunk: Buffer) => {
    bytes += chunk.length;
    if (kept >= keepBytes) return;
    const part = kept + chunk.length <= keepBytes ? chunk : chunk.subarray(0, keepBytes - kept);
    chunks.push(part);
    kept += part.length;
  };
  const onEnd = () => finish(bytes > kept ? "over" : "whole");
  const onCut = () => finish("cut");
  req.on("data", onChunk);
  req.once("end", onEnd);
  req.once("aborted", onCut);
  req.once("error", onCut);
  // Stays after the read, so a late error on the stream is never unhandled.
  req.on("error", ignoreError);
}

function ignoreError(): void {}

/**
 * Run a body-parser middleware (express.json and the like) on a body read ahead: it is
 * handed a stand-in stream with the request's headers that replays what arrived (and ends,
 * or fails as the client's hang-up did), so it checks, decodes, limits and parses it as it
 * would the request itself; its result (and what its `verify` kept) goes back on the
 * request. Requests with no body read ahead go straight to it. Mount it where the parser
 * would be.
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
    // A decoder is piped from the stream and never hears of its failure: it would wait for
    // the rest of a compressed body for good. So that refusal is made here.
    if (ahead.outcome === "cut" && !identityEncoded(req.headers)) return next(refusalError(CUT_SHORT));
    const stand = Object.assign(new Readable({ read() {} }), { headers: req.headers, method: req.method, url: req.url });
    stand.push(ahead.raw);
    // Heard by the parser when it reads the body; a parser that skips it (another content type) must not leave it unhandled.
    stand.on("error", ignoreError);
    if (ahead.outcome === "cut") setImmediate(() => stand.destroy(refusalError(CUT_SHORT)));
    else stand.push(null);
    parser(stand as unknown as typeof req, res, (err?: unknown) => {
      req.body = (stand as { body?: unknown }).body;
      keep(stand, req);
      next(err);
    });
  };
}
