// One turn of the event loop: long work (a big settlement round's receipts, a checkpoint's
// encoding) waits here now and then, so that requests, timers and sockets are served while it
// runs rather than after it.
// Not the global setImmediate: a test's fake timers hold that one.
import { setImmediate } from "node:timers";

/** Resolves once the event loop has run what was waiting (I/O callbacks, then this). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
