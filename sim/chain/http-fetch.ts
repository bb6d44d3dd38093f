// fetch() for talking to Anvil, over node:http instead of the global fetch.
//
// The global fetch (undici) keeps a connection pool object for every origin it
// has reached and never drops it: each Anvil listens on a new port, so every
// exchange booted and closed left one behind (tens of kB per boot, without end
// in a test run that boots hundreds of times, or a pool serving many test ids).
// node:http's default agent forgets an origin once its sockets have closed.
// Only what the JSON-RPC callers use is supported: a method, headers, a string
// or byte body, an abort signal; the answer is read whole.
import { request } from "node:http";
import { http, type HttpTransport } from "viem";

type FetchInput = string | URL | Request;

/** Status codes whose Response must not carry a body (the Response constructor refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

export function httpFetch(input: FetchInput, init: RequestInit = {}): Promise<Response> {
  const url = input instanceof Request ? input.url : String(input);
  if (input instanceof Request || !url.startsWith("http://")) return fetch(input, init);
  const body = init.body;
  if (body !== undefined && body !== null && typeof body !== "string" && !(body instanceof Uint8Array)) return fetch(input, init);
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  return new Promise<Response>((resolve, reject) => {
    const req = request(url, { method: init.method ?? "GET", headers, signal: init.signal ?? undefined }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => {
        const status = res.statusCode ?? 502;
        const answerHeaders = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) answerHeaders.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        resolve(new Response(NO_BODY.has(status) ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage ?? "", headers: answerHeaders }));
      });
    });
    req.on("error", reject);
    req.end(body ?? undefined);
  });
}

/** viem's HTTP transport to an Anvil endpoint, through httpFetch. */
export function anvilTransport(rpcUrl: string): HttpTransport {
  return http(rpcUrl, { fetchFn: httpFetch });
}
