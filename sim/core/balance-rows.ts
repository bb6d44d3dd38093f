// GET /balances rows (spec "Balance row"): the wallet column from the ERC-20, the
// vault columns from the engine's ledger (available = tradable, frozen = held by open
// orders, in-flight settlements and co-signed withdrawals not yet mined), every amount a raw decimal string, and the
// identities vault_total = available + frozen, total = wallet + vault_total.

import type { Account } from "./ledger.ts";
import type { TokenInfo } from "./registry.ts";

export interface BalanceRowWire {
  token: string;
  symbol: string;
  decimals: number;
  wallet_balance: string;
  vault_available: string;
  vault_frozen: string;
  vault_total: string;
  total: string;
}

export interface BalancesEnvelope {
  owner_address: string;
  balances: BalanceRowWire[];
  updated_at: string;
  wallet_balance_available: boolean;
}

export interface BalanceInputs {
  owner: string;
  tokens: readonly TokenInfo[];
  /** Ledger account per token address. */
  vault(token: string): Account;
  /** Wallet balance per token address; null when the chain could not be read. */
  wallets: ReadonlyMap<string, bigint> | null;
  includeZero: boolean;
  updatedAt: string;
}

/**
 * One row per registry token, in registry order. Without include_zero a token whose
 * total is zero is left out. When the wallet read failed, wallet_balance is "0" and
 * wallet_balance_available false, so a client can tell "empty" from "unknown".
 */
export function balanceRows(i: BalanceInputs): BalancesEnvelope {
  const rows: BalanceRowWire[] = [];
  for (const t of i.tokens) {
    const wallet = i.wallets?.get(t.address) ?? 0n;
    const acc = i.vault(t.address);
    const vaultTotal = acc.available + acc.frozen;
    const total = wallet + vaultTotal;
    if (!i.includeZero && total === 0n) continue;
    rows.push({
      token: t.address,
      symbol: t.symbol,
      decimals: t.decimals,
      wallet_balance: wallet.toString(),
      vault_available: acc.available.toString(),
      vault_frozen: acc.frozen.toString(),
      vault_total: vaultTotal.toString(),
      total: total.toString(),
    });
  }
  return { owner_address: i.owner, balances: rows, updated_at: i.updatedAt, wallet_balance_available: i.wallets !== null };
}
