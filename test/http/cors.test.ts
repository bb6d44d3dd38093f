// CORS on /api/v1 (sim/http/cors.ts) through the memory exchange: preflights, the
// allow-origin header on successes and errors, a restricted origin list with
// Vary: Origin, and nothing outside /api/v1.

import request from "supertest";
import { describe, expect, it } from "vitest";
import { parseCorsOrigin } from "../../sim/http/cors.ts";
import { ALICE, exchange } from "./exchange-harness.ts";

const DAPP = "https://dapp.example";

function preflight(app: Parameters<typeof request>[0], path: string, origin = DAPP, method = "POST") {
  return request(app).options(`/api/v1${path}`).set("Origin", origin).set("Access-Control-Request-Method", method).set("Access-Control-Request-Headers", "authorization, content-type");
}

describe("CORS, default policy (any origin)", () => {
  const ex = exchange();

  it("answers a preflight 204 with methods, headers incl. Authorization and Content-Type, and Max-Age", async () => {
    for (const path of ["/orders", "/orders/preview", "/balances", "/orders/cancel-all", "/no-such-route"]) {
      const res = await preflight(ex.app, path);
      expect(res.status, path).toBe(204);
      expect(res.headers["access-control-allow-origin"]).toBe("*");
      const methods = String(res.headers["access-control-allow-methods"]).split(/,\s*/);
      expect(methods).toEqual(expect.arrayContaining(["GET", "POST", "DELETE"]));
      const headers = String(res.headers["access-control-allow-headers"]).toLowerCase().split(/,\s*/);
      expect(headers).toEqual(expect.arrayContaining(["authorization", "content-type"]));
      expect(Number(res.headers["access-control-max-age"])).toBeGreaterThan(0);
      expect(res.text).toBe("");
    }
  });

  it("puts Access-Control-Allow-Origin on successes and on 4xx / 404 / 503 errors", async () => {
    const ok = await request(ex.app).get("/api/v1/markets").set("Origin", DAPP);
    expect(ok.status).toBe(200);
    expect(ok.headers["access-control-allow-origin"]).toBe("*");
    const unauthorized = await request(ex.app).get(`/api/v1/orders?owner_address=${ALICE}`).set("Origin", DAPP);
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers["access-control-allow-origin"]).toBe("*");
    const invalid = await request(ex.app).post("/api/v1/orders").set("Origin", DAPP).set("Content-Type", "application/json").send("{broken");
    expect(invalid.status).toBe(422);
    expect(invalid.headers["access-control-allow-origin"]).toBe("*");
    const missing = await request(ex.app).get("/api/v1/nothing-here").set("Origin", DAPP);
    expect(missing.status).toBe(404);
    expect(missing.headers["access-control-allow-origin"]).toBe("*");
    ex.health.setDependencyUnavailable(true);
    const down = await request(ex.app).get("/api/v1/health").set("Origin", DAPP);
    ex.health.setDependencyUnavailable(false);
    expect(down.status).toBe(503);
    expect(down.headers["access-control-allow-origin"]).toBe("*");
    // Retry-After, and the journal's X-Request-Id, are readable by the page
    expect(String(down.headers["access-control-expose-headers"]).split(/,\s*/)).toEqual(["Retry-After", "X-Request-Id"]);
  });

  it("a bare OPTIONS (no Access-Control-Request-Method) is not a preflight: 405 as before", async () => {
    const res = await request(ex.app).options("/api/v1/orders");
    expect(res.status).toBe(405);
    expect(res.headers["access-control-allow-origin"]).toBe("*");
  });

  it("adds nothing outside /api/v1", async () => {
    const res = await request(ex.app).get("/elsewhere").set("Origin", DAPP);
    expect(res.status).toBe(404);
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    const pre = await request(ex.app).options("/elsewhere").set("Origin", DAPP).set("Access-Control-Request-Method", "GET");
    expect(pre.headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe("CORS, restricted origins", () => {
  it("echoes a listed origin with Vary: Origin and withholds the header from others", async () => {
    const ex = exchange({ corsOrigin: `${DAPP}, http://localhost:5173` });
    for (const origin of [DAPP, "http://localhost:5173"]) {
      const res = await request(ex.app).get("/api/v1/tokens").set("Origin", origin);
      expect(res.headers["access-control-allow-origin"]).toBe(origin);
      expect(String(res.headers["vary"])).toMatch(/Origin/);
      const pre = await preflight(ex.app, "/orders", origin);
      expect(pre.status).toBe(204);
      expect(pre.headers["access-control-allow-origin"]).toBe(origin);
      expect(String(pre.headers["vary"])).toMatch(/Origin/);
    }
    const other = await request(ex.app).get("/api/v1/tokens").set("Origin", "https://evil.example");
    expect(other.status).toBe(200);
    expect(other.headers["access-control-allow-origin"]).toBeUndefined();
    expect(String(other.headers["vary"])).toMatch(/Origin/);
    const otherPre = await preflight(ex.app, "/orders", "https://evil.example");
    expect(otherPre.headers["access-control-allow-origin"]).toBeUndefined();
    // errors for a listed origin still carry it
    const err = await request(ex.app).get(`/api/v1/orders?owner_address=${ALICE}`).set("Origin", DAPP);
    expect(err.status).toBe(401);
    expect(err.headers["access-control-allow-origin"]).toBe(DAPP);
  });

  it("parses '*', one origin and a list; refuses paths, trailing slashes and non-http values", () => {
    expect(parseCorsOrigin(undefined)).toEqual({ kind: "any" });
    expect(parseCorsOrigin("*")).toEqual({ kind: "any" });
    expect(parseCorsOrigin("https://a.example:8443")).toEqual({ kind: "list", origins: new Set(["https://a.example:8443"]) });
    expect(parseCorsOrigin("https://a.example,http://b.example")).toEqual({ kind: "list", origins: new Set(["https://a.example", "http://b.example"]) });
    for (const bad of ["", "a.example", "https://a.example/", "https://a.example/app", "ftp://a.example", "https://a.example,,", "*,https://a.example"]) {
      expect(() => parseCorsOrigin(bad), bad).toThrow(/cors origin/);
    }
  });
});
