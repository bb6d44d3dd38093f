// sameClassAcrossBuilds and processWide (sim/platform/cross-build.ts): two copies of one class,
// as fakex's ESM and CommonJS builds make when a program loads both, agree on instanceof;
// other classes and values do not pass; a subclass without a brand of its own keeps plain
// instanceof. (The real two builds in one process: consumer/dual.mjs in consumer.test.ts.)
import { describe, expect, test } from "vitest";
import { processWide, sameClassAcrossBuilds } from "../../sim/platform/cross-build.ts";
import { ExchangeError } from "../../sim/core/errors.ts";
import * as fixtures from "../../fixtures/index.ts";
import * as sim from "../../sim/index.ts";
import * as properties from "../../properties/index.ts";

/** What each build's copy of a module defines: a fresh class under the same brand. */
function copyOfModule() {
  class CopyError extends Error {
    override readonly name = "CopyError";
  }
  sameClassAcrossBuilds(CopyError, "test.CopyError");
  class Unbranded extends CopyError {}
  class Branded extends CopyError {}
  sameClassAcrossBuilds(Branded, "test.BrandedCopyError");
  return { CopyError, Unbranded, Branded };
}

describe("classes that agree across fakex's two builds", () => {
  test("an instance of one copy is instanceof the other copy's class, subclasses included", () => {
    const one = copyOfModule();
    const two = copyOfModule();
    expect(one.CopyError).not.toBe(two.CopyError);
    expect(new one.CopyError("x")).toBeInstanceOf(two.CopyError);
    expect(new two.Branded("x")).toBeInstanceOf(one.Branded);
    // A subclass instance is an instance of the other copy's parent, by the parent's brand.
    expect(new one.Unbranded("x")).toBeInstanceOf(two.CopyError);
    expect(new one.Branded("x")).toBeInstanceOf(two.CopyError);
  });

  test("other errors and values are not; a subclass without its own brand keeps plain instanceof", () => {
    const one = copyOfModule();
    const two = copyOfModule();
    for (const x of [new Error("x"), new ExchangeError("VALIDATION", 400, "x"), null, undefined, 0, "CopyError", { name: "CopyError" }, Object.create(null)]) {
      expect(x instanceof one.CopyError).toBe(false);
    }
    // Neither the parent's brand nor a sibling's makes an instance of an unbranded subclass.
    expect(new one.CopyError("x") instanceof two.Unbranded).toBe(false);
    expect(new one.Branded("x") instanceof two.Unbranded).toBe(false);
    expect(new one.Unbranded("x") instanceof one.Unbranded).toBe(true);
    expect(new one.CopyError("x") instanceof two.Branded).toBe(false);
    // A plain Error is not an ExchangeError, and an ExchangeError still is one.
    expect(new Error("x") instanceof ExchangeError).toBe(false);
    expect(new ExchangeError("VALIDATION", 400, "x") instanceof ExchangeError).toBe(true);
  });

  test("processWide hands both copies the same value, made once", () => {
    let made = 0;
    const key = "test.shared-once";
    const a = processWide(key, () => ({ n: ++made }));
    const b = processWide(key, () => ({ n: ++made }));
    expect(a).toBe(b);
    expect(made).toBe(1);
  });
});

describe("fakex's exported error classes", () => {
  test("every Error subclass the public entry points export agrees across the builds (a new one cannot be left out)", () => {
    const brand = Symbol.for("fakex.class-brand");
    const errors = Object.entries({ ...fixtures, ...sim, ...properties }).filter(
      ([, v]) => typeof v === "function" && (v as { prototype?: unknown }).prototype instanceof Error,
    );
    expect(errors.length).toBeGreaterThanOrEqual(12);
    expect(errors.filter(([, v]) => !Object.prototype.hasOwnProperty.call(v, brand)).map(([k]) => k)).toEqual([]);
    // And each names itself, so a log or a test failure says which error it is.
    expect(errors.filter(([k, v]) => {
      try {
        return new (v as new (...a: unknown[]) => Error)("VALIDATION", 400, "x").name !== k;
      } catch {
        return false;
      }
    }).map(([k]) => k)).toEqual([]);
  });
});
