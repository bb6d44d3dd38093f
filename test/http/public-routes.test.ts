import { describe, expect, it } from "vitest";
import request from "supertest";
import { VirtualClock } from "../../sim/core/clock.ts";
import type { ConfigInputs } from "../../sim/core/config-view.ts";
import { FxRates, defaultFxQuotes } from "../../sim/core/fx.ts";
import { Health } from "../../sim/core/health.ts";
import { exchangeDomain } from "../../sim/core/typed-data.ts";
import { createApp } from "../../sim/http/app.ts";
import type { HttpContext } from "../../sim/http/context.ts";
import { domainSeparator } from "../../sim/signing/signatures.ts";

const START = Date.UTC(2026, 2, 14, 9, 30, 0, 250);
const UNAVAILABLE = { detail: "Service temporarily unavailable; please retry" };

function setup(extra: Partial<HttpContext> = {}) {
  const clock = new VirtualClock(START);
  const health = new Health(clock, { executorId: 3 });
  const fx = new FxRates(clock);
  fx.addQuotes(defaultFxQuotes(clock.nowSec()));
  const logged: string[] = [];
  const app = createApp({ clock, health, fx, logger: { error: (m) => logged.push(m) }, ...extra });
  return { clock, health, fx, app, logged };
}

describe("GET /health", () => {
  it("is healthy with the executor ids, signature readiness, version v1 and the virtual time", async () => {
    const res = await request(setup().app).get("/api/v1/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: "healthy",
      version: "v1",
      timestamp: "2026-03-14T09:30:00.250Z",
      executor_id: 3,
      relayer_executor_id: 3,
      signature_ready: true,
    });
  });

  it("is degraded when signatures are not ready or the relayer disagrees; a null relayer alone is fine", async () => {
    const { app, health } = setup();
    health.setSignatureReady(false);
    expect((await request(app).get("/api/v1/health")).body).toMatchObject({ status: "degraded", signature_ready: false });
    health.setSignatureReady(true);
    health.setRelayerExecutorId(4);
    expect((await request(app).get("/api/v1/health")).body).toMatchObject({ status: "degraded", executor_id: 3, relayer_executor_id: 4 });
    health.setRelayerExecutorId(null);
    const res = await request(app).get("/api/v1/health");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "healthy", relayer_executor_id: null });
  });

  it("answers 503 with Retry-After when a backing dependency is unavailable", async () => {
    const { app, health, logged } = setup();
    health.setDependencyUnavailable(true);
    const res = await request(app).get("/api/v1/health");
    expect(res.status).toBe(503);
    expect(res.headers["retry-after"]).toBe("1");
    expect(res.body).toEqual(UNAVAILABLE);
    expect(logged).toEqual(["service unavailable"]);
  });
});

describe("GET /fx/rate", () => {
  it("returns the consensus rate with every field of the spec", async () => {
    const { app, fx } = setup();
    const res = await request(app).get("/api/v1/fx/rate?base=eur&quote=USD");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["as_of", "as_of_24h_ago", "change_pct", "pair", "rate", "rate_24h_ago"]);
    expect(res.body).toEqual(fx.rate("eur", "USD"));
    expect(res.body.pair).toMatch(/^EUR\/USD$/i);
    expect(res.body.rate).toMatch(/^\d+(\.\d+)?$/);
    expect(typeof res.body.as_of).toBe("number");
    expect(res.body.rate_24h_ago).toMatch(/^\d+(\.\d+)?$/);
    expect(typeof res.body.as_of_24h_ago).toBe("number");
    expect(res.body.change_pct).toMatch(/^-?\d+\.\d{4}$/);
  });

  it("answers the inverse direction from the other pair's data, 8 decimals", async () => {
    const res = await request(setup().app).get("/api/v1/fx/rate?base=CHF&quote=USD");
    expect(res.status).toBe(200);
    expect(res.body.rate).toMatch(/^\d+\.\d{8}$/);
    expect(res.body.pair).toMatch(/^CHF\/USD$/i);
  });

  it("answers rate 1 for base equal to quote", async () => {
    const res = await request(setup().app).get("/api/v1/fx/rate?base=usd&quote=usd");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ rate: "1", rate_24h_ago: "1", change_pct: "0.0000" });
  });

  it.each([
    ["missing quote", "?base=EUR"],
    ["missing both", ""],
    ["non-alphabetic", "?base=EUR&quote=US1"],
    ["repeated parameter", "?base=EUR&base=GBP&quote=USD"],
  ])("answers 400 {detail} for %s", async (_name, qs) => {
    const res = await request(setup().app).get(`/api/v1/fx/rate${qs}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: "base and quote are required, each once, as alphabetic currency codes" });
  });

  it("answers 503 when no provider has data in either direction", async () => {
    const { app } = setup();
    const res = await request(app).get("/api/v1/fx/rate?base=EUR&quote=SEK");
    expect(res.status).toBe(503);
    expect(res.headers["retry-after"]).toBe("1");
    expect(res.body).toEqual(UNAVAILABLE);
  });

  it("answers 503 once the feed is older than the recency window", async () => {
    const { app, clock } = setup();
    clock.advanceSec(5 * 3600);
    const res = await request(app).get("/api/v1/fx/rate?base=EUR&quote=USD");
    expect(res.status).toBe(503);
  });
});

describe("GET /config", () => {
  it("stays available during start-up with nulls for what is not known yet", async () => {
    const res = await request(setup().app).get("/api/v1/config");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      chain_id: null,
      exchange_address: null,
      sera_address: null,
      vault_address: null,
      sor_address: null,
      domain_separator: null,
      eip712_domain: { name: null, version: "1", chainId: null, verifyingContract: null },
      limits: { vl_batch: { min: 2, max: 50 } },
    });
  });

  it("shows the deployment, lowercase, with the domain separator clients sign against", async () => {
    let inputs: ConfigInputs = { chainId: 11155111, domainName: "fakex" };
    const { app } = setup({ config: () => inputs });
    const partial = await request(app).get("/api/v1/config");
    expect(partial.body).toMatchObject({ chain_id: 11155111, exchange_address: null, sera_address: null, domain_separator: null });
    // Deployment finishes: the same app shows the addresses on the next request.
    inputs = {
      ...inputs,
      exchangeAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      vaultAddress: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512",
      sorAddress: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0",
      vlBatch: { min: 2, max: 20 },
    };
    const res = await request(app).get("/api/v1/config");
    const exchange = "0x5fbdb2315678afecb367f032d93f642f64180aa3" as const;
    expect(res.body).toEqual({
      chain_id: 11155111,
      exchange_address: exchange,
      sera_address: exchange,
      vault_address: "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512",
      sor_address: "0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0",
      domain_separator: domainSeparator(exchangeDomain("fakex", 11155111, exchange)),
      eip712_domain: { name: "fakex", version: "1", chainId: 11155111, verifyingContract: exchange },
      limits: { vl_batch: { min: 2, max: 20 } },
    });
  });
});
