#!/usr/bin/env node
// The fakex command. An installed package runs the compiled CLI (dist/, built by
// `npm run build` at pack time); a checkout, which has the TypeScript sources and
// tsx among its devDependencies, runs the sources so that it never needs a build.
import { existsSync, rmSync } from "node:fs";

// `fakex serve --info-file PATH`: a script that waits for PATH must never read a previous
// run's. It goes here, before the CLI loads (a second or more under tsx) and before the
// flags are checked, so a run that refuses them leaves none either; the CLI removes it
// again and reports a path it cannot remove.
const args = process.argv.slice(2);
if (args[0] === "serve") {
  for (let i = 1; i < args.length && args[i] !== "--"; i++) {
    const a = args[i];
    const infoFile = a === "--info-file" ? args[i + 1] : a.startsWith("--info-file=") ? a.slice("--info-file=".length) : undefined;
    if (!infoFile) continue;
    try {
      rmSync(infoFile, { force: true });
    } catch {
      // A directory, say: the CLI says so.
    }
  }
}

// A stop signal that arrives while the CLI loads (a second or more under tsx) is held for
// the command, which releases these listeners once it has its own: `fakex serve` then
// stops cleanly instead of dying by the signal's default action with nothing said.
const received = [];
const hold = (signal) => received.push(signal);
// SIGHUP too: a closing terminal or a CI runner's hang-up stops the server like SIGTERM.
const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];
for (const signal of STOP_SIGNALS) process.on(signal, hold);
const early = {
  received,
  release() {
    for (const signal of STOP_SIGNALS) process.off(signal, hold);
  },
};

const source = new URL("../fixtures/cli.ts", import.meta.url);
let cli;
if (existsSync(source)) {
  // tsx's ES module and CommonJS hooks, as `node --import tsx` registers them (a property
  // module `fakex replay` imports may sit in a CommonJS project).
  await import("tsx");
  cli = await import(source.href);
} else {
  cli = await import("../dist/esm/fixtures/cli.js");
}
process.exitCode = await cli.main(args, early);
// `fakex replay` ends with its verdict: a property that left an exchange (or any handle) open
// must not keep it running. Exiting takes such an exchange's Anvil down with the process.
if (args[0] === "replay") process.stdout.write("", () => process.exit());
