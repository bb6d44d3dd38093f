// Shared setup for the contract tests: one Anvil per test file, one deployment,
// snapshot/revert between tests, and small helpers for signing and asserting
// reverts. Not a test file itself.
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createTestClient,
  createWalletClient,
  decodeErrorResult,
  encodeFunctionData,
  hashTypedData,
  http,
  parseSignature,
  serializeCompactSignature,
  signatureToCompactSignature,
  type Abi,
  type Chain,
  type Hex as ViemHex,
  type PrivateKeyAccount,
  type PublicClient,
  type TestClient,
  type TransactionReceipt,
  type WalletClient,
  type Transport,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { startAnvil, type RunningAnvil } from "../../fixtures/anvil.ts";
import { deployExchange, localChain, type Deployment } from "../../fixtures/deploy.ts";
import { ANVIL_KEYS, DEPLOYER_KEY, EXECUTOR_KEY } from "../../fixtures/accounts.ts";
import { Exchange, SmartWallet1271, TestToken, Vault, Router } from "../../sim/chain/artifacts.ts";
import {
  exchangeDomain,
  INTENT_TYPE,
  ORDER_TYPE,
  PERMIT_TYPE,
  WITHDRAW_INTENT_TYPE,
  ZERO_ADDRESS,
  type Address,
  type Hex,
  type IntentMessage,
  type OrderMessage,
  type WithdrawIntentMessage,
} from "../../sim/core/typed-data.ts";

export { Exchange, Router, SmartWallet1271, TestToken, Vault };

export const TOKENS = [
  { symbol: "USDC", name: "USD Coin", decimals: 6, permit: true },
  { symbol: "WETH", name: "Wrapped Ether", decimals: 18, permit: true },
  { symbol: "WBTC", name: "Wrapped Bitcoin", decimals: 8, permit: true },
  { symbol: "NOP", name: "No Permit Token", decimals: 18, permit: false },
] as const;

export interface Harness {
  anvil: RunningAnvil;
  chain: Chain;
  d: Deployment;
  pub: PublicClient<Transport, Chain>;
  testClient: TestClient<"anvil", Transport, Chain>;
  admin: PrivateKeyAccount;
  executor: PrivateKeyAccount;
  alice: PrivateKeyAccount;
  bob: PrivateKeyAccount;
  carol: PrivateKeyAccount;
  /** A token deployed but NOT whitelisted on the exchange. */
  rogue: Address;
  wallet(account: PrivateKeyAccount): WalletClient<Transport, Chain, PrivateKeyAccount>;
  stop(): Promise<void>;
}

export const UNIT = {
  USDC: 10n ** 6n,
  WETH: 10n ** 18n,
  WBTC: 10n ** 8n,
  NOP: 10n ** 18n,
} as const;

export async function startHarness(): Promise<Harness> {
  const anvil = await startAnvil();
  const chain = localChain(anvil.chainId, anvil.rpcUrl);
  const transport = http(anvil.rpcUrl);
  const admin = privateKeyToAccount(DEPLOYER_KEY);
  const executor = privateKeyToAccount(EXECUTOR_KEY);
  const alice = privateKeyToAccount(ANVIL_KEYS[2]);
  const bob = privateKeyToAccount(ANVIL_KEYS[3]);
  const carol = privateKeyToAccount(ANVIL_KEYS[4]);
  const d = await deployExchange({
    rpcUrl: anvil.rpcUrl,
    chainId: anvil.chainId,
    tokens: TOKENS.map((t) => ({ ...t })),
    fund: [alice, bob, carol].map((a) => ({ address: a.address, units: 1_000_000n })),
  });
  const pub = createPublicClient({ chain, transport, pollingInterval: 10 });
  const testClient = createTestClient({ chain, transport, mode: "anvil" });
  const wallets = new Map<string, WalletClient<Transport, Chain, PrivateKeyAccount>>();
  const wallet = (account: PrivateKeyAccount) => {
    let w = wallets.get(account.address);
    if (!w) {
      w = createWalletClient({ account, chain, transport });
      wallets.set(account.address, w);
    }
    return w;
  };

  // A permit token the exchange never whitelisted, for the TOKEN_NOT_WHITELISTED paths.
  const adminWallet = wallet(admin);
  const hash = await adminWallet.deployContract({ abi: TestToken.abi, bytecode: TestToken.bytecode, args: ["Rogue", "ROGUE", 18] });
  const receipt = await pub.waitForTransactionReceipt({ hash });
  const rogue = receipt.contractAddress!.toLowerCase() as Address;
  for (const a of [alice, bob, carol]) {
    await send(pub, adminWallet, { address: rogue, abi: TestToken.abi, functionName: "mint", args: [a.address, 10n ** 30n] });
  }

  return {
    anvil,
    chain,
    d,
    pub,
    testClient,
    admin,
    executor,
    alice,
    bob,
    carol,
    rogue,
    wallet,
    stop: () => anvil.stop(),
  };
}

interface Call {
  address: Address;
  abi: Abi | readonly unknown[];
  functionName: string;
  args?: readonly unknown[];
}

/** Sends a contract call and returns its (successful) receipt; throws on any revert. */
export async function send(
  pub: PublicClient<Transport, Chain>,
  w: WalletClient<Transport, Chain, PrivateKeyAccount>,
  call: Call,
): Promise<TransactionReceipt> {
  const hash = await w.writeContract(call as never);
  const receipt = await pub.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error(`${call.functionName} reverted on chain`);
  return receipt;
}

/** Sends with a fixed gas limit (no estimation), so a reverting call is mined as a genuine failed tx. */
export async function sendUnchecked(
  pub: PublicClient<Transport, Chain>,
  w: WalletClient<Transport, Chain, PrivateKeyAccount>,
  call: Call,
  gas = 3_000_000n,
): Promise<TransactionReceipt> {
  const hash = await w.writeContract({ ...(call as object), gas } as never);
  return pub.waitForTransactionReceipt({ hash });
}

/** The decoded revert of a simulated call: the Error(string) reason, or the custom error's name. */
export async function revertOf(
  pub: PublicClient<Transport, Chain>,
  account: PrivateKeyAccount | Address,
  call: Call,
): Promise<string> {
  try {
    await pub.simulateContract({ ...(call as object), account } as never);
  } catch (err) {
    if (err instanceof BaseError) {
      const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError);
      if (reverted instanceof ContractFunctionRevertedError) {
        return reverted.reason ?? reverted.data?.errorName ?? "UNDECODED";
      }
    }
    throw err;
  }
  throw new Error(`${call.functionName} did not revert`);
}

export async function latestTimestamp(pub: PublicClient<Transport, Chain>): Promise<bigint> {
  return (await pub.getBlock({ blockTag: "latest" })).timestamp;
}

export function domainOf(h: Harness) {
  return exchangeDomain(h.d.domainName, h.d.chainId, h.d.exchange);
}

let uuidCounter = 1n;
export function nextUuid(): bigint {
  return (uuidCounter++ << 124n) | 0xabcn;
}

export function order(
  fields: Pick<OrderMessage, "user" | "fromToken" | "toToken" | "fromAmount" | "toAmount"> & Partial<OrderMessage>,
  now: bigint,
): OrderMessage {
  return {
    expiration: now + 3600n,
    feeBps: 0n,
    recipient: ZERO_ADDRESS,
    initialDepositAmount: 0n,
    uuid: nextUuid(),
    ...fields,
  };
}

export function orderDigest(h: Harness, o: OrderMessage): Hex {
  return hashTypedData({ domain: domainOf(h), types: { Order: ORDER_TYPE }, primaryType: "Order", message: o as never });
}

export function signOrder(h: Harness, signer: PrivateKeyAccount, o: OrderMessage): Promise<Hex> {
  return signer.signTypedData({ domain: domainOf(h), types: { Order: ORDER_TYPE }, primaryType: "Order", message: o as never });
}

export function signIntent(h: Harness, signer: PrivateKeyAccount, i: IntentMessage): Promise<Hex> {
  return signer.signTypedData({ domain: domainOf(h), types: { Intent: INTENT_TYPE }, primaryType: "Intent", message: i as never });
}

export function signWithdraw(h: Harness, signer: PrivateKeyAccount, w: WithdrawIntentMessage): Promise<Hex> {
  return signer.signTypedData({
    domain: domainOf(h),
    types: { WithdrawIntent: WITHDRAW_INTENT_TYPE },
    primaryType: "WithdrawIntent",
    message: w,
  });
}

/** ERC-2612 permit for the vault as spender, signed by `owner`. */
export async function signPermit(
  h: Harness,
  owner: PrivateKeyAccount,
  token: Address,
  value: bigint,
  deadline: bigint,
): Promise<Hex> {
  const [name, nonce] = await Promise.all([
    h.pub.readContract({ address: token, abi: TestToken.abi, functionName: "name" }),
    h.pub.readContract({ address: token, abi: TestToken.abi, functionName: "nonces", args: [owner.address] }),
  ]);
  return owner.signTypedData({
    domain: { name, version: "1", chainId: h.d.chainId, verifyingContract: token },
    types: { Permit: PERMIT_TYPE },
    primaryType: "Permit",
    message: { owner: owner.address, spender: h.d.vault, value, nonce, deadline },
  });
}

/** EIP-2098 compact (64-byte) form of a 65-byte signature. */
export function toCompact(sig: Hex): Hex {
  return serializeCompactSignature(signatureToCompactSignature(parseSignature(sig as ViemHex))) as Hex;
}

export async function walletBalance(h: Harness, token: Address, owner: Address): Promise<bigint> {
  return h.pub.readContract({ address: token, abi: TestToken.abi, functionName: "balanceOf", args: [owner] });
}

export async function vaultBalance(h: Harness, owner: Address, token: Address): Promise<bigint> {
  return h.pub.readContract({ address: h.d.vault, abi: Vault.abi, functionName: "balanceOf", args: [owner, token] });
}

/** Approves the vault and deposits through the exchange, as a user would. */
export async function approveAndDeposit(h: Harness, user: PrivateKeyAccount, token: Address, amount: bigint): Promise<void> {
  const w = h.wallet(user);
  await send(h.pub, w, { address: token, abi: TestToken.abi, functionName: "approve", args: [h.d.vault, amount] });
  await send(h.pub, w, { address: h.d.exchange, abi: Exchange.abi, functionName: "depositFund", args: [token, user.address, amount] });
}

/** Snapshot before each test, revert after: every test starts from the fresh deployment. */
export function snapshotEach(h: () => Harness, beforeEach: (fn: () => Promise<void>) => void, afterEach: (fn: () => Promise<void>) => void) {
  let id: ViemHex | undefined;
  beforeEach(async () => {
    id = await h().testClient.snapshot();
  });
  afterEach(async () => {
    if (id) await h().testClient.revert({ id });
    id = undefined;
  });
}

/** Event args with every address lowercased (viem decodes addresses checksummed). */
export function lowerAddresses<T>(value: T): T {
  if (typeof value === "string" && /^0x[0-9a-fA-F]{40}$/.test(value)) return value.toLowerCase() as T;
  if (Array.isArray(value)) return value.map((v) => lowerAddresses(v)) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, lowerAddresses(v)])) as T;
  }
  return value;
}

/**
 * Revert of a call evaluated with block.number overridden (eth_call blockOverrides): lets
 * the block-count boundaries be probed without mining thousands of blocks.
 * Returns null when the call would succeed.
 */
export async function revertAtBlock(
  pub: PublicClient<Transport, Chain>,
  account: PrivateKeyAccount,
  call: Call,
  blockNumber: bigint,
): Promise<string | null> {
  const data = encodeFunctionData({ abi: call.abi as Abi, functionName: call.functionName, args: call.args ?? [] });
  try {
    await pub.call({ account, to: call.address, data, blockOverrides: { number: blockNumber } });
    return null;
  } catch (err) {
    if (err instanceof BaseError) {
      const raw = err.walk((e) => typeof (e as { data?: unknown }).data === "string") as { data?: ViemHex } | null;
      if (raw?.data) {
        const decoded = decodeErrorResult({ abi: call.abi as Abi, data: raw.data });
        return decoded.errorName === "Error" ? String(decoded.args?.[0]) : decoded.errorName;
      }
    }
    throw err;
  }
}
