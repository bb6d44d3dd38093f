// A settlement receipt read in the port's terms: only the exchange's own BatchSettled and
// MatchFailed events count. Any contract can emit an event with the same signature (a
// token, a test's contract, a wallet the exchange calls): a receipt that carries one must
// not change a fill's outcome.
import { describe, expect, it } from "vitest";
import { encodeAbiParameters, type Hex } from "viem";
import { NO_BATCH_SETTLED, parseSettlementReceipt, TOPIC_BATCH_SETTLED, TOPIC_MATCH_FAILED, type RawLog } from "../../sim/chain/anvil-receipts.ts";
import type { Address } from "../../sim/core/typed-data.ts";

const EXCHANGE = "0x00000000000000000000000000000000000e0c11" as Address;
const IMPOSTOR = "0x0000000000000000000000000000000000000bad";
const TX = `0x${"11".repeat(32)}`;
const HASH = `0x${"ab".repeat(32)}` as Hex;

const log = (address: string, topic: Hex, data: Hex): RawLog => ({ address, topics: [topic], data, blockNumber: "0x7", transactionHash: TX, logIndex: "0x0" });
const batchSettled = (address: string, count: bigint, mask: bigint) => log(address, TOPIC_BATCH_SETTLED, encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], [count, mask]));
const matchFailed = (address: string, reason: string, index: bigint) =>
  log(address, TOPIC_MATCH_FAILED, encodeAbiParameters([{ type: "bytes32" }, { type: "bytes32" }, { type: "string" }, { type: "uint256" }], [HASH, HASH, reason, index]));

describe("parseSettlementReceipt", () => {
  it("ignores settlement events another contract emitted in the same transaction", () => {
    const raw = { transactionHash: TX, blockNumber: "0x7", status: "0x1", logs: [matchFailed(IMPOSTOR, "OVERFILL", 0n), batchSettled(IMPOSTOR, 2n, 1n), batchSettled(EXCHANGE, 2n, 0n)] };
    expect(parseSettlementReceipt(raw, EXCHANGE, null, true)).toEqual({ txHash: TX, blockNumber: 7n, status: "success", revertReason: null, failedMask: 0n, failures: [] });
  });

  it("a match batch with only another contract's BatchSettled settled nothing", () => {
    const raw = { transactionHash: TX, blockNumber: "0x7", status: "0x1", logs: [batchSettled(IMPOSTOR, 1n, 0n)] };
    expect(parseSettlementReceipt(raw, EXCHANGE, null, true)).toEqual({ txHash: TX, blockNumber: 7n, status: "reverted", revertReason: NO_BATCH_SETTLED, failedMask: 0n, failures: [] });
  });

  it("reads the exchange's failed mask and reasons, with the exchange's address in any case", () => {
    const upper = `0x${EXCHANGE.slice(2).toUpperCase()}`;
    const raw = { transactionHash: TX.toUpperCase().replace("0X", "0x"), blockNumber: "0x7", status: "0x1", logs: [matchFailed(upper, "PRICE_MISMATCH", 1n), batchSettled(upper, 2n, 2n)] };
    expect(parseSettlementReceipt(raw, EXCHANGE, null, true)).toEqual({ txHash: TX, blockNumber: 7n, status: "success", revertReason: null, failedMask: 2n, failures: [{ index: 1, reason: "PRICE_MISMATCH" }] });
  });
});
