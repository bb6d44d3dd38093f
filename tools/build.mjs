// npm run build: the package as it ships, in dist/ (never committed).
//   dist/esm    ES modules (the package is "type": "module")
//   dist/cjs    CommonJS, marked by its own package.json {"type": "commonjs"}
//   dist/types  declarations of the ES modules; the same files are copied next to the
//               CommonJS output, where its package.json makes TypeScript read them as
//               CommonJS (a require() consumer on moduleResolution node16 needs that)
// Sources import each other with .ts extensions; tsc rewrites them to .js. The one
// module that differs by format, sim/platform/module-format, has a CommonJS twin that
// tsconfig.build.cjs.json picks through moduleSuffixes; its output is renamed here.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { cp, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

function compile(project) {
  execFileSync(process.execPath, [tsc, "-p", path.join(root, project)], { stdio: "inherit", cwd: root });
}

await rm(dist, { recursive: true, force: true });
compile("tsconfig.build.json");
compile("tsconfig.build.cjs.json");
const platform = path.join(dist, "cjs", "sim", "platform");
await rename(path.join(platform, "module-format.cjs.js"), path.join(platform, "module-format.js"));
await writeFile(path.join(dist, "cjs", "package.json"), `${JSON.stringify({ type: "commonjs" }, null, 2)}\n`);
await cp(path.join(dist, "types"), path.join(dist, "cjs"), { recursive: true });
// fakex/vitest is ESM-only: vitest itself refuses require() ("Vitest cannot be imported in a
// CommonJS module using require()"), so a CommonJS build of it could never load. Its require
// side says so at run time. Its declaration stays the real one, as vitest's own require-side
// declaration is: TypeScript reads a test file of a "type": "commonjs" package (what `npm
// init -y` writes) as CommonJS and resolves its imports through "require", although vitest
// runs the file as an ES module, where the import works.
const esmOnly =
  "fakex/vitest is ESM-only, as vitest is: load it with import (vitest runs .ts, .mts and .js test files as ES modules), not require(). A runner that needs CommonJS can use createFakeExchange from fakex/fixtures in its own hooks.";
const cjsVitest = path.join(dist, "cjs", "fixtures", "vitest");
await writeFile(`${cjsVitest}.js`, `"use strict";\nthrow new Error(${JSON.stringify(esmOnly)});\n`);
console.log("built dist/esm, dist/cjs, dist/types");
