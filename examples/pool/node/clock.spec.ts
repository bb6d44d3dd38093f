// Moves this worker's clock and chain; clock-b.spec.ts does the same on another worker
// at the same time. Each test expects the seeded start: the reset and the per-worker id
// make that hold however the files are spread over workers.
import { expect, test } from "vitest";
import { call, exchange } from "./exchange.ts";

const blockNumber = async () => Number((await call(exchange.rpcUrl, "POST", { jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] })).body.result);

for (const run of [1, 2, 3]) {
  test(`starts from the seed, then moves time and mines (run ${run})`, async () => {
    const seeded = (await call(`${exchange.controlUrl}/clock`)).body.now;
    const block = await blockNumber();
    expect((await call(`${exchange.controlUrl}/clock/advance`, "POST", { seconds: 3600 })).status).toBe(200);
    expect((await call(`${exchange.controlUrl}/mine`, "POST", { blocks: 2 })).status).toBe(200);
    expect((await call(`${exchange.controlUrl}/clock`)).body.now).toBe(seeded + 3600);
    expect(await blockNumber()).toBeGreaterThanOrEqual(block + 2);
    // The first test on this worker saw the seed; later ones must see it again.
    expect(((globalThis as { firstSeen?: number }).firstSeen ??= seeded)).toBe(seeded);
  });
}
