import { describe, expect, it } from "vitest";
import request from "supertest";
import { VirtualClock } from "../../sim/core/clock.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry } from "../../sim/core/registry.ts";
import { createApp } from "../../sim/http/app.ts";
import { ALICE, apiKeyFor, exchange } from "./exchange-harness.ts";

function app(withRegistry = true) {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1, 12, 0, 0, 750));
  const registry = new Registry(DEFAULT_REGISTRY_CONFIG);
  return { clock, registry, app: createApp({ clock, ...(withRegistry ? { registry } : {}), logger: { error: () => undefined } }) };
}

describe("app skeleton", () => {
  it("answers JSON without x-powered-by or ETag", async () => {
    const res = await request(app().app).get("/api/v1/system/time");
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.headers["x-powered-by"]).toBeUndefined();
    expect(res.headers["etag"]).toBeUndefined();
  });

  it("404s unknown paths and paths outside /api/v1", async () => {
    const a = app().app;
    // Case-sensitive, as the live router is: a mistyped path must not pass against fakex.
    for (const path of ["/api/v1/nope", "/system/time", "/api/v2/tokens", "/api/v1", "/API/V1/tokens", "/api/v1/Tokens", "/Api/v1/system/time"]) {
      const res = await request(a).get(path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: "Not Found" });
    }
  });

  it("404s a path parameter with broken percent-encoding on a mounted route (not a 503)", async () => {
    const ex = exchange();
    const key = apiKeyFor(ex, ALICE);
    for (const path of ["/api/v1/orders/%E0%A4%A", "/api/v1/fills/%ZZ"]) {
      const res = await request(ex.app).get(path).set("Authorization", key);
      expect([path, res.status]).toEqual([path, 404]);
      expect(res.body).toEqual({ detail: "Not Found" });
    }
  });

  it("405s a wrong method on a known path", async () => {
    const res = await request(app().app).post("/api/v1/tokens").send({});
    expect(res.status).toBe(405);
    // HEAD is served wherever GET is, so Allow names it (RFC 9110 §10.2.1).
    expect(res.headers["allow"]).toBe("GET, HEAD");
    expect(res.body).toEqual({ detail: "Method Not Allowed" });
  });

  it("405s every other method on each GET-only public route, with Allow: GET, HEAD", async () => {
    const ex = exchange();
    for (const path of ["/api/v1/health", "/api/v1/system/time", "/api/v1/tokens", "/api/v1/markets", "/api/v1/fx/rate", "/api/v1/config"]) {
      for (const method of ["post", "put", "delete"] as const) {
        const res = await request(ex.app)[method](path).send({});
        expect([method, path, res.status, res.headers["allow"], res.body]).toEqual([method, path, 405, "GET, HEAD", { detail: "Method Not Allowed" }]);
      }
    }
  });

  it("404s a known path with a trailing slash, as any unknown path (strict routing, as the live router)", async () => {
    const ex = exchange();
    for (const [method, path] of [["get", "/api/v1/health/"], ["get", "/api/v1/tokens/"], ["post", "/api/v1/orders/"], ["get", "/api/v1/system/time/"]] as const) {
      const res = await request(ex.app)[method](path).send(method === "post" ? {} : undefined);
      expect([method, path, res.status, res.body]).toEqual([method, path, 404, { detail: "Not Found" }]);
    }
    // Without the slash: served.
    expect((await request(ex.app).get("/api/v1/health")).status).toBe(200);
  });

  it("answers HEAD on GET routes without a body", async () => {
    const res = await request(app().app).head("/api/v1/system/time");
    expect(res.status).toBe(200);
    expect(res.text ?? "").toBe("");
  });

  it("leaves routes whose dependency is absent unmounted (404)", async () => {
    const res = await request(app(false).app).get("/api/v1/tokens");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: "Not Found" });
  });
});

describe("GET /system/time", () => {
  it("returns whole Unix seconds of the virtual clock", async () => {
    const { app: a, clock } = app();
    const res = await request(a).get("/api/v1/system/time");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ timestamp: Date.UTC(2026, 0, 1, 12, 0, 0) / 1000 });
    clock.advanceSec(90);
    expect((await request(a).get("/api/v1/system/time")).body).toEqual({ timestamp: Date.UTC(2026, 0, 1, 12, 1, 30) / 1000 });
  });
});

describe("GET /tokens", () => {
  it("lists every token in the Token resource shape, min_trade_amount scaled by decimals", async () => {
    const { app: a, registry } = app();
    const res = await request(a).get("/api/v1/tokens");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["tokens"]);
    expect(res.body.tokens).toHaveLength(registry.tokens().length);
    const eurc = registry.tokenBySymbol("EURC")!;
    const gbpt = registry.tokenBySymbol("GBPT")!;
    const xchf = registry.tokenBySymbol("XCHF")!;
    const bySymbol = new Map(res.body.tokens.map((t: { symbol: string }) => [t.symbol, t]));
    expect(bySymbol.get("EURC")).toEqual({
      currency: "EUR",
      symbol: "EURC",
      address: eurc.address,
      decimals: 6,
      min_trade_amount_raw: "1000000",
      min_trade_amount: "1",
    });
    expect(bySymbol.get("GBPT")).toEqual({
      currency: "GBP",
      symbol: "GBPT",
      address: gbpt.address,
      decimals: 18,
      min_trade_amount_raw: "1000000000000000000",
      min_trade_amount: "1",
    });
    expect(bySymbol.get("XCHF")).toMatchObject({ address: xchf.address, min_trade_amount_raw: "0", min_trade_amount: "0" });
    for (const t of res.body.tokens) {
      expect(Object.keys(t).sort()).toEqual(["address", "currency", "decimals", "min_trade_amount", "min_trade_amount_raw", "symbol"]);
      expect(t.address).toMatch(/^0x[0-9a-f]{40}$/);
    }
  });
});

describe("GET /markets", () => {
  it("lists the active markets in the Market resource shape, canonically oriented", async () => {
    const { app: a, registry } = app();
    const res = await request(a).get("/api/v1/markets");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["markets"]);
    const symbols = res.body.markets.map((m: { symbol: string }) => m.symbol);
    expect(symbols).toEqual(registry.activeMarkets().map((m) => m.symbol));
    // The inactive pair is not offered.
    const inactive = registry.markets().filter((m) => !m.active);
    expect(inactive.length).toBeGreaterThan(0);
    for (const m of inactive) expect(symbols).not.toContain(m.symbol);
    for (const m of res.body.markets) {
      expect(Object.keys(m).sort()).toEqual(
        [
          "base_address",
          "base_decimals",
          "base_symbol",
          "min_ask_amount",
          "min_ask_amount_raw",
          "min_bid_quote_amount",
          "min_bid_quote_amount_raw",
          "quantity_precision",
          "quote_address",
          "quote_decimals",
          "quote_symbol",
          "symbol",
          "tick_precision",
        ].sort(),
      );
      expect(m.symbol).toBe(`${m.base_symbol}/${m.quote_symbol}`);
      expect(m.base_address < m.quote_address).toBe(true);
    }
  });

  it("gives the floors raw and scaled by the right token's decimals", async () => {
    const { app: a, registry } = app();
    const res = await request(a).get("/api/v1/markets");
    const usdcJpys = res.body.markets.find((m: { base_symbol: string; quote_symbol: string }) =>
      [m.base_symbol, m.quote_symbol].sort().join() === "JPYS,USDC",
    );
    const info = registry.market(usdcJpys.base_address, usdcJpys.quote_address)!;
    expect(usdcJpys).toEqual({
      symbol: info.symbol,
      base_symbol: info.baseSymbol,
      quote_symbol: info.quoteSymbol,
      base_address: info.base,
      quote_address: info.quote,
      tick_precision: info.tickPrecision,
      quantity_precision: info.quantityPrecision,
      base_decimals: info.baseDecimals,
      quote_decimals: info.quoteDecimals,
      min_ask_amount_raw: info.minAskAmountRaw.toString(),
      min_ask_amount: info.baseSymbol === "USDC" ? "5" : "750",
      min_bid_quote_amount_raw: info.minBidQuoteAmountRaw.toString(),
      min_bid_quote_amount: info.quoteSymbol === "JPYS" ? "750" : "5",
    });
  });
});
