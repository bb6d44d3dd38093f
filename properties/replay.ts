// Replay bundles: when a property fails, write what reproduces it (seed, shrink
// path, the counterexample as text — for fc.commands the command list — and,
// on Anvil, a chain state dump) to a JSON file; `fakex replay bundle.json` runs
// that property again with that seed and path.
//
// A property is named by the module that exports a factory for it and the export
// name, so a bundle written by one process can be replayed by another.
import fc from "fast-check";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { importModule } from "../sim/platform/module-format.ts";
import { JsonRpcClient } from "../sim/chain/anvil-rpc.ts";
import { sameClassAcrossBuilds } from "../sim/platform/cross-build.ts";

export const REPLAY_BUNDLE_VERSION = 1;
export const DEFAULT_REPLAY_DIR = ".fakex/replays";

export interface ReplayBundle {
  version: typeof REPLAY_BUNDLE_VERSION;
  /** Display name of the property. */
  property: string;
  /** Absolute path of the module exporting the factory. */
  module: string;
  /** Export name of the factory in that module. */
  export: string;
  seed: number;
  /** fast-check's counterexample path ("a:b:c"). */
  path: string;
  numRuns: number;
  /** fast-check's `unbiased` was on (it changes what a seed generates). */
  unbiased?: boolean;
  /** fast-check's `timeout` per run in ms: a run that outlasts it fails, so the replay needs it too. */
  timeout?: number;
  /** fast-check's `randomType` when named (a custom generator function cannot travel; the run said so). */
  randomType?: string;
  /** fc.configureGlobal's `baseSize` and `defaultSizeToMaxWhenMaxSpecified`: they change what a seed generates. */
  baseSize?: string;
  defaultSizeToMaxWhenMaxSpecified?: boolean;
  /**
   * How many `examples` the run was given. They run first, so a path whose first step is
   * below this count starts from an example, which a bundle cannot carry (any value).
   */
  exampleCount?: number;
  /** The shrunk counterexample as fast-check prints it (for fc.commands: the command path). */
  commands: string;
  /** Why it failed. */
  error: string;
  /** anvil_dumpState hex of the chain when the failure happened (Anvil runs only). */
  chainDump?: string;
}

/** Context handed to a property factory: the bundle when replaying, undefined on a first run. */
export interface PropertyContext {
  bundle?: ReplayBundle;
}

/**
 * fc.commands shrinks through state fast-check cannot rebuild from seed and path
 * alone; it prints a replayPath comment into the counterexample. Pass this to
 * fc.commands(..., { replayPath }) in a factory so that its bundles replay.
 */
export function commandsReplayPath(ctx: PropertyContext): string | undefined {
  return ctx.bundle?.commands.match(/replayPath="([^"]*)"/)?.[1];
}

export type AnyProperty = fc.IProperty<unknown> | fc.IAsyncProperty<unknown> | fc.IRawProperty<unknown, boolean>;
export type PropertyFactory = (ctx: PropertyContext) => AnyProperty;

export interface PropertyRef {
  /** import.meta.url or a file path of the module exporting `export`. */
  module: string;
  export: string;
  /** Display name (default: the export name). */
  name?: string;
  /**
   * The factory itself, when the caller has it (`factory: smallInts`): assertWithReplay
   * runs it instead of importing `module`, which a test runner's own module (a .ts file
   * under vitest) may not allow. The bundle still names `module` and `export`.
   */
  factory?: PropertyFactory;
}

export interface ReplayOptions {
  /** Where bundles go (default: env FAKEX_REPLAY_DIR, else .fakex/replays under the cwd). */
  dir?: string;
  /** Called on failure to capture the chain, e.g. anvilDumpState(rpcUrl). */
  chainDump?: () => Promise<string | undefined>;
  /** A running fakex's control URL: on failure, its run report is written beside the bundle (same name, .html). */
  reportFrom?: string;
}

export class PropertyFailure extends Error {
  constructor(
    message: string,
    readonly bundlePath: string,
    readonly bundle: ReplayBundle,
  ) {
    super(message);
    this.name = "PropertyFailure";
  }
}
sameClassAcrossBuilds(PropertyFailure, "PropertyFailure");

function modulePath(m: string): string {
  return m.startsWith("file:") ? fileURLToPath(m) : resolve(m);
}

export function replayDir(o: ReplayOptions = {}): string {
  const d = o.dir ?? process.env.FAKEX_REPLAY_DIR ?? DEFAULT_REPLAY_DIR;
  return isAbsolute(d) ? d : resolve(process.cwd(), d);
}

/** A counterexample tuple as fast-check prints it, one argument after the other. */
function showCounterexample(c: unknown): string {
  if (c === null || c === undefined) return "";
  return Array.isArray(c) ? c.map((v) => fc.stringify(v)).join(", ") : fc.stringify(c);
}

function errorText(details: fc.RunDetails<unknown>): string {
  const e = details.errorInstance;
  if (e instanceof Error) return e.message;
  return e === undefined || e === null ? "property returned false" : String(e);
}

/**
 * fc.assert with a replay bundle: runs the property the factory builds; on
 * failure writes the bundle and throws a PropertyFailure naming the file and
 * the `fakex replay` command line.
 */
export async function assertWithReplay(ref: PropertyRef, params: fc.Parameters<unknown> = {}, o: ReplayOptions = {}): Promise<void> {
  const factory = ref.factory ?? (await loadFactory(ref.module, ref.export, ", or pass the factory in the PropertyRef"));
  const details = await fc.check(factory({}), params);
  if (!details.failed) return;
  // What the run used, fc.configureGlobal included: the replay must generate alike.
  const global = fc.readConfigureGlobal();
  const used: fc.Parameters<unknown> = { ...global, ...params };
  if (typeof used.randomType === "function") {
    // A generator function cannot travel in a bundle, and without it the seed means other values.
    throw new Error(
      `property ${ref.name ?? ref.export} failed (seed ${details.seed}, path ${details.counterexamplePath ?? ""}): ${errorText(details)}\n` +
        `counterexample: ${showCounterexample(details.counterexample)}\nno replay bundle: a custom randomType function cannot travel in one (name a built-in randomType to get one)`,
    );
  }
  const name = ref.name ?? ref.export;
  const bundle: ReplayBundle = {
    version: REPLAY_BUNDLE_VERSION,
    property: name,
    module: modulePath(ref.module),
    export: ref.export,
    seed: details.seed,
    path: details.counterexamplePath ?? "",
    numRuns: used.numRuns ?? 100,
    ...(used.unbiased === true ? { unbiased: true } : {}),
    ...(typeof used.timeout === "number" ? { timeout: used.timeout } : {}),
    ...(typeof used.randomType === "string" ? { randomType: used.randomType } : {}),
    ...(typeof global.baseSize === "string" ? { baseSize: global.baseSize } : {}),
    ...(typeof global.defaultSizeToMaxWhenMaxSpecified === "boolean" ? { defaultSizeToMaxWhenMaxSpecified: global.defaultSizeToMaxWhenMaxSpecified } : {}),
    ...(used.examples && used.examples.length > 0 ? { exampleCount: used.examples.length } : {}),
    commands: showCounterexample(details.counterexample),
    error: errorText(details),
  };
  if (o.chainDump) {
    const dump = await o.chainDump();
    if (dump !== undefined) bundle.chainDump = dump;
  }
  const dir = replayDir(o);
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${name.replace(/[^A-Za-z0-9_.-]+/g, "_")}-${details.seed}.json`);
  await writeFile(file, JSON.stringify(bundle, null, 2) + "\n");
  const report = o.reportFrom === undefined ? "" : await reportBeside(file, o.reportFrom);
  throw new PropertyFailure(
    `property ${name} failed (seed ${bundle.seed}, path ${bundle.path}): ${bundle.error}\n` +
      `counterexample: ${bundle.commands}\nreplay bundle: ${file}\nreproduce: npx fakex replay ${file}${report}`,
    file,
    bundle,
  );
}

/** The run report (fixtures/report.ts) beside the bundle; a line for the failure message either way. */
async function reportBeside(bundleFile: string, controlUrl: string): Promise<string> {
  const out = bundleFile.replace(/\.json$/, ".html");
  try {
    const { writeReport } = await import("../fixtures/report.ts");
    await writeReport(controlUrl, out);
    return `\nrun report: ${out}`;
  } catch (e) {
    return `\nrun report not written: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/** `otherFix`: what else the caller could do when TypeScript cannot be imported (a test can pass the factory; `fakex replay` cannot). */
async function loadFactory(module: string, name: string, otherFix = ""): Promise<PropertyFactory> {
  const url = module.startsWith("file:") ? module : pathToFileURL(resolve(module)).href;
  // Decided before the first import: Node keeps a failed one, and tsx could not load it then.
  // A Node that strips types itself still gets tsx when the project has it: stripping alone
  // refuses enums and extension-less relative imports, which test code often has.
  const typeScript = /\.[cm]?tsx?$/.test(modulePath(module));
  if (typeScript) {
    const imports = await typeScriptImports();
    if (!imports || nativeTypeStripping()) await loadTypeScriptSupport(modulePath(module), !imports, otherFix);
  }
  let mod: Record<string, unknown>;
  try {
    mod = (await importModule(url)) as Record<string, unknown>;
  } catch (e) {
    if (!typeScript || typeScriptLoader !== null || !nativeTypeStripping() || !strippingRefused(e)) throw e;
    const reason = e instanceof Error ? e.message : String(e);
    throw new Error(
      `replay: ${modulePath(module)} is TypeScript, which Node's own type stripping could not import (${reason}): install tsx in its project (npm i -D tsx)${otherFix}`,
      { cause: e },
    );
  }
  // A module tsx compiled as CommonJS (its project is not "type": "module") shows its exports under default.
  const f = mod[name] ?? (mod.default as Record<string, unknown> | undefined)?.[name];
  if (typeof f !== "function") throw new Error(`replay: ${module} has no exported property factory ${name}`);
  return f as PropertyFactory;
}

/**
 * Whether an import failed because Node's own type stripping (22.18 and later, with no tsx
 * in the project) refuses what tsx reads: TypeScript-only syntax (enums, parameter
 * properties), ES syntax in a CommonJS package's .ts, and the import forms TypeScript allows
 * and Node does not resolve to a .ts file (no extension, `./x.js` for x.ts, a folder's
 * index.ts). Anything else (the module's own error, a runtime SyntaxError such as a bad
 * JSON.parse, a file truly missing) is the module's, said as it is.
 */
function strippingRefused(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  const message = e instanceof Error ? e.message : "";
  if (code === "ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX" || code === "ERR_INVALID_TYPESCRIPT_SYNTAX") return true;
  if ((e as Error | null)?.name === "SyntaxError") return /Cannot use import statement outside a module|Unexpected token 'export'|does not provide an export named/.test(message);
  if (code === "ERR_UNSUPPORTED_DIR_IMPORT") {
    const dir = /Directory import '([^']+)'/.exec(message)?.[1];
    return dir !== undefined && TS_EXTENSIONS.some((ext) => existsSync(join(dir, `index${ext}`)));
  }
  if (code !== "ERR_MODULE_NOT_FOUND") return false;
  const missing = /Cannot find module '([^']+)'/.exec(message)?.[1];
  if (missing === undefined) return false;
  const stem = missing.replace(/\.(js|mjs|cjs|jsx)$/, "");
  return (stem !== missing || !/\.[^/\\]+$/.test(missing)) && TS_EXTENSIONS.some((ext) => existsSync(`${stem}${ext}`));
}

const TS_EXTENSIONS = [".ts", ".mts", ".cts", ".tsx"];

/** Node's own type stripping (22.6+ with the flag, on by default from 22.18 / 23.6). */
function nativeTypeStripping(): boolean {
  return Boolean((process.features as { typescript?: unknown }).typescript);
}

/** tsx's loader once loadTypeScriptSupport registered it. */
let typeScriptLoader: string | null = null;
let typeScriptProbe: Promise<boolean> | null = null;

/** Whether this process imports .ts modules already (a test runner, tsx, a Node that strips types): one probe file, once. */
function typeScriptImports(): Promise<boolean> {
  typeScriptProbe ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), "fakex-ts-probe-"));
    const probe = join(dir, "probe.ts");
    // An ES module whatever folder it sits in: a loader that compiles only those still counts.
    await writeFile(join(dir, "package.json"), '{ "type": "module" }\n');
    await writeFile(probe, "export const ok: boolean = true;\n");
    try {
      return ((await importModule(pathToFileURL(probe).href)) as { ok?: unknown }).ok === true;
    } catch (e) {
      if ((e as { code?: unknown }).code === "ERR_UNKNOWN_FILE_EXTENSION") return false;
      throw e;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })();
  return typeScriptProbe;
}

/**
 * Node (20) cannot import a .ts module by itself: register tsx's loader (what
 * `node --import tsx` loads: the ES module and CommonJS hooks), found from the module's
 * own folder (the project that wrote the property has it when it runs TypeScript), once
 * per process.
 */
async function loadTypeScriptSupport(file: string, required: boolean, otherFix: string): Promise<void> {
  if (typeScriptLoader !== null) return;
  let loader: string;
  try {
    const pkgFile = createRequire(file).resolve("tsx/package.json");
    const entry = (JSON.parse(await readFile(pkgFile, "utf8")) as { exports: Record<string, unknown> }).exports["."];
    if (typeof entry !== "string") throw new Error("unknown tsx layout");
    loader = join(dirname(pkgFile), entry);
  } catch {
    if (!required) return;
    throw new Error(`replay: ${file} is TypeScript, which Node cannot import by itself: install tsx in its project (npm i -D tsx)${otherFix}`);
  }
  await importModule(pathToFileURL(loader).href);
  typeScriptLoader = loader;
}

/** fast-check's named random generators and sizes (what a bundle's randomType and baseSize may be). */
const RANDOM_TYPES: readonly unknown[] = ["mersenne", "congruential", "congruential32", "xorshift128plus", "xoroshiro128plus"];
const BASE_SIZES: readonly unknown[] = ["xsmall", "small", "medium", "large", "xlarge"];

export function parseReplayBundle(json: unknown): ReplayBundle {
  const b = json as Partial<ReplayBundle> | null;
  const ok =
    b !== null &&
    typeof b === "object" &&
    b.version === REPLAY_BUNDLE_VERSION &&
    typeof b.module === "string" &&
    typeof b.export === "string" &&
    typeof b.property === "string" &&
    Number.isInteger(b.seed) &&
    typeof b.path === "string" &&
    Number.isInteger(b.numRuns);
  if (!ok) throw new Error("replay: not a fakex replay bundle (needs version 1, module, export, property, seed, path, numRuns)");
  const wrong = (
    [
      ["timeout", b.timeout === undefined || (typeof b.timeout === "number" && b.timeout > 0)],
      ["randomType", b.randomType === undefined || RANDOM_TYPES.includes(b.randomType)],
      ["baseSize", b.baseSize === undefined || BASE_SIZES.includes(b.baseSize)],
      ["defaultSizeToMaxWhenMaxSpecified", b.defaultSizeToMaxWhenMaxSpecified === undefined || typeof b.defaultSizeToMaxWhenMaxSpecified === "boolean"],
    ] as const
  ).find(([, fine]) => !fine);
  if (wrong) throw new Error(`replay: the bundle's ${wrong[0]} is not what fast-check takes there`);
  return b as ReplayBundle;
}

export interface ReplayResult {
  /** True when the property still fails with the bundle's seed and path. */
  reproduced: boolean;
  bundle: ReplayBundle;
  error?: string;
  counterexample?: string;
}

/** Run the bundle's property once more with its seed and path. */
export async function replayBundle(file: string): Promise<ReplayResult> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, "utf8"));
  } catch (e) {
    if (e instanceof SyntaxError) throw new Error(`${file} is not JSON (${e.message})`);
    const code = (e as NodeJS.ErrnoException).code;
    throw code === "ENOENT" || code === "EISDIR" || code === "EACCES" ? new Error(`cannot read replay bundle ${file}: ${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : "permission denied"}`) : e;
  }
  const bundle = parseReplayBundle(json);
  const first = Number(bundle.path.split(":")[0]);
  if (bundle.exampleCount !== undefined && bundle.path !== "" && first < bundle.exampleCount) {
    // Without the example the path would walk a generated value instead: a false all-clear.
    throw new Error(
      `${bundle.property} failed on examples[${first}] (counterexample ${bundle.commands}), which a bundle cannot carry: rerun the test that passes it`,
    );
  }
  const factory = await loadFactory(bundle.module, bundle.export);
  const params: fc.Parameters<unknown> = { seed: bundle.seed, numRuns: bundle.numRuns, endOnFailure: true };
  if (bundle.unbiased === true) params.unbiased = true;
  if (bundle.timeout !== undefined) params.timeout = bundle.timeout;
  if (bundle.randomType !== undefined) params.randomType = bundle.randomType as fc.RandomType;
  // The run's examples came first in its numbering; the replay has none, so its generated
  // values start at 0.
  if (bundle.path !== "") params.path = bundle.exampleCount ? [first - bundle.exampleCount, ...bundle.path.split(":").slice(1)].join(":") : bundle.path;
  // For this check only, the settings that decide generation and failure are the run's, as
  // the bundle carries them: this process's own global ones (a setup file's) do not apply,
  // and where the bundle has none, fast-check's defaults do.
  const global = fc.readConfigureGlobal();
  const { baseSize: _b, defaultSizeToMaxWhenMaxSpecified: _d, timeout: _t, randomType: _r, unbiased: _u, ...others } = global;
  fc.configureGlobal({
    ...others,
    ...(bundle.baseSize !== undefined ? { baseSize: bundle.baseSize as fc.GlobalParameters["baseSize"] } : {}),
    ...(bundle.defaultSizeToMaxWhenMaxSpecified !== undefined ? { defaultSizeToMaxWhenMaxSpecified: bundle.defaultSizeToMaxWhenMaxSpecified } : {}),
  });
  let details: fc.RunDetails<unknown>;
  try {
    details = await fc.check(factory({ bundle }), params);
  } finally {
    fc.configureGlobal(global);
  }
  if (!details.failed) return { reproduced: false, bundle };
  return {
    reproduced: true,
    bundle,
    error: errorText(details),
    counterexample: showCounterexample(details.counterexample),
  };
}

/** `fakex replay <bundle.json>`: exit 1 while the failure reproduces, 0 once it passes, 2 on usage errors. */
export async function replayCommand(
  argv: readonly string[],
  out: (s: string) => void = (s) => process.stdout.write(s),
  err: (s: string) => void = (s) => process.stderr.write(s),
): Promise<number> {
  // PASS / FAIL and --help go to stdout; why nothing was replayed (usage, an unreadable bundle) to stderr.
  const file = argv[0];
  if (file === "--help" || file === "-h") {
    out("usage: fakex replay <bundle.json>\n");
    return 0;
  }
  // One bundle file, nothing else: an option or a second argument is a usage error, not a file name.
  if (file === undefined || file.startsWith("-") || argv.length > 1) {
    const why = file === undefined ? "" : file.startsWith("-") ? `unknown option ${file}; ` : `one bundle at a time (got ${argv.length}); `;
    err(`fakex replay: ${why}usage: fakex replay <bundle.json>\n`);
    return 2;
  }
  let r: ReplayResult;
  try {
    r = await replayBundle(file);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    err(`fakex replay: ${message.replace(/^replay: /, "")}\n`);
    return 2;
  }
  const head = `property ${r.bundle.property} (seed ${r.bundle.seed}, path ${r.bundle.path || "-"})`;
  if (r.reproduced) {
    out(`FAIL ${head}\n  error: ${r.error}\n  counterexample: ${r.counterexample}\n`);
    return 1;
  }
  out(`PASS ${head}: the recorded failure no longer reproduces\n`);
  return 0;
}

/** The chain state of an Anvil node (anvil_dumpState), for ReplayOptions.chainDump. */
export async function anvilDumpState(rpcUrl: string): Promise<string | undefined> {
  const [out] = await new JsonRpcClient(rpcUrl).batch([{ method: "anvil_dumpState", params: [] }]);
  return out!.ok && typeof out!.result === "string" ? out!.result : undefined;
}

/**
 * Load a bundle's chain dump into an Anvil node (anvil_loadState) before replaying against it.
 * False when Anvil refuses it: another Anvil version's dump, or one over Anvil's 2 MB limit on a
 * request body (a chain of some thousands of blocks); start Anvil on the gunzipped dump
 * (`anvil --load-state <file>`) instead.
 */
export async function anvilLoadState(rpcUrl: string, dump: string): Promise<boolean> {
  const [out] = await new JsonRpcClient(rpcUrl).batch([{ method: "anvil_loadState", params: [dump] }]);
  return out!.ok && out!.result === true;
}
