// Shared set-up for the Anvil-port tests: one chain per test file (startChain),
// an engine on the Anvil port per test on a fresh evm_snapshot, real deposits by
// the trader keys, and order bodies carrying real EIP-712 signatures over the
// Order that preview builds. Not a test file itself.
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { createPublicClient, createWalletClient, encodeDeployData, encodeFunctionData, http, type Chain, type PublicClient, type Transport } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { startChain, type RunningChain } from "../../fixtures/chain.ts";
import { localChain } from "../../fixtures/deploy.ts";
import { EXECUTOR_KEY } from "../../fixtures/accounts.ts";
import { createAnvilChainPort, type AnvilChainPort, type BlockMode } from "../../sim/chain/anvil.ts";
import { Exchange, SmartWallet1271, TestToken } from "../../sim/chain/artifacts.ts";
import { VirtualClock } from "../../sim/core/clock.ts";
import { Engine, type EngineOptions, type OrderBody } from "../../sim/core/engine.ts";
import { validateOrderFields } from "../../sim/core/preview.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry } from "../../sim/core/registry.ts";
import { Rng } from "../../sim/core/rng.ts";
import { ORDER_TYPE, type Address, type Hex, type OrderMessage } from "../../sim/core/typed-data.ts";
import { standaloneUuidInt } from "../../sim/core/uuid-int.ts";

export const EXECUTOR_ID = 3;

export interface ChainCtx {
  chain: RunningChain;
  pub: PublicClient<Transport, Chain>;
  viemChain: Chain;
  registry: Registry;
  traders: PrivateKeyAccount[];
}

export async function startTestChain(users = 3): Promise<ChainCtx> {
  const chain = await startChain({ users });
  const viemChain = localChain(chain.info.chainId, chain.info.rpcUrl);
  const pub = createPublicClient({ chain: viemChain, transport: http(chain.info.rpcUrl), pollingInterval: 10 }) as PublicClient<Transport, Chain>;
  const registry = new Registry(DEFAULT_REGISTRY_CONFIG, chain.info.deployment.tokens);
  const traders = chain.info.accounts.map((a) => privateKeyToAccount(a.privateKey));
  return { chain, pub, viemChain, registry, traders };
}

/** A raw JSON-RPC call to the test chain (Anvil methods viem's clients do not wrap). */
export async function chainRpc(ctx: ChainCtx, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(ctx.chain.info.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
}

/**
 * One chain for the test file (handed to `use` once it is up), every test on a fresh
 * evm_snapshot that is reverted after it. Automine is restored first: block mode is
 * node state, which evm_revert does not undo.
 */
export function useTestChain(users: number, use: (ctx: ChainCtx) => void): void {
  let ctx: ChainCtx | undefined;
  let snap: Hex;
  beforeAll(async () => {
    ctx = await startTestChain(users);
    use(ctx);
  }, 60_000);
  afterAll(async () => {
    await ctx?.chain.stop();
  });
  beforeEach(async () => {
    snap = (await chainRpc(ctx!, "evm_snapshot")) as Hex;
  });
  afterEach(async () => {
    // A port may still hold a transaction it queued and did not wait for (the fault clear
    // after a receipt): sent after the revert, it would land in the next test's chain (as a
    // port's own revertTo prevents with the same two steps: sync first, empty the pool after).
    const ports = portsOf.get(ctx!) ?? [];
    portsOf.delete(ctx!);
    for (const port of ports) await port.sync().catch(() => undefined);
    await chainRpc(ctx!, "evm_setIntervalMining", [0]);
    await chainRpc(ctx!, "evm_setAutomine", [true]);
    await chainRpc(ctx!, "evm_revert", [snap]);
    await chainRpc(ctx!, "anvil_dropAllTransactions");
  });
}

/** The ports anvilEngine made during the current test, per chain (useTestChain settles them before reverting). */
const portsOf = new Map<ChainCtx, AnvilChainPort[]>();

export interface Env {
  ctx: ChainCtx;
  port: AnvilChainPort;
  engine: Engine;
  clock: VirtualClock;
  ids: Rng;
}

/** A fresh engine on the Anvil port; its virtual clock starts at the chain's latest block time. `rpcUrl`: the port's way to the node (a proxy in front of it, say). */
export async function anvilEngine(ctx: ChainCtx, over: Partial<EngineOptions> = {}, blockMode?: BlockMode, rpcUrl = ctx.chain.info.rpcUrl): Promise<Env> {
  const port = await createAnvilChainPort({
    rpcUrl,
    chainId: ctx.chain.info.chainId,
    deployment: ctx.chain.info.deployment,
    executorKey: EXECUTOR_KEY,
    blockMode,
  });
  portsOf.set(ctx, [...(portsOf.get(ctx) ?? []), port]);
  const clock = new VirtualClock(Number(await port.latestTimestamp()) * 1000);
  const swaps = { vaultAddress: ctx.chain.info.deployment.vault, chainId: ctx.chain.info.chainId, permitReader: port.permitReader() };
  const engine = new Engine({ seed: 7, clock, registry: ctx.registry, executorId: EXECUTOR_ID, chain: port, swaps, ...over });
  // Nothing before this engine existed counts as its deposits (the deployment mints, not deposits).
  await engine.syncDeposits();
  return { ctx, port, engine, clock, ids: new Rng("anvil-order-ids") };
}

/** approve(vault) + depositFund by the trader's own key, both mined. */
export async function depositOnChain(ctx: ChainCtx, trader: PrivateKeyAccount, symbol: string, raw: bigint): Promise<void> {
  const token = ctx.registry.tokenBySymbol(symbol)!.address;
  const wallet = createWalletClient({ account: trader, chain: ctx.viemChain, transport: http(ctx.chain.info.rpcUrl) });
  const d = ctx.chain.info.deployment;
  const approve = await wallet.sendTransaction({
    to: token,
    data: encodeFunctionData({ abi: TestToken.abi, functionName: "approve", args: [d.vault, raw] }),
  });
  await ctx.pub.waitForTransactionReceipt({ hash: approve, pollingInterval: 10 });
  const dep = await wallet.sendTransaction({
    to: d.exchange,
    data: encodeFunctionData({ abi: Exchange.abi, functionName: "depositFund", args: [token, trader.address, raw] }),
  });
  const r = await ctx.pub.waitForTransactionReceipt({ hash: dep, pollingInterval: 10 });
  if (r.status !== "success") throw new Error(`depositFund reverted for ${trader.address}`);
}

/**
 * Deploy a SmartWallet1271 owned by `owner`, give it wallet tokens from the owner and
 * let it deposit them for itself (depositFund needs msg.sender == the vault owner).
 */
export async function deployWallet1271(ctx: ChainCtx, owner: PrivateKeyAccount, deposits: { symbol: string; raw: bigint }[]): Promise<Address> {
  const w = createWalletClient({ account: owner, chain: ctx.viemChain, transport: http(ctx.chain.info.rpcUrl) });
  const mined = async (hash: Hex) => {
    const r = await ctx.pub.waitForTransactionReceipt({ hash, pollingInterval: 10 });
    if (r.status !== "success") throw new Error(`wallet set-up tx ${hash} reverted`);
    return r;
  };
  const deployed = await mined(await w.sendTransaction({ data: encodeDeployData({ abi: SmartWallet1271.abi, bytecode: SmartWallet1271.bytecode, args: [owner.address] }) }));
  const scw = deployed.contractAddress!.toLowerCase() as Address;
  const exec = async (target: Address, data: Hex) =>
    mined(await w.sendTransaction({ to: scw, data: encodeFunctionData({ abi: SmartWallet1271.abi, functionName: "execute", args: [target, data] }) }));
  const d = ctx.chain.info.deployment;
  for (const { symbol, raw } of deposits) {
    const token = ctx.registry.tokenBySymbol(symbol)!.address;
    await mined(await w.sendTransaction({ to: token, data: encodeFunctionData({ abi: TestToken.abi, functionName: "transfer", args: [scw, raw] }) }));
    await exec(token, encodeFunctionData({ abi: TestToken.abi, functionName: "approve", args: [d.vault, raw] }));
    await exec(d.exchange, encodeFunctionData({ abi: Exchange.abi, functionName: "depositFund", args: [token, scw, raw] }));
  }
  return scw;
}

export interface OrderOpts {
  side: "bid" | "ask";
  amount: string;
  price: string;
  symbol?: string;
  expiration?: number;
  /** Owner address (default: the signer's). A 1271 wallet's address with its owner's key as signer. */
  owner?: Address;
  executorId?: number;
}

/** A POST /orders body for the engine with a real signature over the Order preview builds. */
export async function signedBody(env: Env, signer: PrivateKeyAccount, o: OrderOpts): Promise<{ body: OrderBody; message: OrderMessage }> {
  const m = env.ctx.registry.marketBySymbol(o.symbol ?? "USDT/USDC")!;
  const orderId = env.ids.uuid4();
  const owner = (o.owner ?? signer.address).toLowerCase() as Address;
  const body: OrderBody = {
    owner_address: owner,
    side: o.side,
    amount: o.amount,
    price: o.price,
    order_type: "limit",
    from_address: m.base,
    to_address: m.quote,
    order_id: orderId,
    uuid_int: standaloneUuidInt(orderId, o.executorId ?? env.engine.executorId).toString(),
    expiration: o.expiration ?? env.clock.nowSec() + 3600,
  };
  const { message } = validateOrderFields(body, { registry: env.ctx.registry, nowSec: env.clock.nowSec(), executorId: o.executorId ?? env.engine.executorId });
  const signature = await signOrder(env, signer, message, o.owner !== undefined);
  return { body: { ...body, signature }, message };
}

/** ECDSA over the EIP-712 digest; with `raw`, a bare digest signature (what SmartWallet1271 checks). */
export async function signOrder(env: Env, signer: PrivateKeyAccount, message: OrderMessage, raw = false): Promise<Hex> {
  if (raw) return signer.sign({ hash: env.port.orderHash(message) });
  return signer.signTypedData({
    domain: env.port.domain,
    types: { Order: ORDER_TYPE },
    primaryType: "Order",
    message: { ...message, expiration: Number(message.expiration), feeBps: Number(message.feeBps) },
  });
}

/** Every (owner, token) vault balance on chain equals the engine's ledger (available + frozen). */
export async function ledgerMismatches(env: Env, owners: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const owner of [...owners, env.engine.protocolOwner]) {
    for (const t of env.ctx.registry.tokens()) {
      const onChain = await env.port.vaultBalance(owner as Address, t.address);
      const acc = env.engine.ledger.peek(owner.toLowerCase(), t.address);
      if (onChain !== acc.available + acc.frozen) out.push(`${owner} ${t.symbol}: chain ${onChain} ledger ${acc.available + acc.frozen}`);
    }
  }
  return out;
}

export const EXECUTOR = privateKeyToAccount(EXECUTOR_KEY);

/** Alice (the first trader) rests an ask, Bob (the second) crosses it with a bid: one fill, nothing settled yet. */
export async function crossingPair(env: Env): Promise<{ makerId: string; takerId: string; alice: string; bob: string }> {
  const { ctx } = env;
  const [alice, bob] = ctx.traders;
  // USDT and USDC both have 6 decimals.
  await depositOnChain(ctx, alice!, "USDT", 100_000_000n);
  await depositOnChain(ctx, bob!, "USDC", 200_000_000n);
  await env.engine.syncDeposits();
  const ask = await signedBody(env, alice!, { side: "ask", amount: "20", price: "1.1" });
  const bid = await signedBody(env, bob!, { side: "bid", amount: "20", price: "1.2" });
  const makerId = env.engine.placeOrder(ask.body).orderId;
  const placed = env.engine.placeOrder(bid.body);
  expect(placed.fillIds).toEqual([1]);
  return { makerId, takerId: placed.orderId, alice: alice!.address, bob: bob!.address };
}
