import { describe, expect, it } from "vitest";
import { configView, DEFAULT_VL_BATCH_LIMITS } from "../../sim/core/config-view.ts";

const EXCHANGE = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const VAULT = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512";
const SOR = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0";

describe("configView", () => {
  it("answers with nulls during partial start-up", () => {
    expect(configView({})).toEqual({
      chain_id: null,
      exchange_address: null,
      sera_address: null,
      vault_address: null,
      sor_address: null,
      domain_separator: null,
      eip712_domain: { name: null, version: "1", chainId: null, verifyingContract: null },
      limits: { vl_batch: { min: 2, max: 50 } },
    });
    // a separator needs all of name, chain id and exchange
    expect(configView({ chainId: 31337, domainName: "fakex" }).domain_separator).toBeNull();
    expect(configView({ chainId: 31337, exchangeAddress: EXCHANGE }).domain_separator).toBeNull();
  });

  it("full config: lowercase addresses and the EIP-712 domain separator", () => {
    const c = configView({
      chainId: 31337,
      exchangeAddress: EXCHANGE,
      vaultAddress: VAULT,
      sorAddress: SOR,
      domainName: "fakex",
      vlBatch: { min: 2, max: 20 },
    });
    expect(c.exchange_address).toBe(EXCHANGE.toLowerCase());
    expect(c.sera_address).toBe(c.exchange_address);
    expect(c.vault_address).toBe(VAULT.toLowerCase());
    expect(c.sor_address).toBe(SOR.toLowerCase());
    expect(c.eip712_domain).toEqual({ name: "fakex", version: "1", chainId: 31337, verifyingContract: EXCHANGE.toLowerCase() });
    expect(c.limits.vl_batch).toEqual({ min: 2, max: 20 });
    expect(c.domain_separator).toMatch(/^0x[0-9a-f]{64}$/);
    // the separator binds the chain id
    const other = configView({ chainId: 1, exchangeAddress: EXCHANGE, domainName: "fakex" }).domain_separator;
    expect(other).not.toBe(c.domain_separator);
  });

  it("matches a hand-computed EIP-712 domain separator", async () => {
    const { keccak256, encodeAbiParameters, stringToBytes } = await import("viem");
    const typeHash = keccak256(stringToBytes("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"));
    const expected = keccak256(
      encodeAbiParameters(
        [{ type: "bytes32" }, { type: "bytes32" }, { type: "bytes32" }, { type: "uint256" }, { type: "address" }],
        [typeHash, keccak256(stringToBytes("fakex")), keccak256(stringToBytes("1")), 31337n, EXCHANGE],
      ),
    );
    expect(configView({ chainId: 31337, exchangeAddress: EXCHANGE, domainName: "fakex" }).domain_separator).toBe(expected);
  });

  it("rejects bad addresses and bad VL limits", () => {
    expect(() => configView({ exchangeAddress: "0x12" })).toThrow(RangeError);
    expect(() => configView({ vlBatch: { min: 3, max: 2 } })).toThrow(RangeError);
    expect(() => configView({ vlBatch: { min: 0, max: 2 } })).toThrow(RangeError);
    expect(DEFAULT_VL_BATCH_LIMITS).toEqual({ min: 2, max: 50 });
  });
});
