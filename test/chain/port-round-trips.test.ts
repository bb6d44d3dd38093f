// Where the Anvil port saves JSON-RPC round trips, and that the answers stay those of the
// separate calls: the one-request restore (revertAndSnapshot: evm_revert, the executor's
// nonce, the head and a fresh evm_snapshot in one batch: every read in it sees the reverted
// chain, and the new id restores the same state again), and a vault sync's three event
// reads in one request (the kinds that follow come from it, in the same turn only).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXECUTOR_KEY } from "../../fixtures/accounts.ts";
import { createAnvilChainPort, type AnvilChainPort } from "../../sim/chain/anvil.ts";
import type { Hex } from "../../sim/core/typed-data.ts";
import { chainRpc, depositOnChain, startTestChain, type ChainCtx } from "./helpers.ts";

let ctx: ChainCtx;
let port: AnvilChainPort;

beforeAll(async () => {
  ctx = await startTestChain(1);
  port = await createAnvilChainPort({ rpcUrl: ctx.chain.info.rpcUrl, chainId: ctx.chain.info.chainId, deployment: ctx.chain.info.deployment, executorKey: EXECUTOR_KEY });
}, 60_000);
afterAll(async () => {
  await ctx?.chain.stop();
});

const executorNonce = async () => Number(BigInt((await chainRpc(ctx, "eth_getTransactionCount", [port.executor.address, "latest"])) as string));

describe("Anvil port: revert and re-snapshot in one request", () => {
  it("undoes blocks and executor transactions, and hands back an id that restores the same state again", async () => {
    const head0 = await port.blockNumber();
    const nonce0 = await executorNonce();
    let id = await port.snapshot();
    for (let round = 0; round < 3; round++) {
      // Executor transactions (the port's own nonce moves on) and empty blocks.
      const { txHash } = await port.submitBatch([]);
      expect((await port.getReceipt(txHash))!.status).toBe("reverted");
      await port.mine(2);
      expect(await port.blockNumber()).toBe(head0 + 3n);
      expect(await executorNonce()).toBe(nonce0 + 1);

      const next = await port.revertAndSnapshot(id);
      expect(next).toMatch(/^0x[0-9a-f]+$/);
      expect(next).not.toBe(id);
      // The head and the executor's nonce are the snapshot's, for the chain and the port.
      expect(BigInt((await chainRpc(ctx, "eth_blockNumber")) as string)).toBe(head0);
      expect(await port.blockNumber()).toBe(head0);
      expect(await executorNonce()).toBe(nonce0);
      // The receipt of the undone transaction is gone with it.
      expect(await port.getReceipt(txHash)).toBeNull();
      // The port signs the next transaction with the reverted nonce: it is accepted and mined.
      const again = await port.submitBatch([]);
      expect((await port.getReceipt(again.txHash))!.status).toBe("reverted");
      expect(await executorNonce()).toBe(nonce0 + 1);
      await port.revert(next);
      expect(await executorNonce()).toBe(nonce0);
      // The consumed id is gone; take the next round's.
      expect(await chainRpc(ctx, "evm_revert", [next])).toBe(false);
      id = await port.snapshot();
    }
  });

  it("refuses an unknown id and leaves the chain as it was", async () => {
    const head = await port.blockNumber();
    await expect(port.revertAndSnapshot("0x999" as Hex)).rejects.toThrow(/Anvil no longer has chain snapshot 0x999/);
    expect(await port.blockNumber()).toBe(head);
  });
});

describe("Anvil port: a vault sync's event reads in one request", () => {
  /** Counts the requests the port sends. */
  function countRequests(): { n: number; restore(): void } {
    const c = { n: 0, restore: () => undefined as void };
    const batch = port.rpc.batch.bind(port.rpc);
    port.rpc.batch = (calls) => {
      c.n++;
      return batch(calls);
    };
    c.restore = () => {
      port.rpc.batch = batch;
    };
    return c;
  }
  const trader = () => ctx.traders[0]!;
  const usdc = () => ctx.registry.tokenBySymbol("USDC")!.address;

  it("deposit, intent-deposit and withdrawal reads of one seen range cost one request, with the answers of separate reads", async () => {
    const from = (await port.blockNumber()) + 1n;
    await depositOnChain(ctx, trader(), "USDC", 5_000_000n);
    const head = await port.blockNumber();
    const requests = countRequests();
    try {
      const deposits = await port.depositEvents(from, head);
      const intents = await port.intentDepositEvents(from, head);
      const withdrawals = await port.withdrawalEvents(from, head);
      expect(requests.n).toBe(1);
      expect(deposits.map((e) => [e.owner, e.token, e.amount])).toEqual([[trader().address.toLowerCase(), usdc(), 5_000_000n]]);
      expect(intents).toEqual([]);
      expect(withdrawals).toEqual([]);
      // Read again in a later turn: a fresh request (in whichever order), the same answers.
      await new Promise((r) => setImmediate(r));
      requests.n = 0;
      expect(await port.withdrawalEvents(from, head)).toEqual(withdrawals);
      expect(await port.depositEvents(from, head)).toEqual(deposits);
      expect(requests.n).toBe(1);
      await new Promise((r) => setImmediate(r));
      expect(await port.depositEvents(from, head)).toEqual(deposits);
      expect(requests.n).toBe(2);
    } finally {
      requests.restore();
    }
  });

  it("after the chain moved back behind the port's back, a range past its head reads the head first (nothing there)", async () => {
    const id = (await chainRpc(ctx, "evm_snapshot")) as Hex;
    const from = (await port.blockNumber()) + 1n;
    await depositOnChain(ctx, trader(), "USDC", 7_000_000n);
    const head = await port.blockNumber();
    expect(await chainRpc(ctx, "evm_revert", [id])).toBe(true);
    // The port still believes in `head`; the node has only blocks below `from`.
    expect(await port.depositEvents(from, head)).toEqual([]);
    expect(await port.withdrawalEvents(from, head)).toEqual([]);
  });
});
