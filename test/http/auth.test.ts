import { describe, expect, it } from "vitest";
import express, { Router } from "express";
import request from "supertest";
import { ApiKeyStore } from "../../sim/core/api-keys.ts";
import { VirtualClock } from "../../sim/core/clock.ts";
import { RateLimiter } from "../../sim/core/rate-limits.ts";
import { Rng } from "../../sim/core/rng.ts";
import { optionalApiKey, ownerOf, rateLimit, requireApiKey, requireOwner, type AuthDeps } from "../../sim/http/auth.ts";
import { errorHandler, notFoundHandler } from "../../sim/http/errors.ts";

const OWNER = "0x8ba1f109551bd432803012645ac136ddd64dba72";
const OWNER_EIP55 = "0x8ba1f109551bD432803012645Ac136ddd64DBA72";
const OTHER = "0x1111111111111111111111111111111111111111";

function setup(withLimiter = true) {
  const clock = new VirtualClock();
  const apiKeys = new ApiKeyStore(clock, new Rng(7));
  // The store trusts the HTTP layer to have verified the ManageApiKey signature.
  const key = apiKeys.create({ owner: OWNER, action: "create", timestamp: clock.nowSec(), signature: `0x${"ab".repeat(65)}` }, "test");
  const deps: AuthDeps = { apiKeys, rateLimits: withLimiter ? new RateLimiter(clock) : undefined };
  const app = express();
  const v1 = Router();
  v1.get("/balances", requireApiKey(deps), rateLimit(deps, "read"), (req, res) => {
    const owner = requireOwner(res, req.query["owner_address"]);
    res.json({ owner });
  });
  v1.get("/withdraw-like", optionalApiKey(deps), (_req, res) => {
    res.json({ owner: ownerOf(res) ?? null });
  });
  v1.get("/owner-without-key", (req, res) => {
    res.json({ owner: requireOwner(res, req.query["owner_address"]) });
  });
  app.use("/api/v1", v1);
  app.use(notFoundHandler);
  app.use(errorHandler({ error: () => undefined }));
  const bearer = `Bearer ${key.api_key}:${key.api_secret}`;
  return { app, clock, bearer, key };
}

describe("API-key routes", () => {
  it("resolves the bearer credential to its owner", async () => {
    const { app, bearer } = setup();
    const res = await request(app).get(`/api/v1/balances?owner_address=${OWNER}`).set("Authorization", bearer);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ owner: OWNER });
  });

  it("answers 401 for a missing, malformed or wrong credential", async () => {
    const { app, key } = setup();
    const url = `/api/v1/balances?owner_address=${OWNER}`;
    const missing = await request(app).get(url);
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ detail: "Missing API key" });
    for (const header of [
      `Bearer ${key.api_key}`,
      `Basic ${key.api_key}:${key.api_secret}`,
      `Bearer ${key.api_key}:wrong`,
      `Bearer fkx_unknown:${key.api_secret}`,
    ]) {
      const res = await request(app).get(url).set("Authorization", header);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: "Invalid API key" });
    }
  });

  it("answers 403 when the request names another wallet, or the owner in checksum case on a read route", async () => {
    const { app, bearer } = setup();
    for (const owner of [OTHER, OWNER_EIP55, ""]) {
      const res = await request(app).get(`/api/v1/balances?owner_address=${owner}`).set("Authorization", bearer);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: owner === OWNER_EIP55 ? `owner_address must be sent lowercase (${OWNER}): it is compared as sent` : "owner_address does not match the API key owner" });
    }
  });

  it("treats requireOwner without authentication as 401", async () => {
    const res = await request(setup().app).get(`/api/v1/owner-without-key?owner_address=${OWNER}`);
    expect(res.status).toBe(401);
  });

  it("optional routes: anonymous passes, a supplied key must be valid", async () => {
    const { app, bearer, key } = setup();
    expect((await request(app).get("/api/v1/withdraw-like")).body).toEqual({ owner: null });
    expect((await request(app).get("/api/v1/withdraw-like").set("Authorization", bearer)).body).toEqual({ owner: OWNER });
    const bad = await request(app).get("/api/v1/withdraw-like").set("Authorization", `Bearer ${key.api_key}:nope`);
    expect(bad.status).toBe(401);
  });
});

describe("rate-limit hook", () => {
  it("admits 10 reads per second per wallet, then 429 plain with Retry-After, and again after the window", async () => {
    const { app, bearer, clock } = setup();
    const url = `/api/v1/balances?owner_address=${OWNER}`;
    for (let i = 0; i < 10; i++) expect((await request(app).get(url).set("Authorization", bearer)).status).toBe(200);
    const limited = await request(app).get(url).set("Authorization", bearer);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ detail: "Rate limit exceeded" });
    expect(limited.headers["retry-after"]).toBe("1");
    clock.advanceMs(1000);
    expect((await request(app).get(url).set("Authorization", bearer)).status).toBe(200);
  });

  it("does not count requests that fail authentication", async () => {
    const { app, bearer } = setup();
    const url = `/api/v1/balances?owner_address=${OWNER}`;
    for (let i = 0; i < 15; i++) expect((await request(app).get(url)).status).toBe(401);
    expect((await request(app).get(url).set("Authorization", bearer)).status).toBe(200);
  });

  it("is a no-op without a limiter", async () => {
    const { app, bearer } = setup(false);
    const url = `/api/v1/balances?owner_address=${OWNER}`;
    for (let i = 0; i < 12; i++) expect((await request(app).get(url).set("Authorization", bearer)).status).toBe(200);
  });
});
