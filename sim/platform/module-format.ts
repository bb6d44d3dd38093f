// The three things that differ between an ES module and a CommonJS module: where the
// running file is, how to require, and how to import a module chosen at run time.
// This is the only module that uses import.meta: the CommonJS build compiles its twin,
// module-format.cjs.ts, in its place, so everything else compiles unchanged to both.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/** Absolute path of this module's file (.ts from sources, .js when built). */
export const MODULE_FILE: string = fileURLToPath(import.meta.url);

/** A require rooted here: native addons and package files resolve from this package. */
export const nodeRequire: NodeJS.Require = createRequire(import.meta.url);

/** import() of a URL or package name, kept a real import() in the CommonJS build too. */
export function importModule(specifier: string): Promise<unknown> {
  return import(specifier);
}
