// vitest's browser mode, as a front-end team runs it: the tests run in a Chromium page, the
// exchange in Node (a pool started by globalSetup), the control API reached through a
// browser command. Run by test/fixtures/vitest-browser-mode.test.ts; it is the README's
// "vitest browser mode" recipe, checked.
import { fileURLToPath } from "node:url";
import { playwright } from "@vitest/browser-playwright";
import { defineConfig } from "vitest/config";
import type { BrowserCommand } from "vitest/node";

/** A control API call made from Node for a test in the page (the server refuses pages). */
const fakexControl: BrowserCommand<[url: string, body?: unknown]> = async (_context, url, body) => {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}) });
  return { status: res.status, body: await res.text() };
};

/** The same request sent from Node, to compare with what the page got. */
const nodeFetch: BrowserCommand<[url: string, init: { method: string; headers: Record<string, string>; body?: string }]> = async (_context, url, init) => {
  const res = await fetch(url, init);
  return { status: res.status, body: await res.text() };
};

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  // Bundled before the first test (otherwise vite finds them mid-run and reloads the page).
  optimizeDeps: { include: ["viem", "viem/accounts"] },
  test: {
    include: ["*.browser.ts"],
    globalSetup: ["./global-setup.ts"],
    setupFiles: ["./setup.ts"],
    browser: {
      enabled: true,
      headless: true,
      provider: playwright({ launchOptions: { executablePath: process.env["FAKEX_CHROMIUM"] ?? "/usr/bin/chromium" } }),
      instances: [{ browser: "chromium" }],
      commands: { fakexControl, nodeFetch },
      // A failure's screenshot would land in the repository.
      screenshotFailures: false,
    },
  },
});
