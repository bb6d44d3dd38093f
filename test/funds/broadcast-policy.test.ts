// The broadcast policy as a pure function: allowed selector -> target pairs per
// endpoint, spender and registry checks, chain id, EIP-7702 delegate allowlist,
// unsigned and undecodable input. No chain needed.
import { describe, expect, it } from "vitest";
import { encodeFunctionData, parseAbi, serializeTransaction, type Abi, type TransactionSerializable } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { Exchange } from "../../sim/chain/artifacts.ts";
import { checkBroadcast, type BroadcastEndpoint, type BroadcastPolicyConfig } from "../../sim/core/broadcast-policy.ts";
import { ExchangeError } from "../../sim/core/errors.ts";
import type { Address, Hex } from "../../sim/core/typed-data.ts";

const account = privateKeyToAccount("0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a");
const FROM = account.address.toLowerCase();
const EXCHANGE = "0x00000000000000000000000000000000000e1c00" as Address;
const VAULT = "0x00000000000000000000000000000000000a0170" as Address;
const ROUTER = "0x0000000000000000000000000000000000050500" as Address;
const TOKEN = "0x00000000000000000000000000000000000070c0" as Address;
const OTHER_TOKEN = "0x00000000000000000000000000000000000bad00" as Address;
const DELEGATE = "0x00000000000000000000000000000000000de1e9" as Address;
const CHAIN_ID = 31337;

const CFG: BroadcastPolicyConfig = {
  chainId: CHAIN_ID,
  exchange: EXCHANGE,
  vault: VAULT,
  router: ROUTER,
  exchangeAbi: Exchange.abi as Abi,
  isRegistryToken: (t) => t === TOKEN,
};

const ABI = parseAbi([
  "function approve(address spender, uint256 value) returns (bool)",
  "function transfer(address to, uint256 value) returns (bool)",
  "function transferFrom(address from, address to, uint256 value) returns (bool)",
  "function depositFund(address token, address owner, uint256 value)",
  "function depositFundWithPermit(address token, address owner, uint256 permitAmount, uint256 depositAmount, uint256 deadline, bytes sig)",
  "function executeInstantWithdrawDualSig((address user, address[] tokens, uint256[] amounts, address recipient, uint256 deadline, uint256 uuid) intent, bytes userSignature, address executor, bytes executorSignature)",
  "function emergencyWithdraw(address token, uint256 amount)",
]);

const calls = {
  approveVault: encodeFunctionData({ abi: ABI, functionName: "approve", args: [VAULT, 5n] }),
  approveRouter: encodeFunctionData({ abi: ABI, functionName: "approve", args: [ROUTER, 5n] }),
  approveOther: encodeFunctionData({ abi: ABI, functionName: "approve", args: [DELEGATE, 5n] }),
  transfer: encodeFunctionData({ abi: ABI, functionName: "transfer", args: [DELEGATE, 5n] }),
  transferFrom: encodeFunctionData({ abi: ABI, functionName: "transferFrom", args: [FROM as Address, DELEGATE, 5n] }),
  deposit: encodeFunctionData({ abi: ABI, functionName: "depositFund", args: [TOKEN, FROM as Address, 5n] }),
  depositPermit: encodeFunctionData({ abi: ABI, functionName: "depositFundWithPermit", args: [TOKEN, FROM as Address, 5n, 5n, 99n, `0x${"ab".repeat(65)}`] }),
  withdraw: encodeFunctionData({
    abi: ABI,
    functionName: "executeInstantWithdrawDualSig",
    args: [{ user: FROM as Address, tokens: [TOKEN], amounts: [5n], recipient: FROM as Address, deadline: 99n, uuid: 1n }, "0x12", DELEGATE, "0x34"],
  }),
  emergency: encodeFunctionData({ abi: ABI, functionName: "emergencyWithdraw", args: [TOKEN, 5n] }),
};

function signed(to: Address | undefined, data: Hex, extra: Partial<TransactionSerializable> = {}): Promise<Hex> {
  return account.signTransaction({
    type: "eip1559",
    chainId: CHAIN_ID,
    nonce: 3,
    gas: 100_000n,
    maxFeePerGas: 2n,
    maxPriorityFeePerGas: 1n,
    to,
    data,
    value: 0n,
    ...extra,
  } as never) as Promise<Hex>;
}

async function rejection(endpoint: BroadcastEndpoint, raw: string, cfg = CFG): Promise<string> {
  try {
    await checkBroadcast(endpoint, raw, cfg);
  } catch (e) {
    expect(e).toBeInstanceOf(ExchangeError);
    expect((e as ExchangeError).status).toBe(400);
    return (e as ExchangeError).detail;
  }
  throw new Error("accepted");
}

describe("allowed pairs", () => {
  it.each([
    ["tx", TOKEN, calls.approveVault, "approve"],
    ["tx", TOKEN, calls.approveRouter, "approve"],
    ["tx", EXCHANGE, calls.deposit, "depositFund"],
    ["tx", EXCHANGE, calls.depositPermit, "depositFundWithPermit"],
    ["withdraw", EXCHANGE, calls.withdraw, "executeInstantWithdrawDualSig"],
    ["transfer", TOKEN, calls.transfer, "transfer"],
  ] as const)("%s accepts %s <- %s", async (endpoint, to, data, kind) => {
    const accepted = await checkBroadcast(endpoint, await signed(to, data), CFG);
    expect(accepted.kind).toBe(kind);
    expect(accepted.from).toBe(FROM);
    expect(accepted.to).toBe(to);
    expect(accepted.nonce).toBe(3);
  });
});

describe("rejections (400)", () => {
  it("a selector the endpoint does not relay", async () => {
    const allowedTx = "approve (spender: vault or router) on a listed token, or depositFund / depositFundWithPermit on the exchange";
    expect(await rejection("tx", await signed(TOKEN, calls.transfer))).toBe(`raw_tx is not an allowed call for this endpoint; allowed: ${allowedTx}`);
    expect(await rejection("tx", await signed(TOKEN, calls.transferFrom))).toContain("not an allowed call");
    expect(await rejection("tx", await signed(EXCHANGE, calls.emergency))).toContain("not an allowed call");
    expect(await rejection("tx", await signed(EXCHANGE, calls.withdraw))).toContain("not an allowed call");
    expect(await rejection("withdraw", await signed(EXCHANGE, calls.deposit))).toBe(
      "raw_tx is not an allowed call for this endpoint; allowed: executeInstantWithdrawDualSig on the exchange",
    );
    expect(await rejection("transfer", await signed(TOKEN, calls.approveVault))).toBe(
      "raw_tx is not an allowed call for this endpoint; allowed: transfer on a listed token",
    );
    expect(await rejection("transfer", await signed(TOKEN, "0x"))).toContain("not an allowed call");
  });

  it("the right selector on the wrong target", async () => {
    expect(await rejection("tx", await signed(TOKEN, calls.deposit))).toBe(`depositFund must be sent to the exchange (${EXCHANGE}), not ${TOKEN}`);
    expect(await rejection("tx", await signed(OTHER_TOKEN, calls.approveVault))).toBe(`approve target ${OTHER_TOKEN} is not a listed token`);
    expect(await rejection("withdraw", await signed(VAULT, calls.withdraw))).toBe(`executeInstantWithdrawDualSig must be sent to the exchange (${EXCHANGE}), not ${VAULT}`);
    expect(await rejection("transfer", await signed(OTHER_TOKEN, calls.transfer))).toBe(`transfer target ${OTHER_TOKEN} is not a listed token`);
  });

  it("an approve whose spender is neither vault nor router", async () => {
    expect(await rejection("tx", await signed(TOKEN, calls.approveOther))).toBe(`approve spender ${DELEGATE} is neither the vault (${VAULT}) nor the router (${ROUTER})`);
  });

  it("wrong or missing chain id", async () => {
    expect(await rejection("tx", await signed(TOKEN, calls.approveVault, { chainId: 1 }))).toBe(`raw_tx is signed for chain 1, this deployment is chain ${CHAIN_ID}`);
    const legacy = (await account.signTransaction({ type: "legacy", nonce: 0, gas: 50_000n, gasPrice: 1n, to: TOKEN, data: calls.approveVault } as never)) as Hex;
    expect(await rejection("tx", legacy)).toBe(`raw_tx has no chain id; sign it for chain ${CHAIN_ID}`);
  });

  it("a gas limit under the intrinsic gas (21000, calldata at 4 / 16 per zero / other byte, 25000 per authorization) or Prague's calldata floor (21000 + 10 per zero byte, 40 per other)", async () => {
    const data = calls.approveVault.slice(2);
    let zeros = 0;
    for (let i = 0; i < data.length; i += 2) if (data.slice(i, i + 2) === "00") zeros++;
    const others = data.length / 2 - zeros;
    const need = Math.max(21_000 + 4 * zeros + 16 * others, 21_000 + 10 * (zeros + 4 * others));
    expect(await rejection("tx", await signed(TOKEN, calls.approveVault, { gas: BigInt(need - 1) }))).toBe(
      `raw_tx gas limit ${need - 1} is below its intrinsic gas ${need} (21000 plus its calldata, access list and authorizations, or Prague's calldata floor when more)`,
    );
    expect((await checkBroadcast("tx", await signed(TOKEN, calls.approveVault, { gas: BigInt(need) }), CFG)).kind).toBe("approve");
  });

  it("ether value, contract creation, unsigned and undecodable input", async () => {
    expect(await rejection("tx", await signed(TOKEN, calls.approveVault, { value: 1n }))).toBe("raw_tx must not transfer ether (value must be 0)");
    expect(await rejection("tx", await signed(undefined, "0x6000"))).toBe("contract creation transactions are not accepted");
    const unsigned = serializeTransaction({ type: "eip1559", chainId: CHAIN_ID, nonce: 0, gas: 1n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n, to: TOKEN, data: calls.approveVault });
    expect(await rejection("tx", unsigned)).toBe("raw_tx is not signed");
    expect(await rejection("tx", "0x02deadbeef")).toBe("raw_tx is not a valid serialized transaction");
    expect(await rejection("tx", "0xzz")).toBe("raw_tx must be a 0x-prefixed hex string of a signed transaction");
  });
});

describe("EIP-7702 (type 4)", () => {
  async function setCode(delegates: Address[]): Promise<Hex> {
    const authorizationList = await Promise.all(delegates.map((address, k) => account.signAuthorization({ address, chainId: CHAIN_ID, nonce: 10 + k })));
    return signed(TOKEN, calls.approveVault, { type: "eip7702", authorizationList } as never);
  }

  it("rejected while the delegate allowlist is empty (the default)", async () => {
    expect(await rejection("tx", await setCode([DELEGATE]))).toBe(`EIP-7702 authorization delegates to ${DELEGATE}, which is not on the delegate allowlist`);
  });

  it("accepted when every delegate is allowlisted; one outsider is enough to reject", async () => {
    const cfg = { ...CFG, delegateAllowlist: [DELEGATE] };
    const ok = await checkBroadcast("tx", await setCode([DELEGATE]), cfg);
    expect(ok.kind).toBe("approve");
    expect(ok.from).toBe(FROM);
    expect(await rejection("tx", await setCode([DELEGATE, OTHER_TOKEN]), cfg)).toBe(
      `EIP-7702 authorization delegates to ${OTHER_TOKEN}, which is not on the delegate allowlist`,
    );
  });

  it("a set-code transaction without any authorization is refused (nodes refuse it)", async () => {
    const empty = await signed(TOKEN, calls.approveVault, { type: "eip7702", authorizationList: [] } as never);
    expect(await rejection("tx", empty, { ...CFG, delegateAllowlist: [DELEGATE] })).toBe("an EIP-7702 (type 4) transaction needs at least one authorization");
  });

  it("applies to every broadcast endpoint", async () => {
    const authorizationList = [await account.signAuthorization({ address: DELEGATE, chainId: CHAIN_ID, nonce: 1 })];
    const withdraw = await signed(EXCHANGE, calls.withdraw, { type: "eip7702", authorizationList } as never);
    expect(await rejection("withdraw", withdraw)).toContain("not on the delegate allowlist");
    const transfer = await signed(TOKEN, calls.transfer, { type: "eip7702", authorizationList } as never);
    expect(await rejection("transfer", transfer)).toContain("not on the delegate allowlist");
  });
});
