// Bytes Node's HTTP parser refuses (malformed HTTP, headers over the limit, data after
// `Connection: close`) may arrive on a connection whose earlier requests the app is
// still answering: pipelined, or sent in the same write as the request in flight. Their
// answers come first: a client that placed an order must read its 201, not a 400 in its
// place. So the connection's owed answers are counted, and the parser's refusal waits
// for them.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { realNowMs } from "../platform/real-time.ts";

/** What a connection still owes its client, and what it does once that is written. */
interface Owed {
  /** Requests the app has been given and whose answer is not written yet. */
  count: number;
  /** The newest request on the connection. */
  last: IncomingMessage | undefined;
  /** Set once the parser refused the connection's bytes (it then repeats the error on every read). */
  refused: boolean;
  /** Runs when count drops to 0. */
  whenPaid: (() => void) | undefined;
  /** Real time (ms) the connection's last answer was done, or its idle time last counted again from: its keep-alive timeout's start. */
  idleFromMs: number;
}

const OWED = Symbol("fakex.owedAnswers");
type Tracked = Duplex & { [OWED]?: Owed };

function owedOf(socket: Duplex): Owed {
  const s = socket as Tracked;
  return (s[OWED] ??= { count: 0, last: undefined, refused: false, whenPaid: undefined, idleFromMs: realNowMs() });
}

/** Count `req`'s answer as owed on its connection until `res` is done (written, or the connection gone). */
export function oweAnswer(req: IncomingMessage, res: ServerResponse): void {
  const owed = owedOf(req.socket);
  owed.count++;
  owed.last = req;
  res.once("close", () => {
    owed.count--;
    owed.idleFromMs = realNowMs();
    if (owed.count > 0 || owed.whenPaid === undefined) return;
    const then = owed.whenPaid;
    owed.whenPaid = undefined;
    then();
  });
}

/** Since when (real ms) the connection has been idle; restartIdle counts it from now. */
export function idleFromMs(socket: Duplex): number {
  return owedOf(socket).idleFromMs;
}

export function restartIdle(socket: Duplex): void {
  owedOf(socket).idleFromMs = realNowMs();
}

/** Node's statuses for the parser's error codes. */
function refusalOf(code: string | undefined): [number, string] {
  if (code === "HPE_HEADER_OVERFLOW") return [431, "Request Header Fields Too Large"];
  if (code === "HPE_CHUNK_EXTENSIONS_OVERFLOW") return [413, "Payload Too Large"];
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return [408, "Request Timeout"];
  return [400, "Bad Request"];
}

/**
 * The server's `clientError` listener. A request Node's parser refuses before the app
 * sees it gets Node's status with a `{"detail"}` body, as every answer of the interface
 * has, instead of Node's empty one, and the connection is closed. Answers the app owes on
 * the connection are written first. Data after `Connection: close` gets no answer at
 * all (RFC 9112 §9.6: no further request is processed): the connection closes once the
 * answer in flight is written.
 */
export function answerUnparsable(err: NodeJS.ErrnoException, socket: Duplex): void {
  const owed = owedOf(socket);
  if (owed.refused) return;
  owed.refused = true;
  if (err.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const close = err.code === "HPE_CLOSED_CONNECTION" ? () => closeAfterWrites(socket) : () => writeRefusal(socket, err.code);
  // A request whose body the parser broke off (a bad chunk, a timeout mid-body) is owed this
  // refusal itself: its body never ends, so waiting for its answer would wait for good.
  const brokenBody = owed.last !== undefined && !owed.last.complete;
  if (brokenBody) {
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (inFlight?.headersSent) socket.destroy();
    else close();
    return;
  }
  if (owed.count > 0) owed.whenPaid = close;
  else close();
}

function writeRefusal(socket: Duplex, code: string | undefined): void {
  if (!socket.writable) return void socket.destroy();
  const [status, reason] = refusalOf(code);
  const body = JSON.stringify({ detail: reason });
  // Then closed from this side too, as Node's default does (a half-open client would keep it).
  // Date as Node's own answers carry it (RFC 9110 §6.6.1: an origin server with a clock sends it).
  const date = new Date(realNowMs()).toUTCString();
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nDate: ${date}\r\nConnection: close\r\n\r\n${body}`, () => socket.destroy());
}

/** Close once what was written has gone out (Node may have begun closing it already). */
function closeAfterWrites(socket: Duplex): void {
  if (socket.writable) socket.end(() => socket.destroy());
}
