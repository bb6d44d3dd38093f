// What a failing route rule does to the connection, and how an after_commit rule
// lets the route run to the end and then loses its answer.
//
//   503        a 503 with Retry-After: 1 and the spec's envelope
//   timeout    no answer at all: the request is held until the client gives up
//              (disconnects), the server closes, or MAX_HOLD_MS pass
//   reset      the socket is destroyed without a byte of response
//   truncate   the status line and headers with the full Content-Length, then
//              half the body, then the socket ends
//
// Before commit (no after_commit), truncate cuts the 503 answer in half: there is
// no committed answer to cut.
import { clearTimeout, setTimeout } from "node:timers";
import type { Response } from "express";
import { SERVICE_UNAVAILABLE_DETAIL } from "./errors.ts";
import { isBytes } from "../platform/typed-array-realm.ts";

export type FailKind = 503 | "timeout" | "reset" | "truncate";
export const FAIL_KINDS: readonly FailKind[] = [503, "timeout", "reset", "truncate"];

/**
 * Emitted on a response when a route fault has given its last answer (a 503, a reset, half
 * a body, or the end of a hold: its client gave up or it was dropped): the route is done
 * with it, though no end() may ever be called.
 */
export const FAULT_ANSWERED = "fakex:fault-answered";

/** A held (timeout) request is dropped after this long even if the client never gives up. */
export const MAX_HOLD_MS = 300_000;

/** The answer the route committed, as it would have gone out. */
export interface CommittedResponse {
  status: number;
  headers: Record<string, number | string | string[] | undefined>;
  body: Buffer;
}

const UNAVAILABLE_BODY = Buffer.from(JSON.stringify({ detail: SERVICE_UNAVAILABLE_DETAIL }));

/**
 * The bytes a client received from a fault of `kind` whose route answered `routeBody`
 * (the committed answer after commit, the 503 before it): none after a reset or a hold,
 * the 503's body, or the first half of the answer (truncate).
 */
export function faultAnswerBody(kind: string, routeBody: Buffer): Buffer | null {
  if (kind === "reset" || kind === "timeout") return null;
  if (kind === "truncate") return routeBody.subarray(0, Math.floor(routeBody.length / 2));
  return UNAVAILABLE_BODY;
}

/** The status a client received from a fault of `kind` over a route that answered `routeStatus` (0: no answer). */
export function faultAnswerStatus(kind: string, routeStatus: number): number {
  if (kind === "reset" || kind === "timeout") return 0;
  return kind === "truncate" ? routeStatus : 503;
}

/** Response headers as they stand (those the middleware in front set, e.g. CORS). */
export type HeaderSnapshot = CommittedResponse["headers"];

/**
 * Carry out a fault on `res`; `committed` is the swallowed answer of an after_commit rule,
 * `edge` the headers set before the route ran (kept on a 503 that replaces its answer).
 */
export function answerWithFault(res: Response, kind: FailKind, committed: CommittedResponse | null, edge: HeaderSnapshot = {}): void {
  // The route is done with the request, whatever reaches the client (fixtures/pool/router.ts);
  // a held one only once the hold ends, so a pool does not take its instance meanwhile.
  if (kind !== "timeout" || res.closed) res.emit(FAULT_ANSWERED);
  switch (kind) {
    case 503:
      if (committed) resetHeaders(res, edge);
      res.status(503).set("Retry-After", "1").json({ detail: SERVICE_UNAVAILABLE_DETAIL });
      return;
    case "reset":
      res.socket?.destroy();
      return;
    case "timeout": {
      const drop = setTimeout(() => res.socket?.destroy(), MAX_HOLD_MS);
      drop.unref();
      res.on("close", () => {
        clearTimeout(drop);
        res.emit(FAULT_ANSWERED);
      });
      return;
    }
    case "truncate": {
      const answer = committed ?? { status: 503, headers: { ...edge, "content-type": "application/json; charset=utf-8", "retry-after": "1" }, body: UNAVAILABLE_BODY };
      resetHeaders(res, answer.headers);
      res.setHeader("Content-Length", String(answer.body.length));
      res.writeHead(answer.status);
      res.write(faultAnswerBody("truncate", answer.body)!, () => res.socket?.destroy());
      return;
    }
  }
}

/** Exactly these headers: the route's own go, the edge's stay. */
function resetHeaders(res: Response, headers: HeaderSnapshot): void {
  for (const h of res.getHeaderNames()) res.removeHeader(h);
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) res.setHeader(k, v);
}

/**
 * Let the route write its answer into a buffer instead of the socket; when it ends,
 * put the response's methods back and hand over what it would have sent.
 */
export function swallowResponse(res: Response, onCommitted: (committed: CommittedResponse) => void): void {
  const original = { writeHead: res.writeHead, write: res.write, end: res.end };
  const chunks: Buffer[] = [];
  const toBuffer = (chunk: unknown, encoding?: unknown) =>
    Buffer.isBuffer(chunk) ? chunk : isBytes(chunk) ? Buffer.from(chunk) : Buffer.from(String(chunk), typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8");
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    res.statusCode = status;
    const headers = rest.find((x) => x !== null && typeof x === "object");
    if (headers) for (const [k, v] of Object.entries(headers as Record<string, string>)) res.setHeader(k, v);
    return res;
  }) as typeof res.writeHead;
  res.write = ((chunk: unknown, encoding?: unknown, cb?: unknown) => {
    chunks.push(toBuffer(chunk, encoding));
    const done = typeof encoding === "function" ? encoding : cb;
    if (typeof done === "function") queueMicrotask(() => (done as () => void)());
    return true;
  }) as typeof res.write;
  res.end = ((chunk?: unknown, encoding?: unknown, cb?: unknown) => {
    if (chunk !== undefined && chunk !== null && typeof chunk !== "function") chunks.push(toBuffer(chunk, encoding));
    Object.assign(res, original);
    const done = [chunk, encoding, cb].find((x) => typeof x === "function");
    if (done) queueMicrotask(() => (done as () => void)());
    onCommitted({ status: res.statusCode, headers: res.getHeaders() as CommittedResponse["headers"], body: Buffer.concat(chunks) });
    return res;
  }) as typeof res.end;
}

/**
 * What a durable log in front of the routes (fixtures/wal-persistence.ts) tells the fault
 * middleware: `committed` records the request's effect with the status it answered (and
 * resolves once that is on disk) before a fault loses the answer; `replay` marks a logged
 * request being applied again at start-up, which gets the answer that was logged (a 503
 * for a fault before commit, the route's own after commit), never a reset or a hold.
 * `delayed` moves the wall clock under the log's lock, so the request is logged with the
 * time it was served at.
 */
export interface FaultHooks {
  replay: boolean;
  committed?: (status: number) => Promise<void>;
  /** After a latency rule's real delay: bring the wall clock to the moment the request is served. */
  delayed?: () => Promise<void>;
}

const HOOKS = Symbol("fakex.faultHooks");

export function setFaultHooks(res: object, hooks: FaultHooks): void {
  (res as { [HOOKS]?: FaultHooks })[HOOKS] = hooks;
}

export function faultHooks(res: object): FaultHooks {
  return (res as { [HOOKS]?: FaultHooks })[HOOKS] ?? { replay: false };
}
