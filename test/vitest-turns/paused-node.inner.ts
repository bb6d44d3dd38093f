// The worker's Anvil stops answering for 8 s (SIGSTOP, as a debugger or a suspended process
// would leave it), so the next test times out (3 s) while its exchange is restored. The test
// after that must get the exchange once the restore is done, and the timed-out test's body
// must not run on it.
import { setTimeout } from "node:timers";
import { expect } from "vitest";
import { test } from "../../fixtures/vitest.ts";
import { childAnvilPids } from "../../fixtures/pool/processes.ts";

let lateBodyRan = false;

test("stops the exchange's Anvil for 8 s", async ({ exchange }) => {
  // A change, so the next test's restore has the chain to put back.
  await exchange.control.mine(1);
  const [pid] = childAnvilPids();
  process.kill(pid!, "SIGSTOP");
  setTimeout(() => process.kill(pid!, "SIGCONT"), 8000);
});

test("times out while its exchange is restored", async ({ exchange }) => {
  lateBodyRan = exchange !== undefined;
});

test("the next test gets the restored exchange", { timeout: 60_000 }, async ({ exchange }) => {
  expect(lateBodyRan).toBe(false);
  expect((await fetch(`${exchange.baseUrl}/health`)).status).toBe(200);
});
