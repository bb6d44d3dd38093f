import { describe, expect, it } from "vitest";
import express, { Router } from "express";
import request from "supertest";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { rawRequest } from "./raw-answer.ts";
import { ExchangeError } from "../../sim/core/errors.ts";
import { jsonBody } from "../../sim/http/body.ts";
import {
  ROUTE_ENVELOPES,
  SERVICE_UNAVAILABLE_DETAIL,
  errorHandler,
  errorResponse,
  methodNotAllowed,
  notFoundHandler,
  requestError,
  type HttpLogger,
} from "../../sim/http/errors.ts";

const belowMin = () =>
  new ExchangeError("AMOUNT_BELOW_MIN", 400, "ask amount is below the market minimum of 5 EURC", {
    min_amount_raw: "5000000",
    min_amount: "5",
  });

describe("errorResponse", () => {
  it("plain: {detail: string} with the error's status", () => {
    expect(errorResponse(new ExchangeError("QUOTE_GONE", 410, "quote expired"), "plain")).toEqual({
      status: 410,
      body: { detail: "quote expired" },
      headers: {},
    });
    expect(errorResponse(new ExchangeError("FORBIDDEN", 403, "nope"))).toEqual({ status: 403, body: { detail: "nope" }, headers: {} });
  });

  it("typed: {detail: {detail, error_code}} with the wire code, e.g. the self-match 409; internal names never show", () => {
    expect(errorResponse(new ExchangeError("STP_BLOCKED", 409, "would match own order"), "typed")).toEqual({
      status: 409,
      body: { detail: { detail: "would match own order", error_code: "STP_BLOCKED" } },
      headers: {},
    });
    expect(errorResponse(new ExchangeError("SIGNATURE_INVALID", 400, "signature mismatch"), "typed").body).toEqual({
      detail: { detail: "signature mismatch", error_code: "TRANSIENT_SETTLEMENT_FAILURE" },
    });
    // POST /swap narrows the vocabulary to the spec's subset: INSUFFICIENT_EQUITY is not in it
    const equity = new ExchangeError("INSUFFICIENT_EQUITY", 400, "short");
    expect(errorResponse(equity, "typed").body).toEqual({ detail: { detail: "short", error_code: "INSUFFICIENT_EQUITY" } });
    expect(errorResponse(equity, "typed", "POST /swap").body).toEqual({ detail: { detail: "short", error_code: "TRANSIENT_SETTLEMENT_FAILURE" } });
  });

  it("typed AMOUNT_BELOW_MIN carries error_code, code and the minimum in raw and decimal form", () => {
    expect(errorResponse(belowMin(), "typed")).toEqual({
      status: 400,
      body: {
        detail: {
          detail: "ask amount is below the market minimum of 5 EURC",
          error_code: "AMOUNT_BELOW_MIN",
          code: "AMOUNT_BELOW_MIN",
          min_amount_raw: "5000000",
          min_amount: "5",
        },
      },
      headers: {},
    });
  });

  it("preview: error_code and detail at the top level, ok false", () => {
    expect(errorResponse(new ExchangeError("INVALID_PRECISION", 400, "price has more than 5 decimals"), "preview")).toEqual({
      status: 400,
      body: { ok: false, error_code: "INVALID_PRECISION", detail: "price has more than 5 decimals" },
      headers: {},
    });
  });

  it.each(["NO_LIQUIDITY", "SLIPPAGE_EXCEEDED", "INTENT_DEADLINE_EXPIRED", "QUOTE_STALE"] as const)("swapQuote: typed pricing code %s as detail.code", (code) => {
    expect(errorResponse(new ExchangeError(code, 400, "why", { depth: "0" }), "swapQuote")).toEqual({
      status: 400,
      body: { detail: { code, detail: "why" } },
      headers: {},
    });
  });

  it("swapQuote: AMOUNT_BELOW_MIN as detail.code with the minimum; anything else plain", () => {
    expect(errorResponse(belowMin(), "swapQuote")).toEqual({
      status: 400,
      body: {
        detail: { code: "AMOUNT_BELOW_MIN", detail: "ask amount is below the market minimum of 5 EURC", min_amount_raw: "5000000", min_amount: "5" },
      },
      headers: {},
    });
    expect(errorResponse(new ExchangeError("VALIDATION", 422, "from_token must differ from to_token"), "swapQuote")).toEqual({
      status: 422,
      body: { detail: "from_token must differ from to_token" },
      headers: {},
    });
  });

  it("the simulator's extra fields stay off the wire: only the spec's documented keys appear", () => {
    const err = new ExchangeError("NO_LIQUIDITY", 400, "real", { detail: "fake", error_code: "FAKE", ok: true, code: "X", depth: "0" });
    expect(errorResponse(err, "typed").body).toEqual({ detail: { detail: "real", error_code: "NO_LIQUIDITY" } });
    expect(errorResponse(err, "preview").body).toEqual({ ok: false, error_code: "NO_LIQUIDITY", detail: "real" });
    // What the engine attaches to its own errors (field, reason, times, the resting order, the equity figures).
    const diagnostics = { field: "expiration", reason: "not_future", server_time: 1, max_expiration: 2, resting_order_id: "x", available_raw: "0", required_raw: "1", token: "0xt", precision: 2 };
    const stp = new ExchangeError("STP_BLOCKED", 409, "self-trade", diagnostics);
    expect(errorResponse(stp, "typed").body).toEqual({ detail: { detail: "self-trade", error_code: "STP_BLOCKED" } });
    expect(errorResponse(stp, "preview").body).toEqual({ ok: false, error_code: "STP_BLOCKED", detail: "self-trade" });
    const stale = new ExchangeError("QUOTE_STALE", 400, "stale", diagnostics);
    expect(errorResponse(stale, "swapQuote").body).toEqual({ detail: { code: "QUOTE_STALE", detail: "stale" } });
  });

  it.each(["plain", "typed", "preview", "swapQuote"] as const)("plain rate limit 429 on a %s route, with Retry-After from the limiter", (style) => {
    const err = new ExchangeError("RATE_LIMITED", 429, "Rate limit exceeded", { group: "read", limit: 10, retry_after_ms: 1200 });
    expect(errorResponse(err, style)).toEqual({ status: 429, body: { detail: "Rate limit exceeded" }, headers: { "Retry-After": "2" } });
    expect(errorResponse(new ExchangeError("RATE_LIMITED", 429, "x"), style)).toEqual({
      status: 429,
      body: { detail: "Rate limit exceeded" },
      headers: {},
    });
  });

  it("Retry-After is whole seconds rounded up, and at least 1: a window already free (0 ms left) says 1, never 0", () => {
    for (const ms of [0, 1, 250, 999, 1000]) {
      const err = new ExchangeError("RATE_LIMITED", 429, "Rate limit exceeded", { group: "read", limit: 10, retry_after_ms: ms });
      expect(errorResponse(err, "plain"), String(ms)).toEqual({ status: 429, body: { detail: "Rate limit exceeded" }, headers: { "Retry-After": "1" } });
    }
  });

  it.each(["plain", "typed"] as const)("cancel cooldown 429 is typed with CANCEL_COOLDOWN even on a %s route", (style) => {
    const err = new ExchangeError("CANCEL_COOLDOWN", 429, "cancel cooldown: retry in 240 s");
    expect(errorResponse(err, style)).toEqual({
      status: 429,
      body: { detail: { detail: "cancel cooldown: retry in 240 s", error_code: "CANCEL_COOLDOWN" } },
      headers: {},
    });
  });

  it.each(["plain", "typed", "preview", "swapQuote"] as const)("5xx hides its cause behind the fixed 503 on a %s route", (style) => {
    expect(errorResponse(new ExchangeError("UNAVAILABLE", 503, "anvil at 127.0.0.1:8545 refused"), style)).toEqual({
      status: 503,
      body: { detail: SERVICE_UNAVAILABLE_DETAIL },
      headers: { "Retry-After": "1" },
    });
  });
});

describe("requestError", () => {
  const bp = (type: string, status: number) => Object.assign(new Error(type), { type, status });
  it("maps body-parser failures to 4xx and leaves unknown errors alone", () => {
    expect(requestError(bp("entity.parse.failed", 400))?.status).toBe(422);
    expect(requestError(bp("entity.too.large", 413))?.status).toBe(413);
    expect(requestError(bp("encoding.unsupported", 415))?.status).toBe(415);
    expect(requestError(bp("request.aborted", 400))?.status).toBe(400);
    expect(requestError(bp("weird", 500))).toBeNull();
    expect(requestError(new TypeError("boom"))).toBeNull();
    expect(requestError("string thrown")).toBeNull();
    const e = new ExchangeError("NOT_FOUND", 404, "x");
    expect(requestError(e)).toBe(e);
  });

  it("maps a body that does not decompress (zlib's error, status 400 from body-parser) to 400", () => {
    const zlibError = Object.assign(new Error("incorrect header check"), { code: "Z_DATA_ERROR", errno: -3, status: 400 });
    expect(requestError(zlibError)?.status).toBe(400);
    // Without the status body-parser sets, it is not a body error: left alone (503).
    expect(requestError(Object.assign(new Error("incorrect header check"), { code: "Z_DATA_ERROR", errno: -3 }))).toBeNull();
  });
});

// A small app with the real body parser and error handler, standing in for the later
// routes: /orders (typed), /orders/preview, /swap/quote and a plain route.
function harness() {
  const logged: Array<[string, Record<string, unknown>]> = [];
  const logger: HttpLogger = { error: (m, meta) => logged.push([m, meta]) };
  const app = express();
  app.disable("x-powered-by");
  const v1 = Router();
  const body = jsonBody("2kb");
  const throwFromBody = (req: express.Request) => {
    const b = req.body as { code?: string; status?: number; detail?: string; extra?: Record<string, unknown> };
    throw new ExchangeError(b.code as never, b.status ?? 400, b.detail ?? "rejected", b.extra ?? {});
  };
  for (const path of ["/orders", "/orders/preview", "/swap/quote", "/plain"]) {
    v1.route(path)
      .post(body, (req) => throwFromBody(req))
      .all(methodNotAllowed("POST"));
  }
  v1.get("/boom", () => {
    throw new Error("secret internals at /home/x.ts:12");
  });
  v1.get("/async-boom", async () => {
    await Promise.resolve();
    throw new RangeError("async secret");
  });
  v1.get("/override", (_req, res) => {
    res.locals["envelope"] = "typed";
    throw new ExchangeError("PAIR_INACTIVE", 400, "inactive");
  });
  app.use("/api/v1", v1);
  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return { app, logged };
}

describe("error handling through express", () => {
  it("has a typed envelope for the routes the spec names", () => {
    expect(ROUTE_ENVELOPES["POST /orders"]).toBe("typed");
    expect(ROUTE_ENVELOPES["POST /orders/preview"]).toBe("preview");
    expect(ROUTE_ENVELOPES["POST /swap/quote"]).toBe("swapQuote");
    expect(ROUTE_ENVELOPES["GET /orders"]).toBeUndefined();
  });

  it("picks the envelope from the route, ignoring query string and trailing slash", async () => {
    const { app } = harness();
    const payload = { code: "INSUFFICIENT_EQUITY", detail: "not enough USDC" };
    const typed = await request(app).post("/api/v1/orders?x=1").send(payload);
    expect(typed.status).toBe(400);
    expect(typed.body).toEqual({ detail: { detail: "not enough USDC", error_code: "INSUFFICIENT_EQUITY" } });
    const slash = await request(app).post("/api/v1/orders/").send(payload);
    expect(slash.body).toEqual(typed.body);
    const preview = await request(app).post("/api/v1/orders/preview").send(payload);
    expect(preview.body).toEqual({ ok: false, error_code: "INSUFFICIENT_EQUITY", detail: "not enough USDC" });
    const plain = await request(app).post("/api/v1/plain").send(payload);
    expect(plain.body).toEqual({ detail: "not enough USDC" });
    const swapQuote = await request(app)
      .post("/api/v1/swap/quote")
      .send({ code: "AMOUNT_BELOW_MIN", detail: "below", extra: { min_amount_raw: "1000000", min_amount: "1" } });
    expect(swapQuote.status).toBe(400);
    expect(swapQuote.body).toEqual({ detail: { code: "AMOUNT_BELOW_MIN", detail: "below", min_amount_raw: "1000000", min_amount: "1" } });
  });

  it("finds the route's envelope when the app is mounted under an outer prefix", async () => {
    const outer = express();
    outer.use("/exchange-a", harness().app);
    const res = await request(outer).post("/exchange-a/api/v1/orders").send({ code: "NO_LIQUIDITY", detail: "thin" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: { detail: "thin", error_code: "NO_LIQUIDITY" } });
  });

  it("lets a route override its envelope", async () => {
    const res = await request(harness().app).get("/api/v1/override");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: { detail: "inactive", error_code: "PAIR_INACTIVE" } });
  });

  it("answers malformed JSON with 422 in the route's envelope, never 500", async () => {
    const { app, logged } = harness();
    const plain = await request(app).post("/api/v1/plain").set("Content-Type", "application/json").send('{"a": ');
    expect(plain.status).toBe(422);
    expect(plain.body).toEqual({ detail: "Request body is not valid JSON" });
    const typed = await request(app).post("/api/v1/orders").set("Content-Type", "application/json").send("[1,");
    expect(typed.status).toBe(422);
    expect(typed.body).toEqual({ detail: { detail: "Request body is not valid JSON", error_code: "TRANSIENT_SETTLEMENT_FAILURE" } });
    // A bare scalar is not a request body either (strict JSON: objects and arrays).
    const scalar = await request(app).post("/api/v1/plain").set("Content-Type", "application/json").send('"hi"');
    expect(scalar.status).toBe(422);
    // Said as such: it is valid JSON, only not an object.
    expect(scalar.body).toEqual({ detail: "Request body must be a JSON object, not a bare JSON value" });
    for (const bare of ["null", "7", "true"]) {
      const res = await request(app).post("/api/v1/orders").set("Content-Type", "application/json").send(bare);
      expect(res.body).toEqual({ detail: { detail: "Request body must be a JSON object, not a bare JSON value", error_code: "TRANSIENT_SETTLEMENT_FAILURE" } });
    }
    // The same through express.json (a gzip body is not read directly).
    const server = createServer(app);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const data = gzipSync("null");
      const port = (server.address() as AddressInfo).port;
      const res = await rawRequest(port, "POST", "/api/v1/plain", { "content-type": "application/json", "content-encoding": "gzip", "content-length": String(data.length) }, data);
      expect(res.status).toBe(422);
      expect(JSON.parse(res.body)).toEqual({ detail: "Request body must be a JSON object, not a bare JSON value" });
    } finally {
      server.close();
    }
    expect(logged).toEqual([]);
  });

  it("answers a body whose compressed data is corrupt (gzip, deflate, br, truncated gzip) with 400 in the route's envelope, never 503", async () => {
    const { app, logged } = harness();
    const server = createServer(app);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    // Sent as raw bytes: supertest would re-serialise a Buffer body as JSON.
    const post = (path: string, encoding: string, data: Buffer) =>
      rawRequest(port, "POST", path, { "content-type": "application/json", "content-encoding": encoding, "content-length": String(data.length) }, data);
    try {
      const bodies: Array<[string, Buffer]> = [
        ["gzip", Buffer.from('{"a":1}')],
        ["deflate", Buffer.from('{"a":1}')],
        ["br", Buffer.from('{"a":1}')],
        ["gzip", gzipSync('{"code":"NO_LIQUIDITY","detail":"thin"}').subarray(0, 12)],
      ];
      for (const [encoding, data] of bodies) {
        const typed = await post("/api/v1/orders", encoding, data);
        expect(typed.status, encoding).toBe(400);
        expect(JSON.parse(typed.body)).toEqual({ detail: { detail: "Request body does not decode under its Content-Encoding", error_code: "TRANSIENT_SETTLEMENT_FAILURE" } });
        const plain = await post("/api/v1/plain", encoding, data);
        expect(plain.status, encoding).toBe(400);
        expect(JSON.parse(plain.body)).toEqual({ detail: "Request body does not decode under its Content-Encoding" });
      }
      // Well-formed compressed bodies still reach the route.
      for (const [encoding, data] of [
        ["gzip", gzipSync('{"code":"NO_LIQUIDITY","detail":"thin"}')],
        ["deflate", deflateSync('{"code":"NO_LIQUIDITY","detail":"thin"}')],
        ["br", brotliCompressSync('{"code":"NO_LIQUIDITY","detail":"thin"}')],
      ] as const) {
        const ok = await post("/api/v1/plain", encoding, data);
        expect(ok.status, encoding).toBe(400);
        expect(JSON.parse(ok.body)).toEqual({ detail: "thin" });
      }
      expect(logged).toEqual([]);
    } finally {
      server.close();
    }
  });

  it("answers an oversized body with 413", async () => {
    const res = await request(harness().app)
      .post("/api/v1/plain")
      .set("Content-Type", "application/json")
      .send(JSON.stringify({ pad: "x".repeat(4096) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: "Request body too large" });
  });

  it("turns unexpected exceptions (sync and async) into a logged 503 with Retry-After and no stack", async () => {
    const { app, logged } = harness();
    for (const path of ["/api/v1/boom", "/api/v1/async-boom"]) {
      const res = await request(app).get(path);
      expect(res.status).toBe(503);
      expect(res.headers["retry-after"]).toBe("1");
      expect(res.body).toEqual({ detail: "Service temporarily unavailable; please retry" });
      expect(res.text).not.toContain("secret");
    }
    expect(logged.map(([m, meta]) => [m, meta["path"]])).toEqual([
      ["unexpected error", "/api/v1/boom"],
      ["unexpected error", "/api/v1/async-boom"],
    ]);
    expect(String(logged[0]![1]["error"])).toContain("secret internals");
  });

  it("logs a thrown 503 ExchangeError but shows only the fixed text", async () => {
    const { app, logged } = harness();
    const res = await request(app).post("/api/v1/orders").send({ code: "UNAVAILABLE", status: 503, detail: "rpc down" });
    expect(res.status).toBe(503);
    expect(res.headers["retry-after"]).toBe("1");
    expect(res.body).toEqual({ detail: SERVICE_UNAVAILABLE_DETAIL });
    expect(logged).toHaveLength(1);
    expect(logged[0]![1]["detail"]).toBe("rpc down");
  });

  it("answers unknown routes 404 {detail: Not Found}, inside and outside /api/v1, whatever the body", async () => {
    const { app } = harness();
    for (const [method, path] of [
      ["get", "/api/v1/nope"],
      ["post", "/api/v1/orders/nope"],
      ["get", "/"],
      ["delete", "/api/v2/orders"],
    ] as const) {
      const res = await request(app)[method](path).set("Content-Type", "application/json").send("{broken");
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: "Not Found" });
    }
  });

  it("answers a known path with the wrong method 405 with an Allow header", async () => {
    const res = await request(harness().app).get("/api/v1/orders");
    expect(res.status).toBe(405);
    expect(res.headers["allow"]).toBe("POST");
    expect(res.body).toEqual({ detail: "Method Not Allowed" });
  });
});
