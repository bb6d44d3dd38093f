// The engine settling on Anvil through the Anvil port: real deposits, real
// EIP-712 signatures carried through to the Exchange, fills confirming then
// settled, reverts and failed batches, block modes.
import { describe, expect, it } from "vitest";
import { ExchangeError } from "../../sim/core/errors.ts";
import { orderMessageOf } from "../../sim/core/swap-intent.ts";
import { CANCEL_ORDER_TYPE, type Address, type Hex } from "../../sim/core/typed-data.ts";
import { Exchange } from "../../sim/chain/artifacts.ts";
import { AnvilChainPort } from "../../sim/chain/anvil.ts";
import { EXECUTOR_KEY } from "../../fixtures/accounts.ts";
import { hashTyped } from "../../sim/signing/signatures.ts";
import { anvilEngine, crossingPair, deployWallet1271, depositOnChain, ledgerMismatches, signedBody, useTestChain, type ChainCtx } from "./helpers.ts";

let ctx: ChainCtx;

useTestChain(3, (c) => (ctx = c));

const UNIT = 1_000_000n; // USDT and USDC both have 6 decimals

describe("engine on the Anvil port", () => {
  it("deposits sync from chain; a crossing pair settles on chain with tx_hash; vault equals ledger", async () => {
    const env = await anvilEngine(ctx);
    const [alice, bob] = ctx.traders;
    await depositOnChain(ctx, alice!, "USDT", 100n * UNIT);
    await depositOnChain(ctx, bob!, "USDC", 200n * UNIT);
    expect(await env.engine.syncDeposits()).toBe(2);
    const usdt = ctx.registry.tokenBySymbol("USDT")!.address;
    expect(env.engine.ledger.available(alice!.address.toLowerCase(), usdt)).toBe(100n * UNIT);

    const ask = await signedBody(env, alice!, { side: "ask", amount: "20", price: "1.1" });
    const bid = await signedBody(env, bob!, { side: "bid", amount: "20", price: "1.2" });
    env.engine.placeOrder(ask.body);
    const placed = env.engine.placeOrder(bid.body);
    expect(placed.fillIds).toEqual([1]);

    const report = await env.engine.settle();
    expect(report).toEqual({ broadcast: 1, confirmed: 1, failed: 0 });
    const fill = env.engine.fillsOfOrder(placed.orderId)[0]!;
    expect(fill.settlement_status).toBe("settled");
    expect(fill.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    const rc = await ctx.pub.getTransactionReceipt({ hash: fill.tx_hash as Hex });
    expect(rc.status).toBe("success");
    expect(env.engine.getOrder(placed.orderId).status).toBe("settled");
    // The taker bid gave 22 USDC at the maker's price (20 × 1.1) out of its signed 24.
    expect(await env.port.filledOf(bid.message)).toBe(22n * UNIT);
    expect(await env.port.filledOf(ask.message)).toBe(20n * UNIT);
    expect(await ledgerMismatches(env, [alice!.address, bob!.address])).toEqual([]);
  });

  it("manual block mode holds fills in confirming (tx_hash set) until a block is mined", async () => {
    const env = await anvilEngine(ctx);
    const { takerId } = await crossingPair(env);
    await env.port.setBlockMode({ kind: "manual" });
    expect((await env.engine.settle()).broadcast).toBe(1);
    const before = env.engine.fillsOfOrder(takerId)[0]!;
    expect(before.settlement_status).toBe("confirming");
    expect(before.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    // Still unmined: another round changes nothing.
    expect(await env.engine.settle()).toEqual({ broadcast: 0, confirmed: 0, failed: 0 });
    expect(env.engine.fillsOfOrder(takerId)[0]!.settlement_status).toBe("confirming");
    expect(env.engine.getOrder(takerId).status).toBe("matched");
    await env.port.mine();
    expect(await env.engine.settle()).toEqual({ broadcast: 0, confirmed: 1, failed: 0 });
    const after = env.engine.fillsOfOrder(takerId)[0]!;
    expect([after.settlement_status, after.tx_hash]).toEqual(["settled", before.tx_hash]);
    expect(env.engine.getOrder(takerId).status).toBe("settled");
  });

  it("confirmationDelayBlocks: a mined batch stays confirming until the chain is that many blocks past it", async () => {
    const env = await anvilEngine(ctx, { faults: { confirmationDelayBlocks: 2 } });
    const { takerId } = await crossingPair(env);
    expect(await env.engine.settle()).toEqual({ broadcast: 1, confirmed: 0, failed: 0 });
    const mined = (await env.port.getReceipt(env.engine.fillsOfOrder(takerId)[0]!.tx_hash as Hex))!.blockNumber;
    expect(env.engine.fillsOfOrder(takerId)[0]!.settlement_status).toBe("confirming");
    await env.port.mine();
    expect((await env.engine.settle()).confirmed).toBe(0);
    await env.port.mine();
    expect(await env.port.blockNumber()).toBe(mined + 2n);
    expect((await env.engine.settle()).confirmed).toBe(1);
    expect(env.engine.fillsOfOrder(takerId)[0]!.settlement_status).toBe("settled");
  });

  it("settleAll under a confirmation delay longer than its rounds: the owed blocks are mined at once, the fill settles", async () => {
    const env = await anvilEngine(ctx, { faults: { confirmationDelayBlocks: 1_200 } });
    const { takerId } = await crossingPair(env);
    const head = await env.port.blockNumber();
    await env.engine.settleAll(10);
    expect(env.engine.fillsOfOrder(takerId)[0]!.settlement_status).toBe("settled");
    // The batch's block, then the 1,200 confirmations and no more than a round's block on top.
    expect(await env.port.blockNumber()).toBeLessThanOrEqual(head + 1n + 1_200n + 1n);
  });

  it("a fault-plan revert lands as an on-chain MatchFailed: fill reverted with its allowlisted reason", async () => {
    const env = await anvilEngine(ctx, { faults: { revertFills: [{ fill: 1, reason: "INSUFFICIENT_VAULT_BALANCE" }] } });
    const { takerId, makerId, alice, bob } = await crossingPair(env);
    expect(await env.engine.settle()).toEqual({ broadcast: 1, confirmed: 1, failed: 0 });
    const fill = env.engine.fillsOfOrder(takerId)[0]!;
    expect([fill.settlement_status, fill.failure_reason]).toEqual(["reverted", "INSUFFICIENT_VAULT_BALANCE"]);
    // The reason came from the chain: the receipt holds the MatchFailed event and the batch mask.
    const rc = await ctx.pub.getTransactionReceipt({ hash: fill.tx_hash as Hex });
    expect(rc.status).toBe("success");
    const r = await env.port.getReceipt(fill.tx_hash as Hex);
    expect([r!.failedMask, r!.failures]).toEqual([1n, [{ index: 0, reason: "INSUFFICIENT_VAULT_BALANCE" }]]);
    expect(env.engine.getOrder(takerId).status).toBe("failed");
    // Injected, so no owner owes the vault: the maker takes the shortfall's code, the taker the catch-all.
    expect(env.engine.getOrder(takerId).error_code).toBe("TRANSIENT_SETTLEMENT_FAILURE");
    // The maker was fully matched by this fill, so it fails with it.
    expect(env.engine.getOrder(makerId).status).toBe("failed");
    expect(env.engine.getOrder(makerId).error_code).toBe("INSUFFICIENT_EQUITY");
    // Nothing moved on chain, and the engine unwound its ledger to match.
    expect(await ledgerMismatches(env, [alice, bob])).toEqual([]);
    // The engine cleared the fault on chain after the receipt.
    const maker = env.engine.orderRecord(makerId);
    const taker = env.engine.orderRecord(takerId);
    const hashes = [maker, taker].map((o) => env.port.orderHash(orderMessageOf(o)));
    await env.port.flush();
    await env.port.mine();
    const fault = await ctx.pub.readContract({ address: ctx.chain.info.deployment.exchange, abi: Exchange.abi, functionName: "matchFault", args: [hashes[0]!, hashes[1]!] });
    expect(fault).toBe("");
  });

  it("a custom (non-allowlisted) fault reason reverts the fill with failure_reason null", async () => {
    const env = await anvilEngine(ctx, { faults: { revertFills: [{ fill: 1, reason: "CHAOS_MONKEY" }] } });
    const { takerId } = await crossingPair(env);
    await env.engine.settle();
    const fill = env.engine.fillsOfOrder(takerId)[0]!;
    expect([fill.settlement_status, fill.failure_reason]).toEqual(["reverted", null]);
    expect(env.engine.getOrder(takerId).error_code).toBe("TRANSIENT_SETTLEMENT_FAILURE");
  });

  it("a failed batch (atomic, the whole tx reverts on chain) makes its fills failed", async () => {
    const env = await anvilEngine(ctx, { faults: { revertSettlements: [{ nth: 1, reason: "ORDER_EXPIRED", mode: "batch" }] } });
    const { takerId, alice, bob } = await crossingPair(env);
    expect(await env.engine.settle()).toEqual({ broadcast: 1, confirmed: 0, failed: 1 });
    const fill = env.engine.fillsOfOrder(takerId)[0]!;
    expect(fill.settlement_status).toBe("failed");
    const rc = await ctx.pub.getTransactionReceipt({ hash: fill.tx_hash as Hex });
    expect(rc.status).toBe("reverted");
    const r = await env.port.getReceipt(fill.tx_hash as Hex);
    expect([r!.status, r!.revertReason]).toEqual(["reverted", "ORDER_EXPIRED"]);
    expect(env.engine.settlementBatches()[0]!.status).toBe("failed");
    expect(await ledgerMismatches(env, [alice, bob])).toEqual([]);
  });

  it("a genuine on-chain cause (a bad signature) reverts the match with BAD_SIGNATURE", async () => {
    const env = await anvilEngine(ctx);
    const [alice, bob] = ctx.traders;
    await depositOnChain(ctx, alice!, "USDT", 100n * UNIT);
    await depositOnChain(ctx, bob!, "USDC", 200n * UNIT);
    await env.engine.syncDeposits();
    const ask = await signedBody(env, alice!, { side: "ask", amount: "20", price: "1.1" });
    // Bob signs an order, but the body claims Alice's signature: the contract's ecrecover says no.
    const bid = await signedBody(env, bob!, { side: "bid", amount: "20", price: "1.2" });
    env.engine.placeOrder(ask.body);
    const placed = env.engine.placeOrder({ ...bid.body, signature: ask.body.signature });
    await env.engine.settle();
    const fill = env.engine.fillsOfOrder(placed.orderId)[0]!;
    expect([fill.settlement_status, fill.failure_reason]).toEqual(["reverted", "BAD_SIGNATURE"]);
  });

  it("settles several batches of one round (cap 20) from one JSON-RPC flush; vault equals ledger", async () => {
    const env = await anvilEngine(ctx);
    const [alice, bob] = ctx.traders;
    await depositOnChain(ctx, alice!, "USDT", 10_000n * UNIT);
    await depositOnChain(ctx, bob!, "USDC", 10_000n * UNIT);
    await env.engine.syncDeposits();
    for (let i = 0; i < 45; i++) env.engine.placeOrder((await signedBody(env, alice!, { side: "ask", amount: "10", price: (1 + i / 1000).toFixed(3) })).body);
    const taker = env.engine.placeOrder((await signedBody(env, bob!, { side: "bid", amount: "450", price: "1.1" })).body);
    expect(taker.fillIds.length).toBe(45);
    expect(await env.engine.settle()).toEqual({ broadcast: 3, confirmed: 3, failed: 0 });
    expect(new Set(env.engine.fillRecords().map((f) => f.status))).toEqual(new Set(["settled"]));
    expect(new Set(env.engine.fillRecords().map((f) => f.txHash)).size).toBe(3);
    expect(env.engine.getOrder(taker.orderId).status).toBe("settled");
    expect(await ledgerMismatches(env, [alice!.address, bob!.address])).toEqual([]);
  });

  it("an order signed for a deployed SmartWallet1271 verifies on chain and settles", async () => {
    const env = await anvilEngine(ctx);
    const [alice, , carol] = ctx.traders;
    const scw = await deployWallet1271(ctx, carol!, [{ symbol: "USDC", raw: 100n * UNIT }]);
    await depositOnChain(ctx, alice!, "USDT", 100n * UNIT);
    expect(await env.engine.syncDeposits()).toBe(2);

    expect(await env.port.isContract(scw)).toBe(true);
    expect(await env.port.isContract(alice!.address.toLowerCase() as Address)).toBe(false);
    const ask = await signedBody(env, alice!, { side: "ask", amount: "20", price: "1.1" });
    const bid = await signedBody(env, carol!, { side: "bid", amount: "20", price: "1.2", owner: scw });
    const digest = env.port.orderHash(bid.message);
    expect(await env.port.isValidSignature(scw, digest, bid.body.signature as Hex)).toBe(true);
    expect(await env.port.isValidSignature(scw, digest, ask.body.signature as Hex)).toBe(false);
    // A CancelOrder for the wallet's order verifies on chain the same way.
    const cancelDigest = hashTyped(env.port.domain, { CancelOrder: CANCEL_ORDER_TYPE }, "CancelOrder", { owner: scw, orderId: bid.message.uuid });
    expect(await env.port.isValidSignature(scw, cancelDigest, await carol!.sign({ hash: cancelDigest }))).toBe(true);
    expect(await env.port.isValidSignature(scw, cancelDigest, await alice!.sign({ hash: cancelDigest }))).toBe(false);
    // An EOA has no isValidSignature: the call returns nothing, which is not the magic value.
    expect(await env.port.isValidSignature(alice!.address.toLowerCase() as Address, digest, bid.body.signature as Hex)).toBe(false);

    env.engine.placeOrder(ask.body);
    const placed = env.engine.placeOrder(bid.body);
    await env.engine.settle();
    const fill = env.engine.fillsOfOrder(placed.orderId)[0]!;
    expect(fill.settlement_status).toBe("settled");
    const usdt = ctx.registry.tokenBySymbol("USDT")!.address;
    expect(await env.port.vaultBalance(scw, usdt)).toBe(20n * UNIT);
    expect(await ledgerMismatches(env, [alice!.address, scw])).toEqual([]);
  });

  it("executor rotation: ids signed for the old executor are refused (400 UUID_INT_MISMATCH); resting orders still settle", async () => {
    const env = await anvilEngine(ctx);
    const [alice, bob] = ctx.traders;
    await depositOnChain(ctx, alice!, "USDT", 100n * UNIT);
    await depositOnChain(ctx, bob!, "USDC", 200n * UNIT);
    await env.engine.syncDeposits();
    const ask = await signedBody(env, alice!, { side: "ask", amount: "20", price: "1.1" });
    env.engine.placeOrder(ask.body);
    const staleBid = await signedBody(env, bob!, { side: "bid", amount: "20", price: "1.2" });
    env.engine.setExecutorId(4);
    let err: unknown;
    try {
      env.engine.placeOrder(staleBid.body);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ExchangeError);
    expect([(err as ExchangeError).status, (err as ExchangeError).code]).toEqual([400, "UUID_INT_MISMATCH"]);
    const freshBid = await signedBody(env, bob!, { side: "bid", amount: "20", price: "1.2" });
    expect(freshBid.message.uuid >> 252n).toBe(4n);
    const placed = env.engine.placeOrder(freshBid.body);
    await env.engine.settle();
    expect(env.engine.fillsOfOrder(placed.orderId)[0]!.settlement_status).toBe("settled");
  });

  it("GET /balances on the Anvil port: wallet from the ERC-20, vault split from the ledger; an unreachable node → wallet_balance_available false", async () => {
    const env = await anvilEngine(ctx);
    const { alice } = await crossingPair(env);
    const usdt = ctx.registry.tokenBySymbol("USDT")!;
    const row = (await env.engine.balances(alice)).balances.find((r) => r.token === usdt.address)!;
    // 1,000,000 minted, 100 deposited; 20 frozen by the matched ask until it settles.
    expect(row).toMatchObject({
      wallet_balance: (999_900n * UNIT).toString(),
      vault_available: (80n * UNIT).toString(),
      vault_frozen: (20n * UNIT).toString(),
      vault_total: (100n * UNIT).toString(),
      total: (1_000_000n * UNIT).toString(),
    });
    expect((await env.engine.balances(alice)).wallet_balance_available).toBe(true);
    // Port 9 (discard) has no JSON-RPC server: the wallet read fails, the vault rows stay.
    const dead = new AnvilChainPort({ rpcUrl: "http://127.0.0.1:9", chainId: ctx.chain.info.chainId, deployment: ctx.chain.info.deployment, executorKey: EXECUTOR_KEY });
    (env.engine as unknown as { chain: unknown }).chain = dead;
    const offline = await env.engine.balances(alice);
    expect(offline.wallet_balance_available).toBe(false);
    expect(offline.balances.find((r) => r.token === usdt.address)!.vault_total).toBe((100n * UNIT).toString());
  });
});
