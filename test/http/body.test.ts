// jsonBody reads plain JSON bodies itself and leaves the rest to express.json; a
// client must not be able to tell which one ran. Each case is sent to an app using
// jsonBody and to the same app using express.json with the same options, and both
// answers (status, body, what the route saw) must be equal. sendJson must write what
// res.status(n).json(v) writes.
import { createServer } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import express, { type RequestHandler } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonBody } from "../../sim/http/body.ts";
import { errorHandler } from "../../sim/http/errors.ts";
import { sendJson } from "../../sim/http/respond.ts";
import { rawRequest, type RawAnswer } from "./raw-answer.ts";

const LIMIT = "1kb";

function reference(): RequestHandler {
  return express.json({ limit: LIMIT, strict: true, type: (req) => !req.headers["content-type"] || /(^|[/+])json\b/i.test(req.headers["content-type"]) });
}

const errorTypes = new Map<RequestHandler, string[]>();

function appWith(parser: RequestHandler) {
  const types: string[] = [];
  errorTypes.set(parser, types);
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.post("/echo", parser, (req, res) => {
    res.status(200).json({ body: req.body === undefined ? "<undefined>" : req.body });
  });
  app.post("/send-json", (_req, res) => sendJson(res, 201, { order_id: "ä-1", n: [1, 2] }));
  app.post("/express-json", (_req, res) => {
    res.status(201).json({ order_id: "ä-1", n: [1, 2] });
  });
  app.use((err: { type?: string }, _req: express.Request, _res: express.Response, next: express.NextFunction) => {
    types.push(String(err.type));
    next(err);
  });
  app.use(errorHandler({ error: () => {} }));
  return app;
}

/** A raw POST and its answer (see raw-answer.ts). */
function send(port: number, path: string, headers: Record<string, string>, body: Buffer | string): Promise<RawAnswer> {
  return rawRequest(port, "POST", path, headers, body);
}

const servers: ReturnType<typeof createServer>[] = [];
let fast = 0;
let ref = 0;

async function listen(app: express.Application): Promise<number> {
  const s = createServer(app);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return (s.address() as AddressInfo).port;
}

let fastParser: RequestHandler;
let refParser: RequestHandler;
beforeAll(async () => {
  fastParser = jsonBody(LIMIT);
  refParser = reference();
  fast = await listen(appWith(fastParser));
  ref = await listen(appWith(refParser));
});

/** Headers promising 100 bytes, 10 sent, then the connection closed. */
function abortMidBody(port: number): Promise<void> {
  return new Promise((resolve) => {
    const sock = connect(port, "127.0.0.1", () => {
      sock.write("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"a\":12345");
      setTimeout(() => {
        sock.destroy();
        resolve();
      }, 50);
    });
  });
}
afterAll(() => {
  for (const s of servers) s.close();
});

const json = { "content-type": "application/json" };
const withLength = (h: Record<string, string>, body: Buffer | string) => ({ ...h, "content-length": String(Buffer.byteLength(body)) });

const CASES: { name: string; headers: Record<string, string>; body: Buffer | string }[] = [
  { name: "an object", headers: json, body: '{"a":1,"b":"x"}' },
  { name: "an array", headers: json, body: "[1,2]" },
  { name: "leading whitespace", headers: json, body: ' \n\t{"a":1}' },
  { name: "an empty body", headers: json, body: "" },
  { name: "only whitespace", headers: json, body: "   " },
  { name: "a scalar (strict mode)", headers: json, body: '"hi"' },
  { name: "a number (strict mode)", headers: json, body: "12" },
  { name: "a line separator before the object", headers: json, body: "\u2028{}" },
  { name: "malformed JSON", headers: json, body: '{"a":' },
  { name: "a trailing comma", headers: json, body: '{"a":1,}' },
  { name: "a UTF-8 BOM", headers: json, body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":"é"}')]) },
  { name: "non-ASCII text", headers: json, body: '{"a":"€ 1,5"}' },
  { name: "invalid UTF-8 bytes", headers: json, body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]) },
  { name: "charset utf-8", headers: { "content-type": "application/json; charset=utf-8" }, body: '{"a":1}' },
  { name: "charset UTF-8 quoted", headers: { "content-type": 'application/json; charset="UTF-8"' }, body: '{"a":1}' },
  { name: "charset latin1 (415)", headers: { "content-type": "application/json; charset=latin1" }, body: '{"a":1}' },
  { name: "charset utf-16", headers: { "content-type": "application/json; charset=utf-16" }, body: Buffer.from('{"a":1}', "utf16le") },
  { name: "no content type", headers: {}, body: '{"a":1}' },
  { name: "text/plain", headers: { "content-type": "text/plain" }, body: '{"a":1}' },
  { name: "a +json type", headers: { "content-type": "application/vnd.api+json" }, body: '{"a":1}' },
  { name: "just under the limit", headers: json, body: JSON.stringify({ p: "x".repeat(1014) }) },
  { name: "over the limit (413)", headers: json, body: JSON.stringify({ p: "x".repeat(1100) }) },
  { name: "gzip", headers: { ...json, "content-encoding": "gzip" }, body: gzipSync('{"a":1}') },
  { name: "an unknown content encoding", headers: { ...json, "content-encoding": "br2" }, body: '{"a":1}' },
];

describe("jsonBody answers exactly as express.json", () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const headers = withLength(c.headers, c.body);
      const [a, b] = await Promise.all([send(fast, "/echo", headers, c.body), send(ref, "/echo", headers, c.body)]);
      expect(a).toEqual(b);
    });
  }

  it("a chunked body (no Content-Length)", async () => {
    const body = '{"chunked":true}';
    const headers = { ...json, "transfer-encoding": "chunked" };
    const [a, b] = await Promise.all([send(fast, "/echo", headers, body), send(ref, "/echo", headers, body)]);
    expect(a).toEqual(b);
    expect(JSON.parse(a.body)).toEqual({ body: { chunked: true } });
  });

  it("a client hanging up mid-body: the same request.aborted error, the route never runs", async () => {
    await Promise.all([abortMidBody(fast), abortMidBody(ref)]);
    await new Promise((r) => setTimeout(r, 100));
    expect(errorTypes.get(fastParser)).toContain("request.aborted");
    expect(errorTypes.get(fastParser)).toEqual(errorTypes.get(refParser));
  });

  it("parses what it reads directly", async () => {
    const a = await send(fast, "/echo", withLength(json, '{"a":[1,{"b":null}]}'), '{"a":[1,{"b":null}]}');
    expect(a.status).toBe(200);
    expect(JSON.parse(a.body)).toEqual({ body: { a: [1, { b: null }] } });
  });
});

describe("sendJson", () => {
  it("writes the status, headers and bytes of res.status(n).json(v)", async () => {
    const [a, b] = await Promise.all([send(fast, "/send-json", {}, ""), send(fast, "/express-json", {}, "")]);
    expect(a.status).toBe(201);
    expect(a).toEqual(b);
    expect(a.headers).toContain("Content-Type: application/json; charset=utf-8");
  });
});
