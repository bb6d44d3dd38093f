// Requests to Anvil over node:http instead of the global fetch.
//
// The global fetch (undici) keeps a connection pool object for every origin it
// has reached and never drops it: each Anvil listens on a new port, so every
// exchange booted and closed left one behind (tens of kB per boot, without end
// in a test run that boots hundreds of times, or a pool serving many test ids).
// node:http's default agent forgets an origin once its sockets have closed.
// Only what the JSON-RPC callers use is supported: a method, headers, a string
// or byte body, an abort signal; the answer is read whole.
import { Agent, request } from "node:http";
import { http, type HttpTransport } from "viem";
import { isBytes } from "../platform/typed-array-realm.ts";

export interface HttpAnswer {
  status: number;
  statusText: string;
  /** Header names and values as received, in pairs. */
  rawHeaders: string[];
  body: Buffer;
}

export interface HttpRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
}

/**
 * Our own agent, with the options of Node's global one: Node 22.21+/24 route the global
 * agent through HTTP_PROXY when NODE_USE_ENV_PROXY is set (as CI images do), and fakex's
 * own node on 127.0.0.1 must not be asked through a proxy.
 */
const DIRECT = new Agent({ keepAlive: true, scheduling: "lifo", timeout: 5000 });

/** One request to an http:// URL, its answer read whole. */
export function httpRequest(url: string, o: HttpRequest = {}): Promise<HttpAnswer> {
  return new Promise<HttpAnswer>((resolve, reject) => {
    const req = request(url, { method: o.method ?? "GET", headers: o.headers, signal: o.signal, agent: DIRECT }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 502, statusText: res.statusMessage ?? "", rawHeaders: res.rawHeaders, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) }),
      );
    });
    req.on("error", reject);
    req.end(o.body);
  });
}

/** A JSON POST; the answer's body as text. */
export async function httpPostJson(url: string, body: string | Uint8Array, signal?: AbortSignal): Promise<{ status: number; text: string }> {
  const a = await httpRequest(url, { method: "POST", headers: { "content-type": "application/json" }, body, ...(signal ? { signal } : {}) });
  return { status: a.status, text: a.body.toString("utf8") };
}

/** Status codes whose Response must not carry a body (the Response constructor refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

/** fetch() over httpRequest, for clients that take a fetch function (viem); other URLs and bodies go to the global fetch. */
export async function httpFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = input instanceof Request ? input.url : String(input);
  const body = init.body;
  const plainBody = body === undefined || body === null || typeof body === "string" || isBytes(body);
  if (input instanceof Request || !url.startsWith("http://") || !plainBody) return fetch(input, init);
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  const a = await httpRequest(url, { method: init.method ?? "GET", headers, body: body ?? undefined, signal: init.signal ?? undefined });
  const answerHeaders = new Headers();
  for (let i = 0; i + 1 < a.rawHeaders.length; i += 2) answerHeaders.append(a.rawHeaders[i]!, a.rawHeaders[i + 1]!);
  return new Response(NO_BODY.has(a.status) ? null : a.body, { status: a.status, statusText: a.statusText, headers: answerHeaders });
}

/**
 * Base of viem's backoff between its three retries (it doubles each time). viem's 150 ms
 * suits a remote provider; a local node that refuses a connection has stopped (a released
 * pool instance, a killed Anvil), and each request waited ~1 s of retries to say so.
 */
const ANVIL_RETRY_DELAY_MS = 20;

/**
 * viem's HTTP transport to an Anvil endpoint, through httpFetch. No cap on an answer's
 * size (viem's default is 10 MiB): the node is our own, and its state dump grows with the
 * chain (a --state-dir checkpoint of some 2,000 busy blocks is past 10 MiB). `timeoutMs`:
 * viem's 10 s unless given (a dump or load of a large state takes longer).
 */
export function anvilTransport(rpcUrl: string, timeoutMs?: number): HttpTransport {
  return http(rpcUrl, { fetchFn: httpFetch, maxResponseBodySize: false, retryDelay: ANVIL_RETRY_DELAY_MS, ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }) });
}

