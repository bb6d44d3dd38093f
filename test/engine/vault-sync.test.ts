// The engine's vault-event sync: Exchange Deposit credits, Exchange Withdrawal
// debits, idempotently per event; frozen funds are not co-signable for withdrawal.
import { describe, expect, it } from "vitest";
import { exchangeDomain } from "../../sim/core/typed-data.ts";
import { WithdrawCoSigner } from "../../sim/core/withdraw.ts";
import { ALICE, BOB, body, setup, vlBodies, type Env } from "./helpers.ts";

function usdc(env: Env): `0x${string}` {
  return env.registry.tokenBySymbol("USDC")!.address;
}

async function depositOnChain(env: Env, owner: `0x${string}`, raw: bigint): Promise<void> {
  env.chain.mint(owner, usdc(env), raw);
  env.chain.deposit(owner, usdc(env), raw);
}

/** Alice (20 USDC) bids 10 EURC at 1.08 and Bob's ask fills it whole: the fill is matched, not settled yet. */
async function matchedBid(env: Env): Promise<{ bid: string; ask: string }> {
  const eurc = env.registry.tokenBySymbol("EURC")!.address;
  await depositOnChain(env, ALICE, 20_000_000n);
  env.chain.mint(BOB, eurc, 20_000_000n);
  env.chain.deposit(BOB, eurc, 20_000_000n);
  await env.engine.syncVaultEvents();
  const bid = env.engine.placeOrder(body(env, { owner: ALICE, side: "bid", amount: "10", price: "1.08" })); // freezes 10.8
  const ask = env.engine.placeOrder(body(env, { owner: BOB, side: "ask", amount: "10", price: "1.08" }));
  expect(env.engine.getOrder(bid.orderId).status).toBe("matched");
  return { bid: bid.orderId, ask: ask.orderId };
}

describe("vault-event sync", () => {
  it("a withdrawal on the memory chain lowers vault_available after sync; deposits and withdrawals apply once", async () => {
    const env = setup();
    await depositOnChain(env, ALICE, 10_000_000n);
    expect(await env.engine.syncVaultEvents()).toEqual({ deposits: 1, withdrawals: 0, block: await env.chain.blockNumber() });
    expect(env.engine.available(ALICE, usdc(env))).toBe(10_000_000n);

    const ev = env.chain.withdraw(ALICE, usdc(env), 4_000_000n, BOB);
    expect(ev).toMatchObject({ owner: ALICE.toLowerCase(), recipient: BOB.toLowerCase(), amount: 4_000_000n });
    expect(await env.chain.walletBalance(BOB, usdc(env))).toBe(4_000_000n);
    expect(await env.engine.syncVaultEvents()).toEqual({ deposits: 0, withdrawals: 1, block: await env.chain.blockNumber() });
    const row = (await env.engine.balances(ALICE)).balances.find((b) => b.symbol === "USDC")!;
    expect(row.vault_available).toBe("6000000");
    expect(row.vault_total).toBe("6000000");
    // Nothing new: a second pass changes nothing.
    expect(await env.engine.syncVaultEvents()).toEqual({ deposits: 0, withdrawals: 0, block: await env.chain.blockNumber() });
    expect(env.engine.available(ALICE, usdc(env))).toBe(6_000_000n);
    expect(await env.chain.vaultBalance(ALICE, usdc(env))).toBe(6_000_000n);
  });

  it("syncDeposits stays an alias returning the credited deposit count", async () => {
    const env = setup();
    await depositOnChain(env, ALICE, 3_000_000n);
    await depositOnChain(env, BOB, 2_000_000n);
    env.chain.withdraw(ALICE, usdc(env), 1_000_000n);
    expect(await env.engine.syncDeposits()).toBe(2);
    expect(env.engine.available(ALICE, usdc(env))).toBe(2_000_000n);
    expect(env.engine.available(BOB, usdc(env))).toBe(2_000_000n);
  });

  it("replaying events after a cursor rewind inside one engine life is idempotent by txHash+logIndex", async () => {
    const env = setup();
    await depositOnChain(env, ALICE, 5_000_000n);
    await env.engine.syncVaultEvents();
    const snap = env.engine.snapshot();
    // A snapshot taken after the sync keeps the seen set: restoring it and syncing again adds nothing.
    env.engine.restore({ ...snap, depositCursor: 0n });
    expect(await env.engine.syncVaultEvents()).toEqual({ deposits: 0, withdrawals: 0, block: await env.chain.blockNumber() });
    expect(env.engine.available(ALICE, usdc(env))).toBe(5_000_000n);
  });

  it("an emergency exit beyond available cancels the owner's pending orders of the token, newest first, until it is covered", async () => {
    const env = setup();
    await depositOnChain(env, ALICE, 20_000_000n);
    await env.engine.syncVaultEvents();
    const older = env.engine.placeOrder(body(env, { owner: ALICE, side: "bid", amount: "10", price: "1.08" })); // freezes 10.8 USDC
    const newer = env.engine.placeOrder(body(env, { owner: ALICE, side: "bid", amount: "5", price: "1.08" })); // freezes 5.4; 3.8 left
    env.chain.withdraw(ALICE, usdc(env), 8_000_000n); // 3.8 available taken, 4.2 owed
    await env.engine.syncVaultEvents();
    const log = JSON.stringify(env.engine.log.snapshot(), (_, v) => (typeof v === "bigint" ? v.toString() : v));
    expect(log).toContain('"uncovered":"4200000"');
    expect(log).toContain('"reason":"vault_withdrawn"');
    // The newer order's 5.4 pays the 4.2 owed; the older one keeps its place and its funds.
    expect(env.engine.getOrder(newer.orderId)).toMatchObject({
      status: "cancelled",
      error_code: "INSUFFICIENT_EQUITY",
      error: "cancelled: the order's funds were withdrawn from the vault on chain",
    });
    expect(env.engine.getOrder(older.orderId)).toMatchObject({ status: "pending", error_code: null });
    expect(env.engine.ledger.peek(ALICE.toLowerCase(), usdc(env))).toEqual({ available: 1_200_000n, frozen: 10_800_000n });
    expect(env.engine.snapshot().vaultDebt).toEqual([]);
    const row = (await env.engine.balances(ALICE)).balances.find((b) => b.symbol === "USDC")!;
    expect(row.vault_total).toBe((await env.chain.vaultBalance(ALICE, usdc(env))).toString());
  });

  it("a withdrawal hold whose deadline passed pays an emergency exit before any order is cancelled for it", async () => {
    const env = setup();
    await depositOnChain(env, ALICE, 20_000_000n);
    await env.engine.syncVaultEvents();
    env.engine.holdWithdrawal(ALICE, 9n, new Map([[usdc(env), 5_000_000n]]), env.clock.nowSec() + 60); // never sent
    const bid = env.engine.placeOrder(body(env, { owner: ALICE, side: "bid", amount: "10", price: "1.08" })); // 10.8 frozen, 4.2 free
    env.clock.advanceSec(120);
    env.chain.withdraw(ALICE, usdc(env), 9_200_000n); // 4.2 available taken, 5 owed: the lapsed hold's 5 covers it
    await env.engine.syncVaultEvents();
    expect(env.engine.getOrder(bid.orderId)).toMatchObject({ status: "pending", error_code: null });
    expect(env.engine.snapshot().vaultDebt).toEqual([]);
    expect(env.engine.ledger.peek(ALICE.toLowerCase(), usdc(env))).toEqual({ available: 0n, frozen: 10_800_000n });
    expect(await env.chain.vaultBalance(ALICE, usdc(env))).toBe(10_800_000n);
  });

  it("a taker arriving after the sync does not meet the withdrawn order: it rests, nothing fails", async () => {
    const env = setup();
    const eurc = env.registry.tokenBySymbol("EURC")!.address;
    env.chain.mint(ALICE, eurc, 20_000_000n);
    env.chain.deposit(ALICE, eurc, 20_000_000n);
    await depositOnChain(env, BOB, 20_000_000n);
    await env.engine.syncVaultEvents();
    const ask = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "15", price: "1.08" }));
    env.chain.withdraw(ALICE, eurc, 20_000_000n); // all of it: 5 available, 15 owed
    await env.engine.syncVaultEvents();
    const bid = env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "10", price: "1.08" }));
    expect(bid.fillIds).toEqual([]);
    await env.engine.settleAll();
    expect(env.engine.getOrder(ask.orderId)).toMatchObject({ status: "cancelled", error_code: "INSUFFICIENT_EQUITY" });
    expect(env.engine.getOrder(bid.orderId)).toMatchObject({ status: "pending", error_code: null, remaining_amount: "10" });
    expect(env.engine.ledger.peek(ALICE.toLowerCase(), eurc)).toEqual({ available: 0n, frozen: 0n });
  });

  it("a debt that matched fills still hold funds for stays owed, shows netted in /balances, is paid from a later deposit; snapshots keep it", async () => {
    const env = setup();
    await matchedBid(env); // Alice's bid froze 10.8 USDC and is matched, not settled
    env.chain.withdraw(ALICE, usdc(env), 20_000_000n); // 9.2 available taken, 10.8 owed: no pending order to cancel
    await env.engine.syncVaultEvents();
    const snap = env.engine.snapshot();
    expect(snap.vaultDebt).toEqual([[`${ALICE.toLowerCase()}|${usdc(env)}`, 10_800_000n]]);
    // The ledger still holds the fill's 10.8; the balance row shows the vault's 0.
    expect(env.engine.ledger.peek(ALICE.toLowerCase(), usdc(env))).toEqual({ available: 0n, frozen: 10_800_000n });
    const row = (await env.engine.balances(ALICE)).balances.find((b) => b.symbol === "USDC")!;
    expect(row).toMatchObject({ wallet_balance: "20000000", vault_available: "0", vault_frozen: "0", vault_total: "0", total: "20000000" });
    await depositOnChain(env, ALICE, 4_000_000n);
    await env.engine.syncVaultEvents();
    expect(env.engine.ledger.peek(ALICE.toLowerCase(), usdc(env))).toEqual({ available: 0n, frozen: 10_800_000n });
    expect(env.engine.vaultAccount(ALICE, usdc(env))).toEqual({ available: 0n, frozen: 4_000_000n });
    expect(env.engine.available(ALICE, usdc(env))).toBe(0n);
    env.engine.restore(snap);
    expect(env.engine.available(ALICE, usdc(env))).toBe(0n);
    expect(env.engine.snapshot().vaultDebt).toEqual(snap.vaultDebt);
  });

  it("orders and VL budgets do not spend owed withdrawals: equity is available net of the debt", async () => {
    const env = setup();
    await matchedBid(env);
    env.chain.withdraw(ALICE, usdc(env), 20_000_000n); // 9.2 available taken, 10.8 owed
    await env.engine.syncVaultEvents();
    // A credit outside the sync (no debt collection yet): 6 USDC in the ledger, all of it owed.
    env.engine.creditDeposit(ALICE, usdc(env), 6_000_000n);
    expect(env.engine.ledger.available(ALICE.toLowerCase(), usdc(env))).toBe(6_000_000n);
    expect(env.engine.available(ALICE, usdc(env))).toBe(0n);
    const before = env.engine.eventHash();

    let err: unknown;
    try {
      env.engine.placeOrder(body(env, { owner: ALICE, side: "bid", amount: "5", price: "1.08" })); // needs 5.4
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ status: 400, code: "INSUFFICIENT_EQUITY", extra: { available_raw: "0", required_raw: "5400000" } });

    let vlErr: unknown;
    try {
      env.engine.placeVlBatch(
        vlBodies(env, [
          { owner: ALICE, side: "bid", amount: "5", price: "1.08" },
          { owner: ALICE, side: "bid", amount: "5", price: "1.3", symbol: "GBPT/USDC" },
        ]),
      );
    } catch (e) {
      vlErr = e;
    }
    expect(vlErr).toMatchObject({ status: 400, code: "INSUFFICIENT_EQUITY" });
    expect(env.engine.eventHash()).toBe(before);
    expect(env.engine.listOrders(ALICE)).toHaveLength(1);
  });

  it("a matched fill that reverts because an emergency exit emptied the vault: INSUFFICIENT_EQUITY to the owner who owes, the catch-all to the counterparty", async () => {
    const env = setup();
    const { bid, ask } = await matchedBid(env);
    env.chain.withdraw(ALICE, usdc(env), 15_000_000n); // 9.2 available taken, 5.8 owed
    await env.engine.syncVaultEvents();
    await env.engine.settleAll();
    expect(env.engine.getOrder(bid)).toMatchObject({ status: "failed", error: "INSUFFICIENT_VAULT_BALANCE", error_code: "INSUFFICIENT_EQUITY" });
    expect(env.engine.getOrder(ask)).toMatchObject({ status: "failed", error: "INSUFFICIENT_VAULT_BALANCE", error_code: "TRANSIENT_SETTLEMENT_FAILURE" });
    // The failed fill released the bid's 10.8, which paid the 5.8 owed: the ledger equals the vault.
    expect(env.engine.ledger.peek(ALICE.toLowerCase(), usdc(env))).toEqual({ available: 5_000_000n, frozen: 0n });
    expect(await env.chain.vaultBalance(ALICE, usdc(env))).toBe(5_000_000n);
  });

  it("a co-signed withdrawal's hold is released by its own mined intent, not by another withdrawal of the token", async () => {
    const env = setup();
    await depositOnChain(env, ALICE, 20_000_000n);
    await env.engine.syncVaultEvents();
    env.engine.holdWithdrawal(ALICE, 7n, new Map([[usdc(env), 8_000_000n]]), env.clock.nowSec() + 600);
    expect(env.engine.ledger.peek(ALICE.toLowerCase(), usdc(env))).toEqual({ available: 12_000_000n, frozen: 8_000_000n });
    env.chain.withdraw(ALICE, usdc(env), 2_000_000n); // another path (an emergency exit): the hold stays
    await env.engine.syncVaultEvents();
    expect(env.engine.hasWithdrawHold(ALICE, 7n)).toBe(true);
    expect(env.engine.ledger.peek(ALICE.toLowerCase(), usdc(env))).toEqual({ available: 10_000_000n, frozen: 8_000_000n });
    env.chain.withdraw(ALICE, usdc(env), 8_000_000n, ALICE, 7n); // the intent itself
    await env.engine.syncVaultEvents();
    expect(env.engine.hasWithdrawHold(ALICE, 7n)).toBe(false);
    expect(env.engine.ledger.peek(ALICE.toLowerCase(), usdc(env))).toEqual({ available: 10_000_000n, frozen: 0n });
    expect(await env.chain.vaultBalance(ALICE, usdc(env))).toBe(10_000_000n);
  });

  it("a hold past its deadline is let go by the next vault sync, not before (the intent may have been mined unseen)", async () => {
    const env = setup();
    await depositOnChain(env, ALICE, 20_000_000n);
    await env.engine.syncVaultEvents();
    env.engine.holdWithdrawal(ALICE, 8n, new Map([[usdc(env), 15_000_000n]]), env.clock.nowSec() + 60);
    const big = () => env.engine.placeOrder(body(env, { owner: ALICE, side: "bid", amount: "10", price: "1.08" })); // needs 10.8
    expect(big).toThrow(expect.objectContaining({ code: "INSUFFICIENT_EQUITY" }));
    env.clock.advanceSec(60);
    expect(big).toThrow(expect.objectContaining({ code: "INSUFFICIENT_EQUITY" }));
    await env.engine.syncVaultEvents();
    expect(env.engine.hasWithdrawHold(ALICE, 8n)).toBe(false);
    expect(big().status).toBe("pending");
  });

  it("an intent mined before its deadline and synced after it is paid from its hold; its funds back no order", async () => {
    const env = setup();
    await depositOnChain(env, ALICE, 20_000_000n);
    await env.engine.syncVaultEvents();
    env.engine.holdWithdrawal(ALICE, 9n, new Map([[usdc(env), 15_000_000n]]), env.clock.nowSec() + 60);
    env.chain.withdraw(ALICE, usdc(env), 15_000_000n, ALICE, 9n); // mined in time, not synced yet
    env.clock.advanceSec(61);
    const big = () => env.engine.placeOrder(body(env, { owner: ALICE, side: "bid", amount: "10", price: "1.08" }));
    expect(big).toThrow(expect.objectContaining({ code: "INSUFFICIENT_EQUITY" }));
    await env.engine.syncVaultEvents();
    expect(env.engine.ledger.peek(ALICE.toLowerCase(), usdc(env))).toEqual({ available: 5_000_000n, frozen: 0n });
    expect(env.engine.log.since().filter((e) => e.type === "withdraw_hold_released").map((e) => (e.data as { why: string }).why)).toEqual(["mined"]);
    expect(big).toThrow(expect.objectContaining({ code: "INSUFFICIENT_EQUITY" }));
  });

  it("frozen funds cannot be co-signed for withdrawal: the co-signer reads engine.available", async () => {
    const env = setup();
    await depositOnChain(env, ALICE, 20_000_000n);
    await env.engine.syncVaultEvents();
    env.engine.placeOrder(body(env, { owner: ALICE, side: "bid", amount: "10", price: "1.08" }));
    expect(env.engine.available(ALICE, usdc(env))).toBe(9_200_000n);
    const signer = new WithdrawCoSigner({
      executorPrivateKey: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
      domain: exchangeDomain("Exchange", 31337, "0x00000000000000000000000000000000000e0c0e"),
    });
    const intent = (amount: bigint) => ({
      user: ALICE,
      tokens: [usdc(env)],
      amounts: [amount.toString()],
      recipient: ALICE,
      deadline: String(env.clock.nowSec() + 600),
      uuid: String(amount),
    });
    const ctx = { nowSec: env.clock.nowSec(), available: (o: string, t: string) => env.engine.available(o, t) };
    const tooMuch = await signer.coSign(intent(9_200_001n), ctx);
    expect(tooMuch.success).toBe(false);
    expect(tooMuch.error).toContain("insufficient vault balance");
    const ok = await signer.coSign(intent(9_200_000n), ctx);
    expect(ok.success).toBe(true);
  });
});
