// POST /swap as a client meets it over HTTP on Anvil, at the edges of time and of the
// chain: the quote's expires_at second, one quote raced by two requests, an Intent
// deadline that passes between acceptance and settlement, a permit the token will not
// take, the same vault funds raced by a swap and two withdrawals, a swap sent while a
// settlement round runs. Each case ends with the swap's status agreeing with its
// transaction on chain and the vault columns equal to the vault contract.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { createFakeExchange, type FakeExchange } from "../../fixtures/fake-exchange.ts";
import { Vault } from "../../sim/chain/artifacts.ts";
import { apiCall, bearerFor } from "../fixtures/chain-client.ts";
import type { Address, Hex } from "../../sim/core/typed-data.ts";

let ex: FakeExchange;
let clean: string;
const bearers: string[] = [];

const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => apiCall(ex, method, path, body, headers);

const usdc = () => ex.contracts.tokens.USDC! as Address;
const eurc = () => ex.contracts.tokens.EURC! as Address;

/** 10 USDC of account `i` for EURC, to itself; the Intent deadline `deadlineIn` seconds ahead. */
async function quote(i: number, deadlineIn = 600) {
  const me = ex.accounts[i]!.address;
  const q = await api("POST", "/swap/quote", { from_token: usdc(), to_token: eurc(), from_amount: "10000000", owner_address: me, recipient: me, expiration: ex.control.now().now + deadlineIn });
  expect(q.status, JSON.stringify(q.body)).toBe(200);
  return q.body;
}

async function signed(i: number, q: any) {
  return (await ex.signIntent(ex.accounts[i]!, q)).body;
}

/** GET /balances' USDC row of account `i`, as the client reads it. */
async function usdcRow(i: number) {
  const r = await api("GET", `/balances?owner_address=${ex.accounts[i]!.address.toLowerCase()}&include_zero=true`, undefined, { authorization: bearers[i]! });
  expect(r.status).toBe(200);
  return r.body.balances.find((b: { symbol: string }) => b.symbol === "USDC") as { wallet_balance: string; vault_available: string; vault_frozen: string; vault_total: string };
}

const vaultOnChain = (owner: string, token: Address) =>
  ex.clients.public.readContract({ address: ex.contracts.vault, abi: Vault.abi, functionName: "balanceOf", args: [owner as Address, token] });

/** Owners (taker and the swap's makers) whose vault columns differ from the vault contract's. */
async function ledgerMismatches(tradeId: string): Promise<string[]> {
  const engine = ex.parts.engine;
  const makers = engine.fillRecords().filter((f) => f.takerOrderId === tradeId).map((f) => engine.getOrder(f.makerOrderId).owner_address);
  const out: string[] = [];
  for (const owner of new Set([engine.getOrder(tradeId).owner_address, ...makers])) {
    for (const token of [usdc(), eurc()]) {
      const a = engine.vaultAccount(owner, token);
      const chain = await vaultOnChain(owner, token);
      if (a.available + a.frozen !== chain) out.push(`${owner} ${token}: ledger ${a.available}+${a.frozen}, chain ${chain}`);
    }
  }
  return out;
}

async function receiptStatus(tradeId: string) {
  const o = await api("GET", `/orders/${tradeId}`, undefined, { authorization: bearers[ex.accounts.findIndex((a) => a.address.toLowerCase() === ex.parts.engine.getOrder(tradeId).owner_address)]! });
  const hash = o.body.settlement_summary.latest_tx_hash as Hex;
  return { order: o.body, status: (await ex.clients.public.getTransactionReceipt({ hash })).status };
}

beforeAll(async () => {
  ex = await createFakeExchange({ seed: 33 });
  for (const a of ex.accounts) bearers.push(await bearerFor(ex, a, "edges"));
  // Accounts 0 and 2 swap from vault equity; account 1 only from its wallet (permit swaps).
  for (const i of [0, 2]) await ex.control.fund({ address: ex.accounts[i]!.address, token: "USDC", amount: 100_000_000n, vault: true });
  clean = await ex.snapshot();
}, 120_000);

afterAll(async () => {
  await ex?.close();
});

beforeEach(async () => {
  await ex.restore(clean);
});

describe("the quote's expires_at second", () => {
  test("a quote executes in the second before expires_at and is 410 QUOTE_STALE from expires_at on", async () => {
    const early = await quote(0);
    const late = await quote(2);
    const now = (await api("GET", "/system/time")).body.timestamp as number;
    expect([early.expires_at, late.expires_at]).toEqual([now + 30, now + 30]);

    await ex.control.advanceClock(29);
    const inTime = await api("POST", "/swap", await signed(0, early));
    expect(inTime.status, JSON.stringify(inTime.body)).toBe(200);

    await ex.control.advanceClock(1);
    expect((await api("GET", "/system/time")).body.timestamp).toBe(late.expires_at);
    const expired = await api("POST", "/swap", await signed(2, late));
    expect([expired.status, expired.body.detail.error_code]).toEqual([410, "QUOTE_STALE"]);
    expect(expired.body.detail.detail).toMatch(/expired/);
    // The refused quote made no order and froze nothing.
    expect(ex.parts.engine.listOrders(ex.accounts[2]!.address).filter((o) => o.order_type === "swap")).toEqual([]);
    expect(await usdcRow(2)).toMatchObject({ vault_available: "100000000", vault_frozen: "0" });
  });
});

describe("one quote, two requests at once", () => {
  test("exactly one is accepted and the other is 410; one swap order, settled once, balances equal the chain", async () => {
    const q = await quote(0);
    const body = await signed(0, q);
    const answers = await Promise.all([api("POST", "/swap", body), api("POST", "/swap", body)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 410]);
    const won = answers.find((a) => a.status === 200)!;
    const lost = answers.find((a) => a.status === 410)!;
    expect(lost.body.detail).toEqual({ detail: "quote already consumed", error_code: "QUOTE_STALE" });
    const swaps = ex.parts.engine.listOrders(ex.accounts[0]!.address).filter((o) => o.order_type === "swap");
    expect(swaps.map((o) => o.trade_id)).toEqual([won.body.trade_id]);

    await ex.control.settle();
    const { order, status } = await receiptStatus(won.body.trade_id);
    expect([order.status, status]).toEqual(["settled", "success"]);
    const row = await usdcRow(0);
    expect(row.vault_frozen).toBe("0");
    expect(BigInt(row.vault_total)).toBe(await vaultOnChain(ex.accounts[0]!.address, usdc()));
    // Spent once: what the settled order debited, no more.
    const debit = BigInt(order.settlement_economics.balance_debits.find((d: { token_address: string }) => d.token_address === usdc().toLowerCase()).amount_raw);
    expect(BigInt(row.vault_total)).toBe(100_000_000n - debit);
    expect(await ledgerMismatches(won.body.trade_id)).toEqual([]);
  });
});

describe("an Intent deadline that passes after acceptance", () => {
  test("the Router refuses it on chain: the swap fails INTENT_DEADLINE_EXPIRED, its frozen equity comes back, balances equal the chain", async () => {
    const q = await quote(0, 5);
    const accepted = await api("POST", "/swap", await signed(0, q));
    expect(accepted.status).toBe(200);
    expect(await usdcRow(0)).not.toMatchObject({ vault_frozen: "0" });

    await ex.control.advanceClock(5);
    await ex.control.settle();
    const { order, status } = await receiptStatus(accepted.body.trade_id);
    expect(status).toBe("reverted");
    expect([order.status, order.error_code, order.error]).toEqual(["failed", "INTENT_DEADLINE_EXPIRED", "INTENT_EXPIRED"]);
    expect(order.settlement_summary).toMatchObject({ failed_fill_count: order.settlement_summary.total_fill_count, settled_fill_count: 0 });
    const fills = await api("GET", `/fills/${accepted.body.trade_id}`, undefined, { authorization: bearers[0]! });
    const statuses = fills.body.items.map((f: { settlement_status: string }) => f.settlement_status);
    expect(statuses).toEqual(Array(order.settlement_summary.total_fill_count).fill("failed"));
    expect(await usdcRow(0)).toMatchObject({ vault_available: "100000000", vault_frozen: "0", vault_total: "100000000" });
    expect(await ledgerMismatches(accepted.body.trade_id)).toEqual([]);
  });

  test("one second before it, the same swap settles", async () => {
    const q = await quote(0, 5);
    const accepted = await api("POST", "/swap", await signed(0, q));
    expect(accepted.status).toBe(200);
    await ex.control.advanceClock(4);
    await ex.control.settle();
    const { order, status } = await receiptStatus(accepted.body.trade_id);
    expect([order.status, status]).toEqual(["settled", "success"]);
    expect(await ledgerMismatches(accepted.body.trade_id)).toEqual([]);
  });
});

describe("wallet-funded swaps whose permit the token refuses", () => {
  test("a permit signed over another nonce is accepted (only missing or mismatched fields are 400) and fails ALLOWANCE_INSUFFICIENT on chain; the wallet keeps its funds", async () => {
    const q = await quote(1);
    expect(q.permit?.eip712).toBeDefined();
    const e = q.permit.eip712;
    const wrongNonce = { ...q, permit: { ...q.permit, eip712: { ...e, message: { ...e.message, nonce: e.message.nonce + 1 } } } };
    const body = await signed(1, wrongNonce);
    expect(body.permit_deadline).toBe(e.message.deadline);
    const walletBefore = (await usdcRow(1)).wallet_balance;
    const accepted = await api("POST", "/swap", body);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);

    await ex.control.settle();
    const { order, status } = await receiptStatus(accepted.body.trade_id);
    expect(status).toBe("reverted");
    expect([order.status, order.error_code]).toEqual(["failed", "ALLOWANCE_INSUFFICIENT"]);
    expect(await usdcRow(1)).toMatchObject({ wallet_balance: walletBefore, vault_total: "0", vault_frozen: "0" });
    expect(await ledgerMismatches(accepted.body.trade_id)).toEqual([]);
  });

  test("a quote whose permit nonce counted a pending swap that then reverted: accepted, fails ALLOWANCE_INSUFFICIENT; the next quote's nonce is the token's again", async () => {
    const first = await quote(1);
    const a = await api("POST", "/swap", await signed(1, first));
    expect(a.status).toBe(200);
    const second = await quote(1);
    expect(second.permit.nonce).toBe(first.permit.nonce + 1);

    // The first swap's transaction reverts (fault plan), so its permit nonce is never used.
    const batches = (await (await fetch(`${ex.baseUrl.replace(/\/api\/v1$/, "")}/__fakex/batches`)).json()) as { total: number };
    await ex.control.setFaultPlan({ revertSettlements: [{ nth: batches.total + 1, reason: "MATCH_FAULT" }] });
    await ex.control.settle();
    await ex.control.setFaultPlan({});
    expect((await receiptStatus(a.body.trade_id)).order.status).toBe("failed");

    const b = await api("POST", "/swap", await signed(1, second));
    expect(b.status, JSON.stringify(b.body)).toBe(200);
    await ex.control.settle();
    const { order, status } = await receiptStatus(b.body.trade_id);
    expect(status).toBe("reverted");
    expect([order.status, order.error_code]).toEqual(["failed", "ALLOWANCE_INSUFFICIENT"]);
    expect((await quote(1)).permit.nonce).toBe(first.permit.nonce);
    expect(await ledgerMismatches(b.body.trade_id)).toEqual([]);
  });
});

describe("the same vault funds asked for at once", () => {
  test("a swap and two withdrawals of 60 out of 100 USDC: the swap and exactly one withdrawal get them, in whatever order they land", async () => {
    const me = ex.accounts[0]!;
    const swapBody = await signed(0, await quote(0));
    const intents = ["71", "72"].map((uuid) => ({ user: me.address, tokens: [usdc()], amounts: ["60000000"], recipient: me.address, deadline: String(ex.control.now().now + 600), uuid }));
    const sigs = await Promise.all(intents.map((i) => ex.signWithdrawIntent(me, i)));
    const [s, ...ws] = await Promise.all([
      api("POST", "/swap", swapBody),
      ...intents.map((intent, k) => api("POST", "/withdraw", { intent, user_signature: sigs[k] })),
    ]);
    expect(s!.status).toBe(200);
    expect(ws.map((w) => w.status)).toEqual([200, 200]);
    expect(ws.map((w) => w.body.success).sort()).toEqual([false, true]);
    expect(ws.find((w) => !w.body.success)!.body.error).toMatch(/^insufficient vault balance for USDC/);
    const row = await usdcRow(0);
    expect(BigInt(row.vault_available) + BigInt(row.vault_frozen)).toBe(100_000_000n);
    expect(BigInt(row.vault_frozen)).toBeGreaterThan(60_000_000n);

    await ex.control.settle();
    expect((await receiptStatus(s!.body.trade_id)).order.status).toBe("settled");
    expect(await ledgerMismatches(s!.body.trade_id)).toEqual([]);
  });
});

describe("a swap sent while a settlement round runs", () => {
  test("is accepted and settles, in that round or the next; both swaps' balances equal the chain", async () => {
    const a = await api("POST", "/swap", await signed(0, await quote(0)));
    expect(a.status).toBe(200);
    const bQuote = await quote(2);
    const bBody = await signed(2, bQuote);
    const [, b] = await Promise.all([ex.control.settle(), api("POST", "/swap", bBody)]);
    expect(b.status, JSON.stringify(b.body)).toBe(200);
    await ex.control.settle();
    for (const id of [a.body.trade_id, b.body.trade_id]) {
      const { order, status } = await receiptStatus(id);
      expect([order.status, status]).toEqual(["settled", "success"]);
      expect(await ledgerMismatches(id)).toEqual([]);
    }
  });
});
