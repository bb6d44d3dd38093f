// Where the package finds its own files, run from the sources (this repository). The
// built and installed cases are covered by test/package/consumer.test.ts.
import { describe, expect, test } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MODULE_FILE } from "../../sim/platform/module-format.ts";
import { CODE_EXT, CODE_ROOT, PACKAGE_ROOT, STAMPED_CODE_ROOT, codeFile, nodeModulesCacheDir } from "../../sim/platform/package-paths.ts";
import { stateCacheDir } from "../../fixtures/state-cache.ts";

const REPO = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");

describe("package paths from the sources", () => {
  test("the code root, package root and stamped tree are the repository; modules are .ts", () => {
    expect(MODULE_FILE).toBe(path.join(REPO, "sim", "platform", "module-format.ts"));
    expect(CODE_ROOT).toBe(REPO);
    expect(PACKAGE_ROOT).toBe(REPO);
    expect(STAMPED_CODE_ROOT).toBe(REPO);
    expect(CODE_EXT).toBe(".ts");
    expect(codeFile("fixtures/scenarios")).toBe(path.join(REPO, "fixtures", "scenarios.ts"));
    expect(existsSync(codeFile("fixtures/scenarios"))).toBe(true);
  });

  test("the seeded-chain cache defaults to the repository's node_modules/.cache/fakex", () => {
    expect(nodeModulesCacheDir()).toBe(path.join(REPO, "node_modules", ".cache"));
    const saved = process.env["FAKEX_STATE_CACHE"];
    delete process.env["FAKEX_STATE_CACHE"];
    try {
      expect(stateCacheDir()).toBe(path.join(REPO, "node_modules", ".cache", "fakex"));
    } finally {
      if (saved !== undefined) process.env["FAKEX_STATE_CACHE"] = saved;
    }
  });

  test("the cache folder is worked out once per process: a test that changes directory does not move it", () => {
    const saved = process.env["FAKEX_STATE_CACHE"];
    delete process.env["FAKEX_STATE_CACHE"];
    const cwd = process.cwd();
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-cache-chdir-"));
    try {
      const before = stateCacheDir();
      writeFileSync(path.join(dir, "package.json"), "{}");
      process.chdir(dir);
      expect(stateCacheDir()).toBe(before);
    } finally {
      process.chdir(cwd);
      rmSync(dir, { recursive: true, force: true });
      if (saved !== undefined) process.env["FAKEX_STATE_CACHE"] = saved;
    }
  });

  test("the cache belongs to the project run from: the nearest package.json at or above the working directory", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-cache-dir-"));
    try {
      const project = path.join(dir, "project");
      mkdirSync(path.join(project, "test", "unit"), { recursive: true });
      writeFileSync(path.join(project, "package.json"), "{}");
      expect(nodeModulesCacheDir(project)).toBe(path.join(project, "node_modules", ".cache"));
      expect(nodeModulesCacheDir(path.join(project, "test", "unit"))).toBe(path.join(project, "node_modules", ".cache"));
      // No package.json up the tree, or no working directory at all: beside fakex's own
      // install, here the repository. (A TMPDIR inside some project has one above it.)
      const above: string[] = [];
      for (let d = path.dirname(dir); above.at(-1) !== d; d = path.dirname(d)) above.push(d);
      expect(nodeModulesCacheDir(dir)).toBe(
        above.some((d) => existsSync(path.join(d, "package.json")))
          ? path.join(above.find((d) => existsSync(path.join(d, "package.json")))!, "node_modules", ".cache")
          : path.join(REPO, "node_modules", ".cache"),
      );
      expect(nodeModulesCacheDir("")).toBe(path.join(REPO, "node_modules", ".cache"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
