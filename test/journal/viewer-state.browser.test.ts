// The run viewer keeps up with a user: what is typed into a filter box survives the
// once-a-second poll, a filtered and paged request list has an address (Back returns to
// it), a page never shows another view's data under its heading, a route fault is named
// on its request's page, status 0 is a filter, trailing slashes name the same view, and a
// page the journal shrank under moves to the last page. Headless Chromium, as
// viewer.browser.test.ts (skipped without /usr/bin/chromium; CI requires it there).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createFakeExchange, type FakeExchange } from "../../fixtures/fake-exchange.ts";
import { writeReport } from "../../fixtures/report.ts";
import { main } from "../../fixtures/cli.ts";
import { capturedOutput } from "../fixtures/captured-output.ts";
import { chromiumAvailable, holdRequests, launchChromium, type RunningBrowser } from "./browser.ts";

describe.skipIf(!chromiumAvailable)("run viewer state in headless Chromium", () => {
  let ex: FakeExchange;
  let browser: RunningBrowser;
  let page: Page;
  let ask: { order_id: string };
  let bid: { order_id: string };
  const dir = mkdtempSync(join(tmpdir(), "fakex-viewer-state-"));

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${ex.baseUrl}${path}`, { method, headers: { "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: res.status, body: (await res.json()) as any, id: res.headers.get("x-request-id")! };
  };
  const count = async (query: string) => ((await (await fetch(`${ex.controlUrl}/requests/count?${query}`)).json()) as { count: number }).count;
  const rows = () => page.locator("table.requests tbody tr");

  beforeAll(async () => {
    ex = await createFakeExchange({ seed: 31, liquidity: false });
    const m = ex.registry.markets().find((x) => x.baseSymbol === "USDT")!;
    const [a, b] = [ex.accounts[0]!, ex.accounts[1]!];
    await ex.control.fund({ address: a.address, token: m.baseSymbol, amount: 100_000_000n, vault: true });
    await ex.control.fund({ address: b.address, token: m.quoteSymbol, amount: 100_000_000n, vault: true });
    const place = async (acc: typeof a, side: "bid" | "ask", price: string) => {
      const preview = await api("POST", "/orders/preview", ex.newOrder(acc, { symbol: m.symbol, side, amount: "20", price }));
      const r = await api("POST", "/orders", (await ex.signOrder(acc, preview.body)).body);
      expect(r.status).toBe(201);
      return r.body as { order_id: string };
    };
    ask = await place(a, "ask", "1");
    bid = await place(b, "bid", "0.9"); // rests: two orders of two owners
    for (let i = 0; i < 3; i++) expect((await api("GET", "/nothing-here")).status).toBe(404);
    browser = await launchChromium();
    page = await browser.context.newPage();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await ex?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("typing into a filter box survives the poll; the applied filter goes into the address and Back returns to it", async () => {
    await page.goto(`${ex.controlUrl}/ui/requests`);
    await rows().first().waitFor();
    const status = page.locator('input[placeholder^="status"]');
    await status.pressSequentially("4x");
    // Two polls go by (one a second) before the user finishes typing.
    await page.waitForTimeout(2_200);
    expect(await status.inputValue()).toBe("4x");
    await status.pressSequentially("x");
    await status.press("Enter");
    await status.dispatchEvent("change");
    await expect.poll(() => page.url()).toContain("?status=4xx");
    await expect.poll(() => rows().count()).toBe(await count("status=4xx"));
    // Open one, come back: the filtered list, not the whole journal.
    await rows().first().locator("a").first().click();
    await page.locator("h3", { hasText: "What it caused" }).waitFor();
    await page.goBack();
    await expect.poll(() => page.locator('input[placeholder^="status"]').inputValue()).toBe("4xx");
    await expect.poll(() => rows().count()).toBe(await count("status=4xx"));
    // The address alone opens it so (a failing test can print the link).
    await page.goto(`${ex.controlUrl}/ui/requests?status=4xx&method=GET`);
    await expect.poll(() => rows().count()).toBe(await count("status=4xx&method=GET"));
    expect(await page.locator('input[placeholder^="method"]').inputValue()).toBe("GET");
    // The nav link to the list is the whole journal again, as its address says.
    await page.locator("nav a", { hasText: "Requests" }).click();
    await expect.poll(() => rows().count()).toBe(await count(""));
    expect(await page.locator('input[placeholder^="status"]').inputValue()).toBe("");
    expect(page.url()).toBe(`${ex.controlUrl}/ui/requests`);
  });

  test("a refused filter shows the server's reason and no rows of the filter before it", async () => {
    await page.goto(`${ex.controlUrl}/ui/requests?status=4xx`);
    await expect.poll(() => rows().count()).toBeGreaterThan(0);
    const owner = page.locator('input[placeholder^="owner"]');
    await owner.fill("0x3c44");
    await owner.dispatchEvent("change");
    await page.locator("p.error", { hasText: "owner: a 0x address" }).waitFor();
    expect(await rows().count()).toBe(0);
  });

  test("an order's page shows nothing of the order before it while the next one loads", async () => {
    await page.goto(`${ex.controlUrl}/ui/orders/${bid.order_id}`);
    await page.locator("dl.facts code").first().waitFor();
    const bidOwner = ex.accounts[1]!.address.toLowerCase();
    expect(await page.locator("main").textContent()).toContain(bidOwner);
    // The ask's order view answers late; the heading changes at once, the bid's facts must go.
    const hold = await holdRequests(page, `**/__fakex/orders/${ask.order_id}?*`);
    await page.evaluate((to) => {
      // Same-page navigation as a link click does it.
      (globalThis as any).history.pushState(null, "", to);
      (globalThis as any).dispatchEvent(new Event("fakex:navigate"));
    }, `${new URL(ex.controlUrl).pathname}/ui/orders/${ask.order_id}`);
    await expect.poll(() => page.locator('[data-testid="order-id"]').textContent()).toBe(ask.order_id);
    expect(await page.locator("section.panel:not(.run)").textContent()).not.toContain(bidOwner);
    hold.release();
    await expect.poll(() => page.locator("section.panel:not(.run)").textContent()).toContain(ex.accounts[0]!.address.toLowerCase());
    await hold.stop();
    // An order that is not there: the message, and nothing of the last order shown.
    await page.goto(`${ex.controlUrl}/ui/orders/${bid.order_id}`);
    await page.locator("dl.facts").first().waitFor();
    await page.evaluate((to) => {
      (globalThis as any).history.pushState(null, "", to);
      (globalThis as any).dispatchEvent(new Event("fakex:navigate"));
    }, `${new URL(ex.controlUrl).pathname}/ui/orders/00000000-0000-4000-8000-000000000000`);
    await page.locator("p.error").first().waitFor();
    expect(await page.locator("section.panel:not(.run)").textContent()).not.toContain(bidOwner);
  });

  test("a route fault is named on its request's page; status 0 finds it; a trailing slash names the same page", async () => {
    expect((await fetch(`${ex.controlUrl}/routes`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ rules: [{ method: "GET", path: "/tokens", fail: "reset", after_commit: true, times: 1 }] }) })).status).toBe(200);
    await expect(fetch(`${ex.baseUrl}/tokens`)).rejects.toThrow();
    const [entry] = ex.control.requests({ status: "0" }).entries;
    expect(entry).toMatchObject({ path: "/api/v1/tokens", status: 0, fault: { kind: "reset", after_commit: true, committed_status: 200 } });
    await page.goto(`${ex.controlUrl}/ui/requests/${entry!.id}/`);
    const fault = page.locator('[data-testid="fault"]');
    await fault.waitFor();
    expect(await fault.textContent()).toContain("reset");
    expect(await fault.textContent()).toContain("lost its 200 answer");
    await page.goto(`${ex.controlUrl}/ui/requests?status=0`);
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().textContent()).toContain("reset after commit");
  });

  test("a rejection whose wire code differs from the journal's names the code the client read", async () => {
    const r = await api("POST", "/orders", { nonsense: true });
    expect(r.status).toBe(400);
    const wire = r.body.detail.error_code as string;
    const entry = ex.control.requests({ path: "/api/v1/orders", status: "400" }).entries[0]!;
    expect(entry.rejection?.code).not.toBe(wire);
    await page.goto(`${ex.controlUrl}/ui/requests/${entry.id}`);
    const note = page.locator('[data-testid="wire-code"]');
    await note.waitFor();
    expect(await note.textContent()).toBe(`(the client read ${wire})`);
  });

  test("the report pages its request list (Older, and an offset in its address)", async () => {
    for (let i = 0; i < 210; i += 30) await Promise.all(Array.from({ length: 30 }, () => fetch(`${ex.baseUrl}/markets`).then((r) => r.arrayBuffer())));
    const total = await count("");
    expect(total).toBeGreaterThan(200);
    const out = join(dir, "paging.html");
    await writeReport(ex.controlUrl, out);
    await page.goto(`${pathToFileURL(out).href}#/requests`);
    await expect.poll(() => rows().count()).toBe(200);
    await page.locator("button", { hasText: "Older" }).click();
    await expect.poll(() => rows().count()).toBe(total - 200);
    expect(page.url()).toContain("#/requests?offset=200");
    await page.goto(`${pathToFileURL(out).href}#/requests?method=GET&offset=200`);
    await page.reload();
    await expect.poll(() => rows().count()).toBe((await count("method=GET")) - 200);
    // A run longer than the report keeps (1,000 entries): its list says how many it left out.
    while ((await count("")) <= 1000) await Promise.all(Array.from({ length: 50 }, () => fetch(`${ex.baseUrl}/markets`).then((r) => r.arrayBuffer())));
    const all = await count("");
    const long = join(dir, "long.html");
    const wrote = await capturedOutput("stdout", () => main(["report", "--from", ex.controlUrl, "--out", long]));
    expect(wrote.value).toBe(0);
    // The command says what the file holds: the newest 1000 of the run's requests.
    expect(wrote.text).toContain(`settlement batches, the newest 1000 of ${all} requests, `);
    await page.goto(`${pathToFileURL(long).href}#/requests`);
    await page.locator("div.controls span.muted", { hasText: "this report keeps" }).waitFor();
    expect(await page.locator("div.controls span.muted").textContent()).toBe(`1000 entries match; 1–200 shown (this report keeps the newest 1000 of the run's ${all} requests)`);
  });

  test("past the first page the list holds still while requests keep arriving; Newer back to the first page is live again", async () => {
    await page.goto(`${ex.controlUrl}/ui/requests`);
    await expect.poll(() => rows().count()).toBe(200);
    const newest = Number((await rows().first().locator("a").first().textContent())!.slice(1));
    await page.locator("button", { hasText: "Older" }).click();
    await expect.poll(() => page.url()).toContain(`offset=200&before=r${newest + 1}`);
    await expect.poll(() => rows().first().locator("a").textContent()).toBe(`r${newest - 200}`);
    const shown = await page.locator("div.controls span.muted").textContent();
    expect(shown).toContain(`; up to r${newest}, newer requests are on the first page`);
    // Requests arrive; the page's next poll must not move its rows (by offset alone they would shift by 30).
    await Promise.all(Array.from({ length: 30 }, () => fetch(`${ex.baseUrl}/markets`).then((r) => r.arrayBuffer())));
    await page.waitForResponse((r) => r.url().includes("/requests?") && r.url().includes("before="), { timeout: 15_000 });
    await page.waitForResponse((r) => r.url().includes("/requests?") && r.url().includes("before="), { timeout: 15_000 });
    expect(await rows().first().locator("a").textContent()).toBe(`r${newest - 200}`);
    expect(await page.locator("div.controls span.muted").textContent()).toBe(shown);
    // The held page has an address of its own.
    await page.goto(`${ex.controlUrl}/ui/requests?offset=200&before=r${newest + 1}`);
    await expect.poll(() => rows().first().locator("a").textContent()).toBe(`r${newest - 200}`);
    await page.locator("button", { hasText: "Newer" }).click();
    await expect.poll(() => page.url()).not.toContain("before=");
    await expect.poll(() => rows().first().locator("a").textContent()).toBe(`r${newest + 30}`);
  });

  test("Older after a slow request finished last (the list is in finishing order) skips nothing: page 2 starts where page 1 ended", async () => {
    const rule = await fetch(`${ex.controlUrl}/routes`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ rules: [{ method: "GET", path: "/tokens", latency_ms: 1500, times: 1 }] }) });
    expect(rule.status).toBe(200);
    const slow = fetch(`${ex.baseUrl}/tokens`).then((r) => r.arrayBuffer());
    await expect.poll(async () => ((await (await fetch(`${ex.controlUrl}/routes`)).json()) as { rules: unknown[] }).rules.length).toBe(0);
    for (let i = 0; i < 3; i++) await fetch(`${ex.baseUrl}/markets`).then((r) => r.arrayBuffer());
    await slow;
    const live = (await (await fetch(`${ex.controlUrl}/requests?limit=201`)).json()) as { entries: { id: string; path: string }[] };
    expect(live.entries[0]!.path).toBe("/api/v1/tokens"); // arrived before the three, finished after them
    await page.goto(`${ex.controlUrl}/ui/requests`);
    await expect.poll(() => rows().count()).toBe(200);
    await page.locator("button", { hasText: "Older" }).click();
    await expect.poll(() => page.url()).toContain("offset=200");
    await expect.poll(() => rows().first().locator("a").textContent()).toBe(live.entries[200]!.id);
  });

  test("GET /requests?before= lists only what arrived before that request id", async () => {
    const all = (await (await fetch(`${ex.controlUrl}/requests?limit=50`)).json()) as { entries: { id: string }[]; total: number };
    const seq = (id: string) => Number(id.slice(1));
    const cut = all.entries[2]!.id;
    const older = all.entries.filter((e) => seq(e.id) < seq(cut));
    const held = (await (await fetch(`${ex.controlUrl}/requests?limit=5&before=${cut}`)).json()) as { entries: { id: string }[]; total: number };
    // Newest first (the journal's order) among the requests that arrived before the cut.
    expect(held.entries.slice(0, 2).map((e) => e.id)).toEqual(older.slice(0, 2).map((e) => e.id));
    expect(held.entries.every((e) => seq(e.id) < seq(cut))).toBe(true);
    const atOrAfter = all.entries.length - older.length;
    expect(held.total).toBe(all.total - atOrAfter);
    expect(await count(`before=${cut}`)).toBe(all.total - atOrAfter);
    const bad = await fetch(`${ex.controlUrl}/requests?before=42`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { detail: string }).detail).toContain("before: a request id such as r42");
    expect(() => ex.control.requests({ before: "nope" })).toThrow(/before: a request id such as r42/);
    expect(ex.control.requests({ before: cut, limit: 1 }).entries[0]!.id).toBe(older[0]!.id);
  });

  test("a page the journal shrank under moves to the last page", async () => {
    // The journal's last page (more than one page before it).
    const total = await count("");
    const last = Math.floor((total - 1) / 200) * 200;
    expect(last).toBeGreaterThan(0);
    await page.goto(`${ex.controlUrl}/ui/requests?offset=${last}`);
    await expect.poll(() => rows().count()).toBe(total - last);
    expect((await fetch(`${ex.controlUrl}/requests`, { method: "DELETE" })).status).toBe(200);
    for (let i = 0; i < 5; i++) await fetch(`${ex.baseUrl}/markets`).then((r) => r.arrayBuffer());
    // The page sees the cleared journal at its next once-a-second poll, then loads the last page:
    // more than expect.poll's default second on a loaded machine.
    await expect.poll(() => rows().count(), { timeout: 15_000 }).toBe(5);
    await expect.poll(() => page.url()).not.toContain("offset=");
    expect(await page.locator("button", { hasText: "Newer" }).count()).toBe(0);
  });
});
