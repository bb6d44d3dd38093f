// With --state-dir every state change is applied under one lock. A request's body is
// read before that lock is taken (sim/http/body-ahead.ts), so a client that uploads
// slowly, stalls or hangs up mid-body holds up no other client; what it finally sends is
// applied and logged like any request, and comes back after a crash.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mkdtempSync } from "node:fs";
import { once } from "node:events";
import { IncomingMessage, request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { createFakeExchange, type FakeExchange } from "../../fixtures/fake-exchange.ts";
import { crashCopy } from "./crash-copy.ts";

let ex: FakeExchange;
/** The same exchange without --state-dir: every answer must be the same on both. */
let plain: FakeExchange;
let dir: string;
const errors: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-slow-"));
  ex = await createFakeExchange({ liquidity: false, users: 2, stateDir: dir, clock: "virtual", logger: { error: (m) => errors.push(m) } });
  plain = await createFakeExchange({ liquidity: false, users: 2, clock: "virtual" });
}, 60_000);

afterAll(async () => {
  await Promise.all([ex?.close(), plain?.close()]);
});

/** A request that fails the test if it is held up (the bug: it waited behind a stalled upload). */
async function call(url: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const postJson = (url: string, body: unknown) => call(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/** A request whose body the test sends in parts, when it chooses. */
function upload(url: string, headers: Record<string, string>, method = "POST") {
  const req = httpRequest(url, { method, headers });
  req.on("error", () => undefined);
  const answered = once(req, "response").then(async ([res]) => {
    if (!(res instanceof IncomingMessage)) throw new Error("no response");
    const chunks: Buffer[] = [];
    for await (const c of res) chunks.push(c as Buffer);
    return { status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as any };
  });
  // A test that fails before reading the answer must not leave it an unhandled rejection.
  answered.catch(() => undefined);
  return { req, answered };
}

const journaled = async (p: string, status: number, on = ex) =>
  ((await (await fetch(`${on.controlUrl}/requests/count?path=${encodeURIComponent(p)}&status=${status}`)).json()) as { count: number }).count;

/** Sent to a path under `/api/v1` (api) or `/__fakex` (control) of both exchanges: their answers. */
async function onBoth(where: "api" | "control", p: string, init: RequestInit): Promise<[{ status: number; body: unknown }, { status: number; body: unknown }]> {
  const url = (e: FakeExchange) => `${where === "api" ? e.baseUrl : e.controlUrl}${p}`;
  return [await call(url(ex), init), await call(url(plain), init)];
}

describe("--state-dir: request bodies are read before the log's lock", () => {
  let slowOrderId = "";

  test("a stalled upload of an order holds up no other request; when it arrives it is placed", async () => {
    const [me, other] = [ex.accounts[0]!, ex.accounts[1]!];
    expect((await postJson(`${ex.controlUrl}/fund`, { address: me.address, token: "USDT", amount: "100000000", vault: true })).status).toBe(200);
    const m = ex.registry.markets().find((x) => x.baseSymbol === "USDT")!;
    const preview = await postJson(`${ex.baseUrl}/orders/preview`, ex.newOrder(me, { symbol: m.symbol, side: "ask", amount: "20", price: "1.05" }));
    expect(preview.status).toBe(200);
    const text = JSON.stringify((await ex.signOrder(me, preview.body)).body);
    slowOrderId = JSON.parse(text).order_id;

    const slow = upload(`${ex.baseUrl}/orders`, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)) });
    slow.req.write(text.slice(0, 40));
    // While it stalls: reads, a state change through the control API, and a signed-order preview all answer.
    expect((await call(`${ex.baseUrl}/markets`)).status).toBe(200);
    expect((await postJson(`${ex.controlUrl}/fund`, { address: other.address, token: "USDC", amount: "50000000", vault: true })).status).toBe(200);
    expect((await postJson(`${ex.baseUrl}/orders/preview`, ex.newOrder(other, { symbol: m.symbol, side: "bid", amount: "20", price: "0.9" }))).status).toBe(200);
    // The rest of the body: the order is placed.
    slow.req.end(text.slice(40));
    const placed = await slow.answered;
    expect(placed.status).toBe(201);
    expect(placed.body.order_id).toBe(slowOrderId);
    expect(ex.parts.engine.getOrder(slowOrderId).status).toBe("pending");
  }, 30_000);

  test("a client that hangs up mid-body is journaled as a 400 (request aborted) and holds nothing up", async () => {
    const before = await journaled("/api/v1/api-keys/verify", 400);
    const cut = upload(`${ex.baseUrl}/api-keys/verify`, { "content-type": "application/json", "content-length": "200" });
    cut.req.write('{"api_key": "fkx_');
    expect((await call(`${ex.baseUrl}/tokens`)).status).toBe(200);
    cut.req.destroy();
    await expect.poll(() => journaled("/api/v1/api-keys/verify", 400), { timeout: 10_000 }).toBe(before + 1);
    expect((await call(`${ex.baseUrl}/tokens`)).status).toBe(200);
  }, 30_000);

  test("a chunked body past the limit is refused with 413 and the spec's envelope, as without --state-dir", async () => {
    const big = upload(`${ex.baseUrl}/orders/preview`, { "content-type": "application/json", "transfer-encoding": "chunked" });
    big.req.write(`{"pad": "${"x".repeat(600_000)}`);
    big.req.end(`${"y".repeat(600_000)}"}`);
    const refused = await big.answered;
    expect(refused.status).toBe(413);
    expect(refused.body).toMatchObject({ detail: "Request body too large" });
    // A declared length past the limit too; the server goes on.
    const declared = await call(`${ex.baseUrl}/orders/preview`, { method: "POST", headers: { "content-type": "application/json" }, body: "x".repeat(1024 * 1024 + 1) });
    expect(declared.status).toBe(413);
    expect((await call(`${ex.baseUrl}/markets`)).status).toBe(200);
  }, 30_000);

  test("compressed bodies read ahead are decoded as before: an /api/v1 preview and a control request", async () => {
    const m = ex.registry.markets().find((x) => x.baseSymbol === "USDT")!;
    const order = ex.newOrder(ex.accounts[1]!, { symbol: m.symbol, side: "bid", amount: "20", price: "0.8" });
    const gz = { "content-type": "application/json", "content-encoding": "gzip" };
    const preview = await call(`${ex.baseUrl}/orders/preview`, { method: "POST", headers: gz, body: gzipSync(JSON.stringify(order)) });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ ok: true, side: "bid", normalized_amount: "20", normalized_price: "0.8" });
    const nowBefore = ex.control.now().now;
    const advanced = await call(`${ex.controlUrl}/clock/advance`, { method: "POST", headers: gz, body: gzipSync(JSON.stringify({ seconds: 5 })) });
    expect(advanced.status).toBe(200);
    expect(ex.control.now().now).toBe(nowBefore + 5);
    // Refusals by the body reader, logged as such so that their replays are refused alike (the last test).
    const corrupt = await call(`${ex.baseUrl}/orders/preview`, { method: "POST", headers: gz, body: "not gzip at all" });
    expect(corrupt).toMatchObject({ status: 400, body: { detail: "Request body does not decode under its Content-Encoding" } });
    const tooLarge = await call(`${ex.controlUrl}/clock/advance`, { method: "POST", headers: { "content-type": "application/json" }, body: `{"seconds": 1, "pad": "${"z".repeat(5 * 1024 * 1024)}"}` });
    expect(tooLarge).toEqual({ status: 413, body: { detail: "Request body too large" } });
    expect(ex.control.now().now).toBe(nowBefore + 5);
  }, 30_000);

  test("a GET with a stalled body holds up no other request either (the control API reads GET bodies)", async () => {
    const stalled = upload(`${ex.controlUrl}/clock`, { "content-type": "application/json", "content-length": "50" }, "GET");
    stalled.req.write('{"x":');
    // Time for it to reach the server (a setup wait; nothing is timed).
    await new Promise((r) => setTimeout(r, 200));
    expect((await postJson(`${ex.controlUrl}/clock/advance`, { seconds: 1 })).status).toBe(200);
    stalled.req.destroy();
  }, 30_000);

  test("bodies the reader refuses or takes get the same answers as without --state-dir", async () => {
    const cap = 1024 * 1024;
    const pad = (n: number) => JSON.stringify({ pad: "x".repeat(n) });
    const cases: [string, Record<string, string>, Buffer | string][] = [
      // Compressed past the limit, its content within it (stored blocks): read and refused by its fields, not its size.
      ["stored gzip", { "content-type": "application/json", "content-encoding": "gzip" }, gzipSync(pad(cap - 100), { level: 0 })],
      // Past the limit and in a charset or encoding the reader does not take: that is what is said.
      ["latin1", { "content-type": "application/json; charset=latin1" }, pad(cap + 10)],
      ["zstd", { "content-type": "application/json", "content-encoding": "zstd" }, pad(cap + 10)],
      ["not gzip", { "content-type": "application/json", "content-encoding": "gzip" }, "y".repeat(cap + 10)],
      ["bare value", { "content-type": "application/json" }, '"abc"'],
    ];
    for (const [name, headers, body] of cases) {
      const [withDir, without] = await onBoth("api", "/orders/preview", { method: "POST", headers, body });
      expect({ name, ...withDir }).toEqual({ name, ...without });
    }
    expect((await onBoth("api", "/orders/preview", { method: "POST", headers: cases[0]![1], body: cases[0]![2] }))[0].status).not.toBe(413);
    // A control route reads its body as JSON whatever the content type: past the control
    // limit it is refused on both (and nothing is mined), within it it is obeyed on both.
    const blocks = async (e: FakeExchange) => (await e.clients.public.getBlockNumber());
    const before = [await blocks(ex), await blocks(plain)];
    const [bigDir, bigPlain] = await onBoth("control", "/mine", { method: "POST", headers: { "content-type": "text/plain" }, body: "z".repeat(5 * cap + 10) });
    expect([bigDir.status, bigPlain.status]).toEqual([413, 413]);
    expect([await blocks(ex), await blocks(plain)]).toEqual(before);
    const [mineDir, minePlain] = await onBoth("control", "/mine", { method: "POST", headers: { "content-type": "text/plain" }, body: '{"blocks":2}' });
    expect([mineDir.status, minePlain.status]).toEqual([200, 200]);
    expect([await blocks(ex), await blocks(plain)]).toEqual([before[0]! + 2n, before[1]! + 2n]);
  }, 60_000);

  test("a client that hangs up mid-body on a route a timeout or reset fault holds is journaled too", async () => {
    expect((await postJson(`${ex.controlUrl}/routes`, { rules: [{ method: "POST", path: "/api-keys/verify", fail: "timeout", times: 1 }, { method: "POST", path: "/orders/preview", fail: "reset", times: 1 }] })).status).toBe(200);
    for (const p of ["/api-keys/verify", "/orders/preview"]) {
      const before = await journaled(`/api/v1${p}`, 0);
      const cut = upload(`${ex.baseUrl}${p}`, { "content-type": "application/json", "content-length": "300" });
      cut.req.write('{"a": ');
      await new Promise((r) => setTimeout(r, 100));
      cut.req.destroy();
      await expect.poll(() => journaled(`/api/v1${p}`, 0), { timeout: 10_000 }).toBe(before + 1);
    }
    expect((await call(`${ex.controlUrl}/routes`)).body).toEqual({ rules: [] });
  }, 30_000);

  test("after kill -9 the slowly uploaded order is back, and every logged request replays as answered", async () => {
    // An acknowledged request last, so the log holds everything above when the copy is taken.
    expect((await postJson(`${ex.controlUrl}/clock/advance`, { seconds: 1 })).status).toBe(200);
    const copy = crashCopy(dir);
    const replayErrors: string[] = [];
    const back = await createFakeExchange({ liquidity: false, users: 2, stateDir: copy, logger: { error: (m, meta) => replayErrors.push(`${m} ${JSON.stringify(meta)}`) } });
    try {
      expect(back.persistence?.resumed).toBe(true);
      expect(back.parts.engine.getOrder(slowOrderId).status).toBe("pending");
      expect(replayErrors).toEqual([]);
      expect(back.control.now().now).toBe(ex.control.now().now);
      // The journal reads the same, answers included (a bare JSON value is refused in its own words again).
      const entries = async (e: FakeExchange) => ((await (await fetch(`${e.controlUrl}/requests?path=/api/v1/orders/preview&limit=50`)).json()) as { entries: { id: string; status: number; response_body: unknown }[] }).entries.map((x) => [x.id, x.status, x.response_body]);
      expect(await entries(back)).toEqual(await entries(ex));
    } finally {
      await back.close();
    }
    expect(errors).toEqual([]);
  }, 60_000);
});
