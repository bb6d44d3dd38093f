// Instant withdrawals against the clock, over HTTP on Anvil as a client drives them
// (POST /withdraw → /withdraw/build → sign → /withdraw/send): the deadline reached
// while a co-signed intent waits, the second before it, chain time pushed through
// rpc_url, and the smallest amount. What the contract does (WITHDRAW_EXPIRED when
// deadline <= block time) and what GET /balances shows must agree.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { createFakeExchange, type FakeExchange } from "../../fixtures/fake-exchange.ts";
import { Vault } from "../../sim/chain/artifacts.ts";
import type { UnsignedTx } from "../../sim/chain/tx-builder.ts";
import type { Address, Hex } from "../../sim/core/typed-data.ts";
import { apiCall, bearerFor, rpcCall } from "../fixtures/chain-client.ts";
import { toViemTx } from "./harness.ts";

let ex: FakeExchange;
let clean: string;
let bearer: string;
const DEPOSIT = 100_000_000n;

const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => apiCall(ex, method, path, body, headers);

const me = () => ex.accounts[0]!;
const eurc = () => ex.contracts.tokens.EURC! as Address;
const chainTime = async () => Number((await ex.clients.public.getBlock({ blockTag: "latest" })).timestamp);
const vaultOnChain = () => ex.clients.public.readContract({ address: ex.contracts.vault, abi: Vault.abi, functionName: "balanceOf", args: [me().address, eurc()] });

async function eurcRow() {
  const r = await api("GET", `/balances?owner_address=${me().address.toLowerCase()}`, undefined, { authorization: bearer });
  expect(r.status).toBe(200);
  return r.body.balances.find((b: { symbol: string }) => b.symbol === "EURC") as { wallet_balance: string; vault_available: string; vault_frozen: string; vault_total: string };
}

function intent(uuid: string, amount: string, deadlineIn: number) {
  return { user: me().address, tokens: [eurc()], amounts: [amount], recipient: me().address, deadline: String(ex.control.now().now + deadlineIn), uuid };
}

/** Co-signature and built transaction, signed by the user: what a client holds before sending. */
async function coSignedAndBuilt(i: ReturnType<typeof intent>): Promise<{ raw: Hex; build: Record<string, unknown> }> {
  const userSig = await ex.signWithdrawIntent(me(), i);
  const co = await api("POST", "/withdraw", { intent: i, user_signature: userSig });
  expect(co.status).toBe(200);
  expect(co.body.success, co.body.error).toBe(true);
  const build = { intent: i, user_signature: userSig, executor: co.body.executor_address, executor_signature: co.body.executor_signature };
  const built = await api("POST", "/withdraw/build", build);
  expect(built.status, JSON.stringify(built.body)).toBe(200);
  return { raw: await privateKeyToAccount(me().privateKey).signTransaction(toViemTx(built.body.tx as UnsignedTx)), build };
}

async function relay(raw: Hex) {
  const sent = await api("POST", "/withdraw/send", { raw_tx: raw });
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  return (await ex.clients.public.waitForTransactionReceipt({ hash: sent.body.tx_hash })).status;
}

beforeAll(async () => {
  ex = await createFakeExchange({ seed: 33 });
  bearer = await bearerFor(ex, me(), "withdraw");
  await ex.control.fund({ address: me().address, token: "EURC", amount: DEPOSIT, vault: true });
  clean = await ex.snapshot();
}, 120_000);

afterAll(async () => {
  await ex?.close();
});

beforeEach(async () => {
  await ex.restore(clean);
});

describe("the deadline reached while a co-signed withdrawal waits", () => {
  test("at the deadline second the hold is let go, build is 400, and the transaction built before reverts on chain with the vault untouched", async () => {
    const { raw, build } = await coSignedAndBuilt(intent("501", "60000000", 60));
    await ex.control.advanceClock(59);
    expect(await eurcRow()).toMatchObject({ vault_available: "40000000", vault_frozen: "60000000" });

    await ex.control.advanceClock(1);
    expect(await chainTime()).toBe(Number((build.intent as { deadline: string }).deadline));
    expect(await eurcRow()).toMatchObject({ vault_available: DEPOSIT.toString(), vault_frozen: "0", vault_total: DEPOSIT.toString() });
    // The contract wants deadline > block time: the server refuses to build it now.
    const late = await api("POST", "/withdraw/build", build);
    expect(late.status).toBe(400);
    expect(late.body.detail).toMatch(/deadline is not in the future/);

    // Relayed as a node relays it; the contract refuses it and nothing moves.
    expect(await relay(raw)).toBe("reverted");
    expect(await vaultOnChain()).toBe(DEPOSIT);
    expect(await eurcRow()).toMatchObject({ vault_available: DEPOSIT.toString(), vault_frozen: "0", vault_total: DEPOSIT.toString() });
  });

  test("mined in the second before it, the withdrawal pays out of its hold", async () => {
    const { raw } = await coSignedAndBuilt(intent("502", "60000000", 60));
    await ex.control.advanceClock(59);
    expect(await relay(raw)).toBe("success");
    expect(await vaultOnChain()).toBe(DEPOSIT - 60_000_000n);
    expect(await eurcRow()).toMatchObject({ vault_available: "40000000", vault_frozen: "0", vault_total: "40000000" });
  });
});

describe("chain time pushed through rpc_url", () => {
  test("evm_increaseTime moves no block's time (fakex freezes it to the clock), so an intent past its deadline by that offset still executes", async () => {
    const { raw } = await coSignedAndBuilt(intent("503", "60000000", 60));
    const before = await chainTime();
    await rpcCall(ex.rpcUrl, "evm_increaseTime", [120]);
    await rpcCall(ex.rpcUrl, "evm_mine", []);
    expect(await chainTime()).toBe(before);
    expect(await relay(raw)).toBe("success");
    expect(await eurcRow()).toMatchObject({ vault_available: "40000000", vault_frozen: "0", vault_total: "40000000" });
  });
});

describe("the smallest amount", () => {
  test("one raw unit is co-signed, held and paid out; the wallet gains exactly that", async () => {
    const walletBefore = BigInt((await eurcRow()).wallet_balance);
    const { raw } = await coSignedAndBuilt(intent("504", "1", 60));
    expect(await eurcRow()).toMatchObject({ vault_available: (DEPOSIT - 1n).toString(), vault_frozen: "1" });
    expect(await relay(raw)).toBe("success");
    const row = await eurcRow();
    expect(row).toMatchObject({ vault_available: (DEPOSIT - 1n).toString(), vault_frozen: "0", vault_total: (DEPOSIT - 1n).toString() });
    expect(BigInt(row.wallet_balance)).toBe(walletBefore + 1n);
    expect(await vaultOnChain()).toBe(DEPOSIT - 1n);
  });
});
