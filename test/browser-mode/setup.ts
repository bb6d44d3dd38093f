// Runs in the page once per test file: the file's own pool id (a page has no
// process.env.VITEST_POOL_ID), its URLs, and a reset before each test.
import { beforeEach, inject } from "vitest";
import { commands } from "vitest/browser";

declare module "vitest/browser" {
  interface BrowserCommands {
    fakexControl: (url: string, body?: unknown) => Promise<{ status: number; body: string }>;
    nodeFetch: (url: string, init: { method: string; headers: Record<string, string>; body?: string }) => Promise<{ status: number; body: string }>;
  }
}

const pool = inject("fakexPool");
const id = `page-${crypto.randomUUID().slice(0, 8)}`;
const fakex = {
  id,
  baseUrl: pool.base_url_template.replace("{id}", id),
  rpcUrl: pool.rpc_url_template.replace("{id}", id),
  controlUrl: pool.control_url_template.replace("{id}", id),
};
(globalThis as { fakex?: typeof fakex }).fakex = fakex;

beforeEach(async () => {
  const reset = await commands.fakexControl(`${fakex.controlUrl}/reset`);
  if (reset.status !== 200) throw new Error(`reset of ${id}: ${reset.status} ${reset.body}`);
});
