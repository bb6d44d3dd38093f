// Swaps on Anvil: the engine's POST /swap path settling through the Anvil port's
// submitIntent (Router.executeIntent by the executor) with a real Intent
// signature, equity-only and with a wallet pull under an ERC-2612 permit; the
// router-leg fault hook; IntentDeposit and Withdrawal events read back.
import { describe, expect, it } from "vitest";
import { encodeFunctionData, createWalletClient, http } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { Exchange, Router } from "../../sim/chain/artifacts.ts";
import type { QuoteWire } from "../../sim/core/quotes.ts";
import type { FaultPlan } from "../../sim/core/faults.ts";
import { INTENT_TYPE, PERMIT_TYPE, type Address, type Hex } from "../../sim/core/typed-data.ts";
import { anvilEngine, deployWallet1271, depositOnChain, ledgerMismatches, signedBody, useTestChain, type ChainCtx, type Env } from "./helpers.ts";

let ctx: ChainCtx;
const UNIT = 1_000_000n;
const IN_VAULT = "0x0000000000000000000000000000000000000000";

useTestChain(2, (c) => (ctx = c));

/** anvilEngine wires the swap desk to the deployed vault and this chain's permit reader. */
const swapEngine = (faults?: FaultPlan): Promise<Env> => anvilEngine(ctx, faults ? { faults } : {});

const tok = (s: string) => ctx.registry.tokenBySymbol(s)!.address;

/** Alice rests an ask of 20 USDT at 1.00 (vault-funded). */
async function makerBook(env: Env): Promise<string> {
  const alice = ctx.traders[0]!;
  await depositOnChain(ctx, alice, "USDT", 100n * UNIT);
  await env.engine.syncDeposits();
  return env.engine.placeOrder((await signedBody(env, alice, { side: "ask", amount: "20", price: "1" })).body).orderId;
}

async function signIntent(env: Env, who: PrivateKeyAccount, q: QuoteWire): Promise<Hex> {
  const intent = env.engine.swapIntentOf(q.uuid);
  return who.signTypedData({ domain: env.port.domain, types: { Intent: INTENT_TYPE }, primaryType: "Intent", message: { ...intent, deadline: Number(intent.deadline) } });
}

function quoteBody(env: Env, owner: string, amount: bigint, recipient: string) {
  return { from_token: tok("USDC"), to_token: tok("USDT"), from_amount: amount.toString(), owner_address: owner, recipient, expiration: env.clock.nowSec() + 3600 };
}

describe("swaps on Anvil", () => {
  it("equity-only swap: one executeIntent by the executor, settled; vault equals ledger; the intent uuid is spent on chain", async () => {
    const env = await swapEngine();
    const makerId = await makerBook(env);
    const bob = ctx.traders[1]!;
    await depositOnChain(ctx, bob, "USDC", 50n * UNIT);
    await env.engine.syncDeposits();
    const q = await env.engine.quoteSwap(quoteBody(env, bob.address.toLowerCase(), 10n * UNIT, IN_VAULT));
    expect(q.permit).toBeNull();
    const res = env.engine.swap({ uuid: q.uuid, signer: bob.address.toLowerCase(), signature: await signIntent(env, bob, q) });
    await env.engine.settleAll();
    const order = env.engine.getOrder(res.trade_id);
    expect(order.status).toBe("settled");
    const fill = env.engine.fillsOfOrder(res.trade_id)[0]!;
    expect([fill.maker_order_id, fill.settlement_status]).toEqual([makerId, "settled"]);
    const rc = await ctx.pub.getTransactionReceipt({ hash: fill.tx_hash as Hex });
    expect([rc.status, rc.to]).toEqual(["success", ctx.chain.info.deployment.router]);
    const used = await ctx.pub.readContract({ address: ctx.chain.info.deployment.router, abi: Router.abi, functionName: "intentUuidUsed", args: [bob.address, BigInt(q.route_params.uuid)] });
    expect(used).toBe(true);
    expect(await ledgerMismatches(env, [ctx.traders[0]!.address, bob.address])).toEqual([]);
  });

  it("wallet pull under an ERC-2612 permit: IntentDeposit on chain, not credited twice; output sent to the wallet", async () => {
    const env = await swapEngine();
    await makerBook(env);
    const bob = ctx.traders[1]!;
    const owner = bob.address.toLowerCase() as Address;
    const walletUsdc = await env.port.walletBalance(owner, tok("USDC"));
    const walletUsdt = await env.port.walletBalance(owner, tok("USDT"));
    const head = await env.port.blockNumber();
    const q = await env.engine.quoteSwap(quoteBody(env, owner, 10n * UNIT, owner));
    expect(q.permit?.permit_required).toBe(true);
    const e = q.permit!.eip712!;
    // The quote's eip712 block goes to the signer unchanged (numbers as bigints for viem).
    const permitSig = await bob.signTypedData({
      domain: { ...e.domain, chainId: Number(e.domain.chainId), verifyingContract: e.domain.verifyingContract as Address },
      types: { Permit: PERMIT_TYPE },
      primaryType: "Permit",
      message: {
        owner: e.message.owner as Address,
        spender: e.message.spender as Address,
        value: BigInt(e.message.value),
        nonce: BigInt(e.message.nonce),
        deadline: BigInt(e.message.deadline),
      },
    });
    expect(e.types.Permit).toEqual(PERMIT_TYPE.map((f) => ({ ...f })));
    const res = env.engine.swap({ uuid: q.uuid, signer: owner, signature: await signIntent(env, bob, q), permit_signature: permitSig, permit_deadline: e.message.deadline });
    await env.engine.settleAll();
    expect(env.engine.getOrder(res.trade_id).status).toBe("settled");
    const dep = BigInt(q.route_params.initialDepositAmount);
    expect(dep > 0n).toBe(true);
    const pulls = await env.port.intentDepositEvents(head + 1n, await env.port.blockNumber());
    expect(pulls.map((p) => [p.owner, p.token, p.amount])).toEqual([[owner, tok("USDC"), dep]]);
    expect(await env.port.walletBalance(owner, tok("USDC"))).toBe(walletUsdc - dep);
    expect(await env.port.walletBalance(owner, tok("USDT")) > walletUsdt).toBe(true);
    expect(await env.engine.syncVaultEvents()).toEqual({ deposits: 0, withdrawals: 0, block: await ctx.pub.getBlockNumber() });
    expect(await ledgerMismatches(env, [ctx.traders[0]!.address, owner])).toEqual([]);
  });

  it("an Intent signed for a deployed SmartWallet1271 taker verifies on chain (EIP-1271 in the Router) and settles", async () => {
    const env = await swapEngine();
    await makerBook(env);
    const bob = ctx.traders[1]!;
    const scw = await deployWallet1271(ctx, bob, [{ symbol: "USDC", raw: 50n * UNIT }]);
    await env.engine.syncDeposits();
    const q = await env.engine.quoteSwap(quoteBody(env, scw, 10n * UNIT, IN_VAULT));
    const intent = env.engine.swapIntentOf(q.uuid);
    expect(intent.taker.toLowerCase()).toBe(scw);
    // The wallet accepts the owner's signature over the bare digest.
    const signature = await bob.sign({ hash: env.port.intentHash(intent) });
    expect(await env.port.isValidSignature(scw, env.port.intentHash(intent), signature)).toBe(true);
    const res = env.engine.swap({ uuid: q.uuid, signer: scw, signature });
    await env.engine.settleAll();
    expect(env.engine.getOrder(res.trade_id).status).toBe("settled");
    expect(await env.port.vaultBalance(scw, tok("USDT"))).toBeGreaterThan(0n);
    expect(await ledgerMismatches(env, [ctx.traders[0]!.address, scw])).toEqual([]);
  });

  it("a fault-plan revert of the swap's settlement goes through the router-leg fault hook: the intent reverts on chain, the swap fails", async () => {
    const env = await swapEngine({ revertFills: [{ fill: 1, reason: "INSUFFICIENT_VAULT_BALANCE" }] });
    await makerBook(env);
    const bob = ctx.traders[1]!;
    await depositOnChain(ctx, bob, "USDC", 50n * UNIT);
    await env.engine.syncDeposits();
    const q = await env.engine.quoteSwap(quoteBody(env, bob.address.toLowerCase(), 10n * UNIT, IN_VAULT));
    const res = env.engine.swap({ uuid: q.uuid, signer: bob.address.toLowerCase(), signature: await signIntent(env, bob, q) });
    await env.engine.settleAll();
    const fill = env.engine.fillsOfOrder(res.trade_id)[0]!;
    expect(fill.settlement_status).toBe("failed");
    const rc = await ctx.pub.getTransactionReceipt({ hash: fill.tx_hash as Hex });
    expect(rc.status).toBe("reverted");
    expect((await env.port.getReceipt(fill.tx_hash as Hex))!.revertReason).toBe("INSUFFICIENT_VAULT_BALANCE");
    expect(env.engine.getOrder(res.trade_id).status).toBe("failed");
    expect(await ledgerMismatches(env, [ctx.traders[0]!.address, bob.address])).toEqual([]);
  });

  it("withdrawalEvents reads Exchange.Withdrawal (an emergency withdrawal pays out)", async () => {
    const env = await swapEngine();
    const bob = ctx.traders[1]!;
    await depositOnChain(ctx, bob, "USDC", 10n * UNIT);
    const admin = createWalletClient({ account: (await import("viem/accounts")).privateKeyToAccount((await import("../../fixtures/accounts.ts")).DEPLOYER_KEY), chain: ctx.viemChain, transport: http(ctx.chain.info.rpcUrl) });
    const ex = ctx.chain.info.deployment.exchange;
    await ctx.pub.waitForTransactionReceipt({ hash: await admin.sendTransaction({ to: ex, data: encodeFunctionData({ abi: Exchange.abi, functionName: "setEmergencyWithdrawBlocks", args: [1n, 10n] }) }), pollingInterval: 10 });
    const w = createWalletClient({ account: bob, chain: ctx.viemChain, transport: http(ctx.chain.info.rpcUrl) });
    const call = encodeFunctionData({ abi: Exchange.abi, functionName: "emergencyWithdraw", args: [tok("USDC"), 4n * UNIT] });
    const head = await env.port.blockNumber();
    await ctx.pub.waitForTransactionReceipt({ hash: await w.sendTransaction({ to: ex, data: call }), pollingInterval: 10 });
    await env.port.mine();
    await ctx.pub.waitForTransactionReceipt({ hash: await w.sendTransaction({ to: ex, data: call }), pollingInterval: 10 });
    const evs = await env.port.withdrawalEvents(head + 1n, await env.port.blockNumber());
    const owner = bob.address.toLowerCase();
    expect(evs.map((e) => [e.owner, e.token, e.amount, e.recipient])).toEqual([[owner, tok("USDC"), 4n * UNIT, owner]]);
  });
});
