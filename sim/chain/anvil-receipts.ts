// Reading the Exchange's settlement and deposit events out of raw JSON-RPC
// receipts and logs. The failed mask comes from BatchSettled (a transaction's
// return value is not in its receipt); per-match reasons from MatchFailed.
import { decodeAbiParameters, keccak256, toHex } from "viem";
import type { Address, Hex } from "../core/typed-data.ts";
import type { BatchReceipt, DepositEvent, MatchFailure, WithdrawalEvent } from "./port.ts";
import { decodeBatchSettledMask, decodeMatchFailed } from "./settlement-log-data.ts";

export const TOPIC_BATCH_SETTLED: Hex = keccak256(toHex("BatchSettled(uint256,uint256)"));
export const TOPIC_MATCH_FAILED: Hex = keccak256(toHex("MatchFailed(bytes32,bytes32,string,uint256)"));
export const TOPIC_DEPOSIT: Hex = keccak256(toHex("Deposit(address,address,uint256)"));
/** Router.IntentDeposit(taker indexed, token indexed, amount): the same layout as Deposit. */
export const TOPIC_INTENT_DEPOSIT: Hex = keccak256(toHex("IntentDeposit(address,address,uint256)"));
export const TOPIC_WITHDRAWAL: Hex = keccak256(toHex("Withdrawal(address,address,uint256,address)"));
/** InstantWithdraw(user indexed, uuid indexed, executor, recipient): after the intent's Withdrawal events, in the same transaction. */
export const TOPIC_INSTANT_WITHDRAW: Hex = keccak256(toHex("InstantWithdraw(address,uint256,address,address)"));

/** The fields of an eth_getTransactionReceipt / eth_getLogs answer we read. */
export interface RawLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  transactionHash: string;
  logIndex: string;
}

export interface RawReceipt {
  transactionHash: string;
  blockNumber: string;
  status: string;
  logs: RawLog[];
  effectiveGasPrice?: string;
  gasUsed?: string;
}

/** The reason a match batch's receipt carries when it succeeded without the exchange's BatchSettled event. */
export const NO_BATCH_SETTLED = "NO_BATCH_SETTLED_EVENT";

/**
 * A mined settlement receipt in the port's terms. `revertReason` is filled in by the
 * caller for reverted transactions (it needs a trace, which a receipt does not carry).
 * A match batch (`batch`) that succeeded without the exchange's BatchSettled event ran no
 * exchange code (its code was replaced through rpc_url, or the chain reset): nothing was
 * settled, so it reads as reverted, with NO_BATCH_SETTLED as its reason.
 */
export function parseSettlementReceipt(raw: RawReceipt, exchange: Address, revertReason: string | null, batch = false): BatchReceipt {
  const base = { txHash: raw.transactionHash.toLowerCase() as Hex, blockNumber: BigInt(raw.blockNumber) };
  if (raw.status !== "0x1") return { ...base, status: "reverted", revertReason, failedMask: 0n, failures: [] };
  let failedMask = 0n;
  let batchSettled = false;
  const failures: MatchFailure[] = [];
  for (const log of raw.logs) {
    if (log.address.toLowerCase() !== exchange) continue;
    const topic = log.topics[0];
    if (topic === TOPIC_BATCH_SETTLED) {
      batchSettled = true;
      failedMask = decodeBatchSettledMask(log.data);
    } else if (topic === TOPIC_MATCH_FAILED) {
      const { reason, index } = decodeMatchFailed(log.data);
      failures.push({ index: Number(index), reason });
    }
  }
  if (batch && !batchSettled) return { ...base, status: "reverted", revertReason: NO_BATCH_SETTLED, failedMask: 0n, failures: [] };
  failures.sort((a, b) => a.index - b.index);
  return { ...base, status: "success", revertReason: null, failedMask, failures };
}

export function parseDepositLog(log: RawLog): DepositEvent {
  return {
    owner: `0x${log.topics[1]!.slice(26)}`.toLowerCase() as Address,
    token: `0x${log.topics[2]!.slice(26)}`.toLowerCase() as Address,
    amount: BigInt(log.data),
    blockNumber: BigInt(log.blockNumber),
    txHash: log.transactionHash.toLowerCase() as Hex,
    logIndex: Number(BigInt(log.logIndex)),
  };
}

/** Withdrawal(user indexed, token indexed, amount, to). */
export function parseWithdrawalLog(log: RawLog): WithdrawalEvent {
  const [amount, to] = decodeAbiParameters([{ type: "uint256" }, { type: "address" }], log.data as Hex);
  return {
    owner: `0x${log.topics[1]!.slice(26)}`.toLowerCase() as Address,
    token: `0x${log.topics[2]!.slice(26)}`.toLowerCase() as Address,
    amount,
    recipient: to.toLowerCase() as Address,
    blockNumber: BigInt(log.blockNumber),
    txHash: log.transactionHash.toLowerCase() as Hex,
    logIndex: Number(BigInt(log.logIndex)),
  };
}

/**
 * The Withdrawal events among `logs` (Withdrawal and InstantWithdraw logs of one range),
 * each marked with its intent's uuid when its transaction was an instant withdrawal of
 * its owner's.
 */
export function parseWithdrawalLogs(logs: readonly RawLog[]): WithdrawalEvent[] {
  // The contract emits an intent's Withdrawal events, then its InstantWithdraw: in log order,
  // an InstantWithdraw names the owner's Withdrawal events of its transaction since the last
  // one (a transaction may execute several intents of one user).
  const ordered = [...logs].sort((a, b) => Number(BigInt(a.blockNumber) - BigInt(b.blockNumber)) || Number(BigInt(a.logIndex) - BigInt(b.logIndex)));
  const out: WithdrawalEvent[] = [];
  const awaiting = new Map<string, number[]>(); // txHash|owner → positions in out
  for (const log of ordered) {
    if (log.topics[0] === TOPIC_WITHDRAWAL) {
      const ev = parseWithdrawalLog(log);
      const key = `${ev.txHash}|${ev.owner}`;
      awaiting.set(key, [...(awaiting.get(key) ?? []), out.length]);
      out.push(ev);
    } else if (log.topics[0] === TOPIC_INSTANT_WITHDRAW) {
      const key = `${log.transactionHash.toLowerCase()}|0x${log.topics[1]!.slice(26).toLowerCase()}`;
      const uuid = BigInt(log.topics[2]!);
      for (const i of awaiting.get(key) ?? []) out[i] = { ...out[i]!, instantUuid: uuid };
      awaiting.delete(key);
    }
  }
  return out;
}

/** Error(string) revert data → the string; anything else → null. */
export function decodeRevertData(data: unknown): string | null {
  if (typeof data !== "string" || !data.startsWith("0x08c379a0")) return null;
  try {
    return decodeAbiParameters([{ type: "string" }], `0x${data.slice(10)}` as Hex)[0];
  } catch {
    return null;
  }
}
