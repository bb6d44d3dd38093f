// GET /__fakex/orders/{id} and GET /__fakex/requests/{id} page one order's (one request's)
// fills with fills_offset / fills_limit: the page in fill order, how many there are
// (fills_total, links.fills_total), and the settlement batches of the page's fills only;
// without the parameters, every fill and batch as before; bad values and unknown keys 400.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { FakeExchange } from "../../fixtures/fake-exchange.ts";
import { exchangeWithManyFills } from "./many-fills.ts";

const FILLS = 250;

describe("fill pages of the order and request control reads", () => {
  let ex: FakeExchange;
  let ask: { order_id: string; request: string };

  const control = async (path: string) => {
    const res = await fetch(`${ex.controlUrl}${path}`);
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    ({ ex, ask } = await exchangeWithManyFills(FILLS));
  }, 180_000);

  afterAll(async () => {
    await ex?.close();
  });

  test("an order's fills: every one without paging, a page in fill order with fills_total, and only the page's batches", async () => {
    const all = (await control(`/orders/${ask.order_id}`)).body;
    expect(all.fills).toHaveLength(FILLS);
    expect(all.fills_total).toBe(FILLS);
    const allIds = all.fills.map((f: any) => f.fill_id) as number[];
    expect(allIds).toEqual([...allIds].sort((x, y) => x - y));
    const allBatches = all.settlement_batches.map((b: any) => b.settlement_id) as number[];
    expect(allBatches.length).toBeGreaterThan(3);

    const batchesOf = (fills: any[]) => [...new Set(fills.map((f) => f.settlement_id as number))].sort((x, y) => x - y);
    for (const [offset, size] of [[0, 100], [100, 100], [200, 50]] as const) {
      const page = (await control(`/orders/${ask.order_id}?fills_offset=${offset}&fills_limit=100`)).body;
      expect(page.fills_total).toBe(FILLS);
      expect(page.fills.map((f: any) => f.fill_id)).toEqual(allIds.slice(offset, offset + size));
      // Each row keeps its wire view (this order's fill), as unpaged.
      expect(page.fills).toEqual(all.fills.slice(offset, offset + size));
      expect(page.settlement_batches.map((b: any) => b.settlement_id)).toEqual(batchesOf(page.fills));
      expect(page.settlement_batches.length).toBeLessThan(allBatches.length);
      for (const b of page.settlement_batches) expect(all.settlement_batches).toContainEqual(b);
      // The rest of the answer is the same as unpaged.
      expect({ ...page, fills: null, settlement_batches: null }).toEqual({ ...all, fills: null, settlement_batches: null });
    }
    // Past the end: no fills, no batches, still the total. One parameter alone pages too.
    expect((await control(`/orders/${ask.order_id}?fills_offset=300&fills_limit=10`)).body).toMatchObject({ fills: [], settlement_batches: [], fills_total: FILLS });
    const first = (await control(`/orders/${ask.order_id}?fills_limit=1`)).body;
    expect(first.fills.map((f: any) => f.fill_id)).toEqual([allIds[0]]);
    expect(first.settlement_batches.map((b: any) => b.settlement_id)).toEqual([all.fills[0].settlement_id]);
    const rest = (await control(`/orders/${ask.order_id}?fills_offset=249`)).body;
    expect(rest.fills.map((f: any) => f.fill_id)).toEqual([allIds[249]]);
    // An offset alone: a page of up to 500 fills from there (here every fill left).
    const fromHundred = (await control(`/orders/${ask.order_id}?fills_offset=100`)).body;
    expect(fromHundred.fills.map((f: any) => f.fill_id)).toEqual(allIds.slice(100));
  });

  test("a request's fills (the later fills of the order it created): links.fills_total and a page of links.fills with its batches", async () => {
    const all = (await control(`/requests/${ask.request}`)).body;
    expect(all.links.fills).toHaveLength(FILLS);
    expect(all.links.fills_total).toBe(FILLS);
    const page = (await control(`/requests/${ask.request}?fills_offset=200&fills_limit=100`)).body;
    expect(page.links.fills_total).toBe(FILLS);
    expect(page.links.fills).toEqual(all.links.fills.slice(200));
    const batches = [...new Set<number>(page.links.fills.map((f: any) => f.settlement_id as number))].sort((x, y) => x - y);
    expect(page.links.settlement_batches.map((b: any) => b.settlement_id)).toEqual(batches);
    expect(page.links.settlement_batches.length).toBeLessThan(all.links.settlement_batches.length);
    // Everything but the fills and batches is as unpaged (revert reasons are of all the fills).
    expect({ ...page, links: { ...page.links, fills: null, settlement_batches: null } }).toEqual({ ...all, links: { ...all.links, fills: null, settlement_batches: null } });
  });

  test.each(["orders", "requests"])("/%s/{id}: a bad fills_offset or fills_limit, or an unknown key, is a 400 with a detail", async (view) => {
    const id = view === "orders" ? ask.order_id : ask.request;
    const LIMIT = "fills_limit must be 1-500";
    const OFFSET = "fills_offset must be a whole number from 0 to 999999999";
    const unknown = (k: string) => `unknown query parameter "${k}"; this view takes fills_offset and fills_limit`;
    const cases: [string, string][] = [
      ["fills_limit=0", LIMIT],
      ["fills_limit=501", LIMIT],
      ["fills_limit=abc", LIMIT],
      ["fills_limit=-1", LIMIT],
      ["fills_offset=abc", OFFSET],
      ["fills_offset=-1", OFFSET],
      ["fills_offset=1.5", OFFSET],
      ["fills_limit=10&limit=10", unknown("limit")],
      ["offset=5", unknown("offset")],
      ["bogus=1", unknown("bogus")],
    ];
    for (const [q, detail] of cases) {
      const r = await control(`/${view}/${id}?${q}`);
      expect({ q, status: r.status, body: r.body }).toEqual({ q, status: 400, body: { detail } });
    }
    expect((await control(`/${view}/${id}?fills_limit=500`)).status).toBe(200);
    expect((await control(`/${view}/${id}?fills_limit=1&fills_offset=0`)).status).toBe(200);
  });

  test("the journal list carries as many of each entry's fills as fills_limit says (0: only the totals); the count refuses it", async () => {
    const listed = async (q: string) => (await control(`/requests?path=/api/v1/orders&limit=500&bodies=0${q}`)).body.entries.find((e: any) => e.id === ask.request);
    const whole = await listed("");
    expect(whole.links.fills).toHaveLength(FILLS);
    expect(whole.links.fills_total).toBe(FILLS);
    const batches = new Set(whole.links.fills.map((f: any) => f.settlement_id)).size;
    expect(whole.links.settlement_batches).toHaveLength(batches);
    expect(whole.links.settlement_batches_total).toBe(batches);
    const none = await listed("&fills_limit=0");
    expect(none.links).toMatchObject({ fills: [], fills_total: FILLS, settlement_batches: [], settlement_batches_total: batches });
    const some = await listed("&fills_limit=3");
    expect(some.links.fills).toEqual(whole.links.fills.slice(0, 3));
    for (const q of ["fills_limit=501", "fills_limit=-1", "fills_limit=x"]) {
      expect(await control(`/requests?${q}`), q).toEqual({ status: 400, body: { detail: "fills_limit: a whole number 0-500" } });
    }
    expect((await control("/requests/count?fills_limit=0")).body).toEqual({ detail: "count takes no limit, offset, bodies or fills_limit" });
  });
});
