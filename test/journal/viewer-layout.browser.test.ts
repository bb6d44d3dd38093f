// The run viewer as a user at a real window finds it (from a UX audit in Chromium): a narrow
// window does not push any page sideways, the order list's pages past the first hold still
// and live in the address, a chart follows the window's width, one control action runs at a
// time and says so, an unreachable server is named as such, a 503 route fault reads once,
// a long path is cut in the list, and the timeline links an event to its order. Headless
// Chromium, as viewer.browser.test.ts (skipped without /usr/bin/chromium; CI requires it there).
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createFakeExchange, type FakeExchange } from "../../fixtures/fake-exchange.ts";
import { chromiumAvailable, holdRequests, launchChromium, type RunningBrowser } from "./browser.ts";

describe.skipIf(!chromiumAvailable)("run viewer layout and paging in headless Chromium", () => {
  let ex: FakeExchange;
  let browser: RunningBrowser;
  let page: Page;
  const orderRows = () => page.locator("table.orders tbody tr");
  const firstOrderId = () => orderRows().first().getAttribute("data-order-id");
  /** The page's full width: wider than the window means it scrolls sideways. */
  const pageWidth = () => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
  const listed = async (query: string) => ((await (await fetch(`${ex.controlUrl}/orders?${query}`)).json()) as { orders: { order_id: string }[]; total: number });

  beforeAll(async () => {
    ex = await createFakeExchange({ seed: 41 });
    // The moving market places orders as the clock advances: well over one page of 50.
    await ex.control.startActivity({ markets: "*" });
    await ex.control.advanceClock(600);
    await ex.control.settle();
    expect((await listed("limit=1")).total).toBeGreaterThan(120);
    browser = await launchChromium();
    page = await browser.context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await ex?.close();
  });

  test("the order list's Older page holds its orders while new ones arrive, and its address brings it back", async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${ex.controlUrl}/ui/`);
    await orderRows().first().waitFor();
    const total = (await listed("limit=1")).total;
    await page.locator("button", { hasText: "Older" }).click();
    await expect.poll(() => page.url()).toContain(`?offset=50&upto=${total}`);
    const expected = (await listed(`limit=50&offset=50&upto=${total}`)).orders.map((o) => o.order_id);
    await expect.poll(firstOrderId).toBe(expected[0]);
    expect(await page.locator("main").innerText()).toContain(`the first ${total} only, newer ones are on the first page`);
    // More orders arrive; two polls go by: the page stays put (the live list has moved on).
    await ex.control.advanceClock(120);
    expect((await listed("limit=1")).total).toBeGreaterThan(total);
    await page.waitForTimeout(2_200);
    expect(await orderRows().evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-order-id")))).toEqual(expected);
    // Reload: the same page from the address. Back: the live first page.
    await page.reload();
    await expect.poll(firstOrderId).toBe(expected[0]);
    await page.goBack();
    await expect.poll(() => page.url()).toMatch(/\/ui\/$/);
    await expect.poll(firstOrderId).toBe((await listed("limit=1")).orders[0]!.order_id);
  }, 60_000);

  test("an order-list address the list does not match is brought to it: no upto holds the page found, an upto past the end comes down, a page past the end moves to the last", async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    const ids = async () => orderRows().evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-order-id")));
    let total = (await listed("limit=1")).total;
    // Only offset (a hand-written link): held at the list there is.
    await page.goto(`${ex.controlUrl}/ui/?offset=50`);
    await expect.poll(() => page.url()).toContain(`?offset=50&upto=${total}`);
    await expect.poll(ids).toEqual((await listed(`limit=50&offset=50&upto=${total}`)).orders.map((o) => o.order_id));
    // An upto past the end (as a restore to an earlier snapshot leaves one): lowered to the end, so the page stays held.
    await page.goto(`${ex.controlUrl}/ui/?offset=50&upto=99999999`);
    total = (await listed("limit=1")).total;
    await expect.poll(() => page.url()).toContain(`?offset=50&upto=${total}`);
    // A page past the end: the last page.
    await page.goto(`${ex.controlUrl}/ui/?offset=100000&upto=100`);
    await expect.poll(() => page.url()).toContain("?offset=50&upto=100");
    await expect.poll(() => orderRows().count()).toBe(50);
    await expect.poll(ids).toEqual((await listed("limit=50&offset=50&upto=100")).orders.map((o) => o.order_id));
  }, 60_000);

  test("a 320 px window: an order's and a request's facts stay inside their panel, and side-by-side panes stack", async () => {
    await page.setViewportSize({ width: 320, height: 800 });
    const { orders } = await listed("limit=1");
    // A refused order with a long body: a rejection and two body panes side by side on a wide window.
    const refused = await fetch(`${ex.baseUrl}/orders`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ side: "bid", note: "n".repeat(2000) }) });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    const requestId = refused.headers.get("x-request-id")!;
    for (const route of [`/orders/${orders[0]!.order_id}`, `/requests/${requestId}`]) {
      await page.goto(`${ex.controlUrl}/ui${route}`);
      await page.locator("main section.panel").nth(1).locator(".facts").waitFor();
      const outside = await page.locator(".facts").evaluateAll((grids) =>
        grids.flatMap((g: any) => {
          const edge = g.getBoundingClientRect().right;
          return [...g.children].filter((c: any) => c.getBoundingClientRect().right > edge + 0.5).map((c: any) => c.textContent.slice(0, 40));
        }),
      );
      expect(outside, route).toEqual([]);
      const panes = await page.locator(".two").first().evaluate((two: any) => [...two.children].map((c: any) => c.getBoundingClientRect().left));
      expect(new Set(panes).size, route).toBe(1);
      expect(await pageWidth(), route).toBeLessThanOrEqual(320);
    }
  }, 60_000);

  test("a 400 px window: no page is wider than the window, and the header's links stay inside the header", async () => {
    await page.setViewportSize({ width: 400, height: 800 });
    for (const route of ["/", "/markets", "/batches", "/requests", "/timeline"]) {
      await page.goto(`${ex.controlUrl}/ui${route}`);
      await page.locator("main section.panel").nth(1).waitFor();
      await page.waitForTimeout(300);
      expect(await pageWidth(), route).toBeLessThanOrEqual(400);
      const header = (await page.locator("header").boundingBox())!;
      const timeline = (await page.locator("nav a", { hasText: "Timeline" }).boundingBox())!;
      expect(timeline.x + timeline.width, route).toBeLessThanOrEqual(header.x + header.width);
      expect(timeline.y + timeline.height, route).toBeLessThanOrEqual(header.y + header.height);
    }
  }, 60_000);

  test("a 360 px window: the run panel folds to one line, so a view starts on the first screen; opened, it is whole, and an action's outcome is said below it", async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    const { orders } = await listed("limit=1");
    await page.goto(`${ex.controlUrl}/ui/orders/${orders[0]!.order_id}`);
    const heading = page.locator("#view h2").first();
    await heading.waitFor();
    // Unfolded, the panel's facts and nine controls pushed the heading to y ~610.
    expect((await heading.boundingBox())!.y).toBeLessThan(300);
    const fold = page.locator("details.run-fold");
    expect(await fold.getAttribute("open")).toBeNull();
    await expect.poll(() => page.locator('[data-testid="clock-summary"]').textContent(), { timeout: 10_000 }).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await page.locator('[data-testid="clock"]').isVisible()).toBe(false);
    await fold.locator("summary").click();
    await page.locator('[data-testid="clock"]').waitFor();
    expect(await page.locator('button[data-action="advance"]').isVisible()).toBe(true);
    await page.locator('button[data-action="mine"]').click();
    await expect.poll(() => page.locator('[data-testid="message"]').textContent(), { timeout: 10_000 }).toMatch(/^mine: /);
    // Folded again, the outcome region is still on the page (a status region is read, and seen, as it changes).
    await fold.locator("summary").click();
    expect(await page.locator('[data-testid="message"]').isVisible()).toBe(true);
    // A wide window shows the panel whole, without the fold's line; the control that had focus keeps it.
    await fold.locator("summary").click();
    await page.locator('button[data-action="mine"]').focus();
    await page.setViewportSize({ width: 1280, height: 900 });
    await expect.poll(() => page.locator("details.run-fold.wide").count(), { timeout: 10_000 }).toBe(1);
    expect(await page.locator("details.run-fold > summary").isVisible()).toBe(false);
    expect(await page.locator('[data-testid="clock"]').isVisible()).toBe(true);
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute("data-action"))).toBe("mine");
  }, 60_000);

  test("a depth chart follows the window when it narrows", async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${ex.controlUrl}/ui/markets`);
    const canvas = page.locator(".chart canvas").first();
    await canvas.waitFor();
    expect((await canvas.boundingBox())!.width).toBeGreaterThan(900);
    await page.setViewportSize({ width: 700, height: 900 });
    await expect.poll(async () => (await canvas.boundingBox())!.width).toBeLessThan(700);
    expect(await pageWidth()).toBeLessThanOrEqual(700);
  }, 60_000);

  test("one control action at a time: the buttons wait while an advance runs, and the message says it is running", async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${ex.controlUrl}/ui/`);
    await orderRows().first().waitFor();
    // Hold the advance in the browser for a moment so the page's in-between state can be seen.
    const hold = await holdRequests(page, "**/__fakex/clock/advance");
    try {
      const before = ex.control.now().now;
      await page.locator('input[aria-label="seconds"]').fill("5");
      await page.locator('button[data-action="advance"]').click();
      await expect.poll(() => page.locator('[data-testid="message"]').innerText()).toBe("advance: running…");
      // Marked busy (aria-disabled), not disabled: a disabled button would drop the keyboard's focus.
      for (const action of ["advance", "mine", "settle", "snapshot", "restore"]) expect(await page.locator(`button[data-action="${action}"]`).getAttribute("aria-disabled"), action).toBe("true");
      // A second click while it runs starts nothing.
      await page.locator('button[data-action="mine"]').click({ force: true });
      hold.release();
      await expect.poll(() => page.locator('[data-testid="message"]').innerText()).toMatch(/^advance: \{"now":/);
      expect(await page.locator('button[data-action="mine"]').getAttribute("aria-disabled")).toBe("false");
      expect(ex.control.now().now).toBeGreaterThanOrEqual(before + 5);
    } finally {
      await hold.stop();
    }
  }, 60_000);

  test("a server that does not answer is named as such, next to the last data", async () => {
    await page.goto(`${ex.controlUrl}/ui/`);
    await orderRows().first().waitFor();
    await page.route("**/__fakex/**", (route) => route.abort("connectionrefused"));
    try {
      await expect.poll(() => page.locator("p.error").first().innerText()).toMatch(/^the fakex server at 127\.0\.0\.1:\d+ does not answer \(stopped\?\); the page shows what it last read$/);
      expect(await orderRows().count()).toBeGreaterThan(0);
      await page.locator('button[data-action="settle"]').click();
      await expect.poll(() => page.locator('[data-testid="message"]').innerText()).toMatch(/^settle failed: the fakex server at .* does not answer/);
    } finally {
      await page.unroute("**/__fakex/**");
    }
  }, 60_000);

  test("the request list: a 503 route fault reads once, a long path is cut (in full on hover); the timeline links an event to its order", async () => {
    ex.control.setRouteFaults([{ method: "GET", path: "/tokens", fail: 503, times: 1 }]);
    expect((await fetch(`${ex.baseUrl}/tokens`)).status).toBe(503);
    const longPath = `/${"x".repeat(1500)}`;
    expect((await fetch(`${ex.baseUrl}${longPath}`)).status).toBe(404);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${ex.controlUrl}/ui/requests`);
    const rows = page.locator("table.requests tbody tr");
    await rows.first().waitFor();
    const faulted = rows.filter({ hasText: "/api/v1/tokens" }).first();
    expect((await faulted.locator("td").nth(4).innerText()).trim()).toBe("503 (route fault)");
    const long = rows.filter({ has: page.locator(`code.path[title="/api/v1${longPath}"]`) }).first();
    expect((await long.boundingBox())!.height).toBeLessThan(60);
    await page.goto(`${ex.controlUrl}/ui/timeline`);
    const placed = page.locator("table.events tbody tr", { hasText: "order_placed" }).first();
    await placed.locator("a", { hasText: "order" }).click();
    await expect.poll(() => page.url()).toMatch(/\/ui\/orders\/[0-9a-f-]{36}$/);
    await page.locator('[data-testid="order-id"]').waitFor();
  }, 60_000);
});
