// pollReceipt asks again only while the node says it has no receipt yet; any other failure
// (a node that stopped, a refused call) is the caller's at once, not after the timeout.
import { expect, it } from "vitest";
import { TransactionReceiptNotFoundError, type TransactionReceipt } from "viem";
import { pollReceipt } from "../../sim/chain/poll-receipt.ts";
import type { Hex } from "../../sim/core/typed-data.ts";

const HASH = `0x${"11".repeat(32)}` as Hex;
const RECEIPT = { transactionHash: HASH, status: "success" } as unknown as TransactionReceipt;

/** A client answering `answers` in turn (an Error is thrown), counting the reads. */
function client(answers: (TransactionReceipt | Error)[]) {
  let reads = 0;
  return {
    reads: () => reads,
    getTransactionReceipt: async () => {
      const a = answers[Math.min(reads++, answers.length - 1)]!;
      if (a instanceof Error) throw a;
      return a;
    },
  };
}

it("reads again while the receipt is not found, then returns it", async () => {
  const c = client([new TransactionReceiptNotFoundError({ hash: HASH }), new TransactionReceiptNotFoundError({ hash: HASH }), RECEIPT]);
  expect(await pollReceipt(c, HASH, { intervalMs: 0 })).toBe(RECEIPT);
  expect(c.reads()).toBe(3);
});

it("any other failure rejects at the first read", async () => {
  const down = new Error("fetch failed");
  const c = client([down]);
  await expect(pollReceipt(c, HASH, { intervalMs: 0, timeoutMs: 200 })).rejects.toBe(down);
  expect(c.reads()).toBe(1);
});
