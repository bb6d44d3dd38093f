// The EIP-7702 delegate allowlist the relays check (spec: a type-4 transaction "is rejected
// unless every authorization delegate is on the deployment allowlist"), end to end: empty by
// default, set at boot or later through the control API, kept by snapshots, refused when
// malformed. The delegated wallet is a real one: an EOA whose code points at SmartWallet1271.
import { encodeDeployData, encodeFunctionData, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createFakeExchange, type FakeExchange } from "../../fixtures/fake-exchange.ts";
import { SmartWallet1271, TestToken } from "../../sim/chain/artifacts.ts";

let ex: FakeExchange;
let delegate: Hex;
let auth: string;

async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, { method, headers: { "content-type": "application/json", ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, body: (await res.json()) as any };
}

/** A signed type-4 approve of the vault by accounts[1], authorising `to` as its code. */
async function type4Approve(to: Hex): Promise<Hex> {
  const account = ex.accounts[1]!;
  const signer = privateKeyToAccount(account.privateKey);
  const wallet = ex.clients.wallet(account);
  const nonce = await ex.clients.public.getTransactionCount({ address: signer.address });
  // Sent by the account itself: the authorization takes the nonce after the transaction's.
  const authorization = await signer.signAuthorization({ address: to, chainId: ex.chainId, nonce: nonce + 1 });
  const usdc = ex.registry.tokenBySymbol("USDC")!.address;
  const data = encodeFunctionData({ abi: TestToken.abi, functionName: "approve", args: [ex.contracts.vault, 1_000n] });
  const request = await wallet.prepareTransactionRequest({ to: usdc, data, authorizationList: [authorization], gas: 200_000n } as never);
  return (await wallet.signTransaction(request as never)) as Hex;
}

beforeAll(async () => {
  ex = await createFakeExchange({ seed: 61, liquidity: false, users: 2 });
  const deployer = ex.clients.wallet(ex.accounts[0]!);
  const hash = await deployer.sendTransaction({ data: encodeDeployData({ abi: SmartWallet1271.abi, bytecode: SmartWallet1271.bytecode, args: [ex.accounts[0]!.address] }) } as never);
  delegate = (await ex.clients.public.waitForTransactionReceipt({ hash })).contractAddress!.toLowerCase() as Hex;
  const key = (await call(ex.baseUrl, "POST", "/api-keys", { ...(await ex.signManageApiKey(ex.accounts[1]!, "create", ex.control.now().now)), label: "7702" })).body;
  auth = `Bearer ${key.api_key}:${key.api_secret}`;
}, 90_000);

afterAll(async () => {
  await ex?.close();
});

describe("EIP-7702 delegate allowlist", () => {
  test("empty by default: a type-4 approve is refused naming its delegate; allowlisted, it is relayed; a restore takes the list back", async () => {
    expect((await call(ex.controlUrl, "GET", "/delegates")).body).toEqual({ allowlist: [] });
    const refused = await call(ex.baseUrl, "POST", "/tx/send", { raw_tx: await type4Approve(delegate) }, { authorization: auth });
    expect(refused).toEqual({ status: 400, body: { detail: `EIP-7702 authorization delegates to ${delegate}, which is not on the delegate allowlist` } });
    const before = await ex.snapshot();
    // Any letter case in; lowercase and once out.
    const set = await call(ex.controlUrl, "POST", "/delegates", { allowlist: [delegate.toUpperCase().replace("0X", "0x"), delegate] });
    expect(set).toEqual({ status: 200, body: { allowlist: [delegate] } });
    await ex.control.advanceClock(1);
    const relayed = await call(ex.baseUrl, "POST", "/tx/send", { raw_tx: await type4Approve(delegate) }, { authorization: auth });
    expect(relayed.status).toBe(200);
    const receipt = await ex.clients.public.waitForTransactionReceipt({ hash: relayed.body.tx_hash });
    expect(receipt.status).toBe("success");
    expect(await ex.clients.public.getCode({ address: ex.accounts[1]!.address })).toBe(`0xef0100${delegate.slice(2)}`);
    await ex.restore(before);
    expect(ex.control.delegateAllowlist()).toEqual([]);
  }, 60_000);

  test("bad lists are refused whole (400 over HTTP, RangeError in code, exit-2-style at boot) and change nothing", async () => {
    ex.control.setDelegateAllowlist([delegate]);
    for (const body of [{ allowlist: ["0x123"] }, { allowlist: "0xabc" }, { allowlist: [delegate], extra: 1 }, { allowlist: Array.from({ length: 101 }, (_, i) => `0x${i.toString(16).padStart(40, "0")}`) }]) {
      const r = await call(ex.controlUrl, "POST", "/delegates", body);
      expect([JSON.stringify(body).slice(0, 40), r.status]).toEqual([JSON.stringify(body).slice(0, 40), 400]);
    }
    expect((await call(ex.controlUrl, "POST", "/delegates", { allowlist: ["0x123"] })).body.detail).toBe('delegate allowlist[0] must be a 0x-prefixed 20-byte hex address, got "0x123"');
    expect(() => ex.control.setDelegateAllowlist([42 as never])).toThrow(RangeError);
    expect(ex.control.delegateAllowlist()).toEqual([delegate]);
    await expect(createFakeExchange({ delegateAllowlist: ["nope"] })).rejects.toThrow(/^createFakeExchange: delegateAllowlist: delegate allowlist\[0\] must be a 0x-prefixed 20-byte hex address/);
    expect((await call(ex.controlUrl, "PUT", "/delegates", { allowlist: [] })).status).toBe(405);
  });

  test("given at boot, the list is there from the start", async () => {
    const other = await createFakeExchange({ seed: 62, liquidity: false, users: 1, delegateAllowlist: [delegate] });
    try {
      expect(other.control.delegateAllowlist()).toEqual([delegate]);
      expect((await call(other.controlUrl, "GET", "/delegates")).body).toEqual({ allowlist: [delegate] });
    } finally {
      await other.close();
    }
  }, 60_000);
});
