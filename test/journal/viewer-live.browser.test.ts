// The run viewer on an order filled 250 times, and its live updates: an order's and a
// request's fills are shown 100 at a time (Earlier fills / Later fills) with the batches of
// the page's fills, served and in a report; one read per path however many views show it,
// none overlapping a read in flight, the timeline's event windows read when they move (not
// polled); "Pause live updates" stops all polling (actions still refresh); a live update
// that removes the focused row leaves focus on the view's heading; a body that is not UTF-8
// is a hex dump; scroll boxes are named tab stops; the journal's filter boxes have visible
// labels. Headless Chromium, as viewer.browser.test.ts (skipped without /usr/bin/chromium).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import type { FakeExchange } from "../../fixtures/fake-exchange.ts";
import { writeReport } from "../../fixtures/report.ts";
import { chromiumAvailable, holdRequests, launchChromium, type RunningBrowser } from "./browser.ts";
import { exchangeWithManyFills, type ManyFills } from "./many-fills.ts";

const FILLS = 250;

describe.skipIf(!chromiumAvailable)("run viewer fill pages and live updates in headless Chromium", () => {
  let ex: FakeExchange;
  let browser: RunningBrowser;
  let page: Page;
  let ask: { order_id: string; request: string };
  /** Every fill of the ask, in fill order: [fill id, settlement id]. */
  let fills: [number, number][];
  let place: ManyFills["place"];
  const dir = mkdtempSync(join(tmpdir(), "fakex-viewer-live-"));

  beforeAll(async () => {
    ({ ex, ask, place } = await exchangeWithManyFills(FILLS));
    const order = (await (await fetch(`${ex.controlUrl}/orders/${ask.order_id}`)).json()) as { fills: { fill_id: number; settlement_id: number }[] };
    fills = order.fills.map((f) => [f.fill_id, f.settlement_id]);
    expect(fills).toHaveLength(FILLS);
    browser = await launchChromium();
  }, 180_000);

  afterEach(async () => {
    await page?.close();
  });

  afterAll(async () => {
    await browser?.close();
    await ex?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const open = async (url: string) => {
    page = await browser.context.newPage();
    await page.goto(url);
    return page;
  };

  /** Control reads the page makes (the viewer's own files aside): their paths with queries, and the most of one path in flight at once. */
  const countReads = (p: Page) => {
    const seen: string[] = [];
    const inFlight = new Map<string, number>();
    let most = 0;
    const prefix = new URL(ex.controlUrl).pathname;
    const pathOf = (url: string) => {
      const u = new URL(url);
      return u.pathname.startsWith(`${prefix}/`) && !u.pathname.startsWith(`${prefix}/ui`) ? u.pathname.slice(prefix.length) + u.search : null;
    };
    p.on("request", (r) => {
      const path = pathOf(r.url());
      if (path === null) return;
      seen.push(path);
      inFlight.set(path, (inFlight.get(path) ?? 0) + 1);
      most = Math.max(most, inFlight.get(path)!);
    });
    const done = (r: { url(): string }) => {
      const path = pathOf(r.url());
      if (path !== null) inFlight.set(path, (inFlight.get(path) ?? 1) - 1);
    };
    p.on("requestfinished", done);
    p.on("requestfailed", done);
    return {
      all: () => seen.length,
      of: (re: RegExp) => seen.filter((s) => re.test(s)).length,
      mostAtOnce: () => most,
    };
  };

  const fillRows = () => page.locator("table.fills tbody tr");
  const shownFillIds = async () => (await fillRows().evaluateAll((rows) => rows.map((r) => Number(r.getAttribute("data-fill-id")))));
  const shownBatchIds = async () => (await page.locator("table.batches tbody tr td:first-child").allTextContents()).map(Number);
  const batchesOf = (ids: number[]) => [...new Set(ids.map((id) => fills.find(([f]) => f === id)![1]))].sort((x, y) => x - y);
  const later = () => page.locator("button", { hasText: "Later fills" });
  const earlier = () => page.locator("button", { hasText: "Earlier fills" });
  const allIds = () => fills.map(([f]) => f);

  /** Page 1 (100 fills, Later only), then Later twice to page 3 (50, Earlier only), the batches always those of the rows shown. */
  const walkPages = async () => {
    await expect.poll(shownFillIds, { timeout: 10_000 }).toEqual(allIds().slice(0, 100));
    expect(await later().count()).toBe(1);
    expect(await earlier().count()).toBe(0);
    expect(await shownBatchIds()).toEqual(batchesOf(allIds().slice(0, 100)));
    await later().click();
    await expect.poll(shownFillIds, { timeout: 10_000 }).toEqual(allIds().slice(100, 200));
    await expect.poll(shownBatchIds, { timeout: 10_000 }).toEqual(batchesOf(allIds().slice(100, 200)));
    await later().click();
    await expect.poll(shownFillIds, { timeout: 10_000 }).toEqual(allIds().slice(200, 250));
    await expect.poll(shownBatchIds, { timeout: 10_000 }).toEqual(batchesOf(allIds().slice(200, 250)));
    expect(await later().count()).toBe(0);
    expect(await earlier().count()).toBe(1);
    await earlier().click();
    await expect.poll(shownFillIds, { timeout: 10_000 }).toEqual(allIds().slice(100, 200));
  };

  test("an order's page shows its fills 100 at a time (Earlier fills / Later fills), each page read from the server with its batches", async () => {
    await open(`${ex.controlUrl}/ui/orders/${ask.order_id}`);
    const reads = countReads(page);
    await walkPages();
    expect(reads.of(new RegExp(`^/orders/${ask.order_id}\\?fills_offset=200&fills_limit=100$`))).toBeGreaterThan(0);
    expect(await page.locator("h3", { hasText: /^Fills/ }).first().textContent()).toBe(`Fills (${FILLS})`);
  });

  test("a request's page shows the fills it led to 100 at a time, with the batches of the page's fills", async () => {
    await open(`${ex.controlUrl}/ui/requests/${ask.request}`);
    await walkPages();
    expect(await page.locator("h4", { hasText: /^Fills/ }).first().textContent()).toBe(`Fills (${FILLS})`);
  });

  test("in a report (which holds every fill) the order's page is cut here, 100 at a time", async () => {
    const out = join(dir, "report.html");
    await writeReport(ex.controlUrl, out);
    await open(`${pathToFileURL(out).href}#/orders/${ask.order_id}`);
    await walkPages();
  });

  test("the orders view reads /run once per poll (not once per view showing it), and never while a read of it is in flight", async () => {
    await open(`${ex.controlUrl}/ui/`);
    await page.locator("table.orders tbody tr").first().waitFor();
    const reads = countReads(page);
    const list = () => reads.of(/^\/orders\?/);
    const run = () => reads.of(/^\/run$/);
    // Counted in polls of the order list (one a second), not in seconds.
    await expect.poll(list, { timeout: 20_000 }).toBeGreaterThanOrEqual(4);
    // The run panel and the order list both show /run: one read of it at a time, shared.
    expect(reads.mostAtOnce()).toBe(1);
    // /run answers late: no second read of it starts meanwhile, however many polls go by.
    const hold = await holdRequests(page, "**/__fakex/run");
    const heldFrom = run();
    const listFrom = list();
    await expect.poll(list, { timeout: 20_000 }).toBeGreaterThanOrEqual(listFrom + 3);
    expect(run() - heldFrom).toBeLessThanOrEqual(1);
    // Let it answer: the reads go on (the route stays until the page closes).
    hold.release();
    await expect.poll(run, { timeout: 20_000 }).toBeGreaterThanOrEqual(heldFrom + 2);
  });

  test("the timeline's event window is read when it moves, not every second", async () => {
    await open(`${ex.controlUrl}/ui/timeline`);
    await page.locator('[data-testid="timeline-window"]').waitFor();
    const reads = countReads(page);
    // Several polls go by (/run is read); nothing happens on the exchange, so the window does not move.
    await expect.poll(() => reads.of(/^\/run$/), { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
    await page.waitForTimeout(3_500);
    expect(reads.of(/^\/events\?before=/)).toBe(0);
  });

  test("Pause live updates stops every read until Resume; an action still shows its outcome", async () => {
    await open(`${ex.controlUrl}/ui/`);
    await page.locator("table.orders tbody tr").first().waitFor();
    const pause = page.locator('button[data-action="pause"]');
    expect(await pause.getAttribute("aria-pressed", { timeout: 5_000 })).toBe("false");
    await pause.click();
    await expect.poll(() => pause.getAttribute("aria-pressed"), { timeout: 10_000 }).toBe("true");
    expect(await page.locator('[data-testid="paused"]').textContent()).toBe("live updates paused");
    // Reads in flight when it was pressed settle; none starts after.
    await page.waitForTimeout(1_500);
    const reads = countReads(page);
    await page.waitForTimeout(3_000);
    expect(reads.all()).toBe(0);
    // The clock is advanced server-side: a paused page does not show it.
    const clock = page.locator('[data-testid="clock"]');
    const shown = await clock.textContent();
    await ex.control.advanceClock(60);
    await page.waitForTimeout(2_000);
    expect(await clock.textContent()).toBe(shown);
    expect(reads.all()).toBe(0);
    // An action while paused: its outcome is read and shown.
    await page.locator('input[aria-label="seconds"]').fill("30");
    const target = ex.control.now().now + 30;
    await page.locator('button[data-action="advance"]').click();
    await expect.poll(() => ex.control.now().now, { timeout: 10_000 }).toBe(target);
    await expect.poll(() => clock.textContent(), { timeout: 10_000 }).toBe(ex.control.now().iso);
    await expect.poll(() => page.locator('[data-testid="paused"]').count(), { timeout: 10_000 }).toBe(1);
    // Resume: reads again at once.
    const resumed = countReads(page);
    await pause.click();
    await expect.poll(() => pause.getAttribute("aria-pressed"), { timeout: 10_000 }).toBe("false");
    expect(await page.locator('[data-testid="paused"]').count()).toBe(0);
    await expect.poll(() => resumed.of(/^\/run$/), { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
  });

  test("a request body that is not UTF-8 is shown as a hex dump with a note; scroll boxes are named tab stops", async () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x41, ...Array.from({ length: 16 }, (_, i) => i)]);
    const res = await fetch(`${ex.baseUrl}/orders`, { method: "POST", headers: { "content-type": "application/json" }, body: bytes });
    expect(res.status).toBeGreaterThanOrEqual(400);
    const id = res.headers.get("x-request-id")!;
    await open(`${ex.controlUrl}/ui/requests/${id}`);
    await page.locator("h3", { hasText: "Request body" }).waitFor();
    expect(await page.locator('[data-testid="binary-body"]').count()).toBe(1);
    const request = page.locator('pre.json[aria-label="request body"]');
    expect(await request.textContent()).toBe("000000  ff fe 00 41 00 01 02 03 04 05 06 07 08 09 0a 0b\n000010  0c 0d 0e 0f");
    expect(await page.locator('[data-testid="binary-body"]').textContent()).toBe("not UTF-8 text: its bytes in hex, 20 in all");
    expect(await request.getAttribute("tabindex")).toBe("0");
    const response = page.locator('pre.json[aria-label="response body"]');
    expect(await response.getAttribute("tabindex")).toBe("0");
    expect(JSON.parse((await response.textContent())!)).toHaveProperty("detail");
    // Every scroll box of an order's page too.
    await page.goto(`${ex.controlUrl}/ui/orders/${ask.order_id}`);
    await page.locator('pre.json[aria-label="settlement summary"]').waitFor();
    const boxes = await page.locator("pre.json").evaluateAll((els) => els.map((e) => [e.getAttribute("tabindex"), e.getAttribute("aria-label")]));
    expect(boxes).toEqual([["0", "settlement summary"], ["0", "settlement economics"]]);
  });

  test("the journal list's filter boxes have visible labels", async () => {
    await open(`${ex.controlUrl}/ui/requests`);
    await page.locator("table.requests tbody tr").first().waitFor();
    for (const k of ["method", "path", "status", "owner"]) {
      const label = page.locator("label.field", { has: page.locator(`input[aria-label="filter by ${k}"]`) });
      expect(await label.count(), k).toBe(1);
      expect(await label.isVisible()).toBe(true);
      expect((await label.textContent())!.trim()).toBe(k);
      const hint = await label.evaluate((el) => {
        const range = (globalThis as any).document.createRange();
        range.selectNodeContents(el.firstChild!);
        return range.getBoundingClientRect().width;
      });
      expect(hint).toBeGreaterThan(0);
    }
  });

  // Last: it restores a snapshot.
  test("a request's page held past the fills a restore left moves to the last page there is, its fills and the way back shown", async () => {
    const before = await ex.snapshot();
    // 60 more fills of the ask (310): a fourth page of 10.
    for (let i = 0; i < 60; i++) await place("bid", "10");
    await open(`${ex.controlUrl}/ui/requests/${ask.request}`);
    for (let n = 0; n < 3; n++) {
      await later().click();
      await expect.poll(async () => (await shownFillIds())[0], { timeout: 10_000 }).toBe(allIds()[0]! + 100 * (n + 1));
    }
    expect(await shownFillIds()).toHaveLength(10);
    await ex.restore(before);
    // Back to 250 fills: the page that started at the 301st moves to the last one, 201-250.
    // The page learns of the restore at its next read (a second), then reads the last page.
    await expect.poll(shownFillIds, { timeout: 10_000 }).toEqual(allIds().slice(200, 250));
    expect(await earlier().count()).toBe(1);
    expect(await page.locator("h4", { hasText: /^Fills/ }).first().textContent()).toBe(`Fills (${FILLS})`);
  });

  test("the timeline shows the log a restore left, even when as many new events follow before the next read", async () => {
    const before = await ex.snapshot();
    const wallet = ex.accounts[2]!.address;
    const m = ex.registry.markets().find((x) => x.baseSymbol === "USDT")!;
    await ex.control.fund({ address: wallet, token: m.quoteSymbol, amount: 111_111n, vault: true });
    await open(`${ex.controlUrl}/ui/timeline`);
    const shown = () => page.locator("#view").innerText();
    await expect.poll(shown, { timeout: 10_000 }).toContain("111111");
    // The same number of events again, in another run: the window's address is the same as before.
    await ex.restore(before);
    await ex.control.fund({ address: wallet, token: m.quoteSymbol, amount: 999_999n, vault: true });
    await expect.poll(shown, { timeout: 10_000 }).toContain("999999");
    expect(await shown()).not.toContain("111111");
  });

  test("a live update that removes the focused row leaves focus on the view's heading", async () => {
    const before = await ex.snapshot();
    const added = await place("ask", "20", "2");
    await open(`${ex.controlUrl}/ui/`);
    const link = page.locator(`tr[data-order-id="${added.order_id}"] a`).first();
    await link.waitFor();
    await link.focus();
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.closest("tr")?.getAttribute("data-order-id"))).toBe(added.order_id);
    await ex.restore(before);
    await expect.poll(() => page.locator(`tr[data-order-id="${added.order_id}"]`).count(), { timeout: 10_000 }).toBe(0);
    await expect.poll(() => page.evaluate(() => { const d = (globalThis as any).document; return d.activeElement === d.querySelector("#view h2"); }), { timeout: 10_000 }).toBe(true);
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe(await page.locator("#view h2").first().textContent());
  });
});
