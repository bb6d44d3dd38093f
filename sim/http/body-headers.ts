// What a request's headers say about its body, for the readers that decide before reading
// it (body.ts, body-ahead.ts) and for Expect: 100-continue (expect-continue.ts).
import type { IncomingHttpHeaders } from "node:http";

/** Whether the request came with a body (as body parsers tell it: a length above 0, or chunked). */
export function hasRequestBody(h: IncomingHttpHeaders): boolean {
  return h["transfer-encoding"] !== undefined || (h["content-length"] !== undefined && h["content-length"] !== "0");
}

/** A body sent as is (no Content-Encoding, or identity). */
export function identityEncoded(h: IncomingHttpHeaders): boolean {
  const e = h["content-encoding"];
  return e === undefined || e.toLowerCase() === "identity";
}

const DECIMAL = /^[0-9]{1,15}$/;

/** The Content-Length of a body sent in one piece (not chunked), as a number; -1 when there is none to trust. */
export function declaredLength(h: IncomingHttpHeaders): number {
  const cl = h["content-length"];
  return h["transfer-encoding"] === undefined && cl !== undefined && DECIMAL.test(cl) ? Number(cl) : -1;
}
