// Shared setup for the funds suites: one Anvil chain per test file (startChain with
// the default registry's tokens), and per test a fresh engine, API-key store, rate
// limiter, co-signer and express app over that chain, with evm_snapshot/evm_revert
// around every test. Not a test file itself.
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  http,
  type Chain,
  type PrivateKeyAccount,
  type PublicClient,
  type TestClient,
  type Transport,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Application } from "express";
import request from "supertest";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { startChain, type RunningChain } from "../../fixtures/chain.ts";
import { localChain } from "../../fixtures/deploy.ts";
import { DEPLOYER_KEY, EXECUTOR_KEY } from "../../fixtures/accounts.ts";
import { createAnvilChainPort } from "../../sim/chain/anvil.ts";
import { TestToken, Vault } from "../../sim/chain/artifacts.ts";
import type { UnsignedTx } from "../../sim/chain/tx-builder.ts";
import { ApiKeyStore } from "../../sim/core/api-keys.ts";
import { VirtualClock } from "../../sim/core/clock.ts";
import { Engine } from "../../sim/core/engine.ts";
import { RateLimiter } from "../../sim/core/rate-limits.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry } from "../../sim/core/registry.ts";
import { Rng } from "../../sim/core/rng.ts";
import { exchangeDomain, PERMIT_TYPE, WITHDRAW_INTENT_TYPE, type Address, type ExchangeDomain, type Hex } from "../../sim/core/typed-data.ts";
import { WithdrawCoSigner } from "../../sim/core/withdraw.ts";
import { createApp } from "../../sim/http/app.ts";
import { createFundsServices, type FundsServices } from "../../sim/http/funds-services.ts";

export interface FundsChain {
  running: RunningChain;
  chain: Chain;
  pub: PublicClient<Transport, Chain>;
  testClient: TestClient<"anvil", Transport, Chain>;
  registry: Registry;
  traders: PrivateKeyAccount[];
  /** A permit token deployed and funded but not in the registry nor whitelisted. */
  rogue: Address;
  tokens: Record<string, Address>;
  exchange: Address;
  vault: Address;
  router: Address;
  chainId: number;
  domain: ExchangeDomain;
  stop(): Promise<void>;
}

export async function startFundsChain(): Promise<FundsChain> {
  const running = await startChain({ users: 3 });
  const d = running.info.deployment;
  const chain = localChain(d.chainId, running.info.rpcUrl);
  const transport = http(running.info.rpcUrl);
  const pub = createPublicClient({ chain, transport, pollingInterval: 10 });
  const testClient = createTestClient({ chain, transport, mode: "anvil" });
  const traders = running.info.accounts.map((a) => privateKeyToAccount(a.privateKey));
  const admin = createWalletClient({ account: privateKeyToAccount(DEPLOYER_KEY), chain, transport });
  const hash = await admin.deployContract({ abi: TestToken.abi, bytecode: TestToken.bytecode, args: ["Rogue", "ROGUE", 18] });
  const rogue = (await pub.waitForTransactionReceipt({ hash })).contractAddress!.toLowerCase() as Address;
  for (const t of traders) {
    const h = await admin.writeContract({ address: rogue, abi: TestToken.abi, functionName: "mint", args: [t.address, 10n ** 24n] });
    await pub.waitForTransactionReceipt({ hash: h });
  }
  return {
    running,
    chain,
    pub,
    testClient,
    registry: new Registry(DEFAULT_REGISTRY_CONFIG, d.tokens),
    traders,
    rogue,
    tokens: d.tokens,
    exchange: d.exchange,
    vault: d.vault,
    router: d.router,
    chainId: d.chainId,
    domain: exchangeDomain(d.domainName, d.chainId, d.exchange),
    stop: () => running.stop(),
  };
}

export interface AppOptions {
  delegateAllowlist?: Address[];
  /** Real rate limiter (default: none, so suites can call freely). */
  rateLimited?: boolean;
}

export interface FundsApp {
  app: Application;
  engine: Engine;
  /** The routes' funds services (a test may wrap a member to stage a race). */
  funds: FundsServices;
  clock: VirtualClock;
  coSigner: WithdrawCoSigner;
  /** Bearer header per trader index. */
  bearer: string[];
  /** A bearer header for any owner (a new key). */
  keyFor(owner: string): string;
  logged: string[];
}

/** A fresh server over the chain; the clock starts at the chain's latest block time. */
export async function buildApp(c: FundsChain, o: AppOptions = {}): Promise<FundsApp> {
  const block = await c.pub.getBlock({ blockTag: "latest" });
  const clock = new VirtualClock(Number(block.timestamp) * 1000);
  // The real Anvil port: its Deposit / Withdrawal / IntentDeposit reads feed the engine's vault sync.
  const port = await createAnvilChainPort({
    rpcUrl: c.running.info.rpcUrl,
    chainId: c.chainId,
    deployment: c.running.info.deployment,
    executorKey: EXECUTOR_KEY,
  });
  const engine = new Engine({ seed: 1, clock, registry: c.registry, executorId: 1, chain: port });
  const keys = new ApiKeyStore(clock, new Rng(5));
  let n = 0;
  const keyFor = (owner: string) => {
    // The store trusts the HTTP layer to have verified the ManageApiKey signature.
    n++;
    const key = keys.create({ owner: owner.toLowerCase(), action: "create", timestamp: clock.nowSec(), signature: `0x${n.toString(16).padStart(4, "0").repeat(32)}ab` });
    return `Bearer ${key.api_key}:${key.api_secret}`;
  };
  const bearer = c.traders.map((t) => keyFor(t.address));
  const coSigner = new WithdrawCoSigner({ executorPrivateKey: EXECUTOR_KEY, domain: c.domain });
  const logged: string[] = [];
  const funds = createFundsServices({
    client: c.pub,
    deployment: { chainId: c.chainId, exchange: c.exchange, vault: c.vault, router: c.router },
    engine,
    coSigner,
    ...(o.delegateAllowlist ? { delegateAllowlist: o.delegateAllowlist } : {}),
  });
  const app = createApp({
    clock,
    registry: c.registry,
    apiKeys: keys,
    ...(o.rateLimited ? { rateLimits: new RateLimiter(clock) } : {}),
    config: () => ({ chainId: c.chainId, exchangeAddress: c.exchange, vaultAddress: c.vault, sorAddress: c.router, domainName: c.domain.name }),
    logger: { error: (m) => void logged.push(m) },
    funds,
  });
  return { app, engine, funds, clock, coSigner, bearer, keyFor, logged };
}

/** The viem form of a Transaction object, for signing. */
export function toViemTx(tx: UnsignedTx) {
  return {
    type: "eip1559" as const,
    to: tx.to,
    data: tx.data,
    value: BigInt(tx.value),
    chainId: Number(BigInt(tx.chainId)),
    nonce: Number(BigInt(tx.nonce)),
    gas: BigInt(tx.gas),
    maxFeePerGas: BigInt(tx.maxFeePerGas),
    maxPriorityFeePerGas: BigInt(tx.maxPriorityFeePerGas),
  };
}

export function signTx(account: PrivateKeyAccount, tx: UnsignedTx): Promise<Hex> {
  return account.signTransaction(toViemTx(tx)) as Promise<Hex>;
}

export function walletOf(c: FundsChain, account: PrivateKeyAccount): WalletClient<Transport, Chain, PrivateKeyAccount> {
  return createWalletClient({ account, chain: c.chain, transport: http(c.running.info.rpcUrl) });
}

export function erc20Balance(c: FundsChain, token: Address, owner: Address): Promise<bigint> {
  return c.pub.readContract({ address: token, abi: TestToken.abi, functionName: "balanceOf", args: [owner] });
}

export function vaultBalance(c: FundsChain, owner: Address, token: Address): Promise<bigint> {
  return c.pub.readContract({ address: c.vault, abi: Vault.abi, functionName: "balanceOf", args: [owner, token] });
}

export function allowance(c: FundsChain, token: Address, owner: Address, spender: Address): Promise<bigint> {
  return c.pub.readContract({ address: token, abi: TestToken.abi, functionName: "allowance", args: [owner, spender] });
}

/** ERC-2612 permit for the vault, signed by `owner`. */
export async function signPermit(c: FundsChain, owner: PrivateKeyAccount, token: Address, value: bigint, deadline: bigint): Promise<Hex> {
  const [name, nonce] = await Promise.all([
    c.pub.readContract({ address: token, abi: TestToken.abi, functionName: "name" }),
    c.pub.readContract({ address: token, abi: TestToken.abi, functionName: "nonces", args: [owner.address] }),
  ]);
  return owner.signTypedData({
    domain: { name, version: "1", chainId: c.chainId, verifyingContract: token },
    types: { Permit: PERMIT_TYPE },
    primaryType: "Permit",
    message: { owner: owner.address, spender: c.vault, value, nonce, deadline },
  }) as Promise<Hex>;
}

export interface WireIntent {
  user: string;
  tokens: string[];
  amounts: string[];
  recipient: string;
  deadline: string;
  uuid: string;
}

export function signWithdrawIntent(c: FundsChain, signer: PrivateKeyAccount, i: WireIntent): Promise<Hex> {
  return signer.signTypedData({
    domain: c.domain,
    types: { WithdrawIntent: WITHDRAW_INTENT_TYPE },
    primaryType: "WithdrawIntent",
    message: {
      user: i.user as Address,
      tokens: i.tokens as Address[],
      amounts: i.amounts.map(BigInt),
      recipient: i.recipient as Address,
      deadline: BigInt(i.deadline),
      uuid: BigInt(i.uuid),
    },
  }) as Promise<Hex>;
}

/**
 * One funds chain for the test file (handed to `use` once it is up), every test on a
 * fresh snapshot that is reverted after it.
 */
/** POST /api/v1{path} on the app, with an Authorization header when one is given. */
export function postApi(app: Application, path: string, body: unknown, bearer?: string) {
  const r = request(app).post(`/api/v1${path}`);
  if (bearer) r.set("Authorization", bearer);
  return r.send(body as object);
}

/** Sign a transaction a route built (/approve, /deposit, /withdraw/build) as `signer` and POST it as raw_tx to `path`. */
export async function postSignedTx(app: Application, signer: PrivateKeyAccount, path: string, tx: unknown, bearer?: string) {
  return postApi(app, path, { raw_tx: await signTx(signer, tx as never) }, bearer);
}

/** Trader 0 approves the vault and deposits `amount` of `token` through HTTP; each send answers 200. */
export async function depositThroughApi(env: FundsApp, c: FundsChain, token: Address, amount: bigint): Promise<void> {
  const trader = c.traders[0]!;
  const owner = trader.address.toLowerCase();
  const bearer = env.bearer[0];
  const approve = await postApi(env.app, "/approve", { token, owner, spender: c.vault, amount: amount.toString() }, bearer);
  expect((await postSignedTx(env.app, trader, "/tx/send", approve.body.tx, bearer)).status).toBe(200);
  const deposit = await postApi(env.app, "/deposit", { token, owner, amount: amount.toString() }, bearer);
  expect((await postSignedTx(env.app, trader, "/tx/send", deposit.body.tx, bearer)).status).toBe(200);
}

export function useFundsChain(use: (c: FundsChain) => void): void {
  let chain: FundsChain | undefined;
  let id: Hex | undefined;
  beforeAll(async () => {
    chain = await startFundsChain();
    use(chain);
  }, 60_000);
  afterAll(async () => {
    await chain?.stop();
  });
  beforeEach(async () => {
    id = (await chain!.testClient.snapshot()) as Hex;
  });
  afterEach(async () => {
    if (id) await chain!.testClient.revert({ id });
    id = undefined;
  });
}

export const TX_SHAPE = {
  to: expect.stringMatching(/^0x[0-9a-f]{40}$/),
  data: expect.stringMatching(/^0x[0-9a-f]+$/),
  value: "0x0",
  chainId: expect.stringMatching(/^0x[0-9a-f]+$/),
  nonce: expect.stringMatching(/^0x[0-9a-f]+$/),
  gas: expect.stringMatching(/^0x[0-9a-f]+$/),
  type: "0x2",
  maxFeePerGas: expect.stringMatching(/^0x[0-9a-f]+$/),
  maxPriorityFeePerGas: expect.stringMatching(/^0x[0-9a-f]+$/),
};

/**
 * Run `before` once, at the first wallet read of `reader` (GET /balances reads the wallets
 * after its ledger sync: this stages what happens in between). Returns the undo.
 */
export function beforeFirstWalletRead(reader: FundsServices["reader"], before: () => Promise<unknown>): () => void {
  const walletBalance = reader.walletBalance;
  let ran = false;
  reader.walletBalance = async (owner, token, block) => {
    if (!ran) {
      ran = true;
      await before();
    }
    return walletBalance.call(reader, owner, token, block);
  };
  return () => {
    reader.walletBalance = walletBalance;
  };
}
