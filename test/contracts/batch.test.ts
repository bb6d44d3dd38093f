// Batches: best effort (failedMask + MatchFailed with the revert reason, the rest
// settle), all-or-nothing, the size cap, and the executor's fault hook producing
// genuine reverts inside a batch.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseEventLogs, type PrivateKeyAccount } from "viem";
import type { Address, Hex, OrderMessage } from "../../sim/core/typed-data.ts";
import {
  approveAndDeposit,
  Exchange,
  latestTimestamp,
  order,
  orderDigest,
  revertOf,
  send,
  sendUnchecked,
  signOrder,
  snapshotEach,
  startHarness,
  UNIT,
  vaultBalance,
  type Harness,
} from "./harness.ts";

let h: Harness;
let WETH: Address;
let USDC: Address;
beforeAll(async () => {
  h = await startHarness();
  WETH = h.d.tokens.WETH!;
  USDC = h.d.tokens.USDC!;
  await approveAndDeposit(h, h.alice, WETH, 100n * UNIT.WETH);
  await approveAndDeposit(h, h.bob, USDC, 500_000n * UNIT.USDC);
  await approveAndDeposit(h, h.carol, USDC, 500_000n * UNIT.USDC);
});
afterAll(async () => {
  await h?.stop();
});
snapshotEach(() => h, beforeEach, afterEach);

interface Side {
  order: OrderMessage;
  sig: Hex;
}
type Match = { maker: OrderMessage; makerSignature: Hex; taker: OrderMessage; takerSignature: Hex; makerAmount: bigint; takerAmount: bigint };

async function side(signer: PrivateKeyAccount, fields: Parameters<typeof order>[0]): Promise<Side> {
  const o = order(fields, await latestTimestamp(h.pub));
  return { order: o, sig: await signOrder(h, signer, o) };
}

/** A 1-WETH-at-2000 trade between Alice (maker) and `buyer`. */
async function trade(buyer: PrivateKeyAccount, makerExtra: Partial<OrderMessage> = {}): Promise<Match> {
  const maker = await side(h.alice, { user: h.alice.address, fromToken: WETH, toToken: USDC, fromAmount: UNIT.WETH, toAmount: 2000n * UNIT.USDC, ...makerExtra });
  const taker = await side(buyer, { user: buyer.address, fromToken: USDC, toToken: WETH, fromAmount: 2000n * UNIT.USDC, toAmount: UNIT.WETH });
  return { maker: maker.order, makerSignature: maker.sig, taker: taker.order, takerSignature: taker.sig, makerAmount: UNIT.WETH, takerAmount: 2000n * UNIT.USDC };
}

const batchCall = (matches: Match[], functionName: "matchOrdersBatch" | "matchOrdersBatchAtomic" = "matchOrdersBatch") =>
  ({ address: h.d.exchange, abi: Exchange.abi, functionName, args: [matches as never] }) as const;

const filled = (o: OrderMessage) =>
  h.pub.readContract({ address: h.d.exchange, abi: Exchange.abi, functionName: "filled", args: [orderDigest(h, o)] });

async function simulatedMask(matches: Match[]): Promise<bigint> {
  const { result } = await h.pub.simulateContract({ ...batchCall(matches), account: h.executor });
  return result as bigint;
}

describe("matchOrdersBatch (best effort)", () => {
  it("one failing match: bit set, MatchFailed with its reason, the others settled", async () => {
    const now = await latestTimestamp(h.pub);
    const ok0 = await trade(h.bob);
    const expiring = await trade(h.carol, { expiration: now + 30n });
    const ok2 = await trade(h.carol);
    await h.testClient.increaseTime({ seconds: 60 });
    await h.testClient.mine({ blocks: 1 });

    const batch = [ok0, expiring, ok2];
    expect(await simulatedMask(batch)).toBe(0b010n);
    const receipt = await send(h.pub, h.wallet(h.executor), batchCall(batch));
    const failed = parseEventLogs({ abi: Exchange.abi, logs: receipt.logs, eventName: "MatchFailed" });
    expect(failed.map((l) => l.args)).toEqual([
      { orderHash0: orderDigest(h, expiring.maker), orderHash1: orderDigest(h, expiring.taker), reason: "ORDER_EXPIRED", batchIndex: 1n },
    ]);
    const settled = parseEventLogs({ abi: Exchange.abi, logs: receipt.logs, eventName: "MatchSettled" });
    expect(settled.map((l) => l.args.batchIndex)).toEqual([0n, 2n]);
    const [summary] = parseEventLogs({ abi: Exchange.abi, logs: receipt.logs, eventName: "BatchSettled" });
    expect(summary!.args).toEqual({ count: 3n, failedMask: 0b010n });

    expect(await filled(ok0.maker)).toBe(UNIT.WETH);
    expect(await filled(expiring.maker)).toBe(0n);
    expect(await filled(ok2.taker)).toBe(2000n * UNIT.USDC);
    expect(await vaultBalance(h, h.alice.address, USDC)).toBe(4000n * UNIT.USDC);
    expect(await vaultBalance(h, h.bob.address, WETH)).toBe(UNIT.WETH);
    expect(await vaultBalance(h, h.carol.address, WETH)).toBe(UNIT.WETH);
    expect(await vaultBalance(h, h.carol.address, USDC)).toBe(498_000n * UNIT.USDC);
  });

  it("settles a full batch of 20 partial fills of the same two orders", async () => {
    const maker = await side(h.alice, { user: h.alice.address, fromToken: WETH, toToken: USDC, fromAmount: 20n * UNIT.WETH, toAmount: 40_000n * UNIT.USDC });
    const taker = await side(h.bob, { user: h.bob.address, fromToken: USDC, toToken: WETH, fromAmount: 40_000n * UNIT.USDC, toAmount: 20n * UNIT.WETH });
    const one: Match = { maker: maker.order, makerSignature: maker.sig, taker: taker.order, takerSignature: taker.sig, makerAmount: UNIT.WETH, takerAmount: 2000n * UNIT.USDC };
    const batch = Array.from({ length: 20 }, () => one);
    expect(await simulatedMask(batch)).toBe(0n);
    await send(h.pub, h.wallet(h.executor), batchCall(batch));
    expect(await filled(maker.order)).toBe(20n * UNIT.WETH);
    expect(await vaultBalance(h, h.bob.address, WETH)).toBe(20n * UNIT.WETH);
  });

  it("an injected fault is a genuine revert: bit set and MatchFailed carries the chosen reason", async () => {
    const faulted = await trade(h.bob);
    const ok = await trade(h.carol);
    const h0 = orderDigest(h, faulted.maker);
    const h1 = orderDigest(h, faulted.taker);
    await send(h.pub, h.wallet(h.executor), {
      address: h.d.exchange,
      abi: Exchange.abi,
      functionName: "setMatchFault",
      args: [h0, h1, "INJECTED_SETTLEMENT_REVERT"],
    });
    expect(await h.pub.readContract({ address: h.d.exchange, abi: Exchange.abi, functionName: "matchFault", args: [h0, h1] })).toBe(
      "INJECTED_SETTLEMENT_REVERT",
    );
    const receipt = await send(h.pub, h.wallet(h.executor), batchCall([faulted, ok]));
    const failed = parseEventLogs({ abi: Exchange.abi, logs: receipt.logs, eventName: "MatchFailed" });
    expect(failed.map((l) => l.args)).toEqual([{ orderHash0: h0, orderHash1: h1, reason: "INJECTED_SETTLEMENT_REVERT", batchIndex: 0n }]);
    expect(await filled(faulted.maker)).toBe(0n);
    expect(await filled(ok.maker)).toBe(UNIT.WETH);

    // A single match with the fault reverts with the same reason; clearing it lets the pair settle.
    const single = { address: h.d.exchange, abi: Exchange.abi, functionName: "matchOrders", args: [faulted as never] } as const;
    expect(await revertOf(h.pub, h.executor, single)).toBe("INJECTED_SETTLEMENT_REVERT");
    await send(h.pub, h.wallet(h.executor), { address: h.d.exchange, abi: Exchange.abi, functionName: "clearMatchFault", args: [h0, h1] });
    await send(h.pub, h.wallet(h.executor), single);
    expect(await filled(faulted.maker)).toBe(UNIT.WETH);
  });

  it("the fault hook is executor-only and needs a reason", async () => {
    const zero = `0x${"00".repeat(32)}` as Hex;
    expect(
      await revertOf(h.pub, h.alice, { address: h.d.exchange, abi: Exchange.abi, functionName: "setMatchFault", args: [zero, zero, "X"] }),
    ).toBe("AccessControlUnauthorizedAccount");
    expect(
      await revertOf(h.pub, h.admin, { address: h.d.exchange, abi: Exchange.abi, functionName: "clearMatchFault", args: [zero, zero] }),
    ).toBe("AccessControlUnauthorizedAccount");
    expect(
      await revertOf(h.pub, h.executor, { address: h.d.exchange, abi: Exchange.abi, functionName: "setMatchFault", args: [zero, zero, ""] }),
    ).toBe("EMPTY_REASON");
  });

  it("rejects an empty batch, more than 20 matches, a non-executor, and direct calls of the inner entry", async () => {
    const m = await trade(h.bob);
    expect(await revertOf(h.pub, h.executor, batchCall([]))).toBe("EMPTY_BATCH");
    expect(await revertOf(h.pub, h.executor, batchCall(Array.from({ length: 21 }, () => m)))).toBe("BATCH_TOO_LARGE");
    expect(await revertOf(h.pub, h.executor, batchCall(Array.from({ length: 21 }, () => m), "matchOrdersBatchAtomic"))).toBe("BATCH_TOO_LARGE");
    expect(await revertOf(h.pub, h.bob, batchCall([m]))).toBe("AccessControlUnauthorizedAccount");
    const zero = `0x${"00".repeat(32)}` as Hex;
    expect(
      await revertOf(h.pub, h.executor, {
        address: h.d.exchange,
        abi: Exchange.abi,
        functionName: "settleMatchFromBatch",
        args: [m as never, zero, zero, 0n],
      }),
    ).toBe("ONLY_SELF");
  });
});

describe("matchOrdersBatchAtomic (all or nothing)", () => {
  it("settles every match when all succeed", async () => {
    const a = await trade(h.bob);
    const b = await trade(h.carol);
    await send(h.pub, h.wallet(h.executor), batchCall([a, b], "matchOrdersBatchAtomic"));
    expect(await filled(a.maker)).toBe(UNIT.WETH);
    expect(await filled(b.maker)).toBe(UNIT.WETH);
  });

  it("one failing match reverts the whole batch on chain, nothing settles", async () => {
    const ok = await trade(h.bob);
    const bad = await trade(h.carol);
    bad.makerSignature = await signOrder(h, h.carol, bad.maker); // wrong signer
    expect(await revertOf(h.pub, h.executor, batchCall([ok, bad], "matchOrdersBatchAtomic"))).toBe("BAD_SIGNATURE");
    const receipt = await sendUnchecked(h.pub, h.wallet(h.executor), batchCall([ok, bad], "matchOrdersBatchAtomic"));
    expect(receipt.status).toBe("reverted");
    expect(await filled(ok.maker)).toBe(0n);
    expect(await vaultBalance(h, h.bob.address, WETH)).toBe(0n);
    expect(await vaultBalance(h, h.alice.address, WETH)).toBe(100n * UNIT.WETH);
  });
});
