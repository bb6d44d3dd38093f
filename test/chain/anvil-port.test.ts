// The Anvil port's own surface: block modes and mining, chain time, balances and
// deposit events, whole-batch reverts with their reason, refused broadcasts
// (failed receipt, nonce gap filled), EIP-1271 and ERC-2612 reads, snapshots.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createWalletClient, encodeFunctionData, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { EXECUTOR_KEY } from "../../fixtures/accounts.ts";
import { createAnvilChainPort, type AnvilChainPort } from "../../sim/chain/anvil.ts";
import { Exchange, TestToken } from "../../sim/chain/artifacts.ts";
import type { ChainMatch } from "../../sim/chain/port.ts";
import type { ContractSignatureChecker } from "../../sim/http/context.ts";
import { ZERO_ADDRESS, type Address, type Hex, type OrderMessage } from "../../sim/core/typed-data.ts";
import { anvilEngine, depositOnChain, signedBody, startTestChain, type ChainCtx } from "./helpers.ts";

let ctx: ChainCtx;
let port: AnvilChainPort;
let snap: Hex;
/** An hour past the chain's time at the start of each test. */
let expiry = 0n;
const UNIT = 1_000_000n;

beforeAll(async () => {
  ctx = await startTestChain(2);
}, 60_000);
afterAll(async () => {
  await ctx?.chain.stop();
});
beforeEach(async () => {
  port = await newPort();
  snap = await port.snapshot();
  expiry = (await port.latestTimestamp()) + 3600n;
});
afterEach(async () => {
  await port.setBlockMode({ kind: "automine" });
  await port.revert(snap);
});

function newPort(gas?: { base: bigint; perMatch: bigint }): Promise<AnvilChainPort> {
  return createAnvilChainPort({ rpcUrl: ctx.chain.info.rpcUrl, chainId: ctx.chain.info.chainId, deployment: ctx.chain.info.deployment, executorKey: EXECUTOR_KEY, gas });
}

const token = (symbol: string) => ctx.registry.tokenBySymbol(symbol)!.address;
const addr = (i: number) => ctx.traders[i]!.address.toLowerCase() as Address;

/** An unsigned order selling `from` for `to`, 1:1. */
function dummyOrder(uuid: bigint, from = "USDT", to = "USDC"): OrderMessage {
  return { user: addr(0), expiration: expiry, feeBps: 0n, recipient: ZERO_ADDRESS, fromToken: token(from), toToken: token(to), fromAmount: 10n, toAmount: 10n, initialDepositAmount: 0n, uuid };
}
const dummyMatch = (i: number): ChainMatch => ({
  maker: dummyOrder(BigInt(i)),
  makerSignature: "0x",
  taker: dummyOrder(BigInt(1000 + i), "USDC", "USDT"),
  takerSignature: "0x",
  makerAmount: 1n,
  takerAmount: 1n,
});

describe("Anvil port: blocks and time", () => {
  it("mine(n) advances the head by n; mine(0) is refused", async () => {
    const head = await port.blockNumber();
    await port.mine(3);
    expect(await port.blockNumber()).toBe(head + 3n);
    await expect(port.mine(0)).rejects.toThrow(RangeError);
  });

  it("manual mode holds a batch unmined (null receipt) until mine(); automine is restored", async () => {
    await port.setBlockMode({ kind: "manual" });
    expect(port.blockMode).toEqual({ kind: "manual" });
    expect(await port.rpc.call("anvil_getAutomine")).toBe(false);
    const { txHash } = await port.submitBatch([dummyMatch(1)]);
    expect(await port.getReceipt(txHash)).toBeNull();
    const head = await port.blockNumber();
    await port.mine();
    const r = await port.getReceipt(txHash);
    expect(r!.blockNumber).toBe(head + 1n);
    await port.setBlockMode({ kind: "automine" });
    expect(await port.rpc.call("anvil_getAutomine")).toBe(true);
  });

  it("interval mode: a block arrives without mine(); bad intervals are refused", async () => {
    await expect(port.setBlockMode({ kind: "interval", seconds: 0 })).rejects.toThrow(RangeError);
    await expect(port.setBlockMode({ kind: "interval", seconds: 1.5 })).rejects.toThrow(RangeError);
    await port.setBlockMode({ kind: "interval", seconds: 1 });
    expect(await port.rpc.call("anvil_getAutomine")).toBe(false);
    const { txHash } = await port.submitBatch([dummyMatch(2)]);
    // Await the event (the interval block), not a fixed delay.
    let r = await port.getReceipt(txHash);
    while (r === null) {
      await port.blockNumber();
      r = await port.getReceipt(txHash);
    }
    expect(r.status).toBe("success");
  });

  it("increaseTime and setNextBlockTimestamp move chain time for the next block", async () => {
    const t0 = await port.latestTimestamp();
    await port.increaseTime(5_000);
    await port.mine();
    const t1 = await port.latestTimestamp();
    expect(t1 >= t0 + 5_000n).toBe(true);
    await port.setNextBlockTimestamp(t1 + 777n);
    await port.mine();
    expect(await port.latestTimestamp()).toBe(t1 + 777n);
    // setTime sets the clock (it does not add to it): the next block is at that time, give
    // or take the seconds the test itself takes, not near twice it.
    const t2 = t1 + 100_000n;
    await port.setTime(t2);
    await port.mine();
    const t3 = await port.latestTimestamp();
    expect(t3 >= t2 && t3 < t2 + 3_600n, `${t3} for setTime(${t2})`).toBe(true);
  });
});

describe("Anvil port: snapshots and the node's pool", () => {
  const poolSize = async () => Number((await port.rpc.call<{ pending: string }>("txpool_status")).pending);
  const executorCount = (tag: "latest" | "pending") => port.rpc.call<string>("eth_getTransactionCount", [port.executor.address, tag]).then((n) => Number(BigInt(n)));

  it("a revert drops a transaction sent after the snapshot (evm_revert alone keeps it, to be mined into the restored chain)", async () => {
    await port.setBlockMode({ kind: "manual" });
    const s = await port.snapshot();
    const late = await port.submitBatch([dummyMatch(1)]);
    await port.flush();
    expect(await poolSize()).toBe(1);
    await port.revert(s);
    expect(await poolSize()).toBe(0);
    expect(await executorCount("pending")).toBe(await executorCount("latest"));
    // The next transaction takes the freed nonce and mines; the dropped one never does.
    const next = await port.submitBatch([dummyMatch(2)]);
    await port.mine();
    expect(await port.getReceipt(next.txHash)).not.toBeNull();
    expect(await port.rpc.call("eth_getTransactionReceipt", [late.txHash])).toBeNull();
  });

  it("a revert puts back a transaction that waited in the pool at the snapshot, also after it was mined since, and again on the next revert", async () => {
    await port.setBlockMode({ kind: "manual" });
    const { txHash } = await port.submitBatch([dummyMatch(1)]);
    await port.flush();
    const first = await port.snapshot();
    await port.mine();
    expect(await port.getReceipt(txHash)).not.toBeNull();
    const again = await port.revertAndSnapshot(first);
    expect(await poolSize()).toBe(1);
    expect(await port.getReceipt(txHash)).toBeNull();
    await port.mine();
    expect(await port.getReceipt(txHash)).not.toBeNull();
    await port.revert(again);
    expect(await poolSize()).toBe(1);
  });

  /** A round of 20-match transactions whose raw text is past what Anvil takes in one request (~2 MB). */
  async function bigRoundInPool(): Promise<Hex[]> {
    const sent = await Promise.all(Array.from({ length: 100 }, (_, k) => port.submitBatch(Array.from({ length: 20 }, (_, i) => dummyMatch(k * 20 + i)))));
    await port.flush();
    const raws = await Promise.all(sent.map((s) => port.rpc.call<{ input: Hex }>("eth_getTransactionByHash", [s.txHash])));
    expect(raws.reduce((chars, tx) => chars + tx.input.length, 0)).toBeGreaterThan(2_500_000);
    expect(await poolSize()).toBe(100);
    return sent.map((s) => s.txHash);
  }

  it("a big round taken out of the pool behind the port's back is sent again in requests the node takes", async () => {
    await port.setBlockMode({ kind: "manual" });
    const hashes = await bigRoundInPool();
    await port.rpc.call("anvil_dropAllTransactions");
    await port.rpc.call("evm_mine"); // a block past the round: its transactions count as vanished
    expect(await port.getReceipt(hashes[0]!)).toBeNull(); // the poll sends them again
    expect(await poolSize()).toBe(100);
    await port.mine();
    for (const h of hashes) expect(await port.getReceipt(h)).not.toBeNull();
  }, 60_000);

  it("a revert puts back a pool too big for one request", async () => {
    await port.setBlockMode({ kind: "manual" });
    const hashes = await bigRoundInPool();
    const s = await port.snapshot();
    await port.mine();
    expect(await poolSize()).toBe(0);
    await port.revert(s);
    expect(await poolSize()).toBe(100);
    await port.mine();
    for (const h of hashes) expect(await port.getReceipt(h)).not.toBeNull();
  }, 60_000);

  it("a revert puts back the next block's base fee (evm_revert alone keeps the one later blocks left), also through revertAndSnapshot", async () => {
    const nextBaseFee = async () => (await port.rpc.call<{ baseFeePerGas: string[] }>("eth_feeHistory", ["0x1", "latest", []])).baseFeePerGas.at(-1)!;
    const before = await nextBaseFee();
    const s = await port.snapshot();
    await port.mine(40); // empty blocks: the base fee falls by an eighth each
    expect(await nextBaseFee()).not.toBe(before);
    const again = await port.revertAndSnapshot(s);
    expect(await nextBaseFee()).toBe(before);
    await port.mine(40);
    await port.revert(again);
    expect(await nextBaseFee()).toBe(before);
    await port.mine();
    const head = await port.rpc.call<{ baseFeePerGas: string }>("eth_getBlockByNumber", ["latest", false]);
    expect(head.baseFeePerGas).toBe(before);
  });
});

describe("Anvil port: automine rounds", () => {
  /** Block number of each tx and the tx count of each of those blocks. */
  async function blocksOf(hashes: Hex[]): Promise<{ numbers: bigint[]; sizes: Map<bigint, number> }> {
    const numbers: bigint[] = [];
    for (const h of hashes) numbers.push((await port.getReceipt(h))!.blockNumber);
    const sizes = new Map<bigint, number>();
    for (const n of new Set(numbers)) sizes.set(n, Number(BigInt(await port.rpc.call<string>("eth_getBlockTransactionCountByNumber", [`0x${n.toString(16)}`]))));
    return { numbers, sizes };
  }

  it("a round of batches is mined in one block when it fits, and automine stays on", async () => {
    const head = await port.blockNumber();
    const sent = await Promise.all(Array.from({ length: 12 }, (_, i) => port.submitBatch([dummyMatch(i)])));
    await port.blockNumber(); // sync: every sent tx is mined
    const { numbers, sizes } = await blocksOf(sent.map((s) => s.txHash));
    expect(new Set(numbers)).toEqual(new Set([head + 1n]));
    expect(sizes.get(head + 1n)).toBe(12);
    expect(await port.rpc.call("anvil_getAutomine")).toBe(true);
    // Automine still mines what comes next on its own.
    const next = await port.submitBatch([dummyMatch(99)]);
    await port.blockNumber();
    expect((await port.getReceipt(next.txHash))!.blockNumber).toBe(head + 2n);
  });

  it("a round larger than a block goes out in groups that each fit the block gas limit", async () => {
    const gasLimit = BigInt((await port.rpc.call<{ gasLimit: string }>("eth_getBlockByNumber", ["latest", false])).gasLimit);
    // Three transactions per block by their gas limits.
    const big = await newPort({ base: gasLimit / 3n - 1000n, perMatch: 0n });
    const sent = await Promise.all(Array.from({ length: 8 }, (_, i) => big.submitBatch([dummyMatch(i)])));
    await big.blockNumber();
    const { numbers, sizes } = await blocksOf(sent.map((s) => s.txHash));
    expect(numbers.every((n, i) => i === 0 || n >= numbers[i - 1]!)).toBe(true);
    expect([...sizes.values()]).toEqual([3, 3, 2]);
    expect(await big.rpc.call("anvil_getAutomine")).toBe(true);
  });

  /**
   * The block (past the head) each transaction of `round` lands in, with every answer of
   * the node delayed by `answerDelayMs`; the chain is put back after.
   */
  async function layoutOf(answerDelayMs: number, round: () => Promise<Hex[]>): Promise<bigint[]> {
    const s = await port.snapshot();
    const head = await port.blockNumber();
    const batch = port.rpc.batch.bind(port.rpc);
    port.rpc.batch = (async (calls: Parameters<typeof batch>[0], deadlineMs?: number) => {
      await new Promise((r) => setTimeout(r, answerDelayMs));
      return batch(calls, deadlineMs);
    }) as typeof port.rpc.batch;
    try {
      const hashes = await round();
      await port.blockNumber();
      const blocks: bigint[] = [];
      for (const h of hashes) blocks.push((await port.getReceipt(h))!.blockNumber - head);
      return blocks;
    } finally {
      port.rpc.batch = batch;
      await port.revert(s);
    }
  }

  it("a long round lands in the same blocks however fast the node answers", async () => {
    // Sent one after another, as the engine does: the node answers while the rest is signed.
    const round = async () => {
      const hashes: Hex[] = [];
      for (let k = 0; k < 60; k++) hashes.push((await port.submitBatch(Array.from({ length: 20 }, (_, i) => dummyMatch(k * 20 + i)))).txHash);
      return hashes;
    };
    const quick = await layoutOf(0, round);
    expect(new Set(quick).size).toBeGreaterThan(1); // the round went out in pieces
    expect(await layoutOf(40, round)).toEqual(quick);
    expect(await layoutOf(5, round)).toEqual(quick);
  }, 60_000);

  it("transactions signed between pauses while a send is in flight land in the same blocks however fast the node answers", async () => {
    // As a settle's fault clears go out: a few signed, a turn (every 50th receipt), again.
    const round = async () => {
      const hashes: Hex[] = [];
      for (let k = 0; k < 12; k++) {
        for (let i = 0; i < 3; i++) hashes.push((await port.submitBatch([dummyMatch(k * 3 + i)])).txHash);
        // The node's answer may come in this pause or long after it: the layout must not care.
        await new Promise((r) => setTimeout(r, 15));
      }
      return hashes;
    };
    const quick = await layoutOf(0, round);
    expect(await layoutOf(100, round)).toEqual(quick);
    expect(await layoutOf(5, round)).toEqual(quick);
  }, 60_000);

  it("a round sent while a block mode change is in flight does not undo the new mode", async () => {
    const p = await newPort();
    // Hold the mode change's request open long enough for a round to be sent meanwhile
    // (the port pauses automine around a round's groups and resumes it after).
    const batch = p.rpc.batch.bind(p.rpc);
    let round: Promise<unknown> | null = null;
    p.rpc.batch = (async (calls: Parameters<typeof batch>[0]) => {
      const isModeChange = calls.length === 2 && calls[1]!.method === "evm_setIntervalMining";
      const answer = batch(calls);
      if (isModeChange && round === null) {
        round = Promise.all([1, 2, 3].map((i) => p.submitBatch([dummyMatch(40 + i)]))).then(() => p.flush());
        await round;
      }
      return answer;
    }) as typeof p.rpc.batch;
    try {
      await p.setBlockMode({ kind: "manual" });
      expect(round).not.toBeNull();
      await round;
      expect(p.blockMode).toEqual({ kind: "manual" });
      expect(await p.rpc.call("anvil_getAutomine")).toBe(false);
    } finally {
      p.rpc.batch = batch;
      await p.setBlockMode({ kind: "automine" });
    }
    expect(await p.rpc.call("anvil_getAutomine")).toBe(true);
  });

  /**
   * Runs `meanwhile` while `p` has automine paused for a group: right after the pause
   * (`at: "pause"`, before the group is sent) or right before the resume (`at: "resume"`,
   * after it): what another client sends then is in the pool when the port resumes automine.
   */
  function whilePaused(p: AnvilChainPort, at: "pause" | "resume", meanwhile: () => Promise<unknown>): void {
    const call = p.rpc.call.bind(p.rpc);
    let done = false;
    p.rpc.call = (async (method: string, params: readonly unknown[] = [], deadlineMs?: number) => {
      const hooked = !done && method === "evm_setAutomine" && params[0] === (at === "resume");
      if (hooked && at === "resume") await meanwhile();
      const answer = await call(method, params, deadlineMs);
      if (hooked && at === "pause") await meanwhile();
      done ||= hooked;
      return answer;
    }) as typeof p.rpc.call;
  }
  const wallet = () => createWalletClient({ account: ctx.traders[0]!, chain: ctx.viemChain, transport: http(ctx.chain.info.rpcUrl) });
  const receiptOf = (hash: Hex) => port.rpc.call<{ blockNumber: Hex } | null>("eth_getTransactionReceipt", [hash]);

  it("a transaction another client sent while automine was paused cannot strand the round's", async () => {
    const gasLimit = BigInt((await port.rpc.call<{ gasLimit: string }>("eth_getBlockByNumber", ["latest", false])).gasLimit);
    // Ours needs (almost) a whole block; the other client's, with a higher tip, is packed
    // first, so resuming automine mines a block that ours no longer fits in.
    const full = await newPort({ base: gasLimit - 1000n, perMatch: 0n });
    let other: Hex | null = null;
    whilePaused(full, "pause", async () => {
      other = await wallet().sendTransaction({ to: addr(1), value: 1n, gas: 21_000n, maxPriorityFeePerGas: 5n * 10n ** 9n, maxFeePerGas: 50n * 10n ** 9n });
    });
    const sent = await Promise.all([1, 2].map((i) => full.submitBatch([dummyMatch(i)])));
    await full.blockNumber(); // waits until every sent tx is mined
    expect(other).not.toBeNull();
    const theirs = await ctx.pub.getTransactionReceipt({ hash: other! });
    for (const { txHash } of sent) {
      const ours = await full.getReceipt(txHash);
      expect(ours).not.toBeNull();
      expect(ours!.blockNumber).toBeGreaterThan(theirs.blockNumber);
    }
    expect(await full.rpc.call("anvil_getAutomine")).toBe(true);
  }, 20_000);

  it("another client's transaction left out of the resumed block is mined too, as automine would have", async () => {
    const gasLimit = BigInt((await port.rpc.call<{ gasLimit: string }>("eth_getBlockByNumber", ["latest", false])).gasLimit);
    // The other client's comes after our round, pays less and needs the whole block: the
    // resumed block takes our round first, and nothing else would ever trigger one for it.
    const baseFee = (await ctx.pub.getBlock()).baseFeePerGas!;
    let other: Hex | null = null;
    whilePaused(port, "resume", async () => {
      other = await wallet().sendTransaction({ to: addr(1), value: 1n, gas: gasLimit, maxPriorityFeePerGas: 1n, maxFeePerGas: baseFee * 2n + 1n });
    });
    const sent = await Promise.all([1, 2, 3].map((i) => port.submitBatch([dummyMatch(i)])));
    await port.blockNumber();
    expect(other).not.toBeNull();
    const ours = await Promise.all(sent.map((s) => port.getReceipt(s.txHash)));
    const theirs = await receiptOf(other!);
    expect(theirs).not.toBeNull();
    // In a block of its own after ours (on a busy machine the relayer's 2 s stall rule may
    // have mined one more block between them).
    expect(BigInt(theirs!.blockNumber)).toBeGreaterThan(ours[0]!.blockNumber);
    expect(await port.rpc.call("anvil_getAutomine")).toBe(true);
  }, 20_000);

  it("a round the node is slow to show mined gets no extra block from the 2 s stall rule", async () => {
    // The node mines the round at once but answers the executor's nonce as before it for
    // 2.5 s (a node on a busy machine): the stall rule then finds none of ours in the pool
    // and mines nothing. Before, it mined a block all the same, one more than on an idle
    // machine, so block numbers (and the event log) depended on the machine's load.
    const executor = privateKeyToAccount(EXECUTOR_KEY).address;
    const head = await port.blockNumber();
    const nonceBefore = await port.rpc.call<Hex>("eth_getTransactionCount", [executor, "latest"]);
    const call = port.rpc.call.bind(port.rpc);
    let staleUntil = 0;
    port.rpc.call = (async (method: string, params: readonly unknown[] = [], deadlineMs?: number) => {
      if (staleUntil === 0 && method === "evm_setAutomine" && params[0] === true) staleUntil = performance.now() + 2_500;
      if (method === "eth_getTransactionCount" && params[1] === "latest" && performance.now() < staleUntil) return nonceBefore;
      return call(method, params, deadlineMs);
    }) as typeof port.rpc.call;
    // Matches no other test sends, so no receipt of an earlier test's transaction is read.
    const sent = await Promise.all([41, 42].map((i) => port.submitBatch([dummyMatch(i)])));
    expect(await port.blockNumber()).toBe(head + 1n);
    expect(staleUntil).toBeGreaterThan(0); // the round was resumed, so the stale answers were given
    const { numbers } = await blocksOf(sent.map((s) => s.txHash));
    expect(numbers).toEqual([head + 1n, head + 1n]);
    expect(await port.rpc.call("anvil_getAutomine")).toBe(true);
  }, 20_000);

  it("a round leaves the node's mining as a test set it through rpc_url (off, or interval blocks)", async () => {
    // Automine off: the test's own transaction waits in the pool for the test's block.
    await port.rpc.call("evm_setAutomine", [false]);
    const mine = await wallet().sendTransaction({ to: addr(1), value: 1n, gas: 21_000n });
    const round = Promise.all([1, 2].map((i) => port.submitBatch([dummyMatch(i)]))).then(() => port.flush());
    await round;
    expect(await port.rpc.call("anvil_getAutomine")).toBe(false);
    expect(await receiptOf(mine)).toBeNull();
    await port.rpc.call("evm_mine");
    expect(await receiptOf(mine)).not.toBeNull();
    // Interval blocks: still interval blocks after a round.
    await port.rpc.call("evm_setIntervalMining", [1]);
    const sent = await Promise.all([3, 4].map((i) => port.submitBatch([dummyMatch(i)])));
    await port.blockNumber();
    for (const { txHash } of sent) expect(await port.getReceipt(txHash)).not.toBeNull();
    expect(await port.rpc.call("anvil_getAutomine")).toBe(false);
    expect(await port.rpc.call("anvil_getIntervalMining")).toBe(1);
    await port.rpc.call("evm_setIntervalMining", [0]);
    await port.rpc.call("evm_setAutomine", [true]);
  }, 20_000);

  it("a test that turns mining off through rpc_url after a round keeps its transaction waiting for its own block", async () => {
    // The round is out (automine resumed) but not yet waited for: the port's next read
    // waits for it, and then must not mine what the test sent meanwhile.
    await Promise.all([1, 2].map((i) => port.submitBatch([dummyMatch(i)])));
    await port.flush();
    await port.rpc.call("evm_setAutomine", [false]);
    const mine = await wallet().sendTransaction({ to: addr(1), value: 1n, gas: 21_000n });
    const head = await port.blockNumber();
    expect(await receiptOf(mine)).toBeNull();
    expect(await port.rpc.call("txpool_status")).toEqual({ pending: "0x1", queued: "0x0" });
    expect(await port.rpc.call("anvil_getAutomine")).toBe(false);
    await port.rpc.call("evm_mine");
    expect(BigInt((await receiptOf(mine))!.blockNumber)).toBe(head + 1n);
    await port.rpc.call("evm_setAutomine", [true]);
  }, 20_000);
});

describe("Anvil port: balances and deposits", () => {
  it("wallet (ERC-20) and vault balances, and Deposit events in a block range", async () => {
    const before = await port.blockNumber();
    const wallet0 = await port.walletBalance(addr(0), token("USDC"));
    expect(wallet0).toBe(1_000_000n * UNIT);
    await depositOnChain(ctx, ctx.traders[0]!, "USDC", 123n * UNIT);
    expect(await port.walletBalance(addr(0), token("USDC"))).toBe(wallet0 - 123n * UNIT);
    expect(await port.tokenBalance(token("USDC"), addr(0))).toBe(wallet0 - 123n * UNIT);
    expect(await port.vaultBalance(addr(0), token("USDC"))).toBe(123n * UNIT);
    const head = await port.blockNumber();
    const evs = await port.depositEvents(before + 1n, head);
    expect(evs.map((e) => [e.owner, e.token, e.amount])).toEqual([[addr(0), token("USDC"), 123n * UNIT]]);
    expect(evs[0]!.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await port.depositEvents(head + 1n, head + 5n)).toEqual([]);
    expect(await port.depositEvents(head, before)).toEqual([]);
  });
});

describe("Anvil port: settlement receipts", () => {
  it("an empty batch and an oversized one revert whole, with the contract's reason (as on the memory port)", async () => {
    const empty = await port.submitBatch([]);
    const big = await port.submitBatch(Array.from({ length: 21 }, (_, i) => dummyMatch(i)));
    expect(await port.getReceipt(empty.txHash)).toMatchObject({ status: "reverted", revertReason: "EMPTY_BATCH", failedMask: 0n, failures: [] });
    expect(await port.getReceipt(big.txHash)).toMatchObject({ status: "reverted", revertReason: "BATCH_TOO_LARGE" });
    expect(await (await newPort()).getReceipt(empty.txHash)).toMatchObject({ status: "reverted", revertReason: "EMPTY_BATCH" });
    expect(await port.getReceipt(`0x${"12".repeat(32)}`)).toBeNull();
  });

  it("without a trace, the whole-tx reason comes from an eth_call replay on the parent block", async () => {
    const { txHash } = await port.submitBatch([]);
    expect((await port.getReceipt(txHash))!.revertReason).toBe("EMPTY_BATCH");
    const raw = await port.rpc.call("eth_getTransactionReceipt", [txHash]);
    const replay = (port as unknown as { replayRevertReason(r: unknown): Promise<string | null> }).replayRevertReason(raw);
    expect(await replay).toBe("EMPTY_BATCH");
  });

  it("per-match failures come back as failedMask + reasons in batch order", async () => {
    const m = dummyMatch(3);
    const { txHash } = await port.submitBatch([m, { ...dummyMatch(4), makerAmount: 0n }, { ...m, taker: m.maker }, { ...m, taker: dummyOrder(9n) }]);
    const r = await port.getReceipt(txHash);
    expect(r!.status).toBe("success");
    expect(r!.failedMask).toBe(0b1111n);
    // Unsigned orders: BAD_SIGNATURE; a zero amount: ZERO_AMOUNT; an order against itself:
    // SAME_ORDER; two sellers of the same token: TOKEN_MISMATCH.
    expect(r!.failures).toEqual([
      { index: 0, reason: "BAD_SIGNATURE" },
      { index: 1, reason: "ZERO_AMOUNT" },
      { index: 2, reason: "SAME_ORDER" },
      { index: 3, reason: "TOKEN_MISMATCH" },
    ]);
    // Another port instance (e.g. after a restart) reads the same outcome from the chain.
    expect(await (await newPort()).getReceipt(txHash)).toEqual(r);
  });

  it("the fault hook installs and clears a pair's revert on chain (empty reason refused locally)", async () => {
    const m = dummyMatch(5);
    await port.setMatchFault(m.maker, m.taker, "CHAOS");
    const r1 = await port.getReceipt((await port.submitBatch([m])).txHash);
    expect(r1!.failures).toEqual([{ index: 0, reason: "CHAOS" }]);
    await port.clearMatchFault(m.maker, m.taker);
    const r2 = await port.getReceipt((await port.submitBatch([m])).txHash);
    expect(r2!.failures).toEqual([{ index: 0, reason: "BAD_SIGNATURE" }]);
    await expect(port.setMatchFault(m.maker, m.taker, "")).rejects.toThrow(/EMPTY_REASON/);
  });

  it("a refused broadcast is a failed batch; the nonce gap is filled so later txs still mine", async () => {
    // A gas limit above the block's: the node refuses the transaction outright.
    const refusing = await newPort({ base: 10n ** 12n, perMatch: 0n });
    const m = dummyMatch(6);
    const { txHash } = await refusing.submitBatch([m]);
    await refusing.setMatchFault(m.maker, m.taker, "AFTER_THE_GAP");
    const r = await refusing.getReceipt(txHash);
    expect(r!.status).toBe("reverted");
    expect(r!.revertReason).toMatch(/^BROADCAST_FAILED/);
    await refusing.blockNumber();
    const fault = await ctx.pub.readContract({ address: ctx.chain.info.deployment.exchange, abi: Exchange.abi, functionName: "matchFault", args: [refusing.orderHash(m.maker), refusing.orderHash(m.taker)] });
    expect(fault).toBe("AFTER_THE_GAP");
  });

  it("an engine on a refusing node: fills fail with TRANSIENT_SETTLEMENT_FAILURE and no public reason", async () => {
    const env = await anvilEngine(ctx);
    await depositOnChain(ctx, ctx.traders[0]!, "USDT", 100n * UNIT);
    await depositOnChain(ctx, ctx.traders[1]!, "USDC", 100n * UNIT);
    await env.engine.syncDeposits();
    env.engine.placeOrder((await signedBody(env, ctx.traders[0]!, { side: "ask", amount: "20", price: "1" })).body);
    const refusing = await newPort({ base: 10n ** 12n, perMatch: 0n });
    // Same engine state, different chain port: swap it in for settlement.
    (env.engine as unknown as { chain: unknown }).chain = refusing;
    const bid = env.engine.placeOrder((await signedBody(env, ctx.traders[1]!, { side: "bid", amount: "20", price: "1" })).body);
    expect(await env.engine.settle()).toEqual({ broadcast: 1, confirmed: 0, failed: 1 });
    const fill = env.engine.fillsOfOrder(bid.orderId)[0]!;
    expect([fill.settlement_status, fill.failure_reason]).toEqual(["failed", null]);
    expect(env.engine.getOrder(bid.orderId).error_code).toBe("TRANSIENT_SETTLEMENT_FAILURE");
  });
});

describe("Anvil port: signatures and permits", () => {
  it("the port is the HTTP layer's ContractSignatureChecker", () => {
    const checker: ContractSignatureChecker = port;
    expect(typeof checker.isContract).toBe("function");
  });

  it("isValidSignature is false (not an error) when the target reverts or has no code", async () => {
    const digest = `0x${"ab".repeat(32)}` as Hex;
    const sig = `0x${"cd".repeat(65)}` as Hex;
    expect(await port.isValidSignature(token("USDC"), digest, sig)).toBe(false);
    expect(await port.isValidSignature(addr(1), digest, sig)).toBe(false);
    expect(await port.isContract(token("USDC"))).toBe(true);
    expect(await port.isContract(addr(1))).toBe(false);
  });

  it("permitState: ERC-2612 tokens report nonce, domain and allowance; plain ERC-20s are unsupported", async () => {
    const vault = ctx.chain.info.deployment.vault;
    const w = createWalletClient({ account: ctx.traders[0]!, chain: ctx.viemChain, transport: http(ctx.chain.info.rpcUrl) });
    const h = await w.sendTransaction({ to: token("USDC"), data: encodeFunctionData({ abi: TestToken.abi, functionName: "approve", args: [vault, 55n] }) });
    await ctx.pub.waitForTransactionReceipt({ hash: h, pollingInterval: 10 });
    expect(await port.permitState(token("USDC"), addr(0), vault)).toEqual({ supported: true, nonce: 0n, name: "USDC", version: "1", allowance: 55n });
    const plain = await port.permitState(token("USDT"), addr(0), vault);
    expect(plain).toMatchObject({ supported: false, nonce: 0n, allowance: 0n, name: "USDT" });
  });

  it("permitState: a token that answers nonces() but has no EIP-712 domain is unsupported", async () => {
    // Answers every call with one zero word, but reverts DOMAIN_SEPARATOR() (0x3644e515) and
    // eip712Domain() (0x84b0196e): a nonce and no way to build the permit's domain.
    const code =
      "0x600035" + "60e01c" + // selector
      "80633644e51514601e57" + // DOMAIN_SEPARATOR → revert
      "6384b0196e14601e57" + // eip712Domain → revert
      "60206000f3" + // return 32 zero bytes
      "5b600080fd"; // revert
    const noDomain = "0x00000000000000000000000000000000000fe701" as Address;
    await port.rpc.call("anvil_setCode", [noDomain, code]);
    expect(await port.permitState(noDomain, addr(0), ctx.chain.info.deployment.vault)).toEqual({ supported: false, nonce: 0n, name: "", version: "1", allowance: 0n });
  });
});
