// A receipt poll of a big backlog on the Anvil port: it gives the event loop turns while it
// applies the receipts (other requests of the process are served meanwhile), loses none,
// and applies nothing it read of a chain that a revert has since replaced.
import { setImmediate } from "node:timers";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EXECUTOR_KEY } from "../../fixtures/accounts.ts";
import { createAnvilChainPort, type AnvilChainPort } from "../../sim/chain/anvil.ts";
import type { ChainMatch } from "../../sim/chain/port.ts";
import { ZERO_ADDRESS, type Address, type Hex, type OrderMessage } from "../../sim/core/typed-data.ts";
import { startTestChain, type ChainCtx } from "./helpers.ts";

let ctx: ChainCtx;
let port: AnvilChainPort;
let snap: Hex;
let expiry = 0n;

beforeAll(async () => {
  ctx = await startTestChain(1);
}, 60_000);
afterAll(async () => {
  await ctx?.chain.stop();
});
beforeEach(async () => {
  port = await createAnvilChainPort({ rpcUrl: ctx.chain.info.rpcUrl, chainId: ctx.chain.info.chainId, deployment: ctx.chain.info.deployment, executorKey: EXECUTOR_KEY });
  snap = await port.snapshot();
  expiry = (await port.latestTimestamp()) + 3600n;
});
afterEach(async () => {
  await port.revert(snap);
});

/** An unsigned order (its match fails on chain with BAD_SIGNATURE, one MatchFailed log each). */
function order(uuid: bigint, from: string, to: string): OrderMessage {
  const token = (symbol: string) => ctx.registry.tokenBySymbol(symbol)!.address;
  const user = ctx.traders[0]!.address.toLowerCase() as Address;
  return { user, expiration: expiry, feeBps: 0n, recipient: ZERO_ADDRESS, fromToken: token(from), toToken: token(to), fromAmount: 10n, toAmount: 10n, initialDepositAmount: 0n, uuid };
}
const match = (i: number): ChainMatch => ({
  maker: order(BigInt(i), "USDT", "USDC"),
  makerSignature: "0x",
  taker: order(BigInt(1_000_000 + i), "USDC", "USDT"),
  takerSignature: "0x",
  makerAmount: 1n,
  takerAmount: 1n,
});

/** `n` batches of two matches each, sent and mined. */
async function sendBatches(n: number): Promise<Hex[]> {
  const hashes: Hex[] = [];
  for (let i = 0; i < n; i++) hashes.push((await port.submitBatch([match(2 * i), match(2 * i + 1)])).txHash);
  await port.blockNumber();
  return hashes;
}

/** Calls `onAnswer` once the port's receipt poll (the request with eth_getLogs) has its answer, before the poll reads it. */
function onPollAnswer(onAnswer: () => Promise<void> | void): void {
  const batch = port.rpc.batch.bind(port.rpc);
  port.rpc.batch = async (calls, deadlineMs) => {
    const outs = await batch(calls, deadlineMs);
    if (calls.some((c) => c.method === "eth_getLogs")) await onAnswer();
    return outs;
  };
}

describe("Anvil port: receipt polls of a big backlog", () => {
  it("give the event loop turns while they apply the receipts, and lose none", { timeout: 60_000 }, async () => {
    const hashes = await sendBatches(200);
    let answered = false;
    let done = false;
    let turns = 0;
    // A node:timers callback that takes every turn it is given: the turns it gets between
    // the poll's answer and the end of its bookkeeping (none before the change).
    const probe = () => {
      if (done) return;
      if (answered) turns++;
      setImmediate(probe);
    };
    setImmediate(probe);
    onPollAnswer(() => {
      answered = true;
    });
    const first = await port.getReceipt(hashes[0]!);
    done = true;
    expect(turns).toBeGreaterThanOrEqual(3);
    const expected = { status: "success", revertReason: null, failedMask: 0b11n, failures: [{ index: 0, reason: "BAD_SIGNATURE" }, { index: 1, reason: "BAD_SIGNATURE" }] };
    expect(first).toMatchObject({ txHash: hashes[0], ...expected });
    for (const h of hashes) expect(await port.getReceipt(h)).toMatchObject({ txHash: h, ...expected });
  });

  it("apply nothing they read of a chain a revert replaced while their answer was on its way", { timeout: 60_000 }, async () => {
    const head = await port.blockNumber();
    const before = await port.snapshot();
    const hashes = await sendBatches(3);
    onPollAnswer(() => port.revert(before));
    // The poll's answer holds the mined batches, but the chain they were mined on is gone.
    expect(await port.getReceipt(hashes[0]!)).toBeNull();
    for (const h of hashes) expect(await port.getReceipt(h)).toBeNull();
    expect(await port.blockNumber()).toBe(head);
  });

  it("apply nothing more once a revert lands at one of their turns", { timeout: 60_000 }, async () => {
    const head = await port.blockNumber();
    const before = await port.snapshot();
    const hashes = await sendBatches(200);
    // The revert is sent while the poll's answer is held, and its answer is held in turn
    // until the poll has applied its first receipts and given the event loop a turn.
    let revertAnswered!: () => void;
    const revertSent = new Promise<void>((r) => (revertAnswered = r));
    let releaseRevert!: () => void;
    const revertGate = new Promise<void>((r) => (releaseRevert = r));
    let reverting: Promise<void> | null = null;
    let pollReading = false;
    const batch = port.rpc.batch.bind(port.rpc);
    port.rpc.batch = async (calls, deadlineMs) => {
      const outs = await batch(calls, deadlineMs);
      if (calls.some((c) => c.method === "evm_revert")) {
        revertAnswered();
        await revertGate;
      }
      if (calls.some((c) => c.method === "eth_getLogs") && reverting === null) {
        reverting = port.revert(before);
        await revertSent;
        pollReading = true;
      }
      return outs;
    };
    const probe = () => {
      if (pollReading) releaseRevert();
      else setImmediate(probe);
    };
    setImmediate(probe);
    expect(await port.getReceipt(hashes[0]!)).toBeNull();
    await reverting;
    // What was applied before the revert went with it; nothing after it was applied.
    for (const h of hashes) expect(await port.getReceipt(h)).toBeNull();
    expect(await port.blockNumber()).toBe(head);
  });
});
