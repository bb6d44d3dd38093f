// Instant withdrawal end to end on Anvil (intent → /withdraw co-signature →
// /withdraw/build → sign → /withdraw/send → wallet up, vault down, ledger debited),
// every rejection of the three routes, and the broadcast policy through HTTP.
import { beforeEach, describe, expect, it } from "vitest";
import request from "supertest";
import { hashTypedData, recoverAddress } from "viem";
import { ANVIL_ADDRESSES } from "../../fixtures/accounts.ts";
import { WITHDRAW_INTENT_TYPE, type Address, type Hex } from "../../sim/core/typed-data.ts";
import {
  buildApp,
  depositThroughApi,
  postApi,
  postSignedTx,
  erc20Balance,
  signTx,
  signWithdrawIntent,
  useFundsChain,
  TX_SHAPE,
  vaultBalance,
  type FundsApp,
  type FundsChain,
  type WireIntent,
} from "./harness.ts";

let c: FundsChain;
useFundsChain((chain) => (c = chain));

const V1 = "/api/v1";
const DEPOSIT = 500_000_000n;
let env: FundsApp;
beforeEach(async () => {
  env = await buildApp(c);
});

const alice = () => c.traders[0]!;
const ALICE = () => alice().address.toLowerCase() as Address;
const BOB = () => c.traders[1]!.address.toLowerCase() as Address;
const EURC = () => c.tokens.EURC!;
const EXECUTOR = ANVIL_ADDRESSES[1];

const post = (path: string, body: unknown, bearer?: string) => postApi(env.app, path, body, bearer);
const send = (path: string, tx: unknown, bearer?: string, trader = 0) => postSignedTx(env.app, c.traders[trader]!, path, tx, bearer);
const deposit = (amount: bigint) => depositThroughApi(env, c, EURC(), amount);

function intent(o: Partial<WireIntent> = {}): WireIntent {
  return {
    user: alice().address,
    tokens: [EURC()],
    amounts: ["200000000"],
    recipient: ALICE(),
    deadline: String(env.clock.nowSec() + 3600),
    uuid: "42",
    ...o,
  };
}

describe("the instant-withdraw flow", () => {
  it("intent → co-signature → build → sign → send: wallet up, vault down, balances follow", async () => {
    await deposit(DEPOSIT);
    const i = intent();
    const userSig = await signWithdrawIntent(c, alice(), i);

    const co = await post("/withdraw", { intent: i, user_signature: userSig }, env.bearer[0]);
    expect(co.status, JSON.stringify(co.body)).toBe(200);
    expect(co.body).toEqual({ success: true, executor_address: EXECUTOR, executor_signature: expect.stringMatching(/^0x[0-9a-f]{130}$/), error: null });
    // The co-signature is the executor's over the very same WithdrawIntent digest.
    const digest = hashTypedData({
      domain: c.domain,
      types: { WithdrawIntent: WITHDRAW_INTENT_TYPE },
      primaryType: "WithdrawIntent",
      message: { user: i.user as Address, tokens: i.tokens as Address[], amounts: i.amounts.map(BigInt), recipient: i.recipient as Address, deadline: BigInt(i.deadline), uuid: BigInt(i.uuid) },
    });
    expect((await recoverAddress({ hash: digest, signature: co.body.executor_signature })).toLowerCase()).toBe(EXECUTOR);

    const build = await post("/withdraw/build", { intent: i, user_signature: userSig, executor: co.body.executor_address, executor_signature: co.body.executor_signature }, env.bearer[0]);
    expect(build.status, JSON.stringify(build.body)).toBe(200);
    expect(build.body.tx).toEqual(TX_SHAPE);
    expect(build.body.tx.to).toBe(c.exchange);

    const walletBefore = await erc20Balance(c, EURC(), ALICE());
    // Anonymous broadcast: /withdraw/send is Optional.
    const sent = await send("/withdraw/send", build.body.tx);
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body).toEqual({ tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect((await c.pub.waitForTransactionReceipt({ hash: sent.body.tx_hash })).status).toBe("success");
    expect(await erc20Balance(c, EURC(), ALICE())).toBe(walletBefore + 200_000_000n);
    expect(await vaultBalance(c, ALICE(), EURC())).toBe(DEPOSIT - 200_000_000n);

    // The ledger saw the withdrawal: balances and the next co-signature use what is left.
    const bal = await request(env.app).get(`${V1}/balances?owner_address=${ALICE()}`).set("Authorization", env.bearer[0]!);
    const row = bal.body.balances.find((r: { symbol: string }) => r.symbol === "EURC");
    expect(row.vault_available).toBe((DEPOSIT - 200_000_000n).toString());
    expect(row.wallet_balance).toBe((walletBefore + 200_000_000n).toString());
    // It came through the engine's vault sync, so it is in the engine's event log.
    const logged = env.engine.log.since().filter((e) => e.type === "withdrawal");
    expect(logged.map((e) => e.data)).toEqual([
      { owner: ALICE().toLowerCase(), token: EURC().toLowerCase(), amount: 200_000_000n, uncovered: 0n, tx_hash: sent.body.tx_hash },
    ]);
    const again = intent({ uuid: "43", amounts: ["300000001"] });
    const short = await post("/withdraw", { intent: again, user_signature: await signWithdrawIntent(c, alice(), again) });
    expect(short.body.success).toBe(false);
    expect(short.body.error).toBe("insufficient vault balance for EURC: available 300 EURC, requested 300.000001 EURC");

    // The consumed uuid is refused by the co-signer (read from the contract).
    const reused = intent({ uuid: "42", amounts: ["1"] });
    const used = await post("/withdraw", { intent: reused, user_signature: await signWithdrawIntent(c, alice(), reused) });
    expect(used.status).toBe(200);
    expect(used.body).toEqual({ success: false, executor_address: EXECUTOR, executor_signature: null, error: "uuid 42 was already used for this user; sign a new intent with a fresh uuid" });
  });

  it("recipient elsewhere: the tokens go to the recipient", async () => {
    await deposit(DEPOSIT);
    const i = intent({ recipient: BOB(), amounts: ["1000"] });
    const userSig = await signWithdrawIntent(c, alice(), i);
    const co = await post("/withdraw", { intent: i, user_signature: userSig });
    const build = await post("/withdraw/build", { intent: i, user_signature: userSig, executor: EXECUTOR, executor_signature: co.body.executor_signature });
    const before = await erc20Balance(c, EURC(), BOB());
    const sent = await send("/withdraw/send", build.body.tx);
    expect(sent.status).toBe(200);
    expect(await erc20Balance(c, EURC(), BOB())).toBe(before + 1000n);
  });
});

describe("a co-signed withdrawal holds its amounts until it is mined or expires", () => {
  async function row() {
    const bal = await request(env.app).get(`${V1}/balances?owner_address=${ALICE()}`).set("Authorization", env.bearer[0]!);
    expect(bal.status).toBe(200);
    return bal.body.balances.find((r: { symbol: string }) => r.symbol === "EURC") as { vault_available: string; vault_frozen: string; vault_total: string };
  }
  async function coSign(i: WireIntent) {
    const userSig = await signWithdrawIntent(c, alice(), i);
    const co = await post("/withdraw", { intent: i, user_signature: userSig });
    expect(co.status, JSON.stringify(co.body)).toBe(200);
    return { userSig, co: co.body as { success: boolean; executor_address: string; executor_signature: string | null; error: string | null } };
  }

  it("frozen from the co-signature, so the same funds back no second withdrawal or order; paid out from the hold once mined", async () => {
    await deposit(DEPOSIT);
    const i = intent({ uuid: "900", amounts: ["200000000"] });
    const first = await coSign(i);
    expect(first.co.success).toBe(true);
    // The vault still holds everything (vault_total = the chain's), 200 of it set aside.
    expect(await row()).toMatchObject({ vault_available: "300000000", vault_frozen: "200000000", vault_total: DEPOSIT.toString() });
    expect(env.engine.available(ALICE(), EURC())).toBe(300_000_000n);

    // A second intent over the same funds is refused; the same intent again is not held twice.
    const other = await coSign(intent({ uuid: "901", amounts: ["300000001"] }));
    expect(other.co).toMatchObject({ success: false, error: "insufficient vault balance for EURC: available 300 EURC, requested 300.000001 EURC" });
    const repeat = await coSign(i);
    expect(repeat.co.success).toBe(true);
    expect(await row()).toMatchObject({ vault_available: "300000000", vault_frozen: "200000000" });

    const build = await post("/withdraw/build", { intent: i, user_signature: first.userSig, executor: first.co.executor_address, executor_signature: first.co.executor_signature });
    expect(build.status, JSON.stringify(build.body)).toBe(200);
    const sent = await send("/withdraw/send", build.body.tx);
    expect((await c.pub.waitForTransactionReceipt({ hash: sent.body.tx_hash })).status).toBe("success");
    // Mined: the hold is gone and the payout came out of it, not out of what was available.
    expect(await row()).toMatchObject({ vault_available: "300000000", vault_frozen: "0", vault_total: (DEPOSIT - 200_000_000n).toString() });
    expect(await vaultBalance(c, ALICE(), EURC())).toBe(DEPOSIT - 200_000_000n);
    expect(env.engine.log.since().filter((e) => e.type.startsWith("withdraw_hold")).map((e) => [e.type, (e.data as { why?: string }).why])).toEqual([
      ["withdraw_hold", undefined],
      ["withdraw_hold_released", "mined"],
    ]);
  });

  it("let go once its deadline has passed (the contract refuses the intent then); a snapshot keeps it", async () => {
    await deposit(DEPOSIT);
    const i = intent({ uuid: "910", amounts: ["450000000"], deadline: String(env.clock.nowSec() + 60) });
    expect((await coSign(i)).co.success).toBe(true);
    const held = env.engine.snapshot();
    expect(await row()).toMatchObject({ vault_available: "50000000", vault_frozen: "450000000" });
    env.clock.advanceSec(59);
    expect(await row()).toMatchObject({ vault_available: "50000000", vault_frozen: "450000000" });
    env.clock.advanceSec(1);
    expect(await row()).toMatchObject({ vault_available: DEPOSIT.toString(), vault_frozen: "0", vault_total: DEPOSIT.toString() });
    expect(env.engine.log.since().filter((e) => e.type === "withdraw_hold_released").map((e) => e.data)).toEqual([{ owner: ALICE(), uuid: "910", why: "expired" }]);
    // Restored to before the deadline passed, the hold is back.
    env.engine.restore(held);
    expect(env.engine.hasWithdrawHold(ALICE(), 910n)).toBe(true);
    expect(env.engine.ledger.peek(ALICE(), EURC().toLowerCase())).toEqual({ available: 50_000_000n, frozen: 450_000_000n });
  });
});

describe("POST /withdraw rejections", () => {
  it("success false, not an error, when the vault balance is short", async () => {
    const i = intent();
    const res = await post("/withdraw", { intent: i, user_signature: await signWithdrawIntent(c, alice(), i) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: false, executor_address: EXECUTOR, executor_signature: null, error: "insufficient vault balance for EURC: available 0 EURC, requested 200 EURC" });
  });

  it("403 when the API key belongs to someone else; 401 for a bad key", async () => {
    const i = intent();
    const sig = await signWithdrawIntent(c, alice(), i);
    const res = await post("/withdraw", { intent: i, user_signature: sig }, env.bearer[1]);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: "intent.user does not match the API key owner" });
    const bad = await post("/withdraw", { intent: i, user_signature: sig }, "Bearer fkx_x:y");
    expect(bad.status).toBe(401);
  });

  it("429 on the third keyed withdrawal request of one wallet within a second (transfer group, 2 per second)", async () => {
    const limited = await buildApp(c, { rateLimited: true });
    const i = intent();
    const sig = await signWithdrawIntent(c, alice(), i);
    const ask = () => postApi(limited.app, "/withdraw", { intent: i, user_signature: sig }, limited.bearer[0]);
    for (let k = 0; k < 2; k++) expect((await ask()).status).toBe(200);
    const third = await ask();
    expect(third.status).toBe(429);
    expect(third.body).toEqual({ detail: "Rate limit exceeded" });
  });

  it("400 when user_signature is not intent.user's", async () => {
    const i = intent();
    const res = await post("/withdraw", { intent: i, user_signature: await signWithdrawIntent(c, c.traders[1]!, i) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: "Invalid signature: user_signature must sign the WithdrawIntent by intent.user" });
  });

  it.each([
    ["no tokens", { tokens: [], amounts: [] }, "invalid withdraw intent: tokens must be an array of 1 to 20 addresses"],
    ["21 tokens", { tokens: Array(21).fill("0x" + "1".repeat(40)), amounts: Array(21).fill("1") }, "invalid withdraw intent: tokens must be an array of 1 to 20 addresses"],
    ["length mismatch", { amounts: ["1", "2"] }, "invalid withdraw intent: amounts must be an array with one entry per token"],
    ["zero amount", { amounts: ["0"] }, "invalid withdraw intent: amounts[0] must be positive"],
    ["bad uuid", { uuid: "x" }, "invalid withdraw intent: uuid must be a uint256 decimal string"],
    // Before: a JSON number was taken (the spec's deadline is a uint256 string, as amounts and uuid).
    ["numeric deadline", { deadline: 1_900_000_000 }, "invalid withdraw intent: deadline must be a uint256 decimal string (Unix seconds), not a JSON number"],
  ])("400 for %s", async (_n, patch, detail) => {
    const res = await post("/withdraw", { intent: intent(patch as Partial<WireIntent>), user_signature: `0x${"ab".repeat(65)}` });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail });
  });

  it("400 for a past deadline", async () => {
    const res = await post("/withdraw", { intent: intent({ deadline: String(env.clock.nowSec() - 1) }), user_signature: `0x${"ab".repeat(65)}` });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain("deadline");
  });

  it("422 for a body without an intent object or with a non-hex signature", async () => {
    const noIntent = await post("/withdraw", { user_signature: "0x12" });
    expect(noIntent.status).toBe(422);
    expect(noIntent.body.detail).toContain("body.intent");
    const badSig = await post("/withdraw", { intent: intent(), user_signature: "nope" });
    expect(badSig.status).toBe(422);
    expect(badSig.body.detail).toContain("body.user_signature");
  });
});

describe("POST /withdraw/build rejections", () => {
  async function cosigned() {
    await deposit(DEPOSIT);
    const i = intent();
    const userSig = await signWithdrawIntent(c, alice(), i);
    const co = await post("/withdraw", { intent: i, user_signature: userSig });
    return { i, userSig, execSig: co.body.executor_signature as Hex };
  }

  it("400 for an executor that is not the service's", async () => {
    const { i, userSig, execSig } = await cosigned();
    const res = await post("/withdraw/build", { intent: i, user_signature: userSig, executor: BOB(), executor_signature: execSig });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: `executor must be the service executor ${EXECUTOR}` });
  });

  it("400 for an executor signature over another intent", async () => {
    const { i, userSig } = await cosigned();
    const other = intent({ uuid: "77" });
    const co = await post("/withdraw", { intent: other, user_signature: await signWithdrawIntent(c, alice(), other) });
    const res = await post("/withdraw/build", { intent: i, user_signature: userSig, executor: EXECUTOR, executor_signature: co.body.executor_signature });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: "Invalid signature: executor_signature is not the executor's co-signature of this intent" });
  });

  it("403 with another owner's key; 422 without executor", async () => {
    const { i, userSig, execSig } = await cosigned();
    const res = await post("/withdraw/build", { intent: i, user_signature: userSig, executor: EXECUTOR, executor_signature: execSig }, env.bearer[1]);
    expect(res.status).toBe(403);
    const missing = await post("/withdraw/build", { intent: i, user_signature: userSig, executor_signature: execSig });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toContain("body.executor");
  });

  it("400 naming the token when the intent withdraws a token that is not listed, before any chain call", async () => {
    // The executor would sign it (signed here directly); the route still refuses the unlisted token itself.
    const i = intent({ tokens: [c.rogue] });
    const userSig = await signWithdrawIntent(c, alice(), i);
    const { WithdrawCoSigner } = await import("../../sim/core/withdraw.ts");
    const signer = new WithdrawCoSigner({ executorPrivateKey: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d", domain: c.domain });
    const forced = await signer.coSign(i, { nowSec: env.clock.nowSec(), available: () => DEPOSIT });
    const res = await post("/withdraw/build", { intent: i, user_signature: userSig, executor: EXECUTOR, executor_signature: forced.executor_signature });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: `invalid withdraw intent: token ${c.rogue} is not listed` });
  });

  it("400 with the revert reason when the withdrawal cannot execute (vault short)", async () => {
    // The executor signs whatever the contract is given; the builder's estimate catches the shortfall.
    const i = intent({ amounts: [(DEPOSIT + 1n).toString()] });
    await deposit(DEPOSIT);
    const userSig = await signWithdrawIntent(c, alice(), i);
    const { WithdrawCoSigner } = await import("../../sim/core/withdraw.ts");
    const signer = new WithdrawCoSigner({ executorPrivateKey: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d", domain: c.domain });
    const forced = await signer.coSign(i, { nowSec: env.clock.nowSec(), available: () => DEPOSIT * 2n });
    const res = await post("/withdraw/build", { intent: i, user_signature: userSig, executor: EXECUTOR, executor_signature: forced.executor_signature });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^transaction would revert: /);
  });
});

describe("broadcast policy through HTTP", () => {
  it("/withdraw/send refuses a deposit; /tx/send refuses a withdraw and a transfer", async () => {
    const d = await post("/approve", { token: EURC(), owner: ALICE(), spender: c.vault, amount: "5" }, env.bearer[0]);
    const w = await send("/withdraw/send", d.body.tx);
    expect(w.status).toBe(400);
    expect(w.body).toEqual({ detail: "raw_tx is not an allowed call for this endpoint; allowed: executeInstantWithdrawDualSig on the exchange" });
    const t = await post("/transfer", { token: EURC(), to: BOB(), amount: "5", from_address: ALICE() }, env.bearer[0]);
    const sent = await send("/tx/send", t.body.tx, env.bearer[0]);
    expect(sent.status).toBe(400);
    expect(sent.body.detail).toContain("not an allowed call");
    const asTransfer = await send("/transfer/send", d.body.tx, env.bearer[0]);
    expect(asTransfer.status).toBe(400);
    expect(asTransfer.body).toEqual({ detail: "raw_tx is not an allowed call for this endpoint; allowed: transfer on a listed token" });
  });

  it("wrong chain id, non-registry token, wrong spender and 7702 delegates are 400 and never reach the chain", async () => {
    const nonce = await c.pub.getTransactionCount({ address: alice().address });
    const base = { type: "eip1559" as const, chainId: c.chainId, nonce, gas: 100_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, value: 0n };
    const approve = (await post("/approve", { token: EURC(), owner: ALICE(), spender: c.vault, amount: "5" }, env.bearer[0])).body.tx;
    const rawOf = (o: object) => alice().signTransaction({ ...base, to: approve.to, data: approve.data, ...o } as never);
    const cases: [object, string][] = [
      [{ chainId: 1 }, `raw_tx is signed for chain 1, this deployment is chain ${c.chainId}`],
      [{ to: c.rogue }, `approve target ${c.rogue} is not a listed token`],
      [{ data: approve.data.replace(c.vault.slice(2), BOB().slice(2)) }, `approve spender ${BOB()} is neither the vault (${c.vault}) nor the router (${c.router})`],
      [
        { type: "eip7702", authorizationList: [await alice().signAuthorization({ address: BOB(), chainId: c.chainId, nonce: nonce + 1 })] },
        `EIP-7702 authorization delegates to ${BOB()}, which is not on the delegate allowlist`,
      ],
    ];
    for (const [patch, detail] of cases) {
      const res = await post("/tx/send", { raw_tx: await rawOf(patch) }, env.bearer[0]);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail });
    }
    expect(await c.pub.getTransactionCount({ address: alice().address })).toBe(nonce);
  });

  it("an allowlisted EIP-7702 delegate passes the policy and is broadcast", async () => {
    const allowed = await buildApp(c, { delegateAllowlist: [BOB()] });
    const nonce = await c.pub.getTransactionCount({ address: alice().address });
    const approve = (await post("/approve", { token: EURC(), owner: ALICE(), spender: c.vault, amount: "9" }, env.bearer[0])).body.tx;
    // Self-sponsored: the authorization nonce is the transaction's nonce + 1.
    const authorization = await alice().signAuthorization({ address: BOB(), chainId: c.chainId, nonce: nonce + 1 });
    const raw = await alice().signTransaction({
      type: "eip7702", chainId: c.chainId, nonce, gas: 200_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, to: approve.to, data: approve.data, authorizationList: [authorization],
    } as never);
    const res = await request(allowed.app).post(`${V1}/tx/send`).set("Authorization", allowed.bearer[0]!).send({ raw_tx: raw });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await c.pub.waitForTransactionReceipt({ hash: res.body.tx_hash })).status).toBe("success");
  });

  it("the node refusing a relayed tx (replayed nonce) is 400 with its reason", async () => {
    const a = await post("/approve", { token: EURC(), owner: ALICE(), spender: c.vault, amount: "5" }, env.bearer[0]);
    const raw = await signTx(alice(), a.body.tx);
    expect((await post("/tx/send", { raw_tx: raw }, env.bearer[0])).status).toBe(200);
    const again = await post("/tx/send", { raw_tx: raw }, env.bearer[0]);
    expect(again.status).toBe(400);
    expect(again.body.detail).toMatch(/^transaction rejected by the node: /);
  });

  it("401 without a key on /tx/send and /transfer/send; 422 without raw_tx", async () => {
    expect((await post("/tx/send", { raw_tx: "0x00" })).status).toBe(401);
    expect((await post("/transfer/send", { raw_tx: "0x00" })).status).toBe(401);
    const res = await post("/tx/send", {}, env.bearer[0]);
    expect(res.status).toBe(422);
    expect(res.body.detail).toContain("body.raw_tx");
  });
});
