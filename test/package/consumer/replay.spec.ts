// Properties written in TypeScript, as a vitest user writes them: the runner compiles the
// modules, the installed fakex imports with Node's own loader, so the factory is passed along;
// the bundle names the property module (its own file), which `fakex replay` imports.
import { expect, test } from "vitest";
import { assertWithReplay, PropertyFailure } from "fakex/properties";
import { staysSmall, sumsCommute } from "./props.ts";

const module = new URL("./props.ts", import.meta.url).href;

test("assertWithReplay runs the factory it is given; a failure's bundle names the property module", async () => {
  await assertWithReplay({ module, export: "sumsCommute", factory: sumsCommute });
  const err: unknown = await assertWithReplay({ module, export: "staysSmall", factory: staysSmall }, { seed: 42 }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(PropertyFailure);
  expect((err as PropertyFailure).bundle.module.endsWith("props.ts")).toBe(true);
});
