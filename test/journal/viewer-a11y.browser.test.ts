// The run viewer for keyboard and screen-reader users (from an accessibility audit in
// Chromium): a polled list keeps focus on the item it was on, a control button keeps focus
// while its action runs and the outcome is announced, a move to another view names the tab
// and lands on the view's heading, the current view is marked for readers, and the filters,
// run inputs, charts and facts carry names. Headless Chromium, as viewer.browser.test.ts
// (skipped without /usr/bin/chromium; CI requires it there).
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createFakeExchange, type FakeExchange } from "../../fixtures/fake-exchange.ts";
import { chromiumAvailable, holdRequests, launchChromium, type RunningBrowser } from "./browser.ts";

describe.skipIf(!chromiumAvailable)("run viewer accessibility in headless Chromium", () => {
  let ex: FakeExchange;
  let browser: RunningBrowser;
  let page: Page;
  /** What has the keyboard's focus: its tag, text and data-action. */
  const focused = () =>
    page.evaluate(() => {
      const el = (globalThis as any).document.activeElement;
      return { tag: el?.tagName as string, text: (el?.textContent ?? "").trim() as string, action: el?.getAttribute("data-action") as string | null };
    });

  beforeAll(async () => {
    ex = await createFakeExchange({ seed: 43 });
    await ex.control.startActivity({ markets: "*" });
    await ex.control.advanceClock(180);
    await ex.control.stopActivity();
    await ex.control.settle();
    browser = await launchChromium();
    page = await browser.context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await ex?.close();
  });

  test("a polled list keeps keyboard focus on the request it was on when newer rows arrive above it", async () => {
    // The moving market trades in process: the journal's requests are these.
    for (let i = 0; i < 5; i++) await (await fetch(`${ex.baseUrl}/tokens`)).arrayBuffer();
    await page.goto(`${ex.controlUrl}/ui/requests`);
    const rows = page.locator("table.requests tbody tr");
    await rows.nth(3).waitFor();
    const link = rows.nth(2).locator("a").first();
    const id = (await link.innerText()).trim();
    await link.focus();
    const top = (await rows.first().locator("a").first().innerText()).trim();
    for (let i = 0; i < 3; i++) await (await fetch(`${ex.baseUrl}/markets`)).arrayBuffer();
    // A poll has shown the new requests on top.
    await expect.poll(async () => (await rows.first().locator("a").first().innerText()).trim()).not.toBe(top);
    expect(await focused()).toMatchObject({ tag: "A", text: id });
  }, 60_000);

  test("a control button keeps focus while its action runs, and the outcome is announced (a status region)", async () => {
    await page.goto(`${ex.controlUrl}/ui/`);
    await page.locator("table.orders tbody tr").first().waitFor();
    const hold = await holdRequests(page, "**/__fakex/mine");
    try {
      const mine = page.locator('button[data-action="mine"]');
      await mine.focus();
      await page.keyboard.press("Enter");
      const message = page.locator('[role="status"][data-testid="message"]');
      await expect.poll(() => message.innerText()).toBe("mine: running…");
      expect(await focused()).toMatchObject({ tag: "BUTTON", action: "mine" });
      // Enter again while it runs starts nothing.
      await page.keyboard.press("Enter");
      hold.release();
      await expect.poll(() => message.innerText()).toMatch(/^mine: \{/);
      expect(await focused()).toMatchObject({ tag: "BUTTON", action: "mine" });
    } finally {
      await hold.stop();
    }
  }, 60_000);

  test("moving to another view names the tab and puts focus on the view's heading; the current view is marked", async () => {
    await page.goto(`${ex.controlUrl}/ui/`);
    await expect.poll(() => page.title()).toBe("Orders · fakex run viewer");
    const nav = page.getByRole("navigation", { name: "views" });
    expect(await nav.getByRole("link", { name: "Orders" }).getAttribute("aria-current")).toBe("page");
    const first = page.locator("table.orders tbody tr").first();
    const id = (await first.getAttribute("data-order-id"))!;
    await first.locator("a").first().click();
    await expect.poll(() => page.title()).toBe(`Order ${id.slice(0, 8)}… · fakex run viewer`);
    await expect.poll(focused).toMatchObject({ tag: "H2", text: `Order ${id}` });
    await nav.getByRole("link", { name: "Requests" }).click();
    await expect.poll(() => page.title()).toBe("Requests · fakex run viewer");
    await expect.poll(focused).toMatchObject({ tag: "H2", text: "Request journal" });
    expect(await nav.getByRole("link", { name: "Requests" }).getAttribute("aria-current")).toBe("page");
    expect(await nav.getByRole("link", { name: "Orders" }).getAttribute("aria-current")).toBeNull();
  }, 60_000);

  test("Older by keyboard puts focus on the list's heading (its buttons are replaced while the page loads); a filter's result is announced", async () => {
    await page.goto(`${ex.controlUrl}/ui/`);
    const older = page.locator("button", { hasText: "Older" });
    await older.focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.url()).toContain("offset=50");
    expect(await focused()).toMatchObject({ tag: "H2", text: "Recent orders" });
    // On an order's page the nav marks Orders as the section it is in, not as the page.
    const id = (await page.locator("table.orders tbody tr").first().getAttribute("data-order-id"))!;
    await page.goto(`${ex.controlUrl}/ui/orders/${id}`);
    expect(await page.getByRole("navigation", { name: "views" }).getByRole("link", { name: "Orders" }).getAttribute("aria-current")).toBe("true");
    // Requests: the filter box keeps focus, and the new count is said once it loads.
    await page.goto(`${ex.controlUrl}/ui/requests`);
    const method = page.getByRole("textbox", { name: "filter by method", exact: true });
    await method.fill("POST");
    await method.press("Enter");
    await expect.poll(() => page.locator('[data-testid="filter-note"]').innerText()).toMatch(/^\d+ entr(y matches|ies match)$/);
    expect(await focused()).toMatchObject({ tag: "INPUT" });
  }, 60_000);

  test("an unknown view says so in its title and heading; a stopped server is announced once, not by every panel", async () => {
    await page.goto(`${ex.controlUrl}/ui/nope`);
    await expect.poll(() => page.title()).toBe("No view · fakex run viewer");
    expect(await page.locator("#view h2").innerText()).toBe("No view");
    await page.goto(`${ex.controlUrl}/ui/requests`);
    await page.locator("table.requests tbody tr").first().waitFor();
    await page.route("**/__fakex/**", (route) => route.abort("connectionrefused"));
    try {
      await expect.poll(() => page.getByRole("alert").count()).toBe(1);
      expect(await page.getByRole("alert").innerText()).toMatch(/does not answer/);
    } finally {
      await page.unroute("**/__fakex/**");
    }
  }, 60_000);

  test("the skip link is the first stop and takes the keyboard past the header and the run panel", async () => {
    await page.goto(`${ex.controlUrl}/ui/timeline`);
    await page.locator("table.events tbody tr").first().waitFor();
    await page.keyboard.press("Tab");
    expect(await focused()).toMatchObject({ tag: "A", text: "Skip to the view" });
    await page.keyboard.press("Enter");
    expect(await focused()).toMatchObject({ tag: "H2", text: "Timeline (virtual clock, UTC)" });
    // The timeline's chart in words, and its links name the order they open.
    const chart = page.getByRole("img", { name: /^Cumulative counts over (these events|the events since #\d+): orders \d+, fills \d+/ });
    expect(await chart.count()).toBe(1);
    expect(await page.locator(".u-legend").first().getAttribute("aria-hidden")).toBe("true");
    expect(await page.locator("table.events tbody a").first().innerText()).toMatch(/^order [0-9a-f]{8}…$/);
  }, 60_000);

  test("names for readers: the filters, the run panel and its inputs, a depth chart, an order's facts", async () => {
    await page.goto(`${ex.controlUrl}/ui/requests`);
    for (const k of ["method", "path", "status", "owner"]) expect(await page.getByRole("textbox", { name: `filter by ${k}`, exact: true }).count(), k).toBe(1);
    expect(await page.getByRole("region", { name: "Run" }).count()).toBe(1);
    expect(await page.getByRole("textbox", { name: "seconds", exact: true }).count()).toBe(1);
    await page.goto(`${ex.controlUrl}/ui/markets`);
    const depth = page.getByRole("img", { name: /^EURC\/USDC depth: \d+ levels? of bids, best [0-9.]+; \d+ levels? of asks, best [0-9.]+$/ });
    await depth.waitFor();
    const [order] = ((await (await fetch(`${ex.controlUrl}/orders?limit=1`)).json()) as { orders: { order_id: string }[] }).orders;
    await page.goto(`${ex.controlUrl}/ui/orders/${order!.order_id}`);
    const facts = page.locator("#view dl.facts");
    await facts.waitFor();
    const terms = await facts.locator("dt").allInnerTexts();
    expect(terms.slice(0, 3)).toEqual(["Status", "Owner", "Market"]);
    expect(await facts.locator("dt + dd").count()).toBe(terms.length);
  }, 60_000);
});
