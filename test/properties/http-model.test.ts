// Model-based runs through HTTP against the in-memory exchange (see
// http-model-property.ts), wrapped in assertWithReplay: a failure leaves a replay
// bundle in .fakex/replays that `npx fakex replay <file>` reproduces. The seed is
// fixed so CI runs are repeatable; FAKEX_MODEL_SEED / FAKEX_MODEL_RUNS explore others.
import { describe, expect, it } from "vitest";
import { assertWithReplay } from "../../properties/index.ts";
import { seen } from "./http-model-property.ts";

describe("model-based: orders, VL batches, quotes and fill statuses through HTTP", () => {
  it("every observed move is a spec transition; economics hold after settlement", async () => {
    await assertWithReplay(
      { module: new URL("./http-model-property.ts", import.meta.url).href, export: "httpModelProperty", name: "http-model" },
      { numRuns: Number(process.env.FAKEX_MODEL_RUNS ?? 15), seed: Number(process.env.FAKEX_MODEL_SEED ?? 20261121), interruptAfterTimeLimit: 60_000 },
    );
    // The runs reached the interesting transitions, not only rejections (checked for the
    // default seed; an exploratory FAKEX_MODEL_SEED checks only the properties).
    console.log(`[model] ${JSON.stringify(seen)}`);
    if (process.env.FAKEX_MODEL_SEED !== undefined) return;
    for (const k of ["place 201", "order pending→matched", "order pending→cancelled", "cancel 429", "quote 200", "swap 200", "swap 410 expired", "vl 201", "fill pending→confirming", "fill →settled", "order matched→settled", "order matched→failed"]) {
      expect(seen[k] ?? 0, k).toBeGreaterThan(0);
    }
    // Injected faults showed up as leg reverts or failed batches.
    expect((seen["fill →reverted"] ?? 0) + (seen["fill →failed"] ?? 0)).toBeGreaterThan(0);
    for (const k of ["fault revert-legs", "fault fail-batch", "fault spread"]) expect(seen[k] ?? 0, k).toBeGreaterThan(0);
  }, 120_000);
});
