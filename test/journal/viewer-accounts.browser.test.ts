// The run viewer's accounts in headless Chromium: the list names the known wallets and shows
// their vault in whole tokens; a wallet links to its page (balances with raw amounts on hover,
// its orders, its requests), from the list, an order's page and the request list alike; the
// report file shows the same pages from disk. (The JSON behind them: account-views.test.ts.)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createFakeExchange, type FakeExchange } from "../../fixtures/fake-exchange.ts";
import { writeReport } from "../../fixtures/report.ts";
import { depositCalls, sendCalls } from "../../fixtures/chain-tx.ts";
import { chromiumAvailable, launchChromium, type RunningBrowser } from "./browser.ts";

describe.skipIf(!chromiumAvailable)("run viewer accounts in headless Chromium", () => {
  let ex: FakeExchange;
  let browser: RunningBrowser;
  let page: Page;
  let orderId: string;
  let requestId: string;
  const dir = mkdtempSync(join(tmpdir(), "fakex-viewer-accounts-"));

  beforeAll(async () => {
    ex = await createFakeExchange({ seed: 53 });
    const b = ex.accounts[1]!;
    // 1,234.5 USDC in the vault, and a resting bid of 20 at 0.75 freezing 15 of it.
    await ex.control.fund({ address: b.address, token: "USDC", amount: 1_234_500_000n, vault: true });
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${ex.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      return { body: (await res.json()) as any, id: res.headers.get("x-request-id")! };
    };
    const preview = await post("/orders/preview", ex.newOrder(b, { symbol: "USDT/USDC", side: "bid", amount: "20", price: "0.75" }));
    const placed = await post("/orders", (await ex.signOrder(b, preview.body)).body);
    orderId = placed.body.order_id;
    requestId = placed.id;
    browser = await launchChromium();
    page = await browser.context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await ex?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const b = () => ex.accounts[1]!.address.toLowerCase();

  test("the list names the known wallets and shows each vault in whole tokens; a wallet opens its page", async () => {
    await page.goto(`${ex.controlUrl}/ui/accounts`);
    const row = page.locator(`table.accounts tr[data-owner="${b()}"]`);
    await row.waitFor();
    expect(await row.locator("td").nth(1).textContent()).toBe("accounts[1]");
    expect(await row.locator("td").nth(2).textContent()).toBe("USDC 1219.5 available, 15 frozen");
    expect(await page.locator('table.accounts tr', { hasText: "fee recipient" }).count()).toBe(1);
    expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe("Accounts");
    await row.locator("a").click();
    await page.locator("table.balances").waitFor();
    expect(page.url()).toBe(`${ex.controlUrl}/ui/accounts/${b()}`);
    await expect.poll(() => page.title()).toBe(`Account ${b().slice(0, 8)}… · fakex run viewer`);
    // Focus moved to the view's heading, as on every other view.
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.tagName)).toBe("H2");
  });

  test("an account's page: wallet and vault per token (raw on hover), its orders, a link to its requests", async () => {
    await page.goto(`${ex.controlUrl}/ui/accounts/${b()}`);
    const usdc = page.locator('table.balances tr[data-token="USDC"] td');
    await usdc.first().waitFor();
    const wallet = (await (await fetch(`${ex.controlUrl}/accounts/${b()}`)).json()) as { balances: { symbol: string; wallet_balance: string }[] };
    const walletRaw = wallet.balances.find((x) => x.symbol === "USDC")!.wallet_balance;
    expect(await usdc.allTextContents()).toEqual(["USDC", (Number(walletRaw) / 1e6).toString(), "1219.5", "15", (Number(walletRaw) / 1e6 + 1234.5).toString()]);
    expect(await usdc.nth(2).locator("span").getAttribute("title")).toBe("1219500000 raw");
    expect(await page.locator(`table.orders tr[data-order-id="${orderId}"]`).count()).toBe(1);
    // The list of one wallet's orders has no owner column.
    expect(await page.locator("table.orders th").allTextContents()).not.toContain("Owner");
    await page.locator("a", { hasText: "this wallet's requests" }).click();
    await expect.poll(() => page.url()).toBe(`${ex.controlUrl}/ui/requests?owner=${b()}`);
    await expect.poll(() => page.locator(`table.requests tbody tr`).count()).toBeGreaterThan(0);
    const wallets = await page.locator("table.requests tbody tr td:nth-child(6) a").evaluateAll((as) => as.map((a) => a.getAttribute("title")));
    expect(new Set(wallets)).toEqual(new Set([b()]));
  });

  test("an order's owner and a request's wallet link to the account page", async () => {
    await page.goto(`${ex.controlUrl}/ui/orders/${orderId}`);
    const owner = page.locator(".facts div", { has: page.locator("dt", { hasText: /^Owner$/ }) }).locator("a");
    await owner.waitFor();
    expect(await owner.getAttribute("href")).toBe(`/__fakex/ui/accounts/${b()}`);
    // The resting bid (20 at 0.75) holds 15 USDC of its owner's vault.
    expect(await page.locator('[data-testid="frozen"] dd').textContent()).toMatch(/^15 USDC \(of its owner's vault/);
    await page.goto(`${ex.controlUrl}/ui/requests/${requestId}`);
    const wallet = page.locator(".facts div", { has: page.locator("dt", { hasText: /^Wallet$/ }) }).locator("a");
    await wallet.waitFor();
    await wallet.click();
    await page.locator("table.balances").waitFor();
    expect(page.url()).toBe(`${ex.controlUrl}/ui/accounts/${b()}`);
  });

  test("the report file shows the accounts and an account's page from disk", async () => {
    const out = join(dir, "report.html");
    await writeReport(ex.controlUrl, out);
    await page.goto(`${pathToFileURL(out).href}#/accounts`);
    const row = page.locator(`table.accounts tr[data-owner="${b()}"]`);
    await row.waitFor();
    await row.locator("a").click();
    await page.locator('table.balances tr[data-token="USDC"]').waitFor();
    expect(page.url()).toContain(`#/accounts/${b()}`);
    expect(await page.locator('table.balances tr[data-token="USDC"] td').nth(3).textContent()).toBe("15");
    // The report filters its captured orders as the server would: the resting bid is the one pending order of its market.
    await page.goto(`${pathToFileURL(out).href}#/?status=pending&symbol=USDT%2FUSDC`);
    const rows = page.locator("table.orders tbody tr");
    await expect.poll(async () => [...new Set(await rows.locator(".status").allTextContents())]).toEqual(["pending"]);
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-order-id")))).toContain(orderId);
    expect(new Set(await rows.locator("td:nth-child(3)").allTextContents())).toEqual(new Set(["USDT/USDC"]));
    // A value the server would refuse is refused in the report too, in the server's words.
    await page.goto(`${pathToFileURL(out).href}#/?status=bogus`);
    await expect.poll(() => page.locator("p.error").first().textContent()).toBe("status must be one of pending, matched, settled, failed, cancelled");
  });

  test("a swap's order page says where its output went (another wallet, linked) and what it filled in both tokens", async () => {
    const [me, them] = [ex.accounts[0]!, ex.accounts[2]!];
    const call = async (path: string, body: unknown) => (await fetch(`${ex.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).json() as Promise<any>;
    const quote = await call("/swap/quote", { from_token: ex.contracts.tokens.USDC, to_token: ex.contracts.tokens.USDT, from_amount: "30000000", owner_address: me.address, recipient: them.address, expiration: ex.control.now().now + 600 });
    const swap = await call("/swap", (await ex.signIntent(me, quote)).body);
    await ex.control.settle();
    await page.goto(`${ex.controlUrl}/ui/orders/${swap.trade_id}`);
    const to = page.locator('[data-testid="swap-recipient"]');
    await to.waitFor();
    expect(await to.locator("dd").textContent()).toBe(`another wallet: ${them.address.toLowerCase()}`);
    expect(await to.locator("a").getAttribute("href")).toBe(`/__fakex/ui/accounts/${them.address.toLowerCase()}`);
    const order = (await (await fetch(`${ex.controlUrl}/orders/${swap.trade_id}`)).json()) as { order: { filled_base_amount: string; filled_quote_amount: string; base_symbol: string; quote_symbol: string } };
    const filled = page.locator(".facts div", { has: page.locator("dt", { hasText: /^Filled$/ }) }).locator("dd");
    expect(await filled.textContent()).toBe(`${order.order.filled_base_amount} ${order.order.base_symbol} for ${order.order.filled_quote_amount} ${order.order.quote_symbol}`);
  });

  test("a deposit mined but not synced is named above the balances; with the node gone the wallet and total read unknown, not 0", async () => {
    const c = ex.accounts[2]!;
    const gbpt = ex.registry.tokenBySymbol("GBPT")!;
    await sendCalls(ex.clients.public, c.privateKey, depositCalls({ exchange: ex.contracts.exchange, vault: ex.contracts.vault, token: gbpt.address, owner: c.address, amount: 25n * 10n ** 17n }), "deposit");
    await page.goto(`${ex.controlUrl}/ui/accounts/${c.address.toLowerCase()}`);
    const note = page.locator('[data-testid="unsynced"]');
    await note.waitFor();
    expect(await note.textContent()).toContain("GBPT +2.5 deposited");
    // Last in this file: the node goes away under the open page.
    await ex.parts.anvil.stop();
    await page.locator("p.error", { hasText: "did not answer" }).waitFor({ timeout: 15_000 });
    const usdc = page.locator('table.balances tr[data-token="USDC"] td');
    expect(await usdc.allTextContents()).toEqual(["USDC", "—", "0", "0", "—"]);
  });
});
