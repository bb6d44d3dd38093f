// A settle's fault clears are signed after the round's last read of the chain: the engine
// asks the port to send them (ChainPort.flush) before the settle returns, rather than
// leaving them to whatever reads the chain next (the Anvil port holds the end of a long
// round until then; a test reading the chain through rpc_url saw the faults still set).
import { expect, test } from "vitest";
import { deposit, MAKER, MAKER2, rest, setupSwapEngine, type SwapEnv } from "../swaps/engine-helpers.ts";

/** The chain calls of one settle of `fills` crossing fills, with the fault plan given. */
async function chainCallsOfSettle(fills: number, revertEvery: boolean): Promise<string[]> {
  const env: SwapEnv = setupSwapEngine(3);
  await deposit(env, MAKER, "EURC", 10n ** 15n);
  await deposit(env, MAKER2, "USDC", 10n ** 15n);
  if (revertEvery) env.engine.setFaultPlan({ revertFraction: { fraction: 1, reason: "INSUFFICIENT_VAULT_BALANCE" } });
  for (let i = 0; i < fills; i++) {
    rest(env, MAKER, "EURC/USDC", "ask", "10", "1.08");
    rest(env, MAKER2, "EURC/USDC", "bid", "10", "1.09");
  }
  const calls: string[] = [];
  const port = env.chain as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  for (const name of ["setMatchFault", "clearMatchFault", "submitBatch", "blockNumber"]) {
    const original = port[name]!.bind(env.chain);
    port[name] = (...a: unknown[]) => {
      calls.push(name);
      return original(...a);
    };
  }
  port.flush = async () => {
    calls.push("flush");
  };
  await env.engine.settle();
  return calls;
}

test("the clears are sent before the settle returns: flush follows the last clear", async () => {
  const calls = await chainCallsOfSettle(30, true);
  expect(calls.filter((c) => c === "clearMatchFault")).toHaveLength(30);
  const lastClear = calls.lastIndexOf("clearMatchFault");
  expect(calls.indexOf("flush", lastClear)).toBeGreaterThan(lastClear);
  expect(calls.at(-1)).toBe("flush");
});

test("a settle that cleared no fault asks for no flush", async () => {
  const calls = await chainCallsOfSettle(30, false);
  expect(calls).toContain("submitBatch");
  expect(calls).not.toContain("clearMatchFault");
  expect(calls).not.toContain("flush");
});
