// Property factories for the replay-bundle tests: one that always finds a
// counterexample, one model-based (fc.commands) that does, and one that holds.
import fc from "fast-check";
import { commandsReplayPath, type PropertyFactory } from "../../properties/replay.ts";

/** Fails as soon as a list sums to 100 or more (a list of one element: shrinks to exactly [100]). */
export const sumStaysSmall: PropertyFactory = () =>
  fc.property(fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 1 }), (xs) => {
    if (xs.reduce((a, b) => a + b, 0) >= 100) throw new Error(`sum ${xs.reduce((a, b) => a + b, 0)} >= 100`);
  });

/** sumStaysSmall that also leaves a timer running (as a property that never closes its exchange leaves Anvil and sockets). */
export const sumStaysSmallLeavingATimer: PropertyFactory = () =>
  fc.property(fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 1 }), (xs) => {
    setInterval(() => undefined, 60_000);
    if (xs.reduce((a, b) => a + b, 0) >= 100) throw new Error(`sum ${xs.reduce((a, b) => a + b, 0)} >= 100`);
  });

/** sumStaysSmall after the "fix": same arbitrary (so the recorded path still walks), holds always. */
export const alwaysHolds: PropertyFactory = () => fc.property(fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 1 }), (xs) => xs.every((x) => x >= 0));

interface Counter {
  n: number;
}
class Inc implements fc.Command<Counter, Counter> {
  check = () => true;
  run(m: Counter, r: Counter): void {
    m.n++;
    r.n += r.n >= 3 ? 2 : 1; // the "bug": a real counter that jumps after 3
    if (m.n !== r.n) throw new Error(`model ${m.n} real ${r.n}`);
  }
  toString = () => "inc";
}
class Noop implements fc.Command<Counter, Counter> {
  check = () => true;
  run(): void {}
  toString = () => "noop";
}

/** Model-based: a counter that drifts from its model after three increments. */
export const counterModel: PropertyFactory = (ctx) =>
  fc.property(fc.commands([fc.constant(new Inc()), fc.constant(new Noop())], { size: "small", replayPath: commandsReplayPath(ctx) }), (cmds) => {
    fc.modelRun(() => ({ model: { n: 0 }, real: { n: 0 } }), cmds);
  });

/** Fails on multiples of 50 and never shrinks: its counterexample is exactly the value the path names. */
export const noMultiplesOf50: PropertyFactory = () =>
  fc.property(fc.noShrink(fc.integer({ min: 1, max: 1_000_000_000 })), (x) => {
    if (x % 50 === 0) throw new Error(`${x} is a multiple of 50`);
  });

/** A client that is slow on large values: fails only under a fast-check `timeout` (300 ms per value ≥ 500). */
export const slowOnLargeValues: PropertyFactory = () =>
  fc.asyncProperty(fc.integer({ min: 0, max: 1000 }), async (x) => {
    if (x >= 500) await new Promise((r) => setTimeout(r, 300));
  });

/** Fails on arrays longer than 10, which fast-check's default size ("small") never generates. */
export const shortArrays: PropertyFactory = () =>
  fc.property(fc.noShrink(fc.array(fc.nat())), (xs) => {
    if (xs.length > 10) throw new Error(`an array of ${xs.length}`);
  });

/** A random generator of pure-rand 8's shape (xorshift32), for fast-check's randomType as a function. */
export function xorshiftGenerator(seed: number): { clone(): ReturnType<typeof xorshiftGenerator>; next(): number; getState(): readonly number[] } {
  let s = seed | 0 || 1;
  return {
    clone: () => xorshiftGenerator(s),
    next: () => {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      return s | 0;
    },
    getState: () => [s],
  };
}

/** Fails on arrays of exactly three (never shrinks): which array a path names depends on the size setting. */
export const noArraysOfThree: PropertyFactory = () =>
  fc.property(fc.noShrink(fc.array(fc.nat())), (xs) => {
    if (xs.length === 3) throw new Error("an array of 3");
  });
