#!/usr/bin/env node
// A stand-in for a native `solc` binary that forge can drive, backed by the
// pinned solc-js from npm. forge only needs two calls: `--version` (to learn
// which compiler it is) and `--standard-json` (stdin in, stdout out). This lets
// a fresh clone build the contracts with no downloaded or globally installed
// compiler, which `offline = true` in foundry.toml demands.
import { readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const solc = require("solc");

// Reported in the shape forge parses from a native build; the commit is the
// one solc-js itself reports, so forge's cache keys stay honest.
function versionLine() {
  const full = solc.version(); // e.g. 0.8.28+commit.7893614a.Emscripten.clang
  const core = full.replace(/\.Emscripten\.clang$/, "");
  return `solc, the solidity compiler commandline interface\nVersion: ${core}.Linux.g++`;
}

function parseArgs(argv) {
  const opts = { basePath: process.cwd(), includePaths: [], allowPaths: [], standardJson: false, version: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => argv[++i] ?? "";
    if (a === "--version" || a === "-v") opts.version = true;
    else if (a === "--standard-json") opts.standardJson = true;
    else if (a === "--base-path") opts.basePath = next();
    else if (a.startsWith("--base-path=")) opts.basePath = a.slice(12);
    else if (a === "--include-path") opts.includePaths.push(next());
    else if (a.startsWith("--include-path=")) opts.includePaths.push(a.slice(15));
    else if (a === "--allow-paths") opts.allowPaths.push(...next().split(","));
    else if (a.startsWith("--allow-paths=")) opts.allowPaths.push(...a.slice(14).split(","));
    // Anything else (e.g. a trailing "-") has no meaning for standard-json mode.
  }
  return opts;
}

function canonical(p) {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

// forge normally inlines every source's content; this callback is the
// fallback for an import it did not inline. It resolves like native solc
// (base path, then include paths) and refuses files outside the allowed roots.
function makeImportCallback(opts) {
  const roots = [opts.basePath, ...opts.includePaths].filter(Boolean).map((r) => path.resolve(r));
  const allowed = [...roots, ...opts.allowPaths.filter(Boolean).map((r) => path.resolve(r))].map(canonical);
  return (importPath) => {
    const candidates = path.isAbsolute(importPath) ? [importPath] : roots.map((r) => path.join(r, importPath));
    for (const file of candidates) {
      const real = canonical(file);
      const permitted = allowed.some((root) => real === root || real.startsWith(root + path.sep));
      if (!permitted) continue;
      try {
        return { contents: readFileSync(real, "utf8") };
      } catch {
        // try the next root
      }
    }
    return { error: `File not found or not allowed: ${importPath}` };
  };
}

function readStdin() {
  return readFileSync(0, "utf8");
}

const opts = parseArgs(process.argv.slice(2));
if (opts.version) {
  process.stdout.write(versionLine() + "\n");
  process.exit(0);
}
if (!opts.standardJson) {
  process.stderr.write("solc-shim: only --version and --standard-json are supported\n");
  process.exit(1);
}
const output = solc.compile(readStdin(), { import: makeImportCallback(opts) });
process.stdout.write(output);
