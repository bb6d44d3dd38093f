// Market activity survives a restart on --state-dir: the agents' settings, walks, step
// schedule and Rng come back with the rest, and they go on trading after the restart.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { createFakeExchange } from "../../fixtures/fake-exchange.ts";
import type { ActivityView } from "../../fixtures/activity.ts";

describe("market activity with a state directory", () => {
  test("stop, resume: the same agents, walks and schedule; they keep stepping", async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), "fakex-activity-")), "state");
    const first = await createFakeExchange({ seed: 31, stateDir: dir, startTime: 1767225600, activity: { markets: ["USDT/USDC"], volatility: 0.003 } });
    let saved: { view: ActivityView; hash: string; orders: number };
    try {
      await first.control.advanceClock(95);
      saved = { view: first.control.activity() as ActivityView, hash: first.control.eventHash(), orders: first.parts.engine.depth("USDT/USDC", "bid").length };
      expect(saved.view.steps).toBe(3);
    } finally {
      await first.close();
    }
    const second = await createFakeExchange({ stateDir: dir });
    try {
      expect(second.persistence?.resumed).toBe(true);
      expect(second.control.activity()).toEqual(saved.view);
      expect(second.control.eventHash()).toBe(saved.hash);
      expect(second.parts.engine.depth("USDT/USDC", "bid")).toHaveLength(saved.orders);
      const fills = second.parts.engine.fillCount();
      await second.control.advanceClock(300);
      const after = second.control.activity() as ActivityView;
      expect(after.steps).toBe(13);
      expect(after.markets["USDT/USDC"]!.mid).not.toBe(saved.view.markets["USDT/USDC"]!.mid);
      expect(second.parts.engine.fillCount()).toBeGreaterThan(fills);
    } finally {
      await second.close();
    }
  }, 120_000);
});
