// A wallet that deposits by itself (approve and depositFund sent through rpc_url, as a
// browser wallet or a contract wallet does, not relayed by POST /tx/send) and then trades
// at once: the live service credits a mined deposit without being asked, so the order,
// the VL batch and the swap quote that follow see it, with no GET /balances in between.
import { describe, expect } from "vitest";
import { createWalletClient, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { test } from "../../fixtures/vitest.ts";
import type { FakeExchange } from "../../fixtures/fake-exchange.ts";
import { Exchange, TestToken } from "../../sim/chain/artifacts.ts";
import { encodeUuidInt, groupIdOf } from "../../sim/core/uuid-int.ts";
import type { Address } from "../../sim/core/typed-data.ts";

const USDC_50 = 50_000_000n; // 50 USDC (6 decimals)

async function depositStraightToChain(ex: FakeExchange, token: Address, amount: bigint): Promise<void> {
  const me = ex.accounts[0]!;
  const wallet = createWalletClient({ account: privateKeyToAccount(me.privateKey), chain: ex.clients.public.chain, transport: http(ex.rpcUrl) });
  for (const hash of [
    await wallet.writeContract({ address: token, abi: TestToken.abi, functionName: "approve", args: [ex.contracts.vault, amount] }),
    await wallet.writeContract({ address: ex.contracts.exchange, abi: Exchange.abi, functionName: "depositFund", args: [token, me.address, amount] }),
  ]) {
    expect((await ex.clients.public.waitForTransactionReceipt({ hash })).status).toBe("success");
  }
}

async function post(ex: FakeExchange, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${ex.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

async function signedOrder(ex: FakeExchange, o: { symbol: string; side: "bid" | "ask"; amount: string; price: string }, uuid?: (orderId: string) => bigint) {
  const me = ex.accounts[0]!;
  const body = ex.newOrder(me, o);
  if (uuid) body.uuid_int = uuid(body.order_id).toString();
  const preview = await post(ex, "/orders/preview", body);
  expect(preview.status, JSON.stringify(preview.body)).toBe(200);
  return (await ex.signOrder(me, preview.body)).body;
}

async function vaultRow(ex: FakeExchange, symbol: string): Promise<Record<string, string>> {
  const me = ex.accounts[0]!;
  const auth = await ex.signManageApiKey(me, "create", ex.control.now().now);
  const key = (await post(ex, "/api-keys", auth)).body as { api_key: string; api_secret: string };
  const res = await fetch(`${ex.baseUrl}/balances?owner_address=${me.address}`, { headers: { authorization: `Bearer ${key.api_key}:${key.api_secret}` } });
  return ((await res.json()) as { balances: Record<string, string>[] }).balances.find((r) => r["symbol"] === symbol)!;
}

describe("a deposit the wallet sends straight to the chain", () => {
  test("an order placed right after it is accepted against it; one it does not cover is still refused", async ({ exchange: ex }) => {
    const market = ex.registry.markets().find((m) => m.symbol === "USDT/USDC")!;
    await depositStraightToChain(ex, market.quote, USDC_50);
    // A bid far below the makers: it rests, freezing 25 × 0.5 USDC.
    const fits = await post(ex, "/orders", await signedOrder(ex, { symbol: market.symbol, side: "bid", amount: "25", price: "0.5" }));
    expect(fits.status, JSON.stringify(fits.body)).toBe(201);
    const tooBig = await post(ex, "/orders", await signedOrder(ex, { symbol: market.symbol, side: "bid", amount: "100", price: "0.5" }));
    expect(tooBig).toEqual({
      status: 400,
      body: { detail: { detail: "available equity 37.5 USDC is below the order's frozen-amount need 50", error_code: "INSUFFICIENT_EQUITY" } },
    });
    expect(await vaultRow(ex, "USDC")).toMatchObject({ vault_total: "50000000", vault_frozen: "12500000", vault_available: "37500000" });
  });

  test("a VL batch right after it has the deposit as its budget", async ({ exchange: ex }) => {
    const markets = ["USDT/USDC", "EURC/USDC"].map((s) => ex.registry.markets().find((m) => m.symbol === s)!);
    await depositStraightToChain(ex, markets[0]!.quote, USDC_50);
    let group = 0n;
    const legs = [];
    for (const [i, m] of markets.entries()) {
      legs.push(
        await signedOrder(ex, { symbol: m.symbol, side: "bid", amount: "20", price: "0.5" }, (orderId) => {
          if (i === 0) group = groupIdOf(orderId);
          return encodeUuidInt({ executorId: ex.executorId, orderId, groupId: group, legId: i });
        }),
      );
    }
    const r = await post(ex, "/orders/vl/batch", { orders: legs });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.amendments).toEqual([]);
    expect(r.body.cancelled).toEqual([]);
    expect(r.body.vl_group).toMatchObject({ max_budget: "50", spent_token: "USDC" });
  });

  test("a swap quote right after it draws on the vault: nothing from the wallet, no permit", async ({ exchange: ex }) => {
    const me = ex.accounts[0]!;
    const usdc = ex.contracts.tokens.USDC!;
    await depositStraightToChain(ex, usdc, USDC_50);
    const q = await post(ex, "/swap/quote", {
      from_token: usdc,
      to_token: ex.contracts.tokens.USDT!,
      from_amount: "20000000",
      owner_address: me.address,
      recipient: me.address,
      expiration: ex.control.now().now + 3600,
    });
    expect(q.status, JSON.stringify(q.body)).toBe(200);
    expect(q.body.route_params.initialDepositAmount).toBe("0");
    expect(q.body.permit).toBeNull();
  });
});
