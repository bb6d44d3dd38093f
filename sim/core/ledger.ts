// Off-chain mirror of the vault: per owner and token, what is free to trade
// (available) and what open orders or in-flight settlements hold (frozen).
// Totals always equal what the vault contract holds for that owner once every
// confirmed settlement has been applied.
import { ExchangeError } from "./errors.ts";

export interface Account {
  available: bigint;
  frozen: bigint;
}

export interface LedgerRow {
  owner: string;
  token: string;
  available: bigint;
  frozen: bigint;
}

export type LedgerState = readonly LedgerRow[];

export class Ledger {
  private readonly owners = new Map<string, Map<string, Account>>();
  /**
   * The last account looked up. Placing an order reads, then freezes, the same
   * owner's from-token account; accounts are never removed (restore resets this).
   */
  private lastOwner: string | null = null;
  private lastToken: string | null = null;
  private lastAccount: Account | null = null;

  /** The live account object (created empty on first touch). Callers inside sim/core mutate it. */
  account(owner: string, token: string): Account {
    if (owner === this.lastOwner && token === this.lastToken) return this.lastAccount!;
    let byToken = this.owners.get(owner);
    if (byToken === undefined) {
      byToken = new Map();
      this.owners.set(owner, byToken);
    }
    let acc = byToken.get(token);
    if (acc === undefined) {
      acc = { available: 0n, frozen: 0n };
      byToken.set(token, acc);
    }
    this.lastOwner = owner;
    this.lastToken = token;
    this.lastAccount = acc;
    return acc;
  }

  /** A copy of the account, read without creating: later ledger moves do not show through it. */
  peek(owner: string, token: string): Account {
    const acc = this.owners.get(owner)?.get(token);
    return acc === undefined ? { available: 0n, frozen: 0n } : { available: acc.available, frozen: acc.frozen };
  }

  available(owner: string, token: string): bigint {
    if (owner === this.lastOwner && token === this.lastToken) return this.lastAccount!.available;
    const acc = this.owners.get(owner)?.get(token);
    if (acc === undefined) return 0n;
    this.lastOwner = owner;
    this.lastToken = token;
    this.lastAccount = acc;
    return acc.available;
  }

  credit(owner: string, token: string, amount: bigint): void {
    if (amount < 0n) throw new RangeError("credit must be non-negative");
    this.account(owner, token).available += amount;
  }

  /** Take from available (withdrawals). Refuses to go negative. */
  debitAvailable(owner: string, token: string, amount: bigint): void {
    const acc = this.account(owner, token);
    if (amount < 0n || acc.available < amount) {
      throw new ExchangeError("INSUFFICIENT_EQUITY", 400, `available ${acc.available} below ${amount}`);
    }
    acc.available -= amount;
  }

  /** available → frozen; INSUFFICIENT_EQUITY when available is short. */
  freeze(owner: string, token: string, amount: bigint): void {
    const acc = this.account(owner, token);
    if (acc.available < amount) {
      throw new ExchangeError(
        "INSUFFICIENT_EQUITY",
        400,
        `available equity ${acc.available} of token ${token} is below the order's frozen-amount need ${amount}`,
        { available_raw: acc.available.toString(), required_raw: amount.toString(), token },
      );
    }
    acc.available -= amount;
    acc.frozen += amount;
  }

  /** frozen → available. */
  release(owner: string, token: string, amount: bigint): void {
    if (amount === 0n) return;
    const acc = this.account(owner, token);
    if (amount < 0n || acc.frozen < amount) throw new RangeError(`release ${amount} exceeds frozen ${acc.frozen}`);
    acc.frozen -= amount;
    acc.available += amount;
  }

  /** frozen leaves the owner (a settled debit). */
  burnFrozen(owner: string, token: string, amount: bigint): void {
    if (amount === 0n) return;
    const acc = this.account(owner, token);
    if (amount < 0n || acc.frozen < amount) throw new RangeError(`debit ${amount} exceeds frozen ${acc.frozen}`);
    acc.frozen -= amount;
  }

  rows(): LedgerRow[] {
    const out: LedgerRow[] = [];
    for (const [owner, byToken] of this.owners) {
      for (const [token, acc] of byToken) out.push({ owner, token, available: acc.available, frozen: acc.frozen });
    }
    return out;
  }

  tokensOf(owner: string): string[] {
    return [...(this.owners.get(owner)?.keys() ?? [])];
  }

  /** Sum of available + frozen over all owners, per token. */
  totalsByToken(): Map<string, bigint> {
    const totals = new Map<string, bigint>();
    for (const byToken of this.owners.values()) {
      for (const [token, acc] of byToken) totals.set(token, (totals.get(token) ?? 0n) + acc.available + acc.frozen);
    }
    return totals;
  }

  snapshot(): LedgerState {
    return this.rows();
  }

  restore(state: LedgerState): void {
    this.owners.clear();
    this.lastOwner = null;
    this.lastToken = null;
    this.lastAccount = null;
    for (const r of state) {
      const acc = this.account(r.owner, r.token);
      acc.available = r.available;
      acc.frozen = r.frozen;
    }
  }
}
