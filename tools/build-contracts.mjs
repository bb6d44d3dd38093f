#!/usr/bin/env node
// Builds contracts/ with forge (npm @foundry-rs/forge, offline) driving the pinned
// solc-js through tools/solc-shim.mjs, then writes sim/chain/artifacts.ts: one
// export per contract, `{ abi: [...] as const, bytecode: "0x..." as const }`.
//
// --if-changed: does nothing when the source hash stamped in artifacts.ts equals the
// hash of the current inputs (contracts/**, foundry.toml, the shim, this script and the
// pinned solc / OpenZeppelin versions). artifacts.ts is committed, so a fresh clone
// never needs to compile unless someone changed a contract.
//
// --check: exits 1 (without building) when artifacts.ts is stale; for CI and tests.
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(path.join(root, "package.json"));
const artifactsFile = path.join(root, "sim", "chain", "artifacts.ts");
const contractsDir = path.join(root, "contracts");

function listSources(dir) {
  const out = [];
  for (const entry of readdirSync(dir).sort()) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...listSources(full));
    else if (entry.endsWith(".sol")) out.push(full);
  }
  return out;
}

function packageVersion(name) {
  return JSON.parse(readFileSync(require.resolve(`${name}/package.json`), "utf8")).version;
}

function sourceHash() {
  const h = createHash("sha256");
  const inputs = [
    ...listSources(contractsDir),
    path.join(root, "foundry.toml"),
    path.join(root, "tools", "solc-shim.mjs"),
    path.join(root, "tools", "build-contracts.mjs"),
  ];
  for (const file of inputs) {
    h.update(path.relative(root, file).split(path.sep).join("/"));
    h.update("\0");
    h.update(readFileSync(file));
    h.update("\0");
  }
  h.update(`solc@${packageVersion("solc")}\0@openzeppelin/contracts@${packageVersion("@openzeppelin/contracts")}`);
  return h.digest("hex");
}

function stampedHash() {
  if (!existsSync(artifactsFile)) return null;
  const m = /export const SOURCE_HASH = "([0-9a-f]{64})"/.exec(readFileSync(artifactsFile, "utf8"));
  return m ? m[1] : null;
}

// The platform binary directly: node_modules/.bin/forge is a node wrapper that adds start-up time.
function forgeBinary() {
  const exe = process.platform === "win32" ? "forge.exe" : "forge";
  try {
    // The platform packages name x64 "amd64" (as fixtures/anvil.ts knows for anvil).
    const arch = process.arch === "x64" ? "amd64" : process.arch;
    const pkg = require.resolve(`@foundry-rs/forge-${process.platform}-${arch}/package.json`);
    const bin = path.join(path.dirname(pkg), "bin", exe);
    if (existsSync(bin)) return bin;
  } catch {
    // fall through to the wrapper
  }
  const wrapper = path.join(root, "node_modules", ".bin", exe);
  if (existsSync(wrapper)) return wrapper;
  throw new Error("forge not found: install dependencies with `npm ci`");
}

function runForge() {
  const res = spawnSync(forgeBinary(), ["build", "--offline"], { cwd: root, encoding: "utf8", env: { ...process.env, FOUNDRY_OFFLINE: "true" } });
  if (res.error) throw res.error;
  // The npm wrapper exits 0 even when compilation fails, which used to leave stale
  // artifacts in place silently: trust the compiler's own failure line as well.
  if (res.status !== 0 || /Compiler run failed/.test(`${res.stdout ?? ""}${res.stderr ?? ""}`)) {
    process.stderr.write(res.stdout ?? "");
    process.stderr.write(res.stderr ?? "");
    throw new Error(`forge build failed with exit code ${res.status}`);
  }
}

// Every deployable (non-empty bytecode) contract declared in contracts/**.
function collectArtifacts() {
  const result = [];
  for (const source of listSources(contractsDir)) {
    const dir = path.join(root, "out", path.basename(source));
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).sort()) {
      if (!file.endsWith(".json")) continue;
      const json = JSON.parse(readFileSync(path.join(dir, file), "utf8"));
      const target = json.metadata?.settings?.compilationTarget ?? {};
      const rel = path.relative(root, source).split(path.sep).join("/");
      if (!Object.keys(target).includes(rel)) continue;
      const bytecode = json.bytecode?.object ?? "0x";
      // Libraries with only internal functions have bytecode but nothing to call or deploy.
      if (bytecode === "0x" || bytecode.length <= 2 || json.abi.length === 0) continue;
      result.push({ name: path.basename(file, ".json"), abi: json.abi, bytecode });
    }
  }
  if (result.length === 0) throw new Error("no contract artifacts found in out/");
  return result;
}

function renderModule(hash, artifacts) {
  const lines = [
    "// GENERATED by tools/build-contracts.mjs from contracts/**. Do not edit by hand:",
    "// change the Solidity and run `npm run build:contracts`.",
    "",
    "/** Hash of the inputs this file was built from; `--if-changed` rebuilds when it differs. */",
    `export const SOURCE_HASH = "${hash}";`,
    "",
  ];
  for (const a of artifacts) {
    lines.push(`export const ${a.name} = {`);
    lines.push(`  abi: ${JSON.stringify(a.abi, null, 2).split("\n").join("\n  ")} as const,`);
    lines.push(`  bytecode: "${a.bytecode}" as const,`);
    lines.push("} as const;", "");
  }
  return lines.join("\n");
}

const ifChanged = process.argv.includes("--if-changed");
const hash = sourceHash();
if (process.argv.includes("--check")) {
  const stamped = stampedHash();
  if (stamped === hash) process.exit(0);
  process.stderr.write(`build-contracts: sim/chain/artifacts.ts is stale (stamped ${stamped ?? "none"}, sources ${hash}); run npm run build:contracts\n`);
  process.exit(1);
}
if (ifChanged && stampedHash() === hash) {
  process.exit(0);
}
const started = process.hrtime.bigint();
runForge();
const artifacts = collectArtifacts();
mkdirSync(path.dirname(artifactsFile), { recursive: true });
writeFileSync(artifactsFile, renderModule(hash, artifacts));
const ms = Number((process.hrtime.bigint() - started) / 1_000_000n);
process.stdout.write(`build-contracts: ${artifacts.map((a) => a.name).join(", ")} -> sim/chain/artifacts.ts (${ms} ms)\n`);
