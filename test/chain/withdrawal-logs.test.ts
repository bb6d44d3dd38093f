// Which Withdrawal events belong to which instant-withdraw intent: the contract emits an
// intent's Withdrawal events and then its InstantWithdraw, and one transaction (a batch
// contract, say) may execute several intents of the same user.
import { describe, expect, it } from "vitest";
import { encodeAbiParameters, pad, toHex } from "viem";
import { parseWithdrawalLogs, TOPIC_INSTANT_WITHDRAW, TOPIC_WITHDRAWAL, type RawLog } from "../../sim/chain/anvil-receipts.ts";

const USER = "0x00000000000000000000000000000000000a11ce";
const OTHER = "0x0000000000000000000000000000000000000b0b";
const TOKEN = "0x00000000000000000000000000000000000070c0";
const TX = `0x${"11".repeat(32)}`;
const TX2 = `0x${"22".repeat(32)}`;

let index = 0;
function withdrawal(tx: string, owner: string, amount: bigint): RawLog {
  return {
    address: "0x0",
    topics: [TOPIC_WITHDRAWAL, pad(owner as `0x${string}`), pad(TOKEN)],
    data: encodeAbiParameters([{ type: "uint256" }, { type: "address" }], [amount, owner as `0x${string}`]),
    blockNumber: "0x5",
    transactionHash: tx,
    logIndex: toHex(index++),
  } as RawLog;
}
function instant(tx: string, user: string, uuid: bigint): RawLog {
  return { address: "0x0", topics: [TOPIC_INSTANT_WITHDRAW, pad(user as `0x${string}`), pad(toHex(uuid))], data: "0x", blockNumber: "0x5", transactionHash: tx, logIndex: toHex(index++) } as RawLog;
}

describe("parseWithdrawalLogs", () => {
  it("two intents of one user in one transaction: each Withdrawal carries its own intent's uuid", () => {
    index = 0;
    const logs = [withdrawal(TX, USER, 30n), instant(TX, USER, 7n), withdrawal(TX, USER, 20n), withdrawal(TX, USER, 1n), instant(TX, USER, 8n)];
    expect(parseWithdrawalLogs(logs).map((e) => [e.amount, e.instantUuid])).toEqual([
      [30n, 7n],
      [20n, 8n],
      [1n, 8n],
    ]);
  });

  it("a Withdrawal with no InstantWithdraw of its owner after it (an emergency exit, a payout) carries none", () => {
    index = 0;
    const logs = [withdrawal(TX, OTHER, 5n), withdrawal(TX2, USER, 9n), instant(TX, USER, 3n)];
    expect(parseWithdrawalLogs(logs).map((e) => [e.amount, e.instantUuid])).toEqual([
      [5n, undefined],
      [9n, undefined],
    ]);
  });
});
