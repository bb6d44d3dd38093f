// npx vitest run --config examples/pool/node/vitest.config.ts
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["examples/pool/node/*.spec.ts"],
    globalSetup: ["examples/pool/node/global-setup.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
