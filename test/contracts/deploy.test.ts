// deployExchange: one call deploys, wires and seeds; everything it reports is on chain.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPublicClient, http, keccak256, toHex } from "viem";
import { startAnvil, type RunningAnvil } from "../../fixtures/anvil.ts";
import { deployExchange, localChain, ROUTER_ROLE, type Deployment } from "../../fixtures/deploy.ts";
import { ANVIL_ADDRESSES, FEE_RECIPIENT } from "../../fixtures/accounts.ts";
import { Exchange, Router, TestToken, Vault } from "../../sim/chain/artifacts.ts";

let anvil: RunningAnvil;
let d: Deployment;
const funded = "0x00000000000000000000000000000000000f00d5" as const;

beforeAll(async () => {
  anvil = await startAnvil();
  d = await deployExchange({
    rpcUrl: anvil.rpcUrl,
    chainId: anvil.chainId,
    domainName: "Test Exchange",
    tokens: [
      { symbol: "USDC", decimals: 6, permit: true },
      { symbol: "WETH", name: "Wrapped Ether", decimals: 18, permit: true },
      { symbol: "PLAIN", decimals: 8, permit: false },
    ],
    fund: [
      { address: ANVIL_ADDRESSES[2], units: 1_000n },
      { address: funded, raw: { USDC: 123n }, wei: 10n ** 18n },
    ],
    emergencyWithdrawBlocks: { delay: 10, lapse: 20 },
  });
});
afterAll(async () => {
  await anvil?.stop();
});

describe("deployExchange", () => {
  it("returns lowercase addresses of deployed, wired contracts", async () => {
    const pub = createPublicClient({ chain: localChain(anvil.chainId, anvil.rpcUrl), transport: http(anvil.rpcUrl) });
    for (const a of [d.exchange, d.vault, d.router, d.executor, d.feeRecipient, d.admin, ...Object.values(d.tokens)]) {
      expect(a).toBe(a.toLowerCase());
    }
    expect(d.executor).toBe(ANVIL_ADDRESSES[1]);
    expect(d.admin).toBe(ANVIL_ADDRESSES[0]);
    expect(d.feeRecipient).toBe(FEE_RECIPIENT);
    expect(d.blockNumber).toBe(await pub.getBlockNumber());

    expect((await pub.readContract({ address: d.vault, abi: Vault.abi, functionName: "exchange" })).toLowerCase()).toBe(d.exchange);
    expect(await pub.readContract({ address: d.vault, abi: Vault.abi, functionName: "isOperator", args: [d.router] })).toBe(true);
    expect(await pub.readContract({ address: d.exchange, abi: Exchange.abi, functionName: "hasRole", args: [ROUTER_ROLE, d.router] })).toBe(true);
    const executorRole = keccak256(toHex("EXECUTOR_ROLE"));
    expect(await pub.readContract({ address: d.exchange, abi: Exchange.abi, functionName: "hasRole", args: [executorRole, d.executor] })).toBe(true);
    expect(await pub.readContract({ address: d.router, abi: Router.abi, functionName: "hasRole", args: [executorRole, d.executor] })).toBe(true);
    expect((await pub.readContract({ address: d.exchange, abi: Exchange.abi, functionName: "feeRecipient" })).toLowerCase()).toBe(d.feeRecipient);
    const [, name, version] = await pub.readContract({ address: d.exchange, abi: Exchange.abi, functionName: "eip712Domain" });
    expect([name, version]).toEqual(["Test Exchange", "1"]);
    expect(await pub.readContract({ address: d.exchange, abi: Exchange.abi, functionName: "emergencyDelayBlocks" })).toBe(10n);
    expect(await pub.readContract({ address: d.exchange, abi: Exchange.abi, functionName: "emergencyLapseBlocks" })).toBe(20n);
  });

  it("deploys, whitelists and funds every token", async () => {
    const pub = createPublicClient({ chain: localChain(anvil.chainId, anvil.rpcUrl), transport: http(anvil.rpcUrl) });
    expect(Object.keys(d.tokens)).toEqual(["USDC", "WETH", "PLAIN"]);
    expect(d.decimals).toEqual({ USDC: 6, WETH: 18, PLAIN: 8 });
    for (const [symbol, token] of Object.entries(d.tokens)) {
      expect(await pub.readContract({ address: d.exchange, abi: Exchange.abi, functionName: "isTokenWhitelisted", args: [token] })).toBe(true);
      expect(await pub.readContract({ address: token, abi: TestToken.abi, functionName: "symbol" })).toBe(symbol);
      expect(await pub.readContract({ address: token, abi: TestToken.abi, functionName: "decimals" })).toBe(d.decimals[symbol]);
      expect(await pub.readContract({ address: token, abi: TestToken.abi, functionName: "balanceOf", args: [ANVIL_ADDRESSES[2]] })).toBe(
        1_000n * 10n ** BigInt(d.decimals[symbol]!),
      );
    }
    expect(await pub.readContract({ address: d.tokens.WETH!, abi: TestToken.abi, functionName: "name" })).toBe("Wrapped Ether");
    expect(await pub.readContract({ address: d.tokens.USDC!, abi: TestToken.abi, functionName: "balanceOf", args: [funded] })).toBe(123n);
    expect(await pub.readContract({ address: d.tokens.WETH!, abi: TestToken.abi, functionName: "balanceOf", args: [funded] })).toBe(0n);
    expect(await pub.getBalance({ address: funded })).toBe(10n ** 18n);
    // Permit tokens expose the ERC-2612 surface; the plain token does not.
    expect(await pub.readContract({ address: d.tokens.USDC!, abi: TestToken.abi, functionName: "nonces", args: [funded] })).toBe(0n);
    await expect(pub.readContract({ address: d.tokens.PLAIN!, abi: TestToken.abi, functionName: "nonces", args: [funded] })).rejects.toThrow();
  });

  it("rejects duplicate symbols and funding of unknown tokens", async () => {
    await expect(
      deployExchange({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, tokens: [{ symbol: "A", decimals: 6, permit: true }, { symbol: "A", decimals: 6, permit: true }] }),
    ).rejects.toThrow(/duplicate token symbol/);
    await expect(
      deployExchange({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, tokens: [{ symbol: "A", decimals: 6, permit: true }], fund: [{ address: funded, raw: { B: 1n } }] }),
    ).rejects.toThrow(/unknown token B/);
  });
});
