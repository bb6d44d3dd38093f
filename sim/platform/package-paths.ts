// Where the package's own files are, from sources (the repo) and from a build
// (dist/esm or dist/cjs inside an installed package) alike: everything is found
// relative to sim/platform/module-format, whose place in the tree is the same in all.
import { existsSync } from "node:fs";
import path from "node:path";
import { MODULE_FILE } from "./module-format.ts";

/** The directory holding sim/, fixtures/ and properties/: the repo root, or dist/esm | dist/cjs. */
export const CODE_ROOT: string = path.resolve(path.dirname(MODULE_FILE), "..", "..");

/** ".ts" when running from sources, ".js" when built. */
export const CODE_EXT: string = path.extname(MODULE_FILE);

/** The package directory (its package.json): CODE_ROOT, or two levels above it in a build. */
export const PACKAGE_ROOT: string =
  path.basename(path.dirname(CODE_ROOT)) === "dist" && existsSync(path.resolve(CODE_ROOT, "..", "..", "package.json"))
    ? path.resolve(CODE_ROOT, "..", "..")
    : CODE_ROOT;

/**
 * The tree a state file's build stamp hashes: the ES module build's (CODE_ROOT from
 * sources or dist/esm, dist/esm from dist/cjs), so both builds of one release stamp alike.
 */
export const STAMPED_CODE_ROOT: string =
  path.basename(CODE_ROOT) === "cjs" && path.basename(path.dirname(CODE_ROOT)) === "dist" ? path.join(path.dirname(CODE_ROOT), "esm") : CODE_ROOT;

/** Absolute path of one of the package's modules, e.g. codeFile("fixtures/scenarios"). */
export function codeFile(modulePath: string): string {
  return path.join(CODE_ROOT, `${modulePath}${CODE_EXT}`);
}

/**
 * node_modules/.cache next to the package: the consumer's node_modules/.cache when fakex
 * is installed (…/node_modules/fakex or …/node_modules/@scope/fakex), the repo's own
 * node_modules/.cache when it runs from a checkout.
 */
export function nodeModulesCacheDir(): string {
  let dir = path.dirname(PACKAGE_ROOT);
  if (path.basename(dir).startsWith("@")) dir = path.dirname(dir);
  if (path.basename(dir) === "node_modules") return path.join(dir, ".cache");
  return path.join(PACKAGE_ROOT, "node_modules", ".cache");
}
