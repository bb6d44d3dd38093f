// The http.Server for an express app. Express gives every request its request and
// response prototypes with Object.setPrototypeOf when the request reaches the app;
// measured on POST /orders, that change costs a large part of a request's CPU (tens
// of µs: the objects' shapes change mid-request, so the stream and http code that
// touches them afterwards runs slower). A server whose requests and responses are
// created with the app's prototypes already makes express's change a no-op: the
// objects, the headers and the bytes on the wire are the same.

import { IncomingMessage, ServerResponse, createServer, type Server, type ServerOptions } from "node:http";
import type { Duplex } from "node:stream";
import type { Application } from "express";

/** What express puts on an app: the prototypes it gives requests and responses. */
interface AppPrototypes {
  request: IncomingMessage;
  response: ServerResponse;
}

/** `http.createServer(app)`, with requests and responses born with `app`'s prototypes. */
export function createAppServer(app: Application, options: ServerOptions = {}): Server {
  // Node's own Host check answers an empty 400 (and lets a second Host or a malformed one
  // through); this one answers as the interface does.
  const handle = (req: IncomingMessage, res: ServerResponse) => (badHost(req) ? refuseHost(res) : app(req, res));
  const server = createPrototypedServer(handle, app, { ...options, requireHostHeader: false });
  server.on("clientError", answerUnparsable);
  // An Expect header other than 100-continue: Node's 417, with a {"detail"} body instead of an
  // empty one. Node asks before the request handler runs, so the Host check comes first here too.
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) =>
    badHost(req) ? refuseHost(res) : answerBare(res, 417, "Expectation Failed: only Expect: 100-continue is supported", false),
  );
  return server;
}

/** host [":" port], as RFC 3986 spells a reg-name, an IPv4 or a bracketed IP literal (empty allowed). */
const HOST_VALUE = /^(?:\[[0-9A-Za-z:.%\-_~]+\]|[A-Za-z0-9\-._~%!$&'()*+,;=]*)(?::[0-9]*)?$/;

/**
 * RFC 9112 §3.2: an HTTP/1.1 request with no Host, more than one, or one whose value is not a
 * host is answered 400. (Node keeps the first of several Host lines and reads no value.)
 */
function badHost(req: IncomingMessage): boolean {
  if (req.httpVersionMajor !== 1 || req.httpVersionMinor !== 1) return false;
  const host = req.headers.host;
  if (host === undefined || !HOST_VALUE.test(host)) return true;
  let lines = 0;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === "host") lines++;
  return lines !== 1;
}

function refuseHost(res: ServerResponse): void {
  answerBare(res, 400, "Bad Request: an HTTP/1.1 request needs exactly one valid Host header", true);
}

/** An answer from before the app: status and a {"detail"} body (and the connection closed, as Node closes it after its 400). */
function answerBare(res: ServerResponse, status: number, detail: string, close: boolean): void {
  const body = JSON.stringify({ detail });
  res.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(body), ...(close ? { Connection: "close" } : {}) });
  res.end(body);
}

/**
 * A request Node's parser refuses before the app sees it (headers over the size limit,
 * malformed HTTP) gets Node's status with a `{"detail"}` body, as every answer of the
 * interface has, instead of Node's empty one.
 */
function answerUnparsable(err: NodeJS.ErrnoException, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  // Node's own statuses for these codes.
  const [status, reason] =
    err.code === "HPE_HEADER_OVERFLOW"
      ? [431, "Request Header Fields Too Large"]
      : err.code === "HPE_CHUNK_EXTENSIONS_OVERFLOW"
        ? [413, "Payload Too Large"]
        : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? [408, "Request Timeout"]
          : [400, "Bad Request"];
  const body = JSON.stringify({ detail: reason });
  // Then closed from this side too, as Node's default does (a half-open client would keep it).
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`, () => socket.destroy());
}

function createPrototypedServer(handle: (req: IncomingMessage, res: ServerResponse) => void, app: Application, options: ServerOptions): Server {
  const { request, response } = app as unknown as AppPrototypes;
  // A Node whose IncomingMessage / ServerResponse are classes cannot take this route.
  if (isClass(IncomingMessage) || isClass(ServerResponse)) return createServer(options, handle);
  // Constructor functions (not classes), so their prototype can be the app's own objects.
  function AppRequest(this: IncomingMessage, ...args: ConstructorParameters<typeof IncomingMessage>): void {
    Reflect.apply(IncomingMessage, this, args);
  }
  AppRequest.prototype = request;
  function AppResponse(this: ServerResponse, ...args: ConstructorParameters<typeof ServerResponse>): void {
    Reflect.apply(ServerResponse, this, args);
  }
  AppResponse.prototype = response;
  return createServer(
    {
      ...options,
      IncomingMessage: AppRequest as unknown as typeof IncomingMessage,
      ServerResponse: AppResponse as unknown as typeof ServerResponse,
    },
    handle,
  );
}

function isClass(f: unknown): boolean {
  return /^class\b/.test(Function.prototype.toString.call(f));
}
