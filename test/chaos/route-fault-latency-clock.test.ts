// A latency rule on the wall clock: the delayed request is served at the time it is
// served, not the time it arrived (a quote can expire while a slow network holds the
// request), with and without a state directory (where the write-ahead log records that
// time, so a replay serves it at the same moment).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { createFakeExchange } from "../../fixtures/fake-exchange.ts";

const DELAY_MS = 2100;

describe("route fault latency on the wall clock", () => {
  test.each([
    ["without a state directory", false],
    ["with a state directory", true],
  ])("%s: the delayed request reads the clock after its delay", async (_name, withStateDir) => {
    const stateDir = withStateDir ? path.join(mkdtempSync(path.join(tmpdir(), "fakex-latency-clock-")), "state") : undefined;
    const ex = await createFakeExchange({ clock: "wall", liquidity: false, users: 1, ...(stateDir ? { stateDir } : {}) });
    try {
      const time = async () => ((await (await fetch(`${ex.baseUrl}/system/time`)).json()) as { timestamp: number }).timestamp;
      const before = await time();
      ex.control.setRouteFaults([{ method: "GET", path: "/system/time", latency_ms: DELAY_MS, times: 1 }]);
      const delayed = await time();
      expect(delayed - before).toBeGreaterThanOrEqual(Math.floor(DELAY_MS / 1000));
      expect(ex.control.routeFaults()).toEqual([]);
    } finally {
      await ex.close();
    }
  }, 60_000);
});
