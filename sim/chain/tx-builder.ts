// Unsigned EIP-1559 transactions for the funds helpers (spec "Transaction object"):
// every field a hex string, ready for a wallet's signTransaction.
//
// - nonce: the sender's pending nonce, so a client that builds the next helper call
//   before the previous one is mined still gets a usable nonce;
// - gas: eth_estimateGas from the sender plus 20 %. The headroom covers calls whose
//   estimate is tight: depositFundWithPermit catches a failing permit, and a
//   try/catch callee only gets 63/64 of the remaining gas (EIP-150);
// - fees: from the latest block, maxFeePerGas = 2 * baseFee + tip (room for the base
//   fee to rise for a few full blocks), tip = the node's eth_maxPriorityFeePerGas.
//
// When estimation reverts we answer 400 with the revert reason instead of a fixed
// gas limit: a live builder that estimates cannot produce the transaction either, and
// handing out a transaction that is certain to revert would only make the client pay
// for the failure. The caller learns why now (e.g. "ERC20InsufficientAllowance").

import {
  BaseError,
  ContractFunctionRevertedError,
  decodeErrorResult,
  encodeFunctionData,
  HttpRequestError,
  TimeoutError,
  toHex,
  type Chain,
  type PublicClient,
  type Transport,
} from "viem";
import { ExchangeError } from "../core/errors.ts";
import type { Address, Hex, WithdrawIntentMessage } from "../core/typed-data.ts";
import { Exchange, TestToken } from "./artifacts.ts";

/** The spec's Transaction object. */
export interface UnsignedTx {
  to: Address;
  data: Hex;
  value: Hex;
  chainId: Hex;
  nonce: Hex;
  gas: Hex;
  type: "0x2";
  maxFeePerGas: Hex;
  maxPriorityFeePerGas: Hex;
}

/** Addresses the builders target (the live values of GET /config). */
export interface FundsDeployment {
  chainId: number;
  exchange: Address;
  vault: Address;
  router: Address;
}

export interface PermitFields {
  /** 65-byte or 64-byte (EIP-2098) hex signature. */
  signature: Hex;
  deadline: bigint;
  /** Permit value; defaults to the deposit amount. */
  amount: bigint;
}

export type FundsClient = PublicClient<Transport, Chain | undefined>;

/** Percent added on top of eth_estimateGas. */
export const GAS_HEADROOM_PERCENT = 20n;

/** Node unreachable or timed out: the spec's 503 (the cause stays in the log). */
export function isNodeUnavailable(err: unknown): boolean {
  return err instanceof BaseError && err.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError) !== null;
}

/** The revert reason of a failed call or estimate, as far as the node tells it. */
export function revertReason(err: unknown): string {
  if (err instanceof BaseError) {
    const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError) return reverted.reason ?? reverted.data?.errorName ?? "reverted";
    const custom = customError(err);
    if (custom !== null) return custom;
    const withDetails = err.walk((e) => e instanceof BaseError && typeof e.details === "string" && e.details.length > 0) as BaseError | null;
    if (withDetails) return withDetails.details;
    return err.shortMessage;
  }
  return err instanceof Error ? err.message : String(err);
}

/** The errors a relayed call can revert with: the tokens' (OpenZeppelin ERC-20, permit) and the exchange's. */
const CALL_ERRORS = [...TestToken.abi, ...Exchange.abi].filter((x) => x.type === "error");

/**
 * A custom error in the revert data of a raw call (estimateGas knows no ABI), by name and
 * arguments: "ERC20InvalidReceiver(0x0000…)" rather than the node's selector and raw bytes.
 */
function customError(err: BaseError): string | null {
  const withData = err.walk((e) => typeof (e as { data?: unknown }).data === "string" && /^0x[0-9a-f]{8}/i.test((e as { data: string }).data));
  if (withData === null) return null;
  try {
    const decoded = decodeErrorResult({ abi: CALL_ERRORS, data: (withData as unknown as { data: Hex }).data });
    // Error(string) and Panic keep the node's own wording (the reason text), as before.
    if ((decoded.errorName as string) === "Error" || (decoded.errorName as string) === "Panic") return null;
    // Addresses lowercase, as everywhere else on the wire (viem checksums them).
    return `${decoded.errorName}(${(decoded.args ?? []).map((a) => (typeof a === "string" ? a.toLowerCase() : String(a))).join(", ")})`;
  } catch {
    return null;
  }
}

export class TxBuilder {
  constructor(
    private readonly client: FundsClient,
    private readonly deployment: FundsDeployment,
  ) {}

  /** ERC-20 approve(spender, amount) signed by `owner`. The route checks the spender. */
  approve(p: { token: Address; owner: Address; spender: Address; amount: bigint }): Promise<UnsignedTx> {
    const data = encodeFunctionData({ abi: TestToken.abi, functionName: "approve", args: [p.spender, p.amount] });
    return this.build(p.owner, p.token, data);
  }

  /** depositFund(token, owner, amount), or depositFundWithPermit when permit fields are given. */
  deposit(p: { token: Address; owner: Address; amount: bigint; permit?: PermitFields }): Promise<UnsignedTx> {
    const data = p.permit
      ? encodeFunctionData({
          abi: Exchange.abi,
          functionName: "depositFundWithPermit",
          args: [p.token, p.owner, p.permit.amount, p.amount, p.permit.deadline, p.permit.signature],
        })
      : encodeFunctionData({ abi: Exchange.abi, functionName: "depositFund", args: [p.token, p.owner, p.amount] });
    return this.build(p.owner, this.deployment.exchange, data);
  }

  /** ERC-20 transfer(to, amount) from `from`. */
  transfer(p: { token: Address; from: Address; to: Address; amount: bigint }): Promise<UnsignedTx> {
    const data = encodeFunctionData({ abi: TestToken.abi, functionName: "transfer", args: [p.to, p.amount] });
    return this.build(p.from, p.token, data);
  }

  /** executeInstantWithdrawDualSig(intent, userSignature, executor, executorSignature), sent by `from`. */
  withdraw(p: { intent: WithdrawIntentMessage; userSignature: Hex; executor: Address; executorSignature: Hex; from: Address }): Promise<UnsignedTx> {
    const data = encodeFunctionData({
      abi: Exchange.abi,
      functionName: "executeInstantWithdrawDualSig",
      args: [p.intent, p.userSignature, p.executor, p.executorSignature],
    });
    return this.build(p.from, this.deployment.exchange, data);
  }

  /** Nonce, gas and fees for `from` calling `to` with `data`. */
  async build(from: Address, to: Address, data: Hex): Promise<UnsignedTx> {
    try {
      const [nonce, block, tip] = await Promise.all([
        this.client.getTransactionCount({ address: from, blockTag: "pending" }),
        this.client.getBlock({ blockTag: "latest" }),
        this.client.estimateMaxPriorityFeePerGas().catch(() => 1_000_000_000n),
      ]);
      let gas: bigint;
      try {
        gas = await this.client.estimateGas({ account: from, to, data, value: 0n });
      } catch (err) {
        if (isNodeUnavailable(err)) throw err;
        throw new ExchangeError("VALIDATION", 400, `transaction would revert: ${revertReason(err)}`);
      }
      const baseFee = block.baseFeePerGas ?? 0n;
      return {
        to: to.toLowerCase() as Address,
        data,
        value: "0x0",
        chainId: toHex(this.deployment.chainId),
        nonce: toHex(nonce),
        gas: toHex((gas * (100n + GAS_HEADROOM_PERCENT)) / 100n),
        type: "0x2",
        maxFeePerGas: toHex(baseFee * 2n + tip),
        maxPriorityFeePerGas: toHex(tip),
      };
    } catch (err) {
      if (err instanceof ExchangeError) throw err;
      throw new ExchangeError("UNAVAILABLE", 503, `chain node unavailable: ${revertReason(err)}`);
    }
  }
}
