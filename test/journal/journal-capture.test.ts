// The journal's copy of an answer is the first `bodyBytes` bytes the response wrote,
// decoded as UTF-8, whatever mix of strings, encodings and buffers the route wrote
// them in (a fitting UTF-8 string is kept as is; everything else goes through bytes).
import express from "express";
import request from "supertest";
import { describe, expect, test } from "vitest";
import { createMemoryExchange } from "../../sim/http/exchange-app.ts";
import { RequestJournal } from "../../sim/http/journal.ts";
import { jsonBody } from "../../sim/http/body.ts";

const MAX = 16;

/** What the copy must be: the written bytes, cut at MAX, decoded as UTF-8. */
function expected(parts: [string | Buffer, BufferEncoding?][]) {
  const bytes = Buffer.concat(parts.map(([c, enc]) => (typeof c === "string" ? Buffer.from(c, enc ?? "utf8") : c)));
  return { text: bytes.subarray(0, MAX).toString("utf8"), bytes: bytes.length, truncated: bytes.length > MAX };
}

const CASES: { name: string; parts: [string | Buffer, BufferEncoding?][] }[] = [
  { name: "one short string", parts: [['{"ok":true}']] },
  { name: "a string over the limit", parts: [['{"detail":"a long answer"}']] },
  { name: "a string exactly at the limit", parts: [["0123456789abcdef"]] },
  { name: "multi-byte characters cut mid-character", parts: [["ééééééééé"]] },
  { name: "a lone surrogate", parts: [["a\ud800b"]] },
  { name: "strings and buffers mixed, crossing the limit", parts: [["abc"], [Buffer.from("defgh")], ["ijklmnopq"], ["rest"]] },
  { name: "a latin1 string", parts: [["caf\u00e9", "latin1"]] },
  { name: "a hex string", parts: [["48656c6c6f", "hex"]] },
];

describe("journal response copy", () => {
  const mem = createMemoryExchange({ logger: { error: () => undefined } });
  const journal = new RequestJournal(mem.engine, { bodyBytes: MAX });
  const app = express();
  app.use("/api/v1", journal.middleware());
  CASES.forEach((c, i) => {
    app.get(`/api/v1/case/${i}`, (_req, res) => {
      const parts = c.parts;
      for (const [chunk, enc] of parts.slice(0, -1)) {
        if (typeof chunk === "string") res.write(chunk, enc ?? "utf8");
        else res.write(chunk);
      }
      const [last, enc] = parts[parts.length - 1]!;
      if (typeof last === "string") res.end(last, enc ?? "utf8");
      else res.end(last);
    });
  });

  CASES.forEach((c, i) => {
    test(c.name, async () => {
      const r = await request(app).get(`/api/v1/case/${i}`);
      expect(r.status).toBe(200);
      const e = journal.get(r.headers["x-request-id"]!)!;
      expect(e.response_body).toEqual(expected(c.parts));
    });
  });
});

// A body that does not parse is what a client debugging its 400 most needs to see: the
// journal keeps it as sent, from the direct JSON read and from express.json alike.
describe("journal request copy of a body that does not parse", () => {
  const mem = createMemoryExchange({ logger: { error: () => undefined } });
  const journal = new RequestJournal(mem.engine, { bodyBytes: MAX });
  const app = express();
  app.use("/api/v1", journal.middleware());
  app.post("/api/v1/echo", jsonBody(), (req, res) => {
    res.json({ got: req.body });
  });
  app.use((err: { status?: number }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(err.status ?? 500).json({ detail: "bad body" });
  });

  const send = (contentType: string, body: string) => request(app).post("/api/v1/echo").set("content-type", contentType).send(body);
  const entry = (r: request.Response) => journal.get(r.headers["x-request-id"]!)!;

  test.each([
    ["application/json", "the direct read"],
    ["application/vnd.api+json", "express.json"],
  ])("%s (%s): the text as sent, cut at the limit", async (contentType) => {
    const short = await send(contentType, '{"a":1,');
    expect(short.status).toBe(400);
    expect(entry(short).request_body).toEqual({ text: '{"a":1,', bytes: 7, truncated: false });
    const long = await send(contentType, '{"price": 1.0.0, "amount": "2"}');
    expect(long.status).toBe(400);
    expect(entry(long).request_body).toEqual({ text: '{"price": 1.0.0,', bytes: 31, truncated: true });
  });

  test("a request body exactly at the limit is kept whole (not truncated); one byte more is cut", async () => {
    // Parsed JSON (16 bytes re-serialised) and unparsed text alike.
    const at = await send("application/json", '{"abcdefghij":1}');
    expect(at.status).toBe(200);
    expect(entry(at).request_body).toEqual({ text: '{"abcdefghij":1}', bytes: MAX, truncated: false });
    const over = await send("application/json", '{"abcdefghijk":1}');
    expect(over.status).toBe(200);
    expect(entry(over).request_body).toEqual({ text: '{"abcdefghijk":1', bytes: MAX + 1, truncated: true });
    const text = await send("text/plain", "0123456789abcdef");
    expect(entry(text).request_body).toEqual({ text: "0123456789abcdef", bytes: MAX, truncated: false });
    const longer = await send("text/plain", "0123456789abcdefg");
    expect(entry(longer).request_body).toEqual({ text: "0123456789abcdef", bytes: MAX + 1, truncated: true });
  });

  test.each([
    ["application/json", "the direct read"],
    ["application/vnd.api+json", "express.json"],
    ["text/plain", "a body no route reads"],
  ])("%s (%s): a body that is not UTF-8 is kept as its bytes (base64), counted and cut as bytes", async (contentType) => {
    // As the bytes are: superagent would otherwise serialize a Buffer sent as JSON to {"type":"Buffer",...}.
    const sendBytes = (b: Buffer) => request(app).post("/api/v1/echo").set("content-type", contentType).serialize((x: Buffer) => x as never).send(b);
    // 0xff is never UTF-8: decoding first would count each one as the three bytes of U+FFFD.
    const under = Buffer.alloc(10, 0xff);
    expect(entry(await sendBytes(under)).request_body).toEqual({ text: under.toString("base64"), bytes: 10, truncated: false, encoding: "base64" });
    const over = Buffer.concat([Buffer.from('{"a":'), Buffer.alloc(20, 0xfe)]);
    expect(entry(await sendBytes(over)).request_body).toEqual({ text: over.subarray(0, MAX).toString("base64"), bytes: 25, truncated: true, encoding: "base64" });
    // UTF-8 text of two-byte characters stays text, its size in bytes.
    const accents = Buffer.from("éééé");
    expect(entry(await sendBytes(accents)).request_body).toEqual({ text: "éééé", bytes: 8, truncated: false });
    // What is kept decides: text whose bad byte lies past the cut is text, and so is text cut inside a character.
    const badLater = Buffer.concat([Buffer.from("0123456789abcdef"), Buffer.from([0xff])]);
    expect(entry(await sendBytes(badLater)).request_body).toEqual({ text: "0123456789abcdef", bytes: 17, truncated: true });
    const cutInside = Buffer.from("0123456789abcdeé");
    expect(entry(await sendBytes(cutInside)).request_body).toMatchObject({ bytes: 17, truncated: true });
    expect(entry(await sendBytes(cutInside)).request_body!.encoding).toBeUndefined();
    // A byte at the cut that no continuation could make UTF-8 (0xff; an overlong 0xe0 0x80) is not a cut character: bytes.
    for (const tail of [[0xff], [0xe0, 0x80]]) {
      const bad = Buffer.concat([Buffer.from("0123456789abcdef".slice(0, MAX - tail.length)), Buffer.from(tail), Buffer.from("z")]);
      expect(entry(await sendBytes(bad)).request_body, String(tail)).toEqual({ text: bad.subarray(0, MAX).toString("base64"), bytes: 17, truncated: true, encoding: "base64" });
    }
  });

  test("a body that parses is still recorded as its JSON; one of another content type (which no route parses) as its text", async () => {
    const ok = await send("application/vnd.api+json", '{ "a" : 1 }');
    expect(ok.status).toBe(200);
    expect(entry(ok).request_body).toEqual({ text: '{"a":1}', bytes: 7, truncated: false });
    const text = await send("text/plain", '{"price": "1"}');
    expect(text.status).toBe(200);
    expect(text.body).toEqual({});
    expect(entry(text).request_body).toEqual({ text: '{"price": "1"}', bytes: 14, truncated: false });
  });
});
