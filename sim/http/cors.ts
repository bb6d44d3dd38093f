// CORS for /api/v1, so browser dApps and wallets can call the fake directly. Mounted
// in front of every /api/v1 handler (route faults and error responses included), so
// a 4xx or 503 carries the headers too and the page can read the error body. Never
// mounted on /__fakex: the control API is for test code, not for web pages.
//
// Policy: "*" (the default) allows every origin. Otherwise a list of exact origins
// ("https://app.example", or several separated by commas): a request whose Origin is
// in the list gets that origin echoed back, any other origin gets no
// Access-Control-Allow-Origin (the browser then blocks the read), and every answer
// says `Vary: Origin` because it depends on the request's Origin. No credentials
// mode: the bearer key travels in the Authorization header, which "*" permits.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestHandler } from "express";

export type CorsPolicy = { kind: "any" } | { kind: "list"; origins: ReadonlySet<string> };

export const CORS_ALLOW_METHODS = "GET, POST, DELETE, OPTIONS";
export const CORS_ALLOW_HEADERS = "Authorization, Content-Type";
/** Seconds a browser may cache a preflight answer. */
export const CORS_MAX_AGE_SEC = 600;
/** Response headers a page may read beyond the CORS-safelisted ones. */
export const CORS_EXPOSE_HEADERS = "Retry-After, X-Request-Id";

const ORIGIN = /^https?:\/\/[^\s/?#,]+$/;

/**
 * Parse `--cors-origin` / `corsOrigin`: undefined or "*" → any origin; otherwise one
 * origin or a comma-separated list, each scheme://host[:port] without a path or a
 * trailing slash (the exact string a browser sends in Origin). Throws on anything else.
 */
export function parseCorsOrigin(value: string | undefined): CorsPolicy {
  if (value === undefined || value.trim() === "*") return { kind: "any" };
  const origins = value.split(",").map((s) => s.trim());
  for (const o of origins) {
    if (!ORIGIN.test(o)) throw new Error(`cors origin must be "*" or a comma-separated list of origins like https://app.example:8080, got ${JSON.stringify(o)}`);
  }
  return { kind: "list", origins: new Set(origins) };
}

/** The headers every answer carries under the policy (a preflight's own come on top). */
export function setCorsHeaders(policy: CorsPolicy, req: IncomingMessage, res: ServerResponse): void {
  if (policy.kind === "any") {
    res.setHeader("Access-Control-Allow-Origin", "*");
  } else {
    const vary = res.getHeader("Vary");
    if (vary === undefined) res.setHeader("Vary", "Origin");
    else if (!/(^|,)\s*origin\s*(,|$)/i.test(String(vary))) res.setHeader("Vary", `${String(vary)}, Origin`);
    const origin = req.headers.origin;
    if (origin !== undefined && policy.origins.has(origin)) res.setHeader("Access-Control-Allow-Origin", origin);
  }
  res.setHeader("Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS);
}

/**
 * The CORS headers, and a preflight answered (204; true when it was one). A preflight is an
 * OPTIONS naming the method it asks about, answered for any path (the real request then gets
 * its own status, 404 included). A bare OPTIONS is not one and goes on to the routes (405
 * with Allow, like any other method).
 */
export function answerCors(policy: CorsPolicy, req: IncomingMessage, res: ServerResponse): boolean {
  setCorsHeaders(policy, req, res);
  if (req.method !== "OPTIONS" || req.headers["access-control-request-method"] === undefined) return false;
  res.setHeader("Access-Control-Allow-Methods", CORS_ALLOW_METHODS);
  res.setHeader("Access-Control-Allow-Headers", CORS_ALLOW_HEADERS);
  res.setHeader("Access-Control-Max-Age", String(CORS_MAX_AGE_SEC));
  res.statusCode = 204;
  res.end();
  return true;
}

/** Sets the CORS headers on every response and answers preflights with 204. */
export function corsMiddleware(policy: CorsPolicy): RequestHandler {
  return (req, res, next) => {
    if (!answerCors(policy, req, res)) next();
  };
}
