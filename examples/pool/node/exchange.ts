// This worker's exchange: the pool's URL templates filled in with VITEST_POOL_ID
// (1, 2, ... one per worker), reset to its seeded state before every test.
import { beforeEach, inject } from "vitest";

const pool = inject("fakexPool");
const id = `vitest-${process.env["VITEST_POOL_ID"] ?? "1"}`;

export const exchange = {
  id,
  baseUrl: pool.base_url_template.replace("{id}", id),
  rpcUrl: pool.rpc_url_template.replace("{id}", id),
  controlUrl: pool.control_url_template.replace("{id}", id),
  accounts: inject("fakexAccounts"),
};

export async function call(url: string, method = "GET", body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method, headers: { "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, body: await res.json() };
}

beforeEach(async () => {
  const reset = await call(`${exchange.controlUrl}/reset`, "POST");
  if (reset.status !== 200) throw new Error(`reset ${id}: ${reset.status} ${JSON.stringify(reset.body)}`);
});
