// jsonBody reads plain JSON bodies itself and leaves the rest to express.json; a
// client must not be able to tell which one ran. Each case is sent to an app using
// jsonBody and to the same app using express.json with the same options, and both
// answers (status, body, what the route saw) must be equal. sendJson must write what
// res.status(n).json(v) writes.
import { createServer } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { deflateSync, gzipSync } from "node:zlib";
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

describe("a charset parameter changes nothing: every JSON body is read as UTF-8 (RFC 8259 §8.1, §11)", () => {
  const utf8 = '{"a":"é"}';
  for (const charset of ["latin1", "iso-8859-1", "utf-16", "us-ascii", "nonsense"]) {
    const headers = { "content-type": `application/json; charset=${charset}` };
    it(`charset=${charset} on UTF-8 bytes: parsed as UTF-8, read directly, chunked or compressed`, async () => {
      for (const [how, h, body] of [
        ["direct", headers, utf8],
        ["chunked", { ...headers, "transfer-encoding": "chunked" }, utf8],
        ["gzip", { ...headers, "content-encoding": "gzip" }, gzipSync(utf8)],
        ["deflate", { ...headers, "content-encoding": "deflate" }, deflateSync(utf8)],
      ] as const) {
        const sized = how === "chunked" ? h : withLength(h, body);
        const a = await send(fast, "/echo", sized, body);
        expect([how, a.status, a.body]).toEqual([how, 200, JSON.stringify({ body: { a: "é" } })]);
      }
    });
  }

  it("UTF-16 bytes are not UTF-8 JSON, whatever the charset says: 422 as any body that does not parse", async () => {
    const body = Buffer.from('{"a":1}', "utf16le");
    const a = await send(fast, "/echo", withLength({ "content-type": "application/json; charset=utf-16" }, body), body);
    expect([a.status, a.body]).toEqual([422, JSON.stringify({ detail: "Request body is not valid JSON" })]);
  });
});

describe("a body cut off mid-upload", () => {
  /** An app whose answers (status and body, even into a closed connection) resolve `answered`. */
  async function watchedApp(): Promise<{ port: number; answered: Promise<{ status: number; body: string }> }> {
    let resolve!: (a: { status: number; body: string }) => void;
    const answered = new Promise<{ status: number; body: string }>((r) => (resolve = r));
    const app = express();
    app.use((_req, res, next) => {
      const end = res.end.bind(res) as (...a: unknown[]) => express.Response;
      res.end = ((...a: unknown[]) => {
        resolve({ status: res.statusCode, body: String(a[0]) });
        return end(...a);
      }) as typeof res.end;
      next();
    });
    app.post("/echo", jsonBody(LIMIT), (_req, res) => void res.status(200).json({ ran: true }));
    app.use(errorHandler({ error: () => {} }));
    return { port: await listen(app), answered };
  }

  const whole = '{"a":1,"b":"two","c":[3,4,5]}';
  const cases: [string, Record<string, string>, Buffer][] = [
    ["identity", {}, Buffer.from(whole)],
    ["gzip", { "content-encoding": "gzip" }, gzipSync(whole)],
    ["deflate", { "content-encoding": "deflate" }, deflateSync(whole)],
  ];
  for (const [name, encoding, body] of cases) {
    it(`${name}: Content-Length of the whole body, half of it sent, then the client closes: 400 "Malformed request body"`, async () => {
      const { port, answered } = await watchedApp();
      const head = `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${Object.entries(encoding).map(([k, v]) => `${k}: ${v}\r\n`).join("")}Content-Length: ${body.length}\r\n\r\n`;
      const sock = connect(port, "127.0.0.1", () => sock.end(Buffer.concat([Buffer.from(head), body.subarray(0, body.length >> 1)])));
      sock.on("error", () => undefined);
      expect(await answered).toEqual({ status: 400, body: JSON.stringify({ detail: "Malformed request body" }) });
    });
  }
});
