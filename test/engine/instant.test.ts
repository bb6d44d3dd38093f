import { describe, expect, it } from "vitest";
import { VirtualClock } from "../../sim/core/clock.ts";
import { InstantSource, instantAt } from "../../sim/core/instant.ts";

describe("InstantSource", () => {
  it("hands out one shared Instant while the clock stands still, a new one when it moves", () => {
    const clock = new VirtualClock();
    const src = new InstantSource(clock);
    const a = src.now();
    expect(a.ms).toBe(clock.nowMs());
    expect(src.now()).toBe(a);
    clock.advanceSec(1);
    const b = src.now();
    expect(b).not.toBe(a);
    expect(b.ms).toBe(a.ms + 1000);
    // The earlier reading is untouched: records stamped with it keep their time.
    expect(a.ms).toBe(b.ms - 1000);
  });

  it("follows a clock restored to an earlier reading, exactly, far outside the small-integer range", () => {
    const clock = new VirtualClock();
    const src = new InstantSource(clock);
    const saved = clock.snapshot();
    const start = src.now();
    clock.advanceSec(10 * 365 * 86400);
    expect(src.now().ms).toBe(start.ms + 10 * 365 * 86400 * 1000);
    clock.restore(saved);
    expect(src.now().ms).toBe(start.ms);
  });

  it("an Instant is plain data: its JSON is just the reading", () => {
    expect(JSON.parse(JSON.stringify(instantAt(1_767_225_600_123)))).toEqual({ ms: 1_767_225_600_123 });
  });
});
