import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { assertWithReplay, parseReplayBundle, PropertyFailure, replayBundle, replayCommand, type ReplayBundle } from "../../properties/replay.ts";

import { xorshiftGenerator } from "./toy-properties.ts";

const TOY = new URL("./toy-properties.ts", import.meta.url).href;
const dir = mkdtempSync(join(tmpdir(), "fakex-replay-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function failingBundle(exportName: string): Promise<{ file: string; bundle: ReplayBundle }> {
  try {
    await assertWithReplay({ module: TOY, export: exportName }, { numRuns: 200 }, { dir, chainDump: async () => "0xdeadbeef" });
  } catch (e) {
    expect(e).toBeInstanceOf(PropertyFailure);
    const f = e as PropertyFailure;
    expect(f.message).toContain(`npx fakex replay ${f.bundlePath}`);
    return { file: f.bundlePath, bundle: f.bundle };
  }
  throw new Error("expected the toy property to fail");
}

describe("replay bundles", () => {
  it("a failing property writes seed, path, counterexample, error and chain dump; replay reproduces it", async () => {
    const { file, bundle } = await failingBundle("sumStaysSmall");
    const onDisk = parseReplayBundle(JSON.parse(readFileSync(file, "utf8")));
    expect(onDisk).toEqual(bundle);
    expect(onDisk.property).toBe("sumStaysSmall");
    expect(Number.isInteger(onDisk.seed)).toBe(true);
    expect(onDisk.path).toMatch(/^\d+(:\d+)*$/);
    expect(onDisk.commands).toBe("[100]"); // shrunk
    expect(onDisk.error).toBe("sum 100 >= 100");
    expect(onDisk.chainDump).toBe("0xdeadbeef");
    const r = await replayBundle(file);
    expect(r.reproduced).toBe(true);
    expect(r.counterexample).toBe("[100]");
    const lines: string[] = [];
    expect(await replayCommand([file], (s) => lines.push(s))).toBe(1);
    expect(lines.join("")).toMatch(/^FAIL property sumStaysSmall/);
  });

  it("a bundle file that is not there is said as such, not as Node's ENOENT", async () => {
    await expect(replayBundle(join(dir, "nope.json"))).rejects.toThrow(`cannot read replay bundle ${join(dir, "nope.json")}: no such file`);
  });

  it("a model-based (fc.commands) failure records the command path and replays it", async () => {
    const { file, bundle } = await failingBundle("counterModel");
    expect(bundle.commands).toMatch(/inc/);
    expect(bundle.error).toMatch(/model \d+ real \d+/);
    const r = await replayBundle(file);
    expect(r.reproduced).toBe(true);
    const list = (s: string | undefined) => s?.replace(/\s*\/\*replayPath=.*\*\//, "");
    expect(list(r.counterexample)).toBe(list(bundle.commands));
    expect(list(bundle.commands)).toMatch(/^(inc|noop)(,(inc|noop))*$/);
  });

  it("once the property holds, replay exits 0; bad bundles exit 2", async () => {
    const { file, bundle } = await failingBundle("sumStaysSmall");
    const fixed = join(dir, "fixed.json");
    writeFileSync(fixed, JSON.stringify({ ...bundle, export: "alwaysHolds" }));
    const lines: string[] = [];
    expect(await replayCommand([fixed], (s) => lines.push(s))).toBe(0);
    expect(lines.join("")).toMatch(/^PASS/);
    const junk = join(dir, "junk.json");
    writeFileSync(junk, JSON.stringify({ version: 9 }));
    const quiet = () => undefined;
    expect(await replayCommand([junk], quiet, quiet)).toBe(2);
    expect(await replayCommand([], quiet, quiet)).toBe(2);
    // An option or a second file is a usage error (not a file to open); a broken file is named once, without a doubled prefix.
    // On stderr: stdout is for PASS / FAIL only.
    const said: string[] = [];
    const onStdout: string[] = [];
    expect(await replayCommand(["--bogus"], (x) => onStdout.push(x), (x) => said.push(x))).toBe(2);
    expect(await replayCommand([fixed, junk], (x) => onStdout.push(x), (x) => said.push(x))).toBe(2);
    const broken = join(dir, "broken.json");
    writeFileSync(broken, "{ nope");
    expect(await replayCommand([broken], (x) => onStdout.push(x), (x) => said.push(x))).toBe(2);
    expect(await replayCommand([junk], (x) => onStdout.push(x), (x) => said.push(x))).toBe(2);
    expect(onStdout).toEqual([]);
    expect(said[0]).toBe("fakex replay: unknown option --bogus; usage: fakex replay <bundle.json>\n");
    expect(said[1]).toContain("one bundle at a time (got 2)");
    expect(said[2]).toMatch(new RegExp(`^fakex replay: ${broken.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is not JSON \\(`));
    expect(said[3]).toMatch(/^fakex replay: not a fakex replay bundle/);
    expect(file).toContain(dir);
  });

  it("`fakex replay bundle.json` (the bin) reproduces the failure and exits 1", async () => {
    const { file } = await failingBundle("sumStaysSmall");
    const bin = new URL("../../bin/fakex.js", import.meta.url).pathname;
    let status = 0;
    let stdout = "";
    try {
      execFileSync(process.execPath, [bin, "replay", file], { encoding: "utf8", stdio: "pipe" });
    } catch (e) {
      const x = e as { status: number; stdout: string };
      status = x.status;
      stdout = x.stdout;
    }
    expect(status).toBe(1);
    expect(stdout).toMatch(/^FAIL property sumStaysSmall .*\n  error: sum 100 >= 100/);
  }, 30_000);

  it("the bin exits with its verdict even when the property left handles open (a timer here; an unclosed exchange in practice)", async () => {
    const { bundle } = await failingBundle("sumStaysSmall");
    const leaky = join(dir, "leaky.json");
    writeFileSync(leaky, JSON.stringify({ ...bundle, export: "sumStaysSmallLeavingATimer" }));
    const bin = new URL("../../bin/fakex.js", import.meta.url).pathname;
    // The timeout only keeps a regression from hanging the suite: it is a failure, not a measurement.
    let result: { status: number | null; signal: string | null; stdout: string } = { status: 0, signal: null, stdout: "" };
    try {
      execFileSync(process.execPath, [bin, "replay", leaky], { encoding: "utf8", stdio: "pipe", timeout: 20_000 });
    } catch (e) {
      result = e as typeof result;
    }
    expect({ status: result.status, signal: result.signal }).toEqual({ status: 1, signal: null });
    expect(result.stdout).toMatch(/^FAIL property sumStaysSmall .*\n  error: sum 100 >= 100/);
  }, 30_000);

  it("the bin replays the HTTP model suite's property outside vitest (a bundle for a run that holds: exit 0)", async () => {
    const bundle: ReplayBundle = {
      version: 1,
      property: "http-model",
      module: new URL("./http-model-property.ts", import.meta.url).pathname,
      export: "httpModelProperty",
      seed: 20261121,
      path: "",
      numRuns: 2,
      commands: "",
      error: "",
    };
    const file = join(dir, "http-model.json");
    writeFileSync(file, JSON.stringify(bundle));
    const bin = new URL("../../bin/fakex.js", import.meta.url).pathname;
    const out = execFileSync(process.execPath, [bin, "replay", file], { encoding: "utf8", stdio: "pipe" });
    expect(out).toMatch(/^PASS property http-model \(seed 20261121/);
  }, 60_000);

  it("fast-check parameters that change generation travel in the bundle: unbiased, and examples ahead of generated values", async () => {
    // noMultiplesOf50 never shrinks: replaying any other value than the recorded one shows.
    const fail = async (params: Parameters<typeof assertWithReplay>[1]) => {
      try {
        await assertWithReplay({ module: TOY, export: "noMultiplesOf50" }, { numRuns: 5000, ...params }, { dir });
      } catch (e) {
        expect(e, String(e)).toBeInstanceOf(PropertyFailure);
        return e as PropertyFailure;
      }
      throw new Error("expected a failure");
    };
    const replays = async (f: PropertyFailure) => {
      const r = await replayBundle(f.bundlePath);
      expect(r.reproduced).toBe(true);
      expect(r.counterexample).toBe(f.bundle.commands);
    };
    // unbiased: recorded, and the replay generates as the run did.
    const u = await fail({ unbiased: true, seed: 5 });
    expect(u.bundle.unbiased).toBe(true);
    await replays(u);
    // Passing examples ahead of the generated values shift their numbering.
    const g = await fail({ seed: 7, examples: [[1], [2], [3]] });
    expect(g.bundle.exampleCount).toBe(3);
    expect(Number(g.bundle.path)).toBeGreaterThanOrEqual(3);
    await replays(g);
    // A failing example cannot be replayed from a bundle: said so, never a false pass.
    const x = await fail({ seed: 9, examples: [[50]] });
    expect(x.bundle.path).toBe("0");
    await expect(replayBundle(x.bundlePath)).rejects.toThrow(/failed on examples\[0\].*cannot carry/);
    const lines: string[] = [];
    expect(await replayCommand([x.bundlePath], (s) => lines.push(s), (s) => lines.push(s))).toBe(2);
    expect(lines.join("")).toMatch(/cannot carry/);
  });

  it("a failure from fast-check's timeout replays with that timeout (it was a false pass without it)", async () => {
    let f: PropertyFailure | undefined;
    try {
      await assertWithReplay({ module: TOY, export: "slowOnLargeValues" }, { numRuns: 50, seed: 1, timeout: 100 }, { dir });
    } catch (e) {
      f = e as PropertyFailure;
    }
    expect(f, "expected a timeout failure").toBeInstanceOf(PropertyFailure);
    expect(f!.bundle.error).toMatch(/timeout/i);
    expect(f!.bundle.timeout).toBe(100);
    const r = await replayBundle(f!.bundlePath);
    expect(r.reproduced).toBe(true);
    expect(r.error).toMatch(/timeout/i);
  }, 60_000);

  it("fc.configureGlobal's sizes and a named randomType travel in the bundle; a custom generator function is refused with the failure", async () => {
    const before = fc.readConfigureGlobal();
    let f: PropertyFailure | undefined;
    try {
      fc.configureGlobal({ ...before, baseSize: "xlarge" });
      await assertWithReplay({ module: TOY, export: "shortArrays" }, { numRuns: 200, seed: 3, randomType: "xoroshiro128plus" }, { dir });
    } catch (e) {
      f = e as PropertyFailure;
    } finally {
      fc.configureGlobal(before);
    }
    expect(f, "expected a failure").toBeInstanceOf(PropertyFailure);
    expect([f!.bundle.baseSize, f!.bundle.randomType]).toEqual(["xlarge", "xoroshiro128plus"]);
    // Replayed under the default (small) size, the recorded path would walk other arrays.
    const r = await replayBundle(f!.bundlePath);
    expect(r.reproduced).toBe(true);
    expect(r.counterexample).toBe(f!.bundle.commands);
    expect(fc.readConfigureGlobal()).toEqual(before);
    fc.configureGlobal({ ...before, baseSize: "xlarge" });
    try {
      const custom = assertWithReplay({ module: TOY, export: "shortArrays" }, { numRuns: 200, seed: 3, randomType: xorshiftGenerator }, { dir });
      await expect(custom).rejects.toThrow(/an array of \d+\ncounterexample: .*\nno replay bundle: a custom randomType function cannot travel/);
    } finally {
      fc.configureGlobal(before);
    }
  }, 60_000);

  it("a replay uses the run's settings, not the replaying process's own global ones; a bundle naming an unknown generator, another version or a zero timeout is refused", async () => {
    let f: PropertyFailure | undefined;
    try {
      await assertWithReplay({ module: TOY, export: "noArraysOfThree" }, { numRuns: 500, seed: 11 }, { dir });
    } catch (e) {
      f = e as PropertyFailure;
    }
    expect(f, "expected a failure").toBeInstanceOf(PropertyFailure);
    expect(f!.bundle.baseSize).toBeUndefined();
    const before = fc.readConfigureGlobal();
    fc.configureGlobal({ ...before, baseSize: "xlarge", unbiased: true });
    try {
      const r = await replayBundle(f!.bundlePath);
      expect(r.reproduced).toBe(true);
      expect(r.counterexample).toBe(f!.bundle.commands);
      // And the process's own settings are back afterwards.
      expect(fc.readConfigureGlobal()).toMatchObject({ baseSize: "xlarge", unbiased: true });
    } finally {
      fc.configureGlobal(before);
    }
    expect(() => parseReplayBundle({ ...f!.bundle, randomType: "foo" })).toThrow(/randomType is not what fast-check takes/);
    expect(() => parseReplayBundle({ ...f!.bundle, baseSize: "huge" })).toThrow(/baseSize is not what fast-check takes/);
    // A bundle of another format version is not read as this one.
    expect(() => parseReplayBundle({ ...f!.bundle, version: 2 })).toThrow("replay: not a fakex replay bundle (needs version 1, module, export, property, seed, path, numRuns)");
    expect(() => parseReplayBundle({ ...f!.bundle, timeout: 0 })).toThrow("replay: the bundle's timeout is not what fast-check takes there");
  }, 60_000);

  it("a holding property writes nothing and resolves", async () => {
    await expect(assertWithReplay({ module: TOY, export: "alwaysHolds" }, { numRuns: 20 }, { dir: join(dir, "none") })).resolves.toBeUndefined();
    expect(() => readFileSync(join(dir, "none"))).toThrow();
  });
});
