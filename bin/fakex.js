#!/usr/bin/env node
// The fakex command. The toolkit ships TypeScript sources; tsx runs them
// directly so that `npx fakex` needs no build step.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../fixtures/cli.ts");
process.exitCode = await main(process.argv.slice(2));
