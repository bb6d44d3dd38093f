// The contracts' EIP-712 digests must equal what viem computes from our shared
// typed-data definitions, or no signature a client makes would ever verify.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashDomain, hashTypedData, keccak256, toHex } from "viem";
import { INTENT_TYPE, ORDER_TYPE, WITHDRAW_INTENT_TYPE, ZERO_ADDRESS } from "../../sim/core/typed-data.ts";
import { domainOf, Exchange, order, Router, startHarness, type Harness } from "./harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

describe("EIP-712 digests match viem", () => {
  it("domain separator is the exchange domain (name, version 1, chain id, exchange address)", async () => {
    const onChain = await h.pub.readContract({ address: h.d.exchange, abi: Exchange.abi, functionName: "domainSeparator" });
    const domain = domainOf(h);
    expect(onChain).toBe(
      hashDomain({
        domain: { ...domain, chainId: BigInt(domain.chainId) },
        types: {
          EIP712Domain: [
            { name: "name", type: "string" },
            { name: "version", type: "string" },
            { name: "chainId", type: "uint256" },
            { name: "verifyingContract", type: "address" },
          ],
        },
      }),
    );
    const [, name, version, chainId, verifyingContract] = await h.pub.readContract({
      address: h.d.exchange,
      abi: Exchange.abi,
      functionName: "eip712Domain",
    });
    expect({ name, version, chainId, verifyingContract: verifyingContract.toLowerCase() }).toEqual({
      name: "fakex",
      version: "1",
      chainId: BigInt(h.d.chainId),
      verifyingContract: h.d.exchange,
    });
  });

  it("Order digest", async () => {
    const now = 1_700_000_000n;
    const o = order(
      {
        user: h.alice.address,
        fromToken: h.d.tokens.USDC!,
        toToken: h.d.tokens.WETH!,
        fromAmount: 123_456_789n,
        toAmount: 10n ** 17n + 3n,
        feeBps: 30n,
        initialDepositAmount: 5n,
        recipient: h.bob.address,
      },
      now,
    );
    const onChain = await h.pub.readContract({
      address: h.d.exchange,
      abi: Exchange.abi,
      functionName: "orderHash",
      args: [o as never],
    });
    expect(onChain).toBe(hashTypedData({ domain: domainOf(h), types: { Order: ORDER_TYPE }, primaryType: "Order", message: o as never }));
  });

  it("Intent digest (Router, signed under the exchange domain)", async () => {
    const intent = {
      taker: h.alice.address,
      inputToken: h.d.tokens.USDC!,
      outputToken: h.d.tokens.WETH!,
      maxInputAmount: 1_000_000n,
      minOutputAmount: 7n,
      recipient: ZERO_ADDRESS,
      initialDepositAmount: 9n,
      uuid: (5n << 252n) | 77n,
      deadline: 1_800_000_000n,
    };
    const onChain = await h.pub.readContract({
      address: h.d.router,
      abi: Router.abi,
      functionName: "intentHash",
      args: [intent as never],
    });
    expect(onChain).toBe(hashTypedData({ domain: domainOf(h), types: { Intent: INTENT_TYPE }, primaryType: "Intent", message: intent as never }));
  });

  it("WithdrawIntent digest (arrays hashed as concatenated words)", async () => {
    const intent = {
      user: h.alice.address,
      tokens: [h.d.tokens.USDC!, h.d.tokens.WETH!, h.d.tokens.WBTC!],
      amounts: [1n, 2n ** 200n, 0n],
      recipient: h.carol.address,
      deadline: 1_800_000_000n,
      uuid: 42n,
    };
    const onChain = await h.pub.readContract({
      address: h.d.exchange,
      abi: Exchange.abi,
      functionName: "withdrawIntentHash",
      args: [intent],
    });
    expect(onChain).toBe(
      hashTypedData({ domain: domainOf(h), types: { WithdrawIntent: WITHDRAW_INTENT_TYPE }, primaryType: "WithdrawIntent", message: intent }),
    );
  });

  it("type hashes are the spec's member lists", async () => {
    const [orderTh, withdrawTh, intentTh] = await Promise.all([
      h.pub.readContract({ address: h.d.exchange, abi: Exchange.abi, functionName: "ORDER_TYPEHASH" }),
      h.pub.readContract({ address: h.d.exchange, abi: Exchange.abi, functionName: "WITHDRAW_INTENT_TYPEHASH" }),
      h.pub.readContract({ address: h.d.router, abi: Router.abi, functionName: "INTENT_TYPEHASH" }),
    ]);
    const typeString = (name: string, members: readonly { name: string; type: string }[]) =>
      `${name}(${members.map((m) => `${m.type} ${m.name}`).join(",")})`;
    expect(orderTh).toBe(keccak256(toHex(typeString("Order", ORDER_TYPE))));
    expect(withdrawTh).toBe(keccak256(toHex(typeString("WithdrawIntent", WITHDRAW_INTENT_TYPE))));
    expect(intentTh).toBe(keccak256(toHex(typeString("Intent", INTENT_TYPE))));
  });
});
