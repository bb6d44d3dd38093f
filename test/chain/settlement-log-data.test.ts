// The hand decoder of BatchSettled / MatchFailed data against viem's generic one: the same
// values for everything the contract emits (real receipts, and encodings of any reason and
// index), and the same refusals for malformed data.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeAbiParameters, encodeAbiParameters, type Hex } from "viem";
import { EXECUTOR_KEY } from "../../fixtures/accounts.ts";
import { createAnvilChainPort } from "../../sim/chain/anvil.ts";
import { TOPIC_BATCH_SETTLED, TOPIC_MATCH_FAILED, type RawLog } from "../../sim/chain/anvil-receipts.ts";
import { canonicalMatchFailed, decodeBatchSettledMask, decodeMatchFailed } from "../../sim/chain/settlement-log-data.ts";
import type { ChainMatch } from "../../sim/chain/port.ts";
import { ZERO_ADDRESS, type Address, type OrderMessage } from "../../sim/core/typed-data.ts";
import { chainRpc, startTestChain, type ChainCtx } from "./helpers.ts";

const BATCH_SETTLED = [{ type: "uint256" }, { type: "uint256" }] as const;
const MATCH_FAILED = [{ type: "bytes32" }, { type: "bytes32" }, { type: "string" }, { type: "uint256" }] as const;
const HASH_A = `0x${"ab".repeat(32)}` as Hex;
const HASH_B = `0x${"cd".repeat(32)}` as Hex;

/** viem's answer: the values, or the refusal's message. */
function viemMatchFailed(data: string): { reason: string; index: bigint } | { error: string } {
  try {
    const [, , reason, index] = decodeAbiParameters(MATCH_FAILED, data as Hex);
    return { reason, index };
  } catch (e) {
    return { error: (e as Error).message };
  }
}
function oursMatchFailed(data: string): { reason: string; index: bigint } | { error: string } {
  try {
    return decodeMatchFailed(data);
  } catch (e) {
    return { error: (e as Error).message };
  }
}
function viemMask(data: string): bigint | string {
  try {
    return decodeAbiParameters(BATCH_SETTLED, data as Hex)[1];
  } catch (e) {
    return (e as Error).message;
  }
}
function oursMask(data: string): bigint | string {
  try {
    return decodeBatchSettledMask(data);
  } catch (e) {
    return (e as Error).message;
  }
}
const matchFailedData = (reason: string, index: bigint) => encodeAbiParameters(MATCH_FAILED, [HASH_A, HASH_B, reason, index]);

describe("MatchFailed data", () => {
  const reasons = [
    "",
    "X",
    "BAD_SIGNATURE",
    "A".repeat(31),
    "B".repeat(32),
    "C".repeat(33),
    "D".repeat(64),
    "E".repeat(65),
    "with\u0000nul",
    "tab\tand\nnewline",
    "\u007f",
    "ÜBER_FAIL",
    "日本語の理由",
    "emoji 🚀",
    "\ufeffbom first",
  ];
  const indexes = [0n, 1n, 19n, 255n, 2n ** 48n, 2n ** 53n + 1n, 2n ** 256n - 1n];

  it("decodes every reason and index to exactly viem's values", () => {
    for (const reason of reasons) {
      for (const index of indexes) {
        const data = matchFailedData(reason, index);
        expect(oursMatchFailed(data), `${JSON.stringify(reason)} #${index}`).toEqual(viemMatchFailed(data));
        // ASCII reasons are read by hand, the rest by viem.
        expect(canonicalMatchFailed(data) !== null).toBe(/^[\u0000-\u007f]*$/.test(reason));
        // viem's TextDecoder drops a leading byte order mark: so does the hand decoder (through viem).
        expect(decodeMatchFailed(data)).toEqual({ reason: reason.replace(/^\ufeff/, ""), index });
      }
    }
  });

  it("reads invalid UTF-8 in a reason as viem does (replacement characters)", () => {
    // "ok" then 0xff 0xfe: bytes a string cannot encode, written into the reason's word by hand.
    const canonical = matchFailedData("okAB", 3n);
    const data = canonical.replace("6f6b4142", "6f6bfffe");
    expect(oursMatchFailed(data)).toEqual(viemMatchFailed(data));
    expect(decodeMatchFailed(data).reason).toBe("ok\ufffd\ufffd");
  });

  it("refuses malformed data as viem does, and reads what viem reads of odd encodings", () => {
    const good = matchFailedData("BAD_SIGNATURE", 7n);
    const word = (n: number) => n.toString(16).padStart(64, "0");
    const odd = [
      "0x",
      "0x00",
      good.slice(0, 2 + 64),
      good.slice(0, 2 + 4 * 64),
      good.slice(0, 2 + 5 * 64),
      good.slice(0, -2),
      good.slice(0, -1),
      `${good}00`,
      `${good}${"00".repeat(32)}`,
      good.toUpperCase().replace("0X", "0x"),
      good.replace(/a/g, "A"),
      `${good.slice(0, -2)}zz`,
      // The string's offset pointing elsewhere: past the end, into the head, at a later copy.
      good.slice(0, 2 + 128) + word(0x1000) + good.slice(2 + 192),
      good.slice(0, 2 + 128) + word(0x20) + good.slice(2 + 192),
      good.slice(0, 2 + 128) + word(0xa0) + good.slice(2 + 192) + word(3) + "414243".padEnd(64, "0"),
      // A length past the data, and one too big for a number.
      good.slice(0, 2 + 256) + word(0x40) + good.slice(2 + 320),
      good.slice(0, 2 + 256) + "f".repeat(64) + good.slice(2 + 320),
      // A length whose low 8 hex digits are the right one, with a high digit set.
      good.slice(0, 2 + 256) + "1" + good.slice(2 + 257),
    ];
    for (const data of odd) {
      expect(oursMatchFailed(data), data).toEqual(viemMatchFailed(data));
      expect(canonicalMatchFailed(data), data).toBeNull();
    }
    expect("error" in oursMatchFailed("0x")).toBe(true);
    expect("error" in oursMatchFailed(good.slice(0, 2 + 4 * 64))).toBe(true);
  });
});

describe("BatchSettled data", () => {
  it("decodes the failed mask to exactly viem's value, and refuses what viem refuses", () => {
    const masks = [0n, 1n, 0b1011n, (1n << 20n) - 1n, 2n ** 255n, 2n ** 256n - 1n];
    for (const mask of masks) {
      const data = encodeAbiParameters(BATCH_SETTLED, [20n, mask]);
      expect(oursMask(data)).toBe(mask);
      expect(oursMask(data)).toBe(viemMask(data));
    }
    const good = encodeAbiParameters(BATCH_SETTLED, [20n, 5n]);
    for (const data of ["0x", "0x01", good.slice(0, 2 + 64), good.slice(0, -2), `${good}00`, good.replace(/0/g, "0").toUpperCase().replace("0X", "0x"), `${good.slice(0, -1)}g`]) {
      expect(oursMask(data), data).toEqual(viemMask(data));
    }
  });
});

describe("on a real chain", () => {
  let ctx: ChainCtx;
  beforeAll(async () => {
    ctx = await startTestChain(1);
  }, 60_000);
  afterAll(async () => {
    await ctx?.chain.stop();
  });

  it("the logs of a batch with failed matches decode exactly as viem decodes them", async () => {
    const port = await createAnvilChainPort({ rpcUrl: ctx.chain.info.rpcUrl, chainId: ctx.chain.info.chainId, deployment: ctx.chain.info.deployment, executorKey: EXECUTOR_KEY });
    const token = (symbol: string) => ctx.registry.tokenBySymbol(symbol)!.address;
    const user = ctx.traders[0]!.address.toLowerCase() as Address;
    const expiration = (await port.latestTimestamp()) + 3600n;
    const order = (uuid: bigint, from: string, to: string): OrderMessage => ({ user, expiration, feeBps: 0n, recipient: ZERO_ADDRESS, fromToken: token(from), toToken: token(to), fromAmount: 10n, toAmount: 10n, initialDepositAmount: 0n, uuid });
    const match = (i: number): ChainMatch => ({ maker: order(BigInt(i), "USDT", "USDC"), makerSignature: "0x", taker: order(BigInt(1000 + i), "USDC", "USDT"), takerSignature: "0x", makerAmount: 1n, takerAmount: 1n });
    const matches = [match(1), match(2), match(3), match(4)];
    // A fault reason of 40 bytes (two words) and one that is not ASCII (viem's path).
    await port.setMatchFault(matches[1]!.maker, matches[1]!.taker, "A_REASON_LONGER_THAN_ONE_WORD_0123456789");
    await port.setMatchFault(matches[2]!.maker, matches[2]!.taker, "ÉCHEC");
    const { txHash } = await port.submitBatch(matches);
    const receipt = await port.getReceipt(txHash);
    expect(receipt!.failures).toEqual([
      { index: 0, reason: "BAD_SIGNATURE" },
      { index: 1, reason: "A_REASON_LONGER_THAN_ONE_WORD_0123456789" },
      { index: 2, reason: "ÉCHEC" },
      { index: 3, reason: "BAD_SIGNATURE" },
    ]);
    expect(receipt!.failedMask).toBe(0b1111n);
    const logs = (await chainRpc(ctx, "eth_getLogs", [{ address: ctx.chain.info.deployment.exchange, topics: [[TOPIC_BATCH_SETTLED, TOPIC_MATCH_FAILED]], fromBlock: "0x0", toBlock: "latest" }])) as RawLog[];
    const failed = logs.filter((l) => l.topics[0] === TOPIC_MATCH_FAILED);
    const settled = logs.filter((l) => l.topics[0] === TOPIC_BATCH_SETTLED);
    expect(failed.length).toBe(4);
    expect(settled.length).toBe(1);
    for (const l of failed) expect(oursMatchFailed(l.data)).toEqual(viemMatchFailed(l.data));
    expect(failed.map((l) => canonicalMatchFailed(l.data)?.reason ?? null)).toEqual(["BAD_SIGNATURE", "A_REASON_LONGER_THAN_ONE_WORD_0123456789", null, "BAD_SIGNATURE"]);
    for (const l of settled) expect(oursMask(l.data)).toBe(viemMask(l.data));
  });
});
