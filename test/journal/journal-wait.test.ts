// With --state-dir, requests take turns under the write-ahead log's lock. A request's journal
// entry counts its wait for its turn in duration_ms, with wall_time at its arrival; before, both
// started at its turn, so the wait showed nowhere (`at` stays the virtual time it was served at).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { createFakeExchange } from "../../fixtures/fake-exchange.ts";

const HELD_MS = 800;

describe("journal under --state-dir", () => {
  test("a request that waited for its turn shows the wait in duration_ms and its arrival in wall_time", async () => {
    const ex = await createFakeExchange({ stateDir: mkdtempSync(path.join(tmpdir(), "fakex-journal-wait-")), liquidity: false, users: 1 });
    try {
      ex.control.setRouteFaults([{ method: "GET", path: "/tokens", latency_ms: HELD_MS }]);
      const held = fetch(`${ex.baseUrl}/tokens`);
      // In its delay, holding the lock, once the rule has taken it (after a fixed wait, a late
      // request found the next one served first).
      await expect.poll(() => ex.parts.routeFaults.taken, { timeout: 10_000 }).toBe(1);
      const arrived = Date.now();
      // A read runs under the lock too: it waits until the held one is answered.
      const waited = await fetch(`${ex.baseUrl}/markets`);
      expect(waited.status).toBe(200);
      await held;
      const entry = ex.control.requests({ path: "/api/v1/markets" }).entries[0]!;
      expect(entry.duration_ms).toBeGreaterThanOrEqual(HELD_MS / 2);
      expect(Date.parse(entry.wall_time)).toBeLessThan(arrived + HELD_MS / 2);
    } finally {
      await ex.close();
    }
  }, 60_000);
});
