// The run viewer's timeline, order list and request page on a long, busy run, in a browser
// whose time zone is not UTC: the timeline's axis and legend are in UTC like the rest of the
// page, a window of the newest events says it is one, the order list pages, a repeated query
// key shows as sent, Back after paging stays in the viewer, the clock box refuses junk, and
// a market's ladder keeps one line per level beside a long list of trades.
// Headless Chromium, as viewer.browser.test.ts (skipped without /usr/bin/chromium; CI requires it).
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createFakeExchange, type FakeExchange } from "../../fixtures/fake-exchange.ts";
import { chromiumAvailable, launchChromium, type RunningBrowser } from "./browser.ts";

describe.skipIf(!chromiumAvailable)("run viewer views in headless Chromium (browser in America/Los_Angeles)", () => {
  let ex: FakeExchange;
  let browser: RunningBrowser;
  let page: Page;
  const SYMBOL = "USDT/USDC";

  beforeAll(async () => {
    // 00:30 UTC: still the previous day in Los Angeles.
    ex = await createFakeExchange({ seed: 41, startTime: "2026-01-01T00:30:00Z" });
    expect((await fetch(`${ex.controlUrl}/activity`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ markets: [SYMBOL], step_sec: 10, takers_per_min: 30 }) })).status).toBe(200);
    while (((await (await fetch(`${ex.controlUrl}/run`)).json() as { counts: { events: number } }).counts.events) <= 1100) {
      await ex.control.advanceClock(300);
    }
    browser = await launchChromium({ timezoneId: "America/Los_Angeles" });
    page = await browser.context.newPage();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await ex?.close();
  });

  test("the timeline is in UTC whatever the browser's zone, and says when it shows only the newest events", async () => {
    const run = (await (await fetch(`${ex.controlUrl}/run`)).json()) as { counts: { events: number } };
    await page.goto(`${ex.controlUrl}/ui/timeline`);
    const caption = page.locator('[data-testid="timeline-window"]');
    await caption.waitFor();
    expect(await caption.textContent()).toContain(`The last 1000 of the run's ${run.counts.events} events (from #${run.counts.events - 999})`);
    // The legend's time under the cursor: UTC (2026-01-01), not Los Angeles (2025-12-31).
    const chart = page.locator(".chart .u-over");
    const box = (await chart.boundingBox())!;
    await page.mouse.move(box.x + 3, box.y + box.height / 2);
    const time = page.locator(".u-legend .u-series").first().locator(".u-value");
    await expect.poll(() => time.textContent()).toMatch(/^2026-01-01 /);
    expect(await page.locator("#view h2").first().textContent()).toContain("UTC");
  });

  test("the timeline lists one event type from the whole log, pages Older with the chart following, and keeps both in the address", async () => {
    type Page = { events: { seq: number; type: string }[]; total: number; next_before: number | null };
    const events = async (q: string) => (await (await fetch(`${ex.controlUrl}/events?${q}`)).json()) as Page;
    const total = (await events("limit=1")).total;
    // order_placed: this run has more than 300 of them (its makers' re-quotes), so a second page.
    const newest = await events(`type=order_placed&before=${total + 1}&limit=300`);
    expect(newest.events.length).toBe(300);
    expect(newest.next_before).not.toBeNull();
    const seqs = page.locator("table.events tbody tr td:first-child");
    await page.goto(`${ex.controlUrl}/ui/timeline`);
    await page.locator('[data-testid="timeline-window"]').waitFor();
    await page.locator('select[aria-label="list events of one type"]').selectOption("order_placed");
    await expect.poll(() => page.url()).toBe(`${ex.controlUrl}/ui/timeline?type=order_placed`);
    // Newest first, read from the whole log (not only the chart's 1,000 events).
    await expect.poll(async () => (await seqs.allTextContents()).map(Number)).toEqual(newest.events.map((e) => e.seq).reverse());
    const typesShown = async () => new Set((await page.locator("table.events tbody tr td:nth-child(3)").allTextContents()).map((t) => t.split(" ")[0]));
    expect(await typesShown()).toEqual(new Set(["order_placed"]));
    expect(await page.locator('[data-testid="timeline-rows-note"]').textContent()).toBe(`The newest 300 order_placed events up to #${total}, newest first:`);
    // Older: the next 300 before them, the view held there (chart too), in the address.
    await page.locator("button", { hasText: "Older" }).first().click();
    const upto = newest.events[0]!.seq - 1;
    await expect.poll(() => page.url()).toBe(`${ex.controlUrl}/ui/timeline?type=order_placed&upto=${upto}`);
    const older = await events(`type=order_placed&before=${upto + 1}&limit=300`);
    await expect.poll(async () => (await seqs.allTextContents()).map(Number)).toEqual(older.events.map((e) => e.seq).reverse());
    await expect.poll(() => page.locator('[data-testid="timeline-window"]').textContent()).toContain(`Events up to #${upto} (held`);
    // Newest returns to the live end; Back to the held page.
    await page.locator("button", { hasText: "Newest" }).first().click();
    await expect.poll(() => page.url()).toBe(`${ex.controlUrl}/ui/timeline?type=order_placed`);
    await page.goBack();
    await expect.poll(() => page.url()).toBe(`${ex.controlUrl}/ui/timeline?type=order_placed&upto=${upto}`);
    await expect.poll(async () => Number(await seqs.first().textContent())).toBe(older.events.at(-1)!.seq);
    // A held position past the log's end comes down to the end, in the address too, and stays held.
    await page.goto(`${ex.controlUrl}/ui/timeline?type=order_placed&upto=999999`);
    await expect.poll(() => page.url()).toBe(`${ex.controlUrl}/ui/timeline?type=order_placed&upto=${total}`);
    await expect.poll(() => page.locator('[data-testid="timeline-window"]').textContent()).toContain(`Events up to #${total} (held`);
    // A name that is no event type (a typo in a link) is said so, with the types there are.
    await page.goto(`${ex.controlUrl}/ui/timeline?type=fills`);
    await expect.poll(() => page.locator('[data-testid="timeline-rows-note"]').textContent()).toMatch(/^No event type "fills": the types are order_placed, fill, /);
    // A type the run never logged says so; any type again lists every kind of event.
    await page.goto(`${ex.controlUrl}/ui/timeline?type=executor_changed`);
    await expect.poll(() => page.locator('[data-testid="timeline-rows-note"]').textContent()).toBe(`No executor_changed events up to #${total}.`);
    await page.locator('select[aria-label="list events of one type"]').selectOption("");
    await expect.poll(() => page.url()).toBe(`${ex.controlUrl}/ui/timeline`);
    await expect.poll(() => seqs.count()).toBe(300);
    expect((await typesShown()).size).toBeGreaterThan(1);
  });

  test("the order list pages (Older / Newer) past its first 50", async () => {
    const total = ((await (await fetch(`${ex.controlUrl}/orders?limit=1`)).json()) as { total: number }).total;
    expect(total).toBeGreaterThan(100);
    await page.goto(`${ex.controlUrl}/ui/`);
    await expect.poll(() => page.locator("table.orders tbody tr").count()).toBe(50);
    const firstOnPage1 = await page.locator("table.orders tbody tr").first().getAttribute("data-order-id");
    await page.locator("button", { hasText: "Older" }).click();
    await expect.poll(() => page.locator("main").textContent()).toContain("51–100 shown");
    const second = ((await (await fetch(`${ex.controlUrl}/orders?limit=50&offset=50`)).json()) as { orders: { order_id: string }[] }).orders;
    await expect.poll(() => page.locator("table.orders tbody tr").first().getAttribute("data-order-id")).toBe(second[0]!.order_id);
    expect(second[0]!.order_id).not.toBe(firstOnPage1);
    await page.locator("button", { hasText: "Newer" }).click();
    await expect.poll(() => page.locator("main").textContent()).toContain("1–50 shown");
  });

  test("the order list filters by status and market: the filter goes into the address, holds across Older, and Back undoes it", async () => {
    const settled = ((await (await fetch(`${ex.controlUrl}/orders?limit=1&status=settled&symbol=${encodeURIComponent(SYMBOL)}`)).json()) as { total: number }).total;
    expect(settled).toBeGreaterThan(50);
    await page.goto(`${ex.controlUrl}/ui/`);
    await page.locator("table.orders tbody tr").first().waitFor();
    // Each change waits for the address to follow, so each is a history entry of its own
    // (two changes before the page renders would make one).
    await page.locator('select[aria-label="filter by status"]').selectOption("settled");
    await expect.poll(() => page.url()).toBe(`${ex.controlUrl}/ui/?status=settled`);
    await page.locator('select[aria-label="filter by market"]').selectOption(SYMBOL);
    await expect.poll(() => page.url()).toBe(`${ex.controlUrl}/ui/?status=settled&symbol=${encodeURIComponent(SYMBOL)}`);
    // The new count is announced once it loads.
    await expect.poll(() => page.locator('[data-testid="orders-filter-note"]').textContent()).toBe(`${settled} orders match`);
    const rows = page.locator("table.orders tbody tr");
    await expect.poll(async () => [...new Set(await rows.locator(".status").allTextContents())]).toEqual(["settled"]);
    expect(new Set((await rows.locator("td:nth-child(3)").allTextContents()))).toEqual(new Set([SYMBOL]));
    await page.locator("button", { hasText: "Older" }).click();
    await expect.poll(() => page.url()).toMatch(/\?status=settled&symbol=[^&]+&offset=50&upto=\d+$/);
    await expect.poll(async () => [...new Set(await rows.locator(".status").allTextContents())]).toEqual(["settled"]);
    await page.goBack();
    await expect.poll(() => page.url()).toBe(`${ex.controlUrl}/ui/?status=settled&symbol=${encodeURIComponent(SYMBOL)}`);
    await page.goBack();
    await expect.poll(() => page.url()).toBe(`${ex.controlUrl}/ui/?status=settled`);
    await page.goBack();
    await expect.poll(() => page.url()).toBe(`${ex.controlUrl}/ui/`);
    await expect.poll(() => page.locator('select[aria-label="filter by status"]').inputValue()).toBe("");
    // A held page under a status filter says its rows follow the statuses of now.
    await page.goto(`${ex.controlUrl}/ui/?status=settled&offset=50`);
    await expect.poll(() => page.locator("main").textContent()).toContain("the status filter reads their statuses now");
    // A filter nothing matches says so (not "No orders yet").
    // (Nothing trades on EURC/GBPT in this run: its seeded makers' orders rest there, none settles.)
    const none = ((await (await fetch(`${ex.controlUrl}/orders?limit=1&status=settled&symbol=EURC%2FGBPT`)).json()) as { total: number }).total;
    expect(none).toBe(0);
    await page.goto(`${ex.controlUrl}/ui/?status=settled&symbol=EURC%2FGBPT`);
    await expect.poll(() => page.locator("main").textContent()).toContain("No orders match this filter.");
    // A value the server refuses stays shown in its select (it read "any" before), so choosing
    // "any" clears it.
    await page.goto(`${ex.controlUrl}/ui/?status=bogus`);
    await expect.poll(() => page.locator('select[aria-label="filter by status"]').inputValue()).toBe("bogus");
    await page.locator('select[aria-label="filter by status"]').selectOption("");
    await expect.poll(() => page.url()).toBe(`${ex.controlUrl}/ui/`);
  });

  test("a request with a query key given twice shows it twice, as sent", async () => {
    const res = await fetch(`${ex.baseUrl}/orderbook?symbol=USDT%2FUSDC&symbol=EURC%2FUSDC`);
    const id = res.headers.get("x-request-id")!;
    await page.goto(`${ex.controlUrl}/ui/requests/${id}`);
    const request = page.locator(".facts div", { has: page.locator("dt", { hasText: /^Request$/ }) });
    await expect.poll(() => request.textContent()).toContain("symbol=USDT/USDC&symbol=EURC/USDC");
  });

  test("Back after Older returns to the first page of the request list, inside the viewer", async () => {
    for (let i = 0; i < 250; i += 25) await Promise.all(Array.from({ length: 25 }, () => fetch(`${ex.baseUrl}/markets`).then((r) => r.arrayBuffer())));
    await page.goto(`${ex.controlUrl}/ui/markets`);
    await page.goto(`${ex.controlUrl}/ui/requests`);
    await expect.poll(() => page.locator("table.requests tbody tr").count()).toBe(200);
    await page.locator("button", { hasText: "Older" }).click();
    await expect.poll(() => page.url()).toContain("offset=200");
    await page.goBack();
    await expect.poll(() => page.url()).toBe(`${ex.controlUrl}/ui/requests`);
    await expect.poll(() => page.locator("table.requests tbody tr").count()).toBe(200);
    expect(await page.locator("button", { hasText: "Newer" }).count()).toBe(0);
  });

  test("the clock box takes whole seconds only, and Enter advances", async () => {
    await page.goto(`${ex.controlUrl}/ui/`);
    const box = page.locator('input[aria-label="seconds"]');
    const message = page.locator('[data-testid="message"]');
    const before = ex.control.now().now;
    await box.fill("");
    await page.locator('button[data-action="advance"]').click();
    await expect.poll(() => message.textContent()).toBe('advance: enter a whole number of seconds, not ""');
    await box.fill("abc");
    await box.press("Enter");
    await expect.poll(() => message.textContent()).toBe('advance: enter a whole number of seconds, not "abc"');
    expect(ex.control.now().now).toBe(before);
    await box.fill("30");
    await box.press("Enter");
    await expect.poll(() => ex.control.now().now).toBe(before + 30);
  });

  test("a depth chart's legend writes numbers as the tables do in a German browser too (no decimal comma, no grouping)", async () => {
    const german = await launchChromium({ timezoneId: "Europe/Berlin", locale: "de-DE" });
    try {
      const p = await german.context.newPage();
      expect(await p.evaluate(() => (1.083).toLocaleString())).toBe("1,083");
      await p.goto(`${ex.controlUrl}/ui/markets`);
      const over = p.locator(`.market[data-symbol="${SYMBOL}"] .u-over`);
      await over.waitFor();
      const values = p.locator(`.market[data-symbol="${SYMBOL}"] .u-legend .u-series .u-value`);
      // The cursor over the chart's middle (moved again each try: a chart rebuilt by a poll starts without it).
      let dx = 0;
      await expect
        .poll(async () => {
          await over.scrollIntoViewIfNeeded();
          const box = (await over.boundingBox())!;
          await p.mouse.move(box.x + box.width / 2 + (dx++ % 5), box.y + box.height / 2);
          return (await values.first().textContent()) ?? "";
        })
        .toMatch(/^[0-9]+\.[0-9]+$/);
      for (const v of await values.allTextContents()) expect(v).toMatch(/^(—|[0-9]+(\.[0-9]+)?)$/);
    } finally {
      await german.close();
    }
  });

  test("a market's ladder keeps one line per level beside its longer list of recent trades", async () => {
    await page.goto(`${ex.controlUrl}/ui/markets`);
    const market = page.locator(`.market[data-symbol="${SYMBOL}"]`);
    const ladderRows = market.locator("table.ladder tbody tr");
    await expect.poll(() => ladderRows.count()).toBeGreaterThan(1);
    const trades = await market.locator(".two > div table tbody tr").count();
    expect(trades).toBeGreaterThan(await ladderRows.count());
    const rowHeights = await ladderRows.evaluateAll((rows) => rows.map((r) => r.getBoundingClientRect().height));
    const tradeRowHeight = (await market.locator(".two > div table tbody tr").first().boundingBox())!.height;
    // A level's row is as tall as a trade's (one line), not a share of the trade list's height.
    for (const h of rowHeights) expect(h).toBeLessThan(tradeRowHeight * 1.5);
  });
});
