// A property written in a TypeScript test file, as a vitest user writes one: the runner
// compiles this file, Node alone cannot import it, so the factory is passed along.
import { expect, test } from "vitest";
import fc from "fast-check";
import { assertWithReplay, PropertyFailure } from "fakex/properties";

export const sumsCommute = () => fc.property(fc.integer(), fc.integer(), (a, b) => a + b === b + a);
export const staysSmall = () => fc.property(fc.integer({ min: 0, max: 1000 }), (n) => n < 500);

test("assertWithReplay runs the factory it is given; a failure's bundle names this file", async () => {
  await assertWithReplay({ module: import.meta.url, export: "sumsCommute", factory: sumsCommute });
  const err: unknown = await assertWithReplay({ module: import.meta.url, export: "staysSmall", factory: staysSmall }, { seed: 42 }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(PropertyFailure);
  expect((err as PropertyFailure).bundle.module.endsWith("replay.spec.ts")).toBe(true);
});
