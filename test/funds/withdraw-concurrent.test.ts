// Two instant withdrawals by one wallet at once, on Anvil through HTTP. A withdraw tx
// takes its nonce from /withdraw/build (the sender's pending nonce), so:
//   - built one after the other, with the first already in the pool (manual mining),
//     the second gets N + 1 and both land;
//   - built both before either is sent, they share N: the second /withdraw/send is a
//     clear 400 {detail} (the node refuses the duplicate nonce), not a 5xx; nothing of
//     it is applied, the ledger and the chain agree once mined, and the second
//     withdrawal rebuilt (fresh nonce, same signed intent) then goes through.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import request from "supertest";
import type { Address, Hex } from "../../sim/core/typed-data.ts";
import {
  buildApp,
  depositThroughApi,
  postApi,
  postSignedTx,
  erc20Balance,
  signTx,
  signWithdrawIntent,
  useFundsChain,
  vaultBalance,
  type FundsApp,
  type FundsChain,
  type WireIntent,
} from "./harness.ts";

let c: FundsChain;
useFundsChain((chain) => (c = chain));
// Every test leaves the chain automining, whatever it asserted on the way.
afterEach(async () => {
  await c.testClient.setAutomine(true);
});

const V1 = "/api/v1";
const DEPOSIT = 500_000_000n;
let env: FundsApp;
beforeEach(async () => {
  env = await buildApp(c);
});

const alice = () => c.traders[0]!;
const ALICE = () => alice().address.toLowerCase() as Address;
const EURC = () => c.tokens.EURC!;

const post = (path: string, body: unknown, bearer?: string) => postApi(env.app, path, body, bearer);
const sendSigned = (path: string, tx: unknown, bearer?: string) => postSignedTx(env.app, alice(), path, tx, bearer);
const deposit = (amount: bigint) => depositThroughApi(env, c, EURC(), amount);

function intent(uuid: string, amount: bigint): WireIntent {
  return { user: alice().address, tokens: [EURC()], amounts: [amount.toString()], recipient: ALICE(), deadline: String(env.clock.nowSec() + 3600), uuid };
}

/** Intent → user signature → executor co-signature: the body /withdraw/build takes. */
async function coSigned(i: WireIntent) {
  const userSig = await signWithdrawIntent(c, alice(), i);
  const co = await post("/withdraw", { intent: i, user_signature: userSig });
  expect(co.status, JSON.stringify(co.body)).toBe(200);
  expect(co.body.success).toBe(true);
  return { intent: i, user_signature: userSig, executor: co.body.executor_address, executor_signature: co.body.executor_signature };
}

async function build(body: unknown) {
  const res = await post("/withdraw/build", body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.tx as { nonce: Hex };
}

async function ledgerRow() {
  const bal = await request(env.app).get(`${V1}/balances?owner_address=${ALICE()}`).set("Authorization", env.bearer[0]!);
  expect(bal.status).toBe(200);
  return bal.body.balances.find((r: { symbol: string }) => r.symbol === "EURC") as { vault_available: string; vault_frozen: string; vault_total: string; wallet_balance: string };
}

/** The ledger's view (after a sync through GET /balances) equals the chain's. */
async function expectLedgerMatchesChain() {
  const row = await ledgerRow();
  expect(row.vault_total).toBe((await vaultBalance(c, ALICE(), EURC())).toString());
  expect(row.wallet_balance).toBe((await erc20Balance(c, EURC(), ALICE())).toString());
}

async function pendingNonce(): Promise<number> {
  return c.pub.getTransactionCount({ address: alice().address, blockTag: "pending" });
}

describe("one wallet, two withdrawals at once", () => {
  it("built after the first is sent but not mined: nonce N + 1, both land, ledger = chain", async () => {
    await deposit(DEPOSIT);
    const walletBefore = await erc20Balance(c, EURC(), ALICE());
    const first = await coSigned(intent("501", 100_000_000n));
    const second = await coSigned(intent("502", 150_000_000n));
    await c.testClient.setAutomine(false);

    const n = await pendingNonce();
    const tx1 = await build(first);
    expect(Number(BigInt(tx1.nonce))).toBe(n);
    const sent1 = await sendSigned("/withdraw/send", tx1);
    expect(sent1.status, JSON.stringify(sent1.body)).toBe(200);
    // In the pool, not mined: the next build counts it.
    expect(await c.pub.getTransactionReceipt({ hash: sent1.body.tx_hash }).catch(() => null)).toBeNull();
    const tx2 = await build(second);
    expect(Number(BigInt(tx2.nonce))).toBe(n + 1);
    const sent2 = await sendSigned("/withdraw/send", tx2);
    expect(sent2.status, JSON.stringify(sent2.body)).toBe(200);

    // Nothing is credited or debited before the block.
    expect(await vaultBalance(c, ALICE(), EURC())).toBe(DEPOSIT);
    expect((await ledgerRow()).vault_total).toBe(DEPOSIT.toString());

    await c.testClient.mine({ blocks: 1 });
    for (const h of [sent1.body.tx_hash, sent2.body.tx_hash]) expect((await c.pub.getTransactionReceipt({ hash: h })).status).toBe("success");
    expect(await vaultBalance(c, ALICE(), EURC())).toBe(DEPOSIT - 250_000_000n);
    expect(await erc20Balance(c, EURC(), ALICE())).toBe(walletBefore + 250_000_000n);
    await expectLedgerMatchesChain();
  });

  it.each([
    ["automine (the first is mined at once)", true],
    ["manual mining (the first is still in the pool)", false],
  ] as const)("built both before either is sent, %s: the second send is a 400 {detail}, nothing half-applied, a rebuild lands", async (_label, automine) => {
    await deposit(DEPOSIT);
    const walletBefore = await erc20Balance(c, EURC(), ALICE());
    const first = await coSigned(intent("601", 100_000_000n));
    const second = await coSigned(intent("602", 150_000_000n));
    if (!automine) await c.testClient.setAutomine(false);

    const n = await pendingNonce();
    const tx1 = await build(first);
    const tx2 = await build(second);
    expect([Number(BigInt(tx1.nonce)), Number(BigInt(tx2.nonce))]).toEqual([n, n]);

    const sent1 = await sendSigned("/withdraw/send", tx1);
    expect(sent1.status, JSON.stringify(sent1.body)).toBe(200);
    const clash = await sendSigned("/withdraw/send", tx2);
    expect(clash.status, JSON.stringify(clash.body)).toBe(400);
    expect(Object.keys(clash.body)).toEqual(["detail"]);
    expect(clash.body.detail).toMatch(/^transaction rejected by the node: .*(nonce|underpriced)/i);
    expect(clash.headers["retry-after"]).toBeUndefined();

    if (!automine) await c.testClient.mine({ blocks: 1 });
    expect((await c.pub.getTransactionReceipt({ hash: sent1.body.tx_hash })).status).toBe("success");
    // Only the first moved funds; the second's uuid is still unused on chain.
    expect(await vaultBalance(c, ALICE(), EURC())).toBe(DEPOSIT - 100_000_000n);
    expect(await erc20Balance(c, EURC(), ALICE())).toBe(walletBefore + 100_000_000n);
    await expectLedgerMatchesChain();
    // The second, co-signed and not mined, still holds its 150 frozen.
    const row = await ledgerRow();
    expect(row.vault_available).toBe((DEPOSIT - 250_000_000n).toString());
    expect(row.vault_frozen).toBe("150000000");

    // Rebuild the refused one: same signed intent and co-signature, the next nonce.
    const again = await build(second);
    expect(Number(BigInt(again.nonce))).toBe(n + 1);
    const sent2 = await sendSigned("/withdraw/send", again);
    expect(sent2.status, JSON.stringify(sent2.body)).toBe(200);
    if (!automine) await c.testClient.mine({ blocks: 1 });
    expect((await c.pub.getTransactionReceipt({ hash: sent2.body.tx_hash })).status).toBe("success");
    expect(await vaultBalance(c, ALICE(), EURC())).toBe(DEPOSIT - 250_000_000n);
    expect(await erc20Balance(c, EURC(), ALICE())).toBe(walletBefore + 250_000_000n);
    await expectLedgerMatchesChain();
  });

  it("a second withdrawal that only the pending first one makes unaffordable: refused at co-signature, nothing applied, ledger = chain", async () => {
    await deposit(DEPOSIT);
    const first = await coSigned(intent("801", 300_000_000n));
    await c.testClient.setAutomine(false);
    const sent1 = await sendSigned("/withdraw/send", await build(first));
    expect(sent1.status, JSON.stringify(sent1.body)).toBe(200);
    // The first intent's co-signature holds its 300 until it is mined: 200 are left to vouch for.
    const i = intent("802", 300_000_000n);
    const userSig = await signWithdrawIntent(c, alice(), i);
    const co = await post("/withdraw", { intent: i, user_signature: userSig });
    expect(co.status, JSON.stringify(co.body)).toBe(200);
    expect(co.body).toMatchObject({ success: false, executor_signature: null, error: expect.stringMatching(/^insufficient vault balance for EURC: available 200(\.0+)? EURC, requested 300/) });
    expect(await pendingNonce()).toBe((await c.pub.getTransactionCount({ address: alice().address, blockTag: "latest" })) + 1);
    await c.testClient.mine({ blocks: 1 });
    expect(await vaultBalance(c, ALICE(), EURC())).toBe(DEPOSIT - 300_000_000n);
    await expectLedgerMatchesChain();
  });

  it("the same signed withdrawal sent twice: the duplicate is a 400 {detail}, paid once", async () => {
    await deposit(DEPOSIT);
    const tx = await build(await coSigned(intent("701", 100_000_000n)));
    const raw = await signTx(alice(), tx as never);
    const sent = await post("/withdraw/send", { raw_tx: raw });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const dup = await post("/withdraw/send", { raw_tx: raw });
    expect(dup.status, JSON.stringify(dup.body)).toBe(400);
    expect(Object.keys(dup.body)).toEqual(["detail"]);
    expect(await vaultBalance(c, ALICE(), EURC())).toBe(DEPOSIT - 100_000_000n);
    await expectLedgerMatchesChain();
  });
});
