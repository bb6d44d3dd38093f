// The chain reads and the raw broadcast the funds helpers need, as small viem calls
// against the deployment: ERC-20 wallet balances and allowances, vault balances,
// ERC-2612 permit state, withdraw-uuid use, eth_sendRawTransaction. (Withdrawal events
// reach the ledger through the engine's vault sync and the chain port.)
// Kept apart from the engine's chain port: these are the helpers' own reads.

import { BaseError, hashDomain, parseAbi, type Hex as ViemHex } from "viem";
import { ExchangeError } from "../core/errors.ts";
import type { Address, Hex } from "../core/typed-data.ts";
import { Exchange, Vault } from "./artifacts.ts";
import { isNodeUnavailable, revertReason, type FundsClient, type FundsDeployment } from "./tx-builder.ts";
import { pollReceipt } from "./poll-receipt.ts";

const ERC20_READ_ABI = parseAbi([
  "function balanceOf(address owner) view returns (uint256)",
  "function allowance(address owner, address spender) view returns (uint256)",
  "function name() view returns (string)",
  "function nonces(address owner) view returns (uint256)",
  "function DOMAIN_SEPARATOR() view returns (bytes32)",
  "function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)",
]);

export interface PermitDomain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: Address;
}

export interface PermitState {
  allowance: bigint;
  supported: boolean;
  /** Present when supported. */
  nonce?: bigint;
  domain?: PermitDomain;
}

/** A node failure as the spec's 503; everything else passes through. */
async function node<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ExchangeError) throw err;
    throw new ExchangeError("UNAVAILABLE", 503, `${what}: ${revertReason(err)}`);
  }
}

export class FundsReader {
  constructor(
    private readonly client: FundsClient,
    readonly deployment: FundsDeployment,
  ) {}

  blockNumber(): Promise<bigint> {
    return node("block number", () => this.client.getBlockNumber({ cacheTime: 0 }));
  }

  /** At `blockNumber` when given (a read that must agree with a ledger synced to it), else the latest block. */
  walletBalance(owner: Address, token: Address, blockNumber?: bigint): Promise<bigint> {
    return node("wallet balance", () =>
      this.client.readContract({ address: token, abi: ERC20_READ_ABI, functionName: "balanceOf", args: [owner], ...(blockNumber === undefined ? {} : { blockNumber }) }),
    );
  }

  vaultBalance(owner: Address, token: Address): Promise<bigint> {
    return node("vault balance", () =>
      this.client.readContract({ address: this.deployment.vault, abi: Vault.abi, functionName: "balanceOf", args: [owner, token] }),
    );
  }

  withdrawUuidUsed(user: Address, uuid: bigint): Promise<boolean> {
    return node("withdraw uuid", () =>
      this.client.readContract({ address: this.deployment.exchange, abi: Exchange.abi, functionName: "withdrawUuidUsed", args: [user, uuid] }),
    );
  }

  /**
   * ERC-2612 state of `token` for owner/spender. A token is permit-capable when it
   * answers nonces(owner) and its EIP-712 domain can be established: from EIP-5267
   * eip712Domain(), or else name() with version "1" checked against DOMAIN_SEPARATOR().
   * A token that reverts on these (or has no code) is unsupported, not an error.
   */
  async permitState(token: Address, owner: Address, spender: Address): Promise<PermitState> {
    const allowance = await node("allowance", async () => {
      try {
        return await this.client.readContract({ address: token, abi: ERC20_READ_ABI, functionName: "allowance", args: [owner, spender] });
      } catch (err) {
        // Not an ERC-20 at all (no code, or reverts): nothing is approved.
        if (isNodeUnavailable(err)) throw err;
        return 0n;
      }
    });
    const nonce = await this.optionalRead(() => this.client.readContract({ address: token, abi: ERC20_READ_ABI, functionName: "nonces", args: [owner] }));
    if (nonce === null) return { allowance, supported: false };
    const domain = await this.permitDomain(token);
    if (domain === null) return { allowance, supported: false };
    return { allowance, supported: true, nonce, domain };
  }

  private async permitDomain(token: Address): Promise<PermitDomain | null> {
    const eip5267 = await this.optionalRead(() => this.client.readContract({ address: token, abi: ERC20_READ_ABI, functionName: "eip712Domain" }));
    if (eip5267 !== null) {
      const [, name, version, chainId, verifyingContract] = eip5267;
      return { name, version, chainId: Number(chainId), verifyingContract: verifyingContract.toLowerCase() as Address };
    }
    const [name, separator] = await Promise.all([
      this.optionalRead(() => this.client.readContract({ address: token, abi: ERC20_READ_ABI, functionName: "name" })),
      this.optionalRead(() => this.client.readContract({ address: token, abi: ERC20_READ_ABI, functionName: "DOMAIN_SEPARATOR" })),
    ]);
    if (name === null || separator === null) return null;
    const guess: PermitDomain = { name, version: "1", chainId: this.deployment.chainId, verifyingContract: token };
    const computed = hashDomain({
      domain: { ...guess, chainId: BigInt(guess.chainId) },
      types: {
        EIP712Domain: [
          { name: "name", type: "string" },
          { name: "version", type: "string" },
          { name: "chainId", type: "uint256" },
          { name: "verifyingContract", type: "address" },
        ],
      },
    });
    return computed.toLowerCase() === separator.toLowerCase() ? guess : null;
  }

  /** A read that may legitimately revert (unsupported interface): null then; node failures still throw. */
  private async optionalRead<T>(fn: () => Promise<T>): Promise<T | null> {
    try {
      return await fn();
    } catch (err) {
      if (isNodeUnavailable(err)) throw new ExchangeError("UNAVAILABLE", 503, `token read: ${revertReason(err)}`);
      return null;
    }
  }

  /**
   * Wait up to `timeoutMs` for the transaction to be mined (true) or give up (false).
   * On an automining chain the block is stored a moment after eth_sendRawTransaction
   * returns; syncing the ledger before then would miss the deposit. The bound keeps
   * manual and interval block modes from stalling the relay: their deposits are
   * credited by a later sync.
   */
  async waitMined(txHash: Hex, timeoutMs = 250): Promise<boolean> {
    try {
      await pollReceipt(this.client, txHash, { timeoutMs });
      return true;
    } catch {
      return false;
    }
  }

  /**
   * eth_sendRawTransaction. The node refusing the transaction (nonce too low,
   * insufficient funds for gas, underpriced) is the sender's problem: 400 with the
   * node's reason. An unreachable node is 503. (Anvil answers a hash for a transaction
   * under Prague's calldata floor and drops it at the next block; the broadcast policy
   * refuses such a transaction before it gets here.)
   */
  async sendRawTransaction(rawTx: Hex): Promise<Hex> {
    try {
      return (await this.client.sendRawTransaction({ serializedTransaction: rawTx as ViemHex })) as Hex;
    } catch (err) {
      if (isNodeUnavailable(err) || !(err instanceof BaseError)) {
        throw new ExchangeError("UNAVAILABLE", 503, `broadcast failed: ${revertReason(err)}`);
      }
      throw new ExchangeError("VALIDATION", 400, `transaction rejected by the node: ${revertReason(err)}`);
    }
  }
}
