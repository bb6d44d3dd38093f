// The observable state of a memory exchange as one string, for "a rejected request
// changes nothing" checks: the engine's event-log hash and full snapshot, and the
// API-key store. Not a test file itself.

import type { Ex } from "../http/exchange-harness.ts";

/** `apiKeys` may be left out where the suite has no handle on the store (funds harness). */
export function stateOf(ex: Pick<Ex, "engine"> & Partial<Pick<Ex, "apiKeys">>): string {
  const keys = ex.apiKeys?.snapshot();
  // Authenticating records a last-use time even when the route then rejects: that is
  // bookkeeping, not state the spec exposes, so it is left out of the comparison.
  const keyState = keys ? { ...keys, keys: keys.keys.map(({ lastUsedAtMs: _u, ...k }) => k) } : null;
  return JSON.stringify({ hash: ex.engine.eventHash(), engine: ex.engine.snapshot(), keys: keyState }, (_k, v: unknown) => (typeof v === "bigint" ? `${v}n` : v));
}
