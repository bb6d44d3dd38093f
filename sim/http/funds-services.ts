// What the funds routes (balances, permit metadata, approve / deposit / transfer
// builders, withdraw, broadcasts) need, assembled once: the chain reads, the tx
// builder, the engine's ledger, the executor's co-signer and the broadcast policy's
// configuration. `createFundsServices` wires the default (viem against the
// deployment); tests may hand in their own pieces.

import type { Account } from "../core/ledger.ts";
import type { Registry } from "../core/registry.ts";
import type { Address } from "../core/typed-data.ts";
import type { WithdrawCoSigner } from "../core/withdraw.ts";
import { FundsReader } from "../chain/funds-reads.ts";
import { TxBuilder, type FundsClient, type FundsDeployment } from "../chain/tx-builder.ts";
import { WithdrawalSync } from "../chain/withdrawal-sync.ts";

/** The engine's ledger as the funds routes read it (Engine.ledger satisfies it). */
export interface FundsLedger {
  peek(owner: string, token: string): Account;
  available(owner: string, token: string): bigint;
  debitAvailable(owner: string, token: string, amount: bigint): void;
}

export interface FundsServices {
  deployment: FundsDeployment;
  reader: Pick<FundsReader, "walletBalance" | "vaultBalance" | "permitState" | "withdrawUuidUsed" | "sendRawTransaction">;
  builder: Pick<TxBuilder, "approve" | "deposit" | "transfer" | "withdraw">;
  ledger: FundsLedger;
  /**
   * Bring the ledger up to date with the chain: deposits credited (the engine's
   * syncDeposits), then withdrawals debited. Called before every read of vault
   * balances and after every relayed deposit or withdrawal.
   */
  sync(): Promise<void>;
  coSigner: WithdrawCoSigner;
  /** EIP-7702 delegates a relayed type-4 transaction may authorise (default: none). */
  delegateAllowlist?: readonly Address[];
}

export interface FundsEngine {
  readonly ledger: FundsLedger;
  syncDeposits(): Promise<number>;
}

export interface CreateFundsOptions {
  client: FundsClient;
  deployment: FundsDeployment;
  engine: FundsEngine;
  registry: Registry;
  coSigner: WithdrawCoSigner;
  delegateAllowlist?: readonly Address[];
  /** First block that can hold a withdrawal (the deployment block). */
  fromBlock?: bigint;
}

export function createFundsServices(o: CreateFundsOptions): FundsServices {
  const deployment: FundsDeployment = {
    chainId: o.deployment.chainId,
    exchange: o.deployment.exchange.toLowerCase() as Address,
    vault: o.deployment.vault.toLowerCase() as Address,
    router: o.deployment.router.toLowerCase() as Address,
  };
  const reader = new FundsReader(o.client, deployment);
  const withdrawals = new WithdrawalSync(reader, o.engine.ledger, (t) => o.registry.token(t) !== undefined, o.fromBlock ?? 0n);
  return {
    deployment,
    reader,
    builder: new TxBuilder(o.client, deployment),
    ledger: o.engine.ledger,
    async sync() {
      // Deposits first: a withdrawal can only spend what was deposited before it.
      await o.engine.syncDeposits();
      await withdrawals.sync();
    },
    coSigner: o.coSigner,
    ...(o.delegateAllowlist ? { delegateAllowlist: o.delegateAllowlist } : {}),
  };
}
