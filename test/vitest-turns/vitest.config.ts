// A vitest run of its own for test/fixtures/vitest-timeout-in-restore.test.ts: tests that
// time out while the exchange fixture restores (a short timeout, to see it happen quickly).
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  test: { include: ["*.inner.ts"], testTimeout: 3000 },
});
