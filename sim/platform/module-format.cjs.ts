// CommonJS twin of module-format.ts: the CommonJS build resolves "./module-format.ts" to
// this file (moduleSuffixes in tsconfig.build.cjs.json) and tools/build.mjs renames its
// output to module-format.js. Same exports, from CommonJS's own __filename and require.

/** Absolute path of this module's file. */
export const MODULE_FILE: string = __filename;

/** A require rooted here: native addons and package files resolve from this package. */
export const nodeRequire: NodeJS.Require = require;

// A literal import() would become require() in CommonJS output; Function keeps it an import.
const dynamicImport = new Function("specifier", "return import(specifier)") as (specifier: string) => Promise<unknown>;

/** import() of a URL or package name, a real import() in the CommonJS build too. */
export function importModule(specifier: string): Promise<unknown> {
  return dynamicImport(specifier);
}
