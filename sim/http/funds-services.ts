// What the funds routes (balances, permit metadata, approve / deposit / transfer
// builders, withdraw, broadcasts) need, assembled once: the chain reads, the tx
// builder, the engine's ledger, the executor's co-signer and the broadcast policy's
// configuration. `createFundsServices` wires the default (viem against the
// deployment); tests may hand in their own pieces.
//
// Deposits and withdrawals reach the ledger only through the engine's vault-event
// sync, so they are in its event log and its snapshots, and owed withdrawals
// (emergency exits beyond available) are netted out of `available`.

import type { Account } from "../core/ledger.ts";
import type { Address } from "../core/typed-data.ts";
import type { WithdrawCoSigner } from "../core/withdraw.ts";
import { DelegateAllowlist } from "../core/delegate-allowlist.ts";
import { FundsReader } from "../chain/funds-reads.ts";
import { TxBuilder, type FundsClient, type FundsDeployment } from "../chain/tx-builder.ts";

/** The vault columns as the balance rows read them: the ledger net of owed withdrawals (Engine.vaultAccount). */
export interface FundsLedger {
  peek(owner: string, token: string): Account;
}

export interface FundsServices {
  deployment: FundsDeployment;
  reader: Pick<FundsReader, "walletBalance" | "vaultBalance" | "permitState" | "withdrawUuidUsed" | "sendRawTransaction" | "waitMined">;
  builder: Pick<TxBuilder, "approve" | "deposit" | "transfer" | "withdraw">;
  ledger: FundsLedger;
  /** What a co-signed withdrawal may take: available net of owed withdrawals (Engine.available). */
  available(owner: string, token: string): bigint;
  /** Set a co-signed withdrawal's amounts aside until it is mined or expires (Engine.holdWithdrawal). */
  holdWithdrawal(owner: string, uuid: bigint, amounts: ReadonlyMap<string, bigint>, deadlineSec: number): void;
  hasWithdrawHold(owner: string, uuid: bigint): boolean;
  /**
   * Bring the ledger up to date with the chain (the engine's syncVaultEvents:
   * deposits credited, withdrawals debited, in chain order). Called before every
   * read of vault balances and after every relayed deposit or withdrawal. Resolves to
   * the block the ledger now reflects (undefined where that is not known).
   */
  sync(): Promise<bigint | void>;
  coSigner: WithdrawCoSigner;
  /** EIP-7702 delegates a relayed type-4 transaction may authorise (empty unless set). */
  delegates: DelegateAllowlist;
}

/** The engine as the funds routes use it (Engine satisfies it). */
export interface FundsEngine {
  vaultAccount(owner: string, token: string): Account;
  available(owner: string, token: string): bigint;
  holdWithdrawal(owner: string, uuid: bigint, amounts: ReadonlyMap<string, bigint>, deadlineSec: number): void;
  hasWithdrawHold(owner: string, uuid: bigint): boolean;
  /** Resolves to the engine's VaultSyncReport (its `block` is what sync() passes on). */
  syncVaultEvents(): Promise<unknown>;
}

export interface CreateFundsOptions {
  client: FundsClient;
  deployment: FundsDeployment;
  engine: FundsEngine;
  coSigner: WithdrawCoSigner;
  /** The allowlist to use (its owner snapshots it), or its first contents. */
  delegates?: DelegateAllowlist;
  delegateAllowlist?: readonly Address[];
}

export function createFundsServices(o: CreateFundsOptions): FundsServices {
  const deployment: FundsDeployment = {
    chainId: o.deployment.chainId,
    exchange: o.deployment.exchange.toLowerCase() as Address,
    vault: o.deployment.vault.toLowerCase() as Address,
    router: o.deployment.router.toLowerCase() as Address,
  };
  const engine = o.engine;
  return {
    deployment,
    reader: new FundsReader(o.client, deployment),
    builder: new TxBuilder(o.client, deployment),
    ledger: { peek: (owner, token) => engine.vaultAccount(owner, token) },
    available: (owner, token) => engine.available(owner, token),
    holdWithdrawal: (owner, uuid, amounts, deadlineSec) => engine.holdWithdrawal(owner, uuid, amounts, deadlineSec),
    hasWithdrawHold: (owner, uuid) => engine.hasWithdrawHold(owner, uuid),
    async sync() {
      const block = ((await engine.syncVaultEvents()) as { block?: unknown } | undefined)?.block;
      return typeof block === "bigint" ? block : undefined;
    },
    coSigner: o.coSigner,
    delegates: o.delegates ?? new DelegateAllowlist(o.delegateAllowlist ?? []),
  };
}
