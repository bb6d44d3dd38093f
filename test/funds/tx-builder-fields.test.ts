// The fields of an unsigned helper transaction, from what the node answers: the pending
// nonce, the estimate plus 20 % headroom, maxFeePerGas = 2 × base fee + tip.
import { describe, expect, it } from "vitest";
import { HttpRequestError } from "viem";
import { TxBuilder, type FundsClient, type FundsDeployment } from "../../sim/chain/tx-builder.ts";
import type { Address, Hex } from "../../sim/core/typed-data.ts";

const deployment: FundsDeployment = {
  chainId: 31337,
  exchange: "0x0000000000000000000000000000000000000e0c",
  vault: "0x0000000000000000000000000000000000000fa0",
  router: "0x0000000000000000000000000000000000000707",
};
const FROM = "0x00000000000000000000000000000000000a11ce" as Address;
const TO = "0x00000000000000000000000000000000000070C0" as Address;

/** A node: latest nonce 4, pending 6; base fee 10 wei; tip 3 wei; every call estimated at 100,000 gas. */
const node = {
  getTransactionCount: async ({ blockTag }: { blockTag: string }) => (blockTag === "pending" ? 6 : 4),
  getBlock: async () => ({ baseFeePerGas: 10n }),
  estimateMaxPriorityFeePerGas: async () => 3n,
  estimateGas: async () => 100_000n,
} as unknown as FundsClient;

describe("TxBuilder.build", () => {
  it("fills nonce, gas and fees from the node", async () => {
    expect(await new TxBuilder(node, deployment).build(FROM, TO, "0x1234" as Hex)).toEqual({
      to: TO.toLowerCase(),
      data: "0x1234",
      value: "0x0",
      chainId: "0x7a69",
      nonce: "0x6",
      gas: "0x1d4c0", // 120,000
      type: "0x2",
      maxFeePerGas: "0x17", // 2 × 10 + 3
      maxPriorityFeePerGas: "0x3",
    });
  });

  it("a node that does not answer the estimate is 503 UNAVAILABLE, not a revert's 400", async () => {
    const down = { ...node, estimateGas: async () => Promise.reject(new HttpRequestError({ url: "http://127.0.0.1:1" })) } as unknown as FundsClient;
    await expect(new TxBuilder(down, deployment).build(FROM, TO, "0x1234" as Hex)).rejects.toMatchObject({ name: "ExchangeError", code: "UNAVAILABLE", status: 503 });
  });
});
