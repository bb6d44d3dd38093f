// Batches: best effort (failedMask + MatchFailed with the revert reason, the rest
// settle), all-or-nothing, the size cap, and the executor's fault hook producing
// genuine reverts inside a batch; the compact layout (orders once, fills by index)
// and the in-frame fast path against the reference path.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseEventLogs, type PrivateKeyAccount } from "viem";
import type { Address, Hex, OrderMessage } from "../../sim/core/typed-data.ts";
import { compactBatch, type CompactBatch } from "../../sim/chain/anvil-tx.ts";
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
  TestToken,
  UNIT,
  Vault,
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

type BatchFn = "matchOrdersBatch" | "matchOrdersBatchAtomic";
/** The compact layout as sent: distinct orders + signatures, fills by index. */
const compactCall = (b: CompactBatch, functionName: BatchFn = "matchOrdersBatch") =>
  ({ address: h.d.exchange, abi: Exchange.abi, functionName, args: [b.orders as never, b.signatures, b.fills] }) as const;
const batchCall = (matches: Match[], functionName: BatchFn = "matchOrdersBatch") => compactCall(compactBatch(matches), functionName);

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
        functionName: "settleFillFromBatch",
        args: [m.maker as never, m.makerSignature, m.taker as never, m.takerSignature, { h0: zero, h1: zero, makerAmount: 1n, takerAmount: 1n, index: 0n }],
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

describe("compact batch layout (orders + signatures once, fills by index)", () => {
  const zeroHash = `0x${"00".repeat(32)}` as Hex;

  it("a fill naming an order index out of range fails alone: bit set, BAD_ORDER_INDEX, missing side's hash 0", async () => {
    const a = await trade(h.bob);
    const b = await trade(h.carol);
    const batch = compactBatch([a, b]);
    batch.fills[0] = { ...batch.fills[0]!, taker: 9n };
    expect(await simulatedMaskOf(batch)).toBe(0b01n);
    const receipt = await send(h.pub, h.wallet(h.executor), compactCall(batch));
    const failed = parseEventLogs({ abi: Exchange.abi, logs: receipt.logs, eventName: "MatchFailed" });
    expect(failed.map((l) => l.args)).toEqual([{ orderHash0: orderDigest(h, a.maker), orderHash1: zeroHash, reason: "BAD_ORDER_INDEX", batchIndex: 0n }]);
    expect(await filled(a.maker)).toBe(0n);
    expect(await filled(b.maker)).toBe(UNIT.WETH);
  });

  it("the atomic batch reverts whole on a bad index", async () => {
    const a = await trade(h.bob);
    const batch = compactBatch([a]);
    batch.fills[0] = { ...batch.fills[0]!, maker: 2n };
    expect(await revertOf(h.pub, h.executor, compactCall(batch, "matchOrdersBatchAtomic"))).toBe("BAD_ORDER_INDEX");
  });

  it("rejects orders and signatures of different lengths (LENGTH_MISMATCH) and more than 40 orders (TOO_MANY_ORDERS)", async () => {
    const a = await trade(h.bob);
    const batch = compactBatch([a]);
    const short = { ...batch, signatures: batch.signatures.slice(0, 1) };
    expect(await revertOf(h.pub, h.executor, compactCall(short))).toBe("LENGTH_MISMATCH");
    expect(await revertOf(h.pub, h.executor, compactCall(short, "matchOrdersBatchAtomic"))).toBe("LENGTH_MISMATCH");
    const many = { ...batch, orders: Array.from({ length: 41 }, () => a.maker), signatures: Array.from({ length: 41 }, () => a.makerSignature) };
    expect(await revertOf(h.pub, h.executor, compactCall(many))).toBe("TOO_MANY_ORDERS");
  });

  it("sends a sweeping taker once: 20 makers against one taker order settle with one signature check each", async () => {
    const makers = await Promise.all(
      Array.from({ length: 20 }, () => side(h.alice, { user: h.alice.address, fromToken: WETH, toToken: USDC, fromAmount: UNIT.WETH / 20n, toAmount: 100n * UNIT.USDC })),
    );
    const taker = await side(h.bob, { user: h.bob.address, fromToken: USDC, toToken: WETH, fromAmount: 2000n * UNIT.USDC, toAmount: UNIT.WETH });
    const matches = makers.map((m) => ({ maker: m.order, makerSignature: m.sig, taker: taker.order, takerSignature: taker.sig, makerAmount: UNIT.WETH / 20n, takerAmount: 100n * UNIT.USDC }));
    const batch = compactBatch(matches);
    expect(batch.orders.length).toBe(21);
    expect(batch.fills.map((f) => f.taker)).toEqual(Array.from({ length: 20 }, () => 1n));
    expect(await simulatedMask(matches)).toBe(0n);
    await send(h.pub, h.wallet(h.executor), compactCall(batch));
    expect(await filled(taker.order)).toBe(2000n * UNIT.USDC);
    expect(await vaultBalance(h, h.bob.address, WETH)).toBe(UNIT.WETH);
  });

  // Fees on either side, a positive spread, prices that need rounding up, partial and
  // repeated fills: every amount of the Settlement, on first and later fills.
  const cases = [
    { makerFee: 7n, takerFee: 13n, makerFrom: 3n * UNIT.WETH, makerTo: 5999n * UNIT.USDC, takerFrom: 6300n * UNIT.USDC, takerTo: 3n * UNIT.WETH, makerAmount: 2n * UNIT.WETH, takerAmount: 4100n * UNIT.USDC + 7n },
    { makerFee: 0n, takerFee: 0n, makerFrom: 7n, makerTo: 3n, takerFrom: 9n, takerTo: 5n, makerAmount: 5n, takerAmount: 3n },
    { makerFee: 1000n, takerFee: 999n, makerFrom: 10n ** 20n, makerTo: 333_333_333n, takerFrom: 200_000_000n, takerTo: 5n * 10n ** 19n, makerAmount: 5n * 10n ** 19n, takerAmount: 190_000_000n },
    { makerFee: 1n, takerFee: 0n, makerFrom: 3n * UNIT.WETH, makerTo: 6000n * UNIT.USDC, takerFrom: 6000n * UNIT.USDC, takerTo: 3n * UNIT.WETH, makerAmount: UNIT.WETH, takerAmount: 2000n * UNIT.USDC },
  ];
  it.each(cases.map((c, i) => [i, c] as const))(
    "the in-frame fast path and the reference path settle identically (case %i; an unrelated fault forces the reference path)",
    async (_, c) => {
      const maker = await side(h.alice, { user: h.alice.address, fromToken: WETH, toToken: USDC, fromAmount: c.makerFrom, toAmount: c.makerTo, feeBps: c.makerFee });
      const taker = await side(h.bob, { user: h.bob.address, fromToken: USDC, toToken: WETH, fromAmount: c.takerFrom, toAmount: c.takerTo, feeBps: c.takerFee });
      const run = async (forceReference: boolean) => {
        const snap = await h.testClient.snapshot();
        if (forceReference) {
          await send(h.pub, h.wallet(h.executor), { address: h.d.exchange, abi: Exchange.abi, functionName: "setMatchFault", args: [zeroHash, zeroHash, "UNRELATED"] });
        }
        const m = { maker: maker.order, makerSignature: maker.sig, taker: taker.order, takerSignature: taker.sig, makerAmount: c.makerAmount, takerAmount: c.takerAmount };
        // The same pair twice: a first fill, then a later fill (no signature check) of both orders.
        const receipt = await sendUnchecked(h.pub, h.wallet(h.executor), batchCall([m, m]));
        const events = parseEventLogs({ abi: Exchange.abi, logs: receipt.logs }).map((l) => [l.eventName, l.args]);
        const balances = await Promise.all(
          [h.alice.address, h.bob.address, h.d.feeRecipient].flatMap((who) => [WETH, USDC].map((t) => vaultBalance(h, who, t))),
        );
        const out = { status: receipt.status, events, balances, filled: [await filled(maker.order), await filled(taker.order)], gas: receipt.gasUsed };
        await h.testClient.revert({ id: snap });
        return out;
      };
      const fast = await run(false);
      const reference = await run(true);
      expect(fast.status).toBe("success");
      expect(fast.events).toEqual(reference.events);
      expect(fast.balances).toEqual(reference.balances);
      expect(fast.filled).toEqual(reference.filled);
      expect(fast.events.filter(([name]) => name === "MatchSettled").length).toBeGreaterThan(0);
      // The paths really differ: the reference path runs each fill in its own call frame.
      expect(fast.gas).toBeLessThan(reference.gas);
    },
  );

  it("a fill the fast path declines still gets the reference outcome: INSUFFICIENT_VAULT_BALANCE with no partial effects", async () => {
    const ok = await trade(h.bob);
    const big = await side(h.alice, { user: h.alice.address, fromToken: WETH, toToken: USDC, fromAmount: 1000n * UNIT.WETH, toAmount: 2_000_000n * UNIT.USDC });
    const buyer = await side(h.carol, { user: h.carol.address, fromToken: USDC, toToken: WETH, fromAmount: 400_000n * UNIT.USDC, toAmount: 200n * UNIT.WETH });
    const short = { maker: big.order, makerSignature: big.sig, taker: buyer.order, takerSignature: buyer.sig, makerAmount: 200n * UNIT.WETH, takerAmount: 400_000n * UNIT.USDC };
    const receipt = await send(h.pub, h.wallet(h.executor), batchCall([short, ok]));
    const failed = parseEventLogs({ abi: Exchange.abi, logs: receipt.logs, eventName: "MatchFailed" });
    expect(failed.map((l) => [l.args.reason, l.args.batchIndex])).toEqual([["INSUFFICIENT_VAULT_BALANCE", 0n]]);
    expect(await filled(big.order)).toBe(0n);
    expect(await filled(buyer.order)).toBe(0n);
    expect(await vaultBalance(h, h.carol.address, USDC)).toBe(500_000n * UNIT.USDC);
    expect(await filled(ok.maker)).toBe(UNIT.WETH);
  });

  it("fills with a payout recipient or a first-fill initial deposit settle through the reference path inside a batch", async () => {
    const payee = "0x00000000000000000000000000000000000beef1" as Address;
    const paid = await trade(h.bob, { recipient: payee });
    // Carol's order pulls its USDC from her wallet on its first fill: no allowance, so it fails alone.
    const now = await latestTimestamp(h.pub);
    const makerSide = await side(h.alice, { user: h.alice.address, fromToken: WETH, toToken: USDC, fromAmount: UNIT.WETH, toAmount: 2000n * UNIT.USDC });
    const o = order({ user: h.carol.address, fromToken: USDC, toToken: WETH, fromAmount: 2000n * UNIT.USDC, toAmount: UNIT.WETH, initialDepositAmount: 2000n * UNIT.USDC }, now);
    const depositing = { maker: makerSide.order, makerSignature: makerSide.sig, taker: o, takerSignature: await signOrder(h, h.carol, o), makerAmount: UNIT.WETH, takerAmount: 2000n * UNIT.USDC };
    const receipt = await send(h.pub, h.wallet(h.executor), batchCall([paid, depositing]));
    const failed = parseEventLogs({ abi: Exchange.abi, logs: receipt.logs, eventName: "MatchFailed" });
    expect(failed.map((l) => [l.args.reason, l.args.batchIndex])).toEqual([["ALLOWANCE_INSUFFICIENT", 1n]]);
    expect(await walletBalanceOf(USDC, payee)).toBe(2000n * UNIT.USDC);
    expect(await vaultBalance(h, h.alice.address, USDC)).toBe(0n);
    expect(await filled(makerSide.order)).toBe(0n);
  });

  it("the vault's match entries are for the exchange and its operators only", async () => {
    const ledger = {
      maker: h.alice.address,
      taker: h.bob.address,
      makerToken: WETH,
      takerToken: USDC,
      makerDebit: 0n,
      takerDebit: 0n,
      makerCredit: 1n,
      takerCredit: 0n,
      protocol: h.d.feeRecipient,
      protocolInTakerToken: 0n,
      protocolInMakerToken: 0n,
    };
    for (const functionName of ["settleMatch", "trySettleMatch"] as const) {
      expect(await revertOf(h.pub, h.alice, { address: h.d.vault, abi: Vault.abi, functionName, args: [ledger] })).toBe("NOT_OPERATOR");
    }
  });
});

async function simulatedMaskOf(batch: CompactBatch): Promise<bigint> {
  const { result } = await h.pub.simulateContract({ ...compactCall(batch), account: h.executor });
  return result as bigint;
}

function walletBalanceOf(token: Address, owner: Address): Promise<bigint> {
  return h.pub.readContract({ address: token, abi: TestToken.abi, functionName: "balanceOf", args: [owner] });
}
