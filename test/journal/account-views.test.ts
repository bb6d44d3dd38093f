// The run viewer's account views (GET /__fakex/accounts, /accounts/{address}): known wallets
// first and by name, every other wallet with vault funds after them by address; one wallet's
// page is GET /balances' rows (with the zero ones) plus its newest orders; bad input is a 400
// naming it; the report carries both. (Their page in a browser: viewer-accounts.browser.test.ts.)
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createFakeExchange, type FakeExchange } from "../../fixtures/fake-exchange.ts";
import type { FundedAccount } from "../../fixtures/chain.ts";
import { captureRun } from "../../fixtures/report.ts";
import { ACCOUNT_ORDERS } from "../../sim/http/account-views.ts";
import { depositCalls, sendCalls } from "../../fixtures/chain-tx.ts";
import { privateKeyToAccount } from "viem/accounts";

describe("account views of the control API", () => {
  let ex: FakeExchange;
  const OUTSIDER = "0x00000000000000000000000000000000000000a1";
  const control = async (path: string) => {
    const res = await fetch(`${ex.controlUrl}${path}`);
    return { status: res.status, body: (await res.json()) as any };
  };
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${ex.baseUrl}${path}`, { method, headers: { "content-type": "application/json", ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: res.status, body: (await res.json()) as any };
  };
  const place = async (acc: FundedAccount, side: "bid" | "ask", amount: string, price: string) => {
    const preview = await api("POST", "/orders/preview", ex.newOrder(acc, { symbol: "USDT/USDC", side, amount, price }));
    expect(preview.body, JSON.stringify(preview.body)).toMatchObject({ ok: true });
    const r = await api("POST", "/orders", (await ex.signOrder(acc, preview.body)).body);
    expect(r.status).toBe(201);
    return r.body.order_id as string;
  };

  beforeAll(async () => {
    ex = await createFakeExchange({ seed: 52 });
    await ex.control.fund({ address: ex.accounts[0]!.address, token: "USDT", amount: 500_000_000n, vault: true });
    await ex.control.fund({ address: ex.accounts[1]!.address, token: "USDC", amount: 700_000_000n, vault: true });
    // A wallet that is none of the fixture's, with vault funds.
    await ex.control.fund({ address: OUTSIDER, token: "USDC", amount: 3_000_000n, vault: true });
  }, 120_000);
  afterAll(async () => {
    await ex?.close();
  });

  test("GET /accounts: the fixture's accounts, the makers and the fee recipient by name, then other wallets with vault funds; vault columns only", async () => {
    const r = await control("/accounts");
    expect(r.status).toBe(200);
    const { accounts, total, next_offset } = r.body as { accounts: { owner: string; role: string | null; vault: any[] }[]; total: number; next_offset: number | null };
    const roles = accounts.map((a) => a.role);
    expect(roles.slice(0, ex.accounts.length)).toEqual(ex.accounts.map((_, k) => `accounts[${k}]`));
    expect(accounts.slice(0, ex.accounts.length).map((a) => a.owner)).toEqual(ex.accounts.map((a) => a.address.toLowerCase()));
    expect(roles.slice(ex.accounts.length, ex.accounts.length + ex.makers.length)).toEqual(ex.makers.map((_, k) => `liquidity maker ${k + 1}`));
    expect(accounts.slice(ex.accounts.length, ex.accounts.length + ex.makers.length).map((a) => a.owner)).toEqual(ex.makers.map((m) => m.address.toLowerCase()));
    expect(roles).toContain("fee recipient");
    expect(accounts.find((a) => a.role === "fee recipient")!.owner).toBe(ex.parts.engine.protocolOwner);
    // After the named ones: the outsider, with its one vault row.
    const last = accounts[accounts.length - 1]!;
    expect(last).toEqual({
      owner: OUTSIDER,
      role: null,
      vault: [{ token: ex.registry.tokenBySymbol("USDC")!.address, symbol: "USDC", decimals: 6, vault_available: "3000000", vault_frozen: "0", vault_total: "3000000" }],
    });
    expect(total).toBe(accounts.length);
    expect(next_offset).toBeNull();
    // Only tokens with vault funds: accounts[0] holds USDT there and nothing else.
    expect(accounts[0]!.vault.map((v) => v.symbol)).toEqual(["USDT"]);
    expect(accounts[2]!.vault).toEqual([]);
  });

  test("GET /accounts pages with limit and offset; other keys, a key twice and limits out of range are 400s", async () => {
    const all = (await control("/accounts")).body;
    const page = await control("/accounts?limit=2&offset=1");
    expect(page.body.accounts.map((a: { owner: string }) => a.owner)).toEqual(all.accounts.slice(1, 3).map((a: { owner: string }) => a.owner));
    expect([page.body.total, page.body.next_offset]).toEqual([all.total, 3]);
    expect((await control(`/accounts?offset=${all.total}`)).body.accounts).toEqual([]);
    // A last page that is exactly full has no next page.
    const upToLast = (await control(`/accounts?limit=2&offset=${all.total - 2}`)).body;
    expect([upToLast.accounts.length, upToLast.next_offset]).toEqual([2, null]);
    expect(await control("/accounts?owner=x")).toEqual({ status: 400, body: { detail: 'unknown query parameter "owner"; this view takes limit and offset' } });
    expect(await control("/accounts?limit=0")).toEqual({ status: 400, body: { detail: "limit must be 1-500" } });
    expect(await control("/accounts?limit=501")).toEqual({ status: 400, body: { detail: "limit must be 1-500" } });
    expect(await control("/accounts?offset=-1")).toEqual({ status: 400, body: { detail: "offset must be a whole number from 0 to 999999999" } });
    expect(await control("/accounts?limit=1&limit=2")).toEqual({ status: 400, body: { detail: "limit: given more than once; send it once" } });
  });

  test("GET /accounts/{address}: GET /balances' rows with the zero ones (the same figures), its newest orders first and their count", async () => {
    const [a, b] = [ex.accounts[0]!, ex.accounts[1]!];
    const ask = await place(a, "ask", "20", "1");
    const bid = await place(b, "bid", "10", "1");
    const resting = await place(b, "bid", "12", "0.9");
    const auth = await ex.signManageApiKey(b, "create", ex.control.now().now);
    const key = await api("POST", "/api-keys", { ...auth, label: "accounts" });
    const balances = await api("GET", `/balances?owner_address=${b.address.toLowerCase()}&include_zero=true`, undefined, { authorization: `Bearer ${key.body.api_key}:${key.body.api_secret}` });
    expect(balances.status).toBe(200);

    // Any letter case names the wallet; the page answers in lowercase.
    const r = await control(`/accounts/${b.address.toUpperCase().replace("0X", "0x")}`);
    expect(r.status).toBe(200);
    const { updated_at: _a, ...page } = r.body;
    const { updated_at: _b, ...expected } = balances.body;
    expect({ owner_address: page.owner_address, balances: page.balances, wallet_balance_available: page.wallet_balance_available }).toEqual(expected);
    expect(page.balances).toHaveLength(ex.registry.tokens().length);
    expect(page.role).toBe("accounts[1]");
    expect(page.orders.map((o: { order_id: string }) => o.order_id)).toEqual([resting, bid]);
    expect(page.orders[0]).toMatchObject({ symbol: "USDT/USDC", side: "bid", order_type: "limit", status: "pending", price: "0.9", amount: "12" });
    expect(page.order_count).toBe(2);
    // The resting bid's page says what it holds frozen: 12 at 0.9 is 10.8 USDC.
    expect((await control(`/orders/${resting}`)).body.frozen).toEqual({ token: ex.registry.tokenBySymbol("USDC")!.address, symbol: "USDC", decimals: 6, amount: "10800000" });
    // The maker's page lists its order too.
    expect((await control(`/accounts/${a.address}`)).body.orders.map((o: { order_id: string }) => o.order_id)).toEqual([ask]);
  });

  test("GET /accounts/{address}: a wallet the exchange never saw is all zeros with no role; not an address or a query is a 400", async () => {
    const stranger = "0x00000000000000000000000000000000000000b2";
    const r = await control(`/accounts/${stranger}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ owner_address: stranger, role: null, orders: [], order_count: 0, wallet_balance_available: true });
    expect(r.body.balances.every((row: { total: string }) => row.total === "0")).toBe(true);
    expect(await control("/accounts/0x12")).toEqual({ status: 400, body: { detail: 'not an address: "0x12" (0x and 40 hex digits)' } });
    expect(await control(`/accounts/${stranger}?include_zero=true`)).toEqual({ status: 400, body: { detail: 'unknown query parameter "include_zero"; this view takes no query parameters' } });
  });

  test(`an account page lists its newest ${ACCOUNT_ORDERS} orders and counts them all`, async () => {
    const c = ex.accounts[2]!;
    await ex.control.fund({ address: c.address, token: "USDC", amount: 1_000_000_000n, vault: true });
    const placed: string[] = [];
    for (let i = 0; i < ACCOUNT_ORDERS + 2; i++) {
      placed.push(await place(c, "bid", "20", "0.5"));
      // The trade group's per-second budget moves with the virtual clock.
      if (i % 4 === 3) await ex.control.advanceClock(1);
    }
    const page = (await control(`/accounts/${c.address}`)).body;
    expect(page.order_count).toBe(ACCOUNT_ORDERS + 2);
    expect(page.orders.map((o: { order_id: string }) => o.order_id)).toEqual(placed.slice(-ACCOUNT_ORDERS).reverse());
  });

  test("a deposit mined but not yet synced: listed as such on the page, the vault columns unchanged until a balance read syncs it", async () => {
    const c = ex.accounts[2]!;
    const gbpt = ex.registry.tokenBySymbol("GBPT")!;
    const one = 10n ** 18n;
    const before = (await control(`/accounts/${c.address}`)).body;
    expect(before.unsynced_vault_moves).toEqual([]);
    // The wallet deposits on its own (approve, depositFund), as a wallet app broadcasting itself would.
    await sendCalls(ex.clients.public, c.privateKey, depositCalls({ exchange: ex.contracts.exchange, vault: ex.contracts.vault, token: gbpt.address, owner: c.address, amount: one }), "deposit");
    const page = (await control(`/accounts/${c.address}`)).body;
    expect(page.unsynced_vault_moves).toEqual([{ token: gbpt.address, symbol: "GBPT", decimals: 18, deposits: one.toString(), withdrawals: "0" }]);
    const row = (p: { balances: { symbol: string; wallet_balance: string; vault_available: string }[] }) => p.balances.find((b) => b.symbol === "GBPT")!;
    expect(BigInt(row(page).wallet_balance)).toBe(BigInt(row(before).wallet_balance) - one);
    // Reading changed nothing: the ledger has not taken the deposit, the page says so again.
    expect(row(page).vault_available).toBe(row(before).vault_available);
    // The total counts the deposit once, as the chain holds it (wallet read now, vault short of it).
    const total = (p: { balances: { symbol: string; total?: string }[] }) => BigInt(p.balances.find((b) => b.symbol === "GBPT")!.total!);
    expect(total(page)).toBe(total(before));
    expect((await control(`/accounts/${c.address}`)).body.unsynced_vault_moves).toHaveLength(1);
    // A balance read syncs: the deposit is in the vault and no longer listed.
    await ex.parts.engine.syncVaultEvents();
    const after = (await control(`/accounts/${c.address}`)).body;
    expect(after.unsynced_vault_moves).toEqual([]);
    expect(BigInt(row(after).vault_available)).toBe(BigInt(row(before).vault_available) + one);
    expect(total(after)).toBe(total(before));
  });

  test("another method on a view is a 405 with Allow: GET, as on the control API", async () => {
    for (const path of ["/accounts", `/accounts/${OUTSIDER}`, "/orders", "/run", "/batches", "/markets"]) {
      for (const method of ["POST", "DELETE", "PUT"]) {
        const res = await fetch(`${ex.controlUrl}${path}`, { method });
        expect([path, method, res.status, res.headers.get("allow"), await res.json()]).toEqual([path, method, 405, "GET", { detail: "Method Not Allowed" }]);
      }
    }
  });

  test("the order list filters by status and market; upto holds it at the first n orders placed (placed says n); bad filters are 400s", async () => {
    const all = (await control("/orders?limit=500")).body as { orders: { order_id: string; status: string; symbol: string }[]; total: number; placed: number };
    expect(all.placed).toBe(all.total);
    expect(all.orders).toHaveLength(all.total); // the whole list fits one page here
    const pending = (await control("/orders?limit=500&status=pending")).body as typeof all;
    expect(pending.orders.map((o) => o.order_id)).toEqual(all.orders.filter((o) => o.status === "pending").map((o) => o.order_id));
    expect([pending.total, pending.placed]).toEqual([pending.orders.length, all.total]);
    const symbol = all.orders[0]!.symbol;
    const both = (await control(`/orders?limit=500&status=pending&symbol=${encodeURIComponent(symbol)}`)).body as typeof all;
    expect(both.orders.map((o) => o.order_id)).toEqual(all.orders.filter((o) => o.status === "pending" && o.symbol === symbol).map((o) => o.order_id));
    // Held at the first 3 orders placed: the filter applies to those only.
    const held = (await control("/orders?limit=500&status=pending&upto=3")).body as typeof all;
    const firstThree = all.orders.slice(-3).reverse();
    expect(held.orders.map((o) => o.order_id)).toEqual(firstThree.filter((o) => o.status === "pending").map((o) => o.order_id).reverse());
    expect(held.placed).toBe(3);
    expect(await control("/orders?limit=501")).toEqual({ status: 400, body: { detail: "limit must be 1-500" } });
    expect(await control("/orders?limit=0")).toEqual({ status: 400, body: { detail: "limit must be 1-500" } });
    expect(await control("/orders?status=open")).toEqual({ status: 400, body: { detail: "status must be one of pending, matched, settled, failed, cancelled" } });
    const markets = ex.registry.markets().map((m) => m.symbol).join(", ");
    expect(await control("/orders?symbol=usdt%2Fusdc")).toEqual({ status: 400, body: { detail: `symbol: no market "usdt/usdc" (one of ${markets})` } });
    expect(await control("/orders?owner=x")).toEqual({ status: 400, body: { detail: 'unknown query parameter "owner"; this view takes limit, offset, upto, status and symbol' } });
  });

  test("the report holds the account list and each account's page", async () => {
    const report = await captureRun(ex.controlUrl);
    const list = report.data["/accounts"] as { accounts: { owner: string }[] };
    expect(list.accounts.map((a) => a.owner)).toEqual((await control("/accounts?limit=500")).body.accounts.map((a: { owner: string }) => a.owner));
    for (const a of list.accounts) expect((report.data[`/accounts/${a.owner}`] as { owner_address: string }).owner_address).toBe(a.owner);
  });

  test("GET /accounts: other wallets come by address whatever order they got funds in; one whose funds are all frozen in an order is listed with them", async () => {
    // A wallet that is none of the fixture's and can sign: all its vault USDC goes into a resting bid (20 at 0.5).
    const signer = privateKeyToAccount(`0x${"5a".repeat(32)}`);
    const frozenOnly: FundedAccount = { address: signer.address, privateKey: `0x${"5a".repeat(32)}` };
    await ex.control.fund({ address: frozenOnly.address, token: "USDC", amount: 10_000_000n, vault: true });
    await place(frozenOnly, "bid", "20", "0.5");
    // Funded last, listed first: its address sorts before the others'.
    const earliest = "0x00000000000000000000000000000000000000a0";
    await ex.control.fund({ address: earliest, token: "USDC", amount: 1_000_000n, vault: true });
    const others = ((await control("/accounts?limit=500")).body.accounts as { owner: string; role: string | null; vault: any[] }[]).filter((a) => a.role === null);
    expect(others.map((a) => a.owner)).toEqual([earliest, OUTSIDER, frozenOnly.address.toLowerCase()].sort());
    expect(others.find((a) => a.owner === frozenOnly.address.toLowerCase())!.vault).toEqual([
      { token: ex.registry.tokenBySymbol("USDC")!.address, symbol: "USDC", decimals: 6, vault_available: "0", vault_frozen: "10000000", vault_total: "10000000" },
    ]);
  });
});

describe("account views with the chain node gone", () => {
  test("the page still answers: wallet column unknown (wallet_balance_available false), unsynced moves unknown (null), vault columns from the ledger", async () => {
    const ex = await createFakeExchange({ seed: 54, liquidity: false });
    try {
      const a = ex.accounts[0]!;
      await ex.control.fund({ address: a.address, token: "USDC", amount: 5_000_000n, vault: true });
      await ex.parts.anvil.stop();
      const res = await fetch(`${ex.controlUrl}/accounts/${a.address}`);
      expect(res.status).toBe(200);
      const page = (await res.json()) as { wallet_balance_available: boolean; unsynced_vault_moves: unknown; balances: { symbol: string; wallet_balance: string; vault_available: string }[] };
      expect(page.wallet_balance_available).toBe(false);
      expect(page.unsynced_vault_moves).toBeNull();
      expect(page.balances.find((b) => b.symbol === "USDC")).toMatchObject({ wallet_balance: "0", vault_available: "5000000" });
      // The list reads only the ledger.
      const list = await fetch(`${ex.controlUrl}/accounts`);
      expect(list.status).toBe(200);
    } finally {
      await ex.close().catch(() => undefined);
    }
  }, 60_000);
});
