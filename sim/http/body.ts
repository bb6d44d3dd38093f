// JSON request bodies. Parsed per route (not app-wide) so that an unknown path is a
// 404 and a wrong method a 405 whatever the body holds, as in FastAPI-style services.

import express, { type RequestHandler } from "express";

export const DEFAULT_BODY_LIMIT = "1mb";

/**
 * JSON parser for one app. A body without Content-Type is read as JSON too (FastAPI
 * does the same); other content types leave req.body undefined, so the route's schema
 * rejects it. Only objects and arrays are accepted at the top level.
 */
export function jsonBody(limit: string | number = DEFAULT_BODY_LIMIT): RequestHandler {
  return express.json({
    limit,
    strict: true,
    type: (req) => {
      const ct = req.headers["content-type"];
      return !ct || /(^|[/+])json\b/i.test(ct);
    },
  });
}
