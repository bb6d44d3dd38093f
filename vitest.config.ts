import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/** The package's entry points as sources: in-repo, "fakex/..." imports run the .ts files, not dist/. */
const source = (file: string) => fileURLToPath(new URL(file, import.meta.url));
/** Under tools/run-tests.mjs (npm test): workers write a Node diagnostic report on SIGUSR2, which its stall report reads. */
const reportDir = process.env.FAKEX_TEST_REPORT_DIR;
const ENTRY_POINTS: Record<string, string> = {
  fakex: source("./index.ts"),
  "fakex/sim": source("./sim/index.ts"),
  "fakex/fixtures": source("./fixtures/index.ts"),
  "fakex/vitest": source("./fixtures/vitest.ts"),
  "fakex/properties": source("./properties/index.ts"),
};

export default defineConfig({
  resolve: {
    alias: Object.entries(ENTRY_POINTS).map(([name, file]) => ({ find: new RegExp(`^${name}$`), replacement: file })),
  },
  test: {
    // examples/ is the downstream-style suite (it imports "fakex/vitest" like a user would).
    include: ["test/**/*.test.ts", "examples/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    globalSetup: ["test/setup/run-tmpdir.ts"],
    execArgv: reportDir ? ["--report-on-signal", "--report-signal=SIGUSR2", `--report-directory=${reportDir}`] : [],
  },
});
