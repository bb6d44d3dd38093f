// The http.Server for an express app. Express gives every request its request and
// response prototypes with Object.setPrototypeOf when the request reaches the app;
// measured on POST /orders, that change costs a large part of a request's CPU (tens
// of µs: the objects' shapes change mid-request, so the stream and http code that
// touches them afterwards runs slower). A server whose requests and responses are
// created with the app's prototypes already makes express's change a no-op: the
// objects, the headers and the bytes on the wire are the same.

import { IncomingMessage, ServerResponse, createServer, type Server, type ServerOptions } from "node:http";
import type { Socket } from "node:net";
import type { Application } from "express";
import { DEFAULT_BODY_LIMIT_BYTES } from "./body.ts";
import { answerExpectContinue } from "./expect-continue.ts";
import { answerUnparsable, idleFromMs, oweAnswer, restartIdle } from "./owed-answers.ts";
import { realNowMs } from "../platform/real-time.ts";

/** What express puts on an app: the prototypes it gives requests and responses. */
interface AppPrototypes {
  request: IncomingMessage;
  response: ServerResponse;
}

/**
 * `http.createServer(app)`, with requests and responses born with `app`'s prototypes.
 * `bodyLimitBytes`: the app's body limit, over which `Expect: 100-continue` gets no 100.
 */
export function createAppServer(app: Application, options: ServerOptions = {}, bodyLimitBytes = DEFAULT_BODY_LIMIT_BYTES): Server {
  // Node's own Host check answers an empty 400 (and lets a second Host or a malformed one
  // through); this one answers as the interface does.
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    // Counted, so a refusal from the parser on this connection waits for this answer.
    oweAnswer(req, res);
    if (badHost(req)) refuseHost(res);
    else app(req, res);
  };
  const server = createPrototypedServer(handle, app, { ...options, requireHostHeader: false });
  server.on("clientError", answerUnparsable);
  // With a listener, Node leaves a keep-alive connection's idle timeout to it (no destroy of its own).
  server.on("timeout", closeIdleConnection);
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => answerExpectContinue(req, res, bodyLimitBytes, handle));
  // An Expect header other than 100-continue: Node's 417, with a {"detail"} body instead of an
  // empty one. Node asks before the request handler runs, so the Host check comes first here too.
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    oweAnswer(req, res);
    if (badHost(req)) refuseHost(res);
    else answerBare(res, 417, "Expectation Failed: only Expect: 100-continue is supported", false);
  });
  return server;
}

/** How late a keep-alive timeout may fire and still count as on time (an event loop this far behind was stopped). */
const PAUSED_LATE_MS = 1_000;

/**
 * An idle keep-alive connection's timeout (`this` the server). One that fires long after it
 * was due means the process was paused (a breakpoint in a test, SIGSTOP): every timer fires
 * as it resumes, while its clients reuse their pooled connections, and a request sent on one
 * as Node closed it was cut (ECONNRESET; a fetch does not retry). The idle time then counts
 * again from now. On time, the connection is closed, as Node closes it.
 */
function closeIdleConnection(this: Server, socket: Socket): void {
  // What Node armed (keepAliveTimeout and a second more, on Node 20).
  const armedMs = socket.timeout ?? this.keepAliveTimeout;
  if (realNowMs() - (idleFromMs(socket) + armedMs) > PAUSED_LATE_MS) {
    restartIdle(socket);
    socket.setTimeout(armedMs);
    return;
  }
  socket.destroy();
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
