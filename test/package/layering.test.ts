// The layers of sim/ as the build sees them: a module may import downwards only.
// core is the deterministic simulator (no contract artifacts: what it needs of the
// contracts is injected), signing sits below chain and http, chain adapts core to a
// chain and must not reach into the HTTP layer, and nothing in sim/ reaches fixtures/.
import { describe, expect, test } from "vitest";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Forbidden targets (paths relative to the repo root, prefix match) per source folder. */
const RULES: { from: string; forbidden: string[] }[] = [
  { from: "sim/core/", forbidden: ["sim/http/", "sim/chain/artifacts.ts", "sim/signing/", "fixtures/"] },
  { from: "sim/signing/", forbidden: ["sim/http/", "sim/chain/", "fixtures/"] },
  { from: "sim/chain/", forbidden: ["sim/http/", "fixtures/"] },
  { from: "sim/", forbidden: ["fixtures/", "properties/"] },
];

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"|import\(\s*"([^"]+)"\s*\)/g;

/** Every relative import of `file` (repo-relative), resolved to a repo-relative path. */
function relativeImports(file: string, source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2];
    if (spec?.startsWith(".")) found.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)));
  }
  return found;
}

/** "file -> target" for each import that breaks a rule. */
function violations(files: Map<string, string>): string[] {
  const out = new Set<string>();
  for (const [file, source] of files) {
    for (const target of relativeImports(file, source)) {
      for (const rule of RULES) {
        if (file.startsWith(rule.from) && rule.forbidden.some((f) => target.startsWith(f))) out.add(`${file} -> ${target}`);
      }
    }
  }
  return [...out];
}

async function sources(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const f of await readdir(path.join(ROOT, "sim"), { recursive: true })) {
    if (!f.endsWith(".ts")) continue;
    const rel = `sim/${f.split(path.sep).join("/")}`;
    files.set(rel, await readFile(path.join(ROOT, rel), "utf8"));
  }
  return files;
}

describe("sim/ layering", () => {
  test("the checker sees a forbidden import (type-only and multi-line ones too)", () => {
    const planted = new Map([
      ["sim/chain/x.ts", 'import {\n  a,\n  b,\n} from "../http/signed.ts";\n'],
      ["sim/core/y.ts", 'import type { Z } from "../chain/artifacts.ts";\nimport { ok } from "./ledger.ts";\n'],
      ["sim/core/z.ts", 'const m = await import("../../fixtures/cli.ts");\n'],
    ]);
    expect(violations(planted)).toEqual([
      "sim/chain/x.ts -> sim/http/signed.ts",
      "sim/core/y.ts -> sim/chain/artifacts.ts",
      "sim/core/z.ts -> fixtures/cli.ts",
    ]);
  });

  test("no module in sim/ imports across a forbidden boundary", async () => {
    const files = await sources();
    expect(files.size).toBeGreaterThan(50);
    expect(violations(files)).toEqual([]);
  });
});
