// FundsReader.permitState on a token without EIP-5267: its permit domain is guessed from
// name() with version "1", and only a guess that hashes to the token's DOMAIN_SEPARATOR()
// is used (a token signing under another version would otherwise get permits that revert).
import { describe, expect, it } from "vitest";
import { hashDomain } from "viem";
import { FundsReader } from "../../sim/chain/funds-reads.ts";
import type { FundsClient } from "../../sim/chain/tx-builder.ts";
import type { Address } from "../../sim/core/typed-data.ts";

const TOKEN = "0x00000000000000000000000000000000000070c0" as Address;
const USER = "0x00000000000000000000000000000000000a11ce" as Address;
const deployment = { chainId: 31337, exchange: "0x0000000000000000000000000000000000000e0c", vault: "0x0000000000000000000000000000000000000fa0", router: "0x0000000000000000000000000000000000000707" } as unknown as ConstructorParameters<typeof FundsReader>[1];

const domainHash = (version: string) =>
  hashDomain({
    domain: { name: "Legacy", version, chainId: 31337n, verifyingContract: TOKEN },
    types: { EIP712Domain: [{ name: "name", type: "string" }, { name: "version", type: "string" }, { name: "chainId", type: "uint256" }, { name: "verifyingContract", type: "address" }] },
  });

/** A token answering nonces(), name() and DOMAIN_SEPARATOR(), reverting eip712Domain(). */
function legacyToken(separator: string): FundsClient {
  const answers: Record<string, unknown> = { allowance: 5n, nonces: 3n, name: "Legacy", DOMAIN_SEPARATOR: separator };
  return {
    readContract: async ({ functionName }: { functionName: string }) => {
      if (!(functionName in answers)) throw new Error(`execution reverted: ${functionName}`);
      return answers[functionName];
    },
  } as unknown as FundsClient;
}

describe("FundsReader.permitState without eip712Domain()", () => {
  it("uses name() and version 1 when they hash to DOMAIN_SEPARATOR()", async () => {
    const reader = new FundsReader(legacyToken(domainHash("1")), deployment);
    expect(await reader.permitState(TOKEN, USER, USER)).toEqual({ allowance: 5n, supported: true, nonce: 3n, domain: { name: "Legacy", version: "1", chainId: 31337, verifyingContract: TOKEN } });
  });

  it("is unsupported when DOMAIN_SEPARATOR() is of another version", async () => {
    const reader = new FundsReader(legacyToken(domainHash("2")), deployment);
    expect(await reader.permitState(TOKEN, USER, USER)).toEqual({ allowance: 5n, supported: false });
  });
});
