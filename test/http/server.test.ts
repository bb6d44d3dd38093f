// createAppServer: requests are born with the app's prototypes (so express's
// per-request prototype change is a no-op), and a client sees exactly what it sees
// from http.createServer(app): status, raw headers in order (Date aside) and body.
import { IncomingMessage, ServerResponse, createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import express from "express";
import { createExchangeApp, createMemoryExchange } from "../../sim/http/exchange-app.ts";
import { createAppServer } from "../../sim/http/server.ts";
import { rawRequest } from "./raw-answer.ts";

const send = rawRequest;

const ex = createMemoryExchange({ logger: { error: () => undefined } });
const app = ex.app as unknown as { request: object; response: object };
const servers: Server[] = [];
let plainPort = 0;
let appPort = 0;
const seen: { req: boolean; res: boolean; instance: boolean }[] = [];

async function listen(s: Server): Promise<number> {
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return (s.address() as AddressInfo).port;
}

beforeAll(async () => {
  plainPort = await listen(createServer(ex.app));
  const s = createAppServer(ex.app);
  // Runs before express sees the request.
  s.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
    seen.push({ req: Object.getPrototypeOf(req) === app.request, res: Object.getPrototypeOf(res) === app.response, instance: req instanceof IncomingMessage && res instanceof ServerResponse });
  });
  appPort = await listen(s);
});
afterAll(() => {
  for (const s of servers) s.close();
});

describe("createAppServer", () => {
  it("creates requests and responses with the app's prototypes, still IncomingMessage and ServerResponse", async () => {
    seen.length = 0;
    await send(appPort, "GET", "/api/v1/system/time");
    expect(seen).toEqual([{ req: true, res: true, instance: true }]);
  });

  const cases: [string, string, Record<string, string>, string][] = [
    ["GET", "/api/v1/markets", {}, ""],
    ["GET", "/api/v1/nowhere", {}, ""],
    ["GET", "/api/v1/orders/preview", {}, ""],
    ["OPTIONS", "/api/v1/orders", { origin: "https://a.example", "access-control-request-method": "POST" }, ""],
    ["POST", "/api/v1/orders", { "content-type": "application/json" }, '{"side":"ask"'],
    ["POST", "/api/v1/orders", { "content-type": "application/json" }, '{"owner_address":"0x0000000000000000000000000000000000000001"}'],
    ["POST", "/api/v1/orders/cancel", { "content-type": "application/json" }, "{}"],
    ["GET", "/api/v1/orders?owner_address=0x1", {}, ""],
  ];
  for (const [method, path, headers, body] of cases) {
    it(`answers ${method} ${path} ${body} exactly as http.createServer(app)`, async () => {
      const a = await send(appPort, method, path, headers, body);
      const b = await send(plainPort, method, path, headers, body);
      expect(a).toEqual(b);
    });
  }
});

describe("createAppServer: requests Node's parser refuses", () => {
  /** Raw bytes to the app server; the whole answer as text once it closes the connection. */
  const raw = (bytes: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(appPort, "127.0.0.1", () => socket.end(bytes));
      const parts: Buffer[] = [];
      socket.on("data", (c: Buffer) => parts.push(c));
      socket.on("close", () => resolve(Buffer.concat(parts).toString("utf8")));
      socket.on("error", reject);
    });

  it("headers over Node's limit: 431 with the interface's {detail} body, not an empty one", async () => {
    const a = await send(appPort, "GET", "/api/v1/markets", { authorization: `Bearer ${"k".repeat(60_000)}` });
    expect(a.status).toBe(431);
    expect(a.headers).toContain("Content-Type: application/json; charset=utf-8");
    expect(JSON.parse(a.body)).toEqual({ detail: "Request Header Fields Too Large" });
  });

  it("chunk extensions over Node's limit: 413 with a {detail} body, as Node's own status", async () => {
    const answer = await raw(`POST /api/v1/orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2;${"e".repeat(20_000)}\r\n{}\r\n0\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(answer.endsWith('\r\n\r\n{"detail":"Payload Too Large"}')).toBe(true);
  });

  it("an HTTP/1.1 request without Host, with two, or with one that is not a host: 400 with a {detail} body, and the connection closed", async () => {
    for (const hostLines of ["", "Host: a\r\nHost: b\r\n", "Host: a b\r\n", "Host: a/b\r\n"]) {
      const answer = await raw(`GET /api/v1/markets HTTP/1.1\r\n${hostLines}\r\n`);
      expect(answer, JSON.stringify(hostLines)).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(answer).toMatch(/\r\nConnection: close\r\n/);
      expect(answer.endsWith('\r\n\r\n{"detail":"Bad Request: an HTTP/1.1 request needs exactly one valid Host header"}')).toBe(true);
    }
    // Even with an Expect Node asks about before the request handler.
    expect(await raw("GET /api/v1/markets HTTP/1.1\r\nExpect: foo\r\n\r\n")).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    // Hosts as clients send them, and HTTP/1.0 with none: served.
    for (const host of ["127.0.0.1:8080", "localhost", "[::1]:3000", "[fe80::1%25eth0]:80", "api.example.com", "API.Example.com.", "my_service:8080", ""]) {
      expect(await raw(`GET /api/v1/system/time HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`), host).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    }
    expect(await raw("GET /api/v1/system/time HTTP/1.0\r\n\r\n")).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  });

  it("an Expect other than 100-continue: 417 with a {detail} body; 100-continue is served", async () => {
    const refused = await send(appPort, "GET", "/api/v1/markets", { expect: "something-else" });
    expect(refused.status).toBe(417);
    expect(refused.headers).toContain("Content-Type: application/json; charset=utf-8");
    expect(JSON.parse(refused.body)).toEqual({ detail: "Expectation Failed: only Expect: 100-continue is supported" });
    const answer = await raw('POST /api/v1/orders/preview HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}');
    expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 4\d\d /);
  });

  it("malformed HTTP: 400 with a {detail} body", async () => {
    const answer = await raw("GET /api/v1/markets HTTP/1.1\r\nHost: x\r\nBroken header line\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer.endsWith('\r\n\r\n{"detail":"Bad Request"}')).toBe(true);
  });
});

describe("createExchangeApp(parts, into)", () => {
  const mem = createMemoryExchange({ logger: { error: () => undefined } });
  const parts = { engine: mem.engine, registry: mem.registry, clock: mem.clock, apiKeys: mem.apiKeys, rateLimits: mem.rateLimits, health: mem.health, fx: mem.fx, config: mem.config };
  const outer = express();
  outer.disable("x-powered-by");
  outer.set("etag", false);
  const protos: boolean[] = [];
  outer.use((req, _res, next) => {
    if (req.url === "/outer-boom") return next(new Error("outer middleware failed"));
    next();
  });
  outer.use("/api/v1/system", (req, _res, next) => {
    protos.push(Object.getPrototypeOf(req) === (outer as unknown as { request: object }).request);
    next();
  });
  const returned = createExchangeApp(parts, outer);
  let intoPort = 0;
  let alonePort = 0;

  beforeAll(async () => {
    intoPort = await listen(createAppServer(outer));
    alonePort = await listen(createAppServer(mem.app));
  });

  it("returns the app it was given", () => {
    expect(returned).toBe(outer);
  });

  for (const [method, path, body] of [
    ["GET", "/api/v1/system/time", ""],
    ["GET", "/api/v1/markets", ""],
    ["GET", "/api/v1/nowhere", ""],
    ["POST", "/api/v1/orders", '{"side":'],
  ] as const) {
    it(`answers ${method} ${path} as the app on its own does`, async () => {
      const headers: Record<string, string> = body ? { "content-type": "application/json" } : {};
      expect(await send(intoPort, method, path, headers, body)).toEqual(await send(alonePort, method, path, headers, body));
    });
  }

  it("keeps the request's prototypes (no app mounted in the app)", async () => {
    protos.length = 0;
    await send(intoPort, "GET", "/api/v1/system/time");
    expect(protos).toEqual([true]);
  });

  it("leaves errors of the outer app's middleware to that app (not the /api/v1 error envelope)", async () => {
    const a = await send(intoPort, "GET", "/outer-boom");
    expect(a.status).toBe(500);
    expect(a.headers.some((h) => h.startsWith("Content-Type: text/html"))).toBe(true);
  });
});

describe("createMemoryExchange options", () => {
  it("refuses what it would otherwise take silently and then serve wrong, naming the option", () => {
    expect(() => createMemoryExchange({ chainid: 5 } as never)).toThrow(/createMemoryExchange: unknown option "chainid"; the options are seed, .*chainId/);
    expect(() => createMemoryExchange({ chainId: 0 })).toThrow(/chainId must be a positive integer, got 0/);
    expect(() => createMemoryExchange({ chainId: "5" as never })).toThrow(/chainId must be a positive integer, got "5"/);
    expect(() => createMemoryExchange({ exchangeAddress: "0x12" })).toThrow(/exchangeAddress must be a 0x-prefixed 20-byte hex address, got "0x12"/);
    expect(() => createMemoryExchange({ seed: { a: 1 } as never })).toThrow(/seed must be a finite number or non-empty text/);
    expect(() => createMemoryExchange({ domainName: "" })).toThrow(/domainName must be non-empty text/);
    expect(() => createMemoryExchange({ executorId: 16 })).toThrow(/executorId must be a whole number 0-15, got 16/);
    expect(() => createMemoryExchange({ rateLimits: "no" as never })).toThrow(/rateLimits must be true or false/);
  });
});
