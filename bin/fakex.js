#!/usr/bin/env node
// The fakex command. An installed package runs the compiled CLI (dist/, built by
// `npm run build` at pack time); a checkout, which has the TypeScript sources and
// tsx among its devDependencies, runs the sources so that it never needs a build.
import { existsSync } from "node:fs";

// A stop signal that arrives while the CLI loads (a second or more under tsx) is held for
// the command, which releases these listeners once it has its own: `fakex serve` then
// stops cleanly instead of dying by the signal's default action with nothing said.
const received = [];
const hold = (signal) => received.push(signal);
process.on("SIGINT", hold);
process.on("SIGTERM", hold);
const early = {
  received,
  release() {
    process.off("SIGINT", hold);
    process.off("SIGTERM", hold);
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
process.exitCode = await cli.main(process.argv.slice(2), early);
