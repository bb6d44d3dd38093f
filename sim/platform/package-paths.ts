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
 * The node_modules/.cache of the project being run: the nearest directory at or above the
 * working directory that has a package.json (as find-cache-dir and the tools built on it
 * do), since fakex's own directory may be read-only (Yarn Plug'n'Play's zip), shared
 * (pnpm's global store) or inside a per-version folder (pnpm's .pnpm, npm's .store). With
 * no package.json up the tree (a global install run anywhere): beside fakex's own install.
 */
export function nodeModulesCacheDir(cwd: string = workingDirectory()): string {
  const project = nearestPackageDir(cwd);
  if (project !== null) return path.join(project, "node_modules", ".cache");
  let dir = path.dirname(PACKAGE_ROOT);
  if (path.basename(dir).startsWith("@")) dir = path.dirname(dir);
  if (path.basename(dir) === "node_modules") return path.join(dir, ".cache");
  return path.join(PACKAGE_ROOT, "node_modules", ".cache");
}

/** The nearest directory at or above `start` holding a package.json, or null. */
function nearestPackageDir(start: string): string | null {
  if (start === "") return null;
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}

/** process.cwd(), or "" when the working directory was deleted. */
function workingDirectory(): string {
  try {
    return process.cwd();
  } catch {
    return "";
  }
}
