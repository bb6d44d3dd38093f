// What a user downloads and installs: `npm pack` (prepack builds dist/) and the
// tarball's size, then the tarball installed into an empty project and the size of
// that project's node_modules, with the largest packages in it (the Anvil binary
// dominates). Sizes are exact: one run is the measurement.
//
//   npx tsx bench/package-size.ts
import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { machine } from "./stats.ts";

const run = promisify(execFile);
const REPO = fileURLToPath(new URL("..", import.meta.url));

/** Total apparent size in bytes of every file below `dir` (symlinks not followed). */
async function bytesUnder(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await bytesUnder(p);
    else if (entry.isFile()) total += (await stat(p)).size;
  }
  return total;
}

/** Installed packages (name → bytes), scoped ones by their full name; nested copies count to their parent. */
async function packagesIn(nodeModules: string): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  for (const entry of await readdir(nodeModules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const dir = path.join(nodeModules, entry.name);
    if (entry.name.startsWith("@")) {
      for (const scoped of await readdir(dir, { withFileTypes: true })) {
        if (scoped.isDirectory()) sizes.set(`${entry.name}/${scoped.name}`, await bytesUnder(path.join(dir, scoped.name)));
      }
    } else sizes.set(entry.name, await bytesUnder(dir));
  }
  return sizes;
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), "fakex-size-"));
  try {
    const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", work], { cwd: REPO, maxBuffer: 64 << 20 });
    const [info] = JSON.parse(stdout.slice(stdout.indexOf("["))) as { filename: string; size: number; unpackedSize: number; entryCount: number }[];
    const project = path.join(work, "project");
    await run("mkdir", ["-p", project]);
    await writeFile(path.join(project, "package.json"), JSON.stringify({ name: "consumer", private: true }));
    await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", path.join(work, info!.filename)], { cwd: project, maxBuffer: 64 << 20 });
    const nodeModules = path.join(project, "node_modules");
    const packages = await packagesIn(nodeModules);
    const installed = await bytesUnder(nodeModules);
    const { stdout: du } = await run("du", ["-sk", nodeModules]);
    const top = [...packages].sort((a, b) => b[1] - a[1]).slice(0, 8);

    console.log(machine());
    console.log(`tarball: ${info!.filename} ${mb(info!.size)} packed, ${mb(info!.unpackedSize)} unpacked, ${info!.entryCount} files`);
    console.log(`installed: ${packages.size} top-level packages, ${mb(installed)} of files, ${mb(Number(du.split("\t")[0]) * 1024)} on disk (du)`);
    for (const [name, bytes] of top) console.log(`  ${name.padEnd(32)} ${mb(bytes).padStart(10)}  ${((100 * bytes) / installed).toFixed(1)}%`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
