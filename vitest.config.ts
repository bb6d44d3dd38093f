import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // examples/ is the downstream-style suite (it imports "fakex/vitest" like a user would).
    include: ["test/**/*.test.ts", "examples/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
