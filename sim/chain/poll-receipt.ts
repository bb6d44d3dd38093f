// Waiting for a transaction's receipt by asking for it, not by watching blocks. viem's
// waitForTransactionReceipt reads the receipt once and, on a miss (Anvil can report a
// block before its receipts are readable), joins a block watcher shared by every wait on
// the client, which fires only above the highest block it has seen. After an evm_revert
// lowers the head, such a wait never fires again, and every later wait joins it.
import { setTimeout } from "node:timers";
import { TransactionReceiptNotFoundError, type Chain, type PublicClient, type TransactionReceipt, type Transport } from "viem";
import type { Hex } from "../core/typed-data.ts";
import { realNowMs } from "../platform/real-time.ts";

export interface PollReceiptOptions {
  /** Between reads (default 10 ms). */
  intervalMs?: number;
  /** Give up after this long (default 180 s, viem's own default). */
  timeoutMs?: number;
}

/** The receipt of `hash` once the node has it; rejects after `timeoutMs`. */
export async function pollReceipt(client: Pick<PublicClient<Transport, Chain | undefined>, "getTransactionReceipt">, hash: Hex, o: PollReceiptOptions = {}): Promise<TransactionReceipt> {
  const interval = o.intervalMs ?? 10;
  const deadline = realNowMs() + (o.timeoutMs ?? 180_000);
  for (;;) {
    try {
      return await client.getTransactionReceipt({ hash });
    } catch (e) {
      if (!(e instanceof TransactionReceiptNotFoundError)) throw e;
    }
    if (realNowMs() >= deadline) throw new Error(`no receipt for transaction ${hash} after ${o.timeoutMs ?? 180_000} ms`);
    await new Promise((r) => setTimeout(r, interval));
  }
}
