// The shipped sources compile to CommonJS as well as ES modules (tools/build.mjs). Two
// things do not survive that: `import.meta`, which only sim/platform/module-format.ts
// may use (its CommonJS twin replaces it), and top-level await. This scan fails fast
// in the ordinary test run, before a build or the consumer test would.
import { describe, expect, test } from "vitest";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ALLOWED_IMPORT_META = new Set(["sim/platform/module-format.ts"]);

/** The code of `source` without comments (line and block) and string contents. */
function codeOnly(source: string): string {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:\\])\/\/.*$/gm, "$1")
    .replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, '""');
}

/** Problems of one module: import.meta where it is not allowed, await at the top level. */
function problems(file: string, source: string): string[] {
  const code = codeOnly(source);
  const out: string[] = [];
  if (!ALLOWED_IMPORT_META.has(file) && /\bimport\.meta\b/.test(code)) out.push(`${file}: import.meta`);
  // Top-level statements start in column 0 (the house style indents every block).
  if (code.split("\n").some((line) => !/^\s/.test(line) && /\bawait\b/.test(line))) out.push(`${file}: top-level await`);
  return out;
}

async function shippedSources(): Promise<Map<string, string>> {
  const files = new Map<string, string>([["index.ts", await readFile(path.join(ROOT, "index.ts"), "utf8")]]);
  for (const top of ["sim", "fixtures", "properties"]) {
    for (const f of await readdir(path.join(ROOT, top), { recursive: true })) {
      if (!f.endsWith(".ts")) continue;
      const rel = `${top}/${f.split(path.sep).join("/")}`;
      files.set(rel, await readFile(path.join(ROOT, rel), "utf8"));
    }
  }
  return files;
}

describe("sources that compile to both module formats", () => {
  test("the scan sees import.meta and top-level await in code, not in comments or strings", () => {
    expect(problems("fixtures/a.ts", 'const here = new URL(".", import.meta.url);\n')).toEqual(["fixtures/a.ts: import.meta"]);
    expect(problems("fixtures/b.ts", "const x = await load();\n")).toEqual(["fixtures/b.ts: top-level await"]);
    expect(problems("fixtures/c.ts", '// import.meta.url is not used\nconst s = "await import.meta";\nasync function f() {\n  await g();\n}\n')).toEqual([]);
    expect(problems("sim/platform/module-format.ts", "export const F = import.meta.url;\n")).toEqual([]);
  });

  test("no shipped module but module-format uses import.meta, none awaits at the top level", async () => {
    const files = await shippedSources();
    expect(files.size).toBeGreaterThan(100);
    expect([...files].flatMap(([file, source]) => problems(file, source))).toEqual([]);
  });
});
