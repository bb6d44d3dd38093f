// The run viewer and the report in a real browser: Debian's headless Chromium driven by
// playwright-core. An order placed and settled through the API shows on the front page
// with its status, its own page shows its fill and transaction hash, a control button
// moves the clock, and the report file opened from disk shows the same order.
// Skipped (and said so) only when /usr/bin/chromium is missing; in CI that is a failure.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createFakeExchange, type FakeExchange } from "../../fixtures/fake-exchange.ts";
import { writeReport } from "../../fixtures/report.ts";
import { CHROMIUM, chromiumAvailable, distinctColours, launchChromium, type RunningBrowser } from "./browser.ts";

if (!chromiumAvailable) {
  console.warn(`viewer browser tests SKIPPED: no Chromium at ${CHROMIUM} (apt-get install chromium, or set FAKEX_CHROMIUM)`);
}

// .ci/run sets FAKEX_REQUIRE_CHROMIUM (so does any CI that sets CI): there a missing browser fails.
describe.runIf(!chromiumAvailable && (process.env["CI"] || process.env["FAKEX_REQUIRE_CHROMIUM"]))("viewer in CI", () => {
  test("Chromium is installed (CI must run the browser tests)", () => {
    expect(chromiumAvailable, `no Chromium at ${CHROMIUM}: .ci/run installs Debian's chromium`).toBe(true);
  });
});

describe.skipIf(!chromiumAvailable)("run viewer in headless Chromium", () => {
  let ex: FakeExchange;
  let browser: RunningBrowser;
  let page: Page;
  let blankColours: number;
  let ask: { order_id: string };
  let bid: { order_id: string };
  let bidRequestId: string;
  const dir = mkdtempSync(join(tmpdir(), "fakex-viewer-"));

  async function api(method: string, path: string, body?: unknown) {
    const res = await fetch(`${ex.baseUrl}${path}`, { method, headers: { "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: res.status, body: (await res.json()) as any, id: res.headers.get("x-request-id")! };
  }

  /** A screenshot of the page as it is now, checked to be more than a blank page. */
  async function nonBlankScreenshot(name: string): Promise<number> {
    const png = await page.screenshot({ path: join(dir, `${name}.png`) });
    const colours = distinctColours(png);
    expect(colours, `${name}: a rendered page has many colours, a blank one ${blankColours}`).toBeGreaterThan(blankColours + 50);
    return colours;
  }

  beforeAll(async () => {
    ex = await createFakeExchange({ seed: 23 });
    const m = ex.registry.markets().find((x) => x.baseSymbol === "USDT")!;
    const [a, b] = [ex.accounts[0]!, ex.accounts[1]!];
    await ex.control.fund({ address: a.address, token: m.baseSymbol, amount: 100_000_000n, vault: true });
    await ex.control.fund({ address: b.address, token: m.quoteSymbol, amount: 100_000_000n, vault: true });
    const place = async (acc: typeof a, side: "bid" | "ask") => {
      const preview = await api("POST", "/orders/preview", ex.newOrder(acc, { symbol: m.symbol, side, amount: "20", price: "1" }));
      const { body } = await ex.signOrder(acc, preview.body);
      const r = await api("POST", "/orders", body);
      expect(r.status).toBe(201);
      return r;
    };
    ask = (await place(a, "ask")).body;
    const placed = await place(b, "bid");
    bid = placed.body;
    bidRequestId = placed.id;
    const settled = await fetch(`${ex.controlUrl}/settle`, { method: "POST" });
    expect(settled.status).toBe(200);

    browser = await launchChromium();
    page = await browser.context.newPage();
    await page.goto("about:blank");
    blankColours = distinctColours(await page.screenshot());
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await ex?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("the front page lists the settled order with its id and status", async () => {
    await page.goto(`${ex.controlUrl}/ui`);
    const row = page.locator(`tr[data-order-id="${bid.order_id}"]`);
    await row.waitFor();
    await expect.poll(() => row.locator(".status").textContent()).toBe("settled");
    expect(await row.locator("a").first().textContent()).toBe(bid.order_id);
    expect(await page.locator(`tr[data-order-id="${ask.order_id}"] .status`).textContent()).toBe("settled");
    // Filled in the same units as Amount (the order's decimal base amount, not raw units).
    expect(await row.locator("td.num").allTextContents()).toEqual(["1", "20", "20"]);
    await nonBlankScreenshot("front");
  });

  test("an order's page (its own URL) shows its fill and the settlement transaction hash", async () => {
    await page.locator(`tr[data-order-id="${bid.order_id}"] a`).first().click();
    await page.waitForURL(`${ex.controlUrl}/ui/orders/${bid.order_id}`);
    const txHash = ex.parts.engine.fillsOfOrder(bid.order_id)[0]!.tx_hash!;
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const fill = page.locator("table.fills tr[data-fill-id]");
    await fill.first().waitFor();
    expect(await fill.count()).toBe(1);
    expect(await fill.first().locator("code.hash").textContent()).toBe(txHash);
    expect(await fill.first().locator(".status").textContent()).toBe("settled");
    expect(await page.locator("table.batches code.hash").first().textContent()).toBe(txHash);
    await nonBlankScreenshot("order");

    // Loaded fresh at that URL (what a failing test prints), the same view.
    await page.goto(`${ex.controlUrl}/ui/orders/${bid.order_id}`);
    await page.locator("table.fills code.hash").first().waitFor();
    expect(await page.locator('[data-testid="order-id"]').textContent()).toBe(bid.order_id);
  });

  test("a request's page shows what it caused", async () => {
    await page.goto(`${ex.controlUrl}/ui/requests/${bidRequestId}`);
    await page.locator("ul.links li").first().waitFor();
    const text = await page.locator("main").textContent();
    expect(text).toContain(`created order ${bid.order_id}`);
    expect(text).toContain(ex.parts.engine.fillsOfOrder(bid.order_id)[0]!.tx_hash!);
    await nonBlankScreenshot("request");
  });

  test("the markets, settlement, requests and timeline views render", async () => {
    for (const [path, selector] of [
      ["/markets", ".market .uplot"],
      ["/batches", "table.batches"],
      ["/requests", "table.requests"],
      ["/timeline", ".chart .uplot"],
    ] as const) {
      await page.goto(`${ex.controlUrl}/ui${path}`);
      await page.locator(selector).first().waitFor();
      await nonBlankScreenshot(path.slice(1));
    }
  });

  test("the Advance clock button moves the virtual clock", async () => {
    await page.goto(`${ex.controlUrl}/ui`);
    const clock = page.locator('[data-testid="clock"]');
    await clock.waitFor();
    const before = ex.control.now().now;
    await page.locator('input[aria-label="seconds"]').fill("120");
    await page.locator('button[data-action="advance"]').click();
    await expect.poll(() => ex.control.now().now).toBe(before + 120);
    await expect.poll(() => clock.textContent()).toBe(new Date((before + 120) * 1000).toISOString());
  });

  test("the report file opens from disk and shows the same order, its fill and tx hash", async () => {
    const out = join(dir, "report.html");
    await writeReport(ex.controlUrl, out);
    await page.goto(pathToFileURL(out).href);
    const row = page.locator(`tr[data-order-id="${bid.order_id}"]`);
    await row.waitFor();
    expect(await row.locator(".status").textContent()).toBe("settled");
    expect(await page.locator("main").textContent()).toContain("Report of a run, captured");
    await nonBlankScreenshot("report-front");
    await row.locator("a").first().click();
    await page.locator("table.fills code.hash").first().waitFor();
    expect(page.url()).toContain(`#/orders/${bid.order_id}`);
    expect(await page.locator("table.fills code.hash").first().textContent()).toBe(ex.parts.engine.fillsOfOrder(bid.order_id)[0]!.tx_hash);
    await nonBlankScreenshot("report-order");

    // The report filters its captured journal as the server does: an exact path, a status class.
    const count = async (query: string) => ((await (await fetch(`${ex.controlUrl}/requests/count?${query}`)).json()) as { count: number }).count;
    await page.goto(`${pathToFileURL(out).href}#/requests`);
    await page.locator("table.requests").waitFor();
    const filter = async (placeholder: string, value: string) => {
      const input = page.locator(`input[placeholder^="${placeholder}"]`);
      await input.fill(value);
      await input.dispatchEvent("change");
    };
    await filter("path", "/api/v1/orders");
    const exact = await count("path=/api/v1/orders");
    expect(exact).toBeGreaterThan(0);
    expect(exact).toBeLessThan(await count("path=/api/v1/orders*"));
    await expect.poll(() => page.locator("table.requests tbody tr").count()).toBe(exact);
    expect(await page.locator("main").textContent()).toContain(exact === 1 ? "1 entry matches" : `${exact} entries match`);
    // Two fields changed in one task (before the view re-renders) both count: the path is
    // cleared and the status class applies.
    await page.evaluate(() => {
      const change = (placeholder: string, value: string) => {
        // Runs in the page (this project's types have no DOM library).
        const input = (globalThis as any).document.querySelector(`input[placeholder^="${placeholder}"]`);
        input.value = value;
        input.dispatchEvent(new Event("change", { bubbles: true }));
      };
      change("path", "");
      change("status", "2xx");
    });
    await expect.poll(() => page.locator("table.requests tbody tr").count()).toBe(await count("status=2xx"));

    // The timeline of a report filters its captured events by type, as the server would.
    const fills = ((await (await fetch(`${ex.controlUrl}/events?type=fill&limit=1000`)).json()) as { events: { seq: number }[] }).events;
    expect(fills.length).toBeGreaterThan(0);
    await page.goto(`${pathToFileURL(out).href}#/timeline?type=fill`);
    const seqs = page.locator("table.events tbody tr td:first-child");
    await expect.poll(async () => (await seqs.allTextContents()).map(Number)).toEqual(fills.map((e) => e.seq).reverse());
    expect(await page.locator('[data-testid="timeline-rows-note"]').textContent()).toMatch(/^(All \d+|The one) fill events? up to #\d+, newest first:$/);
  });
});

describe.skipIf(!chromiumAvailable)("run viewer of a pool instance", () => {
  let ex: FakeExchange;
  let browser: RunningBrowser;

  beforeAll(async () => {
    ex = await createFakeExchange({ seed: 29, pool: { size: 2 } });
    browser = await launchChromium();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await ex?.close();
  });

  test("<origin>/<id>/__fakex/ui shows that instance's orders and requests, not the default exchange's", async () => {
    const id = "w1";
    const inst = await ex.pool!.get(id);
    const urls = ex.pool!.urls(id);
    const acc = inst.accounts[0]!;
    const m = inst.registry.markets().find((x) => x.baseSymbol === "USDT")!;
    await inst.control.fund({ address: acc.address, token: m.baseSymbol, amount: 100_000_000n, vault: true });
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${urls.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as any };
    };
    const preview = await post("/orders/preview", inst.newOrder(acc, { symbol: m.symbol, side: "ask", amount: "20", price: "1.5" }));
    const placed = await post("/orders", (await inst.signOrder(acc, preview.body)).body);
    expect(placed.status).toBe(201);
    expect(() => ex.parts.engine.getOrder(placed.body.order_id)).toThrow(); // only the instance holds it

    const page = await browser.context.newPage();
    await page.goto(`${urls.controlUrl}/ui`);
    await page.locator(`tr[data-order-id="${placed.body.order_id}"]`).waitFor();
    // Its own routes resolve under the instance's prefix, and links stay there.
    await page.goto(`${urls.controlUrl}/ui/requests`);
    await page.locator("table.requests").waitFor();
    // The instance's journal records its paths as any exchange's (from /api/v1 on).
    expect(await page.locator("main").textContent()).toContain("/api/v1/orders");
    expect(inst.control.requests({ path: "/api/v1/orders" }).total).toBe(1);
    await page.goto(`${urls.controlUrl}/ui/orders/${placed.body.order_id}`);
    expect(await page.locator('[data-testid="order-id"]').textContent()).toBe(placed.body.order_id);
    // Its header and title name the instance, so two tabs on two ids look different.
    expect(await page.locator("header h1").textContent()).toContain(`pool id ${id}`);
    await expect.poll(() => page.title()).toBe(`Order ${placed.body.order_id.slice(0, 8)}… · ${id} · fakex run viewer`);
    // The default exchange's viewer does not know it.
    await page.goto(`${ex.controlUrl}/ui`);
    await page.locator("table").first().waitFor();
    expect(await page.locator(`tr[data-order-id="${placed.body.order_id}"]`).count()).toBe(0);
    expect(await page.locator("header h1").textContent()).not.toContain("pool id");
    await page.close();
  });

  test("a control button on a released id's open tab says it is gone and does not bring the id back", async () => {
    const id = "gone";
    const urls = ex.pool!.urls(id);
    await ex.pool!.get(id);
    const page = await browser.context.newPage();
    await page.goto(`${urls.controlUrl}/ui`);
    await page.locator('[data-testid="clock"]').waitFor();
    expect((await fetch(`${urls.controlUrl.slice(0, -"/__fakex".length)}`, { method: "DELETE" })).status).toBe(200);
    await page.locator('button[data-action="mine"]').click();
    await expect.poll(() => page.locator('[data-testid="message"]').textContent()).toMatch(/^mine failed: no exchange "gone"/);
    expect(ex.pool!.ids()).not.toContain(id);
    await page.close();
  });

  test("the request list pages through a journal longer than one page (200), newest first", async () => {
    const urls = ex.pool!.urls("pages");
    for (let i = 0; i < 230; i += 10) await Promise.all(Array.from({ length: 10 }, () => fetch(`${urls.baseUrl}/tokens`).then((r) => r.arrayBuffer())));
    const total = ((await (await fetch(`${urls.controlUrl}/requests/count`)).json()) as { count: number }).count;
    expect(total).toBeGreaterThanOrEqual(230);
    const page = await browser.context.newPage();
    await page.goto(`${urls.controlUrl}/ui/requests`);
    await page.locator("table.requests").waitFor();
    await expect.poll(() => page.locator("table.requests tbody tr").count()).toBe(200);
    expect(await page.locator("main").textContent()).toContain(`${total} entries match; 1–200 shown`);
    expect(await page.locator("button", { hasText: "Newer" }).count()).toBe(0);
    await page.locator("button", { hasText: "Older" }).click();
    await expect.poll(() => page.locator("table.requests tbody tr").count()).toBe(total - 200);
    expect(await page.locator("main").textContent()).toContain(`201–${total} shown`);
    // The oldest entry is on this page (ids count up from r1).
    expect(await page.locator("table.requests tbody tr").last().textContent()).toContain("r1");
    await page.locator("button", { hasText: "Newer" }).click();
    await expect.poll(() => page.locator("table.requests tbody tr").count()).toBe(200);
    await page.close();
  });
});
