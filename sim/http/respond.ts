// JSON answers written in one step: the body serialised once, Content-Type and
// Content-Length set, one res.end. It produces the same status, headers and bytes as
// express's res.status(n).json(v) does for this app (no JSON replacer or spaces, no
// ETag), without that path's content-type lookup and charset rewriting on every answer.

import type { ServerResponse } from "node:http";

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** `res.status(status).json(value)`, for a response with a body (not 204/304, not HEAD). */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.statusCode = status;
  res.setHeader("Content-Type", JSON_CONTENT_TYPE);
  res.setHeader("Content-Length", Buffer.byteLength(body));
  res.end(body);
}
