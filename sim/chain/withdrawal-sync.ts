// Mirrors on-chain withdrawals into the engine's ledger. The engine learns of
// deposits through syncDeposits(), but has no counterpart for money leaving the
// vault (instant or emergency withdrawals); without this the ledger would keep
// showing, and the executor keep co-signing, funds that are gone. This is the
// adapter until the engine grows its own syncWithdrawals().
//
// Withdrawals take from `available`; an emergency withdrawal can exceed it (it
// ignores open orders), and then only what is available is taken: the ledger never
// goes negative, and the frozen part is settled by the engine's own reconciliation.

import type { Address } from "../core/typed-data.ts";
import type { FundsReader } from "./funds-reads.ts";

export interface WithdrawalLedger {
  available(owner: string, token: string): bigint;
  debitAvailable(owner: string, token: string, amount: bigint): void;
}

export interface WithdrawalSyncState {
  cursor: string;
}

export class WithdrawalSync {
  private cursor: bigint;
  private queue: Promise<unknown> = Promise.resolve();

  /** @param fromBlock first block to scan (the deployment's block: nothing earlier can hold a withdrawal). */
  constructor(
    private readonly reader: Pick<FundsReader, "blockNumber" | "withdrawalEvents">,
    private readonly ledger: WithdrawalLedger,
    private readonly isListedToken: (token: Address) => boolean,
    fromBlock = 0n,
  ) {
    this.cursor = fromBlock > 0n ? fromBlock - 1n : 0n;
  }

  /** Debit every withdrawal mined since the last sync; returns how many were applied. Serialised. */
  sync(): Promise<number> {
    const run = this.queue.then(async () => {
      const head = await this.reader.blockNumber();
      if (head <= this.cursor) return 0;
      const events = await this.reader.withdrawalEvents(this.cursor + 1n, head);
      let n = 0;
      for (const ev of events) {
        if (!this.isListedToken(ev.token)) continue;
        const take = ev.amount < this.ledger.available(ev.user, ev.token) ? ev.amount : this.ledger.available(ev.user, ev.token);
        if (take > 0n) this.ledger.debitAvailable(ev.user, ev.token, take);
        n++;
      }
      this.cursor = head;
      return n;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  snapshot(): WithdrawalSyncState {
    return { cursor: this.cursor.toString() };
  }

  restore(s: WithdrawalSyncState): void {
    this.cursor = BigInt(s.cursor);
  }
}
