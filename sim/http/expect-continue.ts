// Expect: 100-continue (RFC 9110 §10.1.1) exists so that a server can refuse a request
// before its client uploads the body. Node answers 100 itself unless the server listens
// for `checkContinue`; then the server decides. Here a body declared within the body
// limit gets its 100 at once, as before. One declared over it gets none yet: the body
// reader that will refuse it (body.ts, body-ahead.ts) refuses it without reading, with
// the app's usual 413 (route envelope, CORS, journal). A reader with a larger limit (the
// control API's) still gets the body: the 100 goes out when it starts reading.

import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { declaredLength, identityEncoded } from "./body-headers.ts";

const WITHHELD = Symbol("fakex.continueWithheld");
type Withheld = IncomingMessage & { [WITHHELD]?: true };

/**
 * Whether the body's declared length is over `limitBytes`. Only for a body sent as is: a
 * compressed one is limited by its decoded size, which only reading it tells.
 */
function declaredOver(h: IncomingHttpHeaders, limitBytes: number): boolean {
  return identityEncoded(h) && declaredLength(h) > limitBytes;
}

/** The server's `checkContinue` listener: 100 now, or (over `limitBytes`) when a reader starts on the body; then `handle`. */
export function answerExpectContinue(req: IncomingMessage, res: ServerResponse, limitBytes: number, handle: (req: IncomingMessage, res: ServerResponse) => void): void {
  if (!declaredOver(req.headers, limitBytes)) {
    res.writeContinue();
    return handle(req, res);
  }
  (req as Withheld)[WITHHELD] = true;
  // Any reader puts the stream in flowing mode. Node's own draining after an answer does
  // too: a 100 after the final answer's head would corrupt the connection, so none then.
  req.once("resume", () => {
    if (!res.headersSent) res.writeContinue();
  });
  handle(req, res);
}

/** Whether `req`'s client still waits for a 100 that a reader with this limit must not send: the body is refused unread. */
export function refuseBeforeUpload(req: IncomingMessage, maxBytes: number): boolean {
  return (req as Withheld)[WITHHELD] === true && !req.readableDidRead && declaredOver(req.headers, maxBytes);
}
