// The shipped chaos scenarios: ambiguous-outcomes (commit, then lose the answer) and
// live-market (seeded agents on every market, a volatile burst on a timer).
import { afterAll, describe, expect, test } from "vitest";
import { createFakeExchange, type FakeExchange } from "../../fixtures/fake-exchange.ts";
import type { ActivityView } from "../../fixtures/activity.ts";

const file = (name: string) => new URL(`../../scenarios/${name}`, import.meta.url).pathname;
const open: FakeExchange[] = [];
afterAll(async () => {
  for (const ex of open) await ex.close();
});

async function api(ex: FakeExchange, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${ex.baseUrl}${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body: (await res.json()) as any };
}

describe("scenarios/ambiguous-outcomes.json", () => {
  test("the first order is committed and answered 503, the first swap's quote is consumed behind a reset; the timed fraction rule comes and goes, leaving the unmet first-request faults armed", async () => {
    const ex = await createFakeExchange({ scenario: file("ambiguous-outcomes.json") });
    open.push(ex);
    expect(ex.control.now().now).toBe(Date.UTC(2026, 0, 1) / 1000);
    const me = ex.accounts[0]!;
    const key = await ex.signManageApiKey(me, "create", ex.control.now().now);
    const k = await api(ex, "POST", "/api-keys", { ...key, label: "bot" });
    const bearer = `Bearer ${k.body.api_key}:${k.body.api_secret}`;
    await ex.control.fund({ address: me.address, token: "USDC", amount: 100_000_000n, vault: true });

    const m = ex.registry.markets().find((x) => x.baseSymbol === "USDT")!;
    const preview = await api(ex, "POST", "/orders/preview", ex.newOrder(me, { symbol: m.symbol, side: "bid", amount: "20", price: "0.95" }));
    const { body } = await ex.signOrder(me, preview.body);
    const first = await api(ex, "POST", "/orders", body);
    expect(first.status).toBe(503);
    expect(first.retryAfter).toBe("1");
    expect((await api(ex, "GET", `/orders/${body.order_id}`, undefined, { authorization: bearer })).body.status).toBe("pending");
    expect((await api(ex, "POST", "/orders", body)).status).toBe(409);

    const quote = await api(ex, "POST", "/swap/quote", {
      from_token: ex.contracts.tokens.USDC,
      to_token: ex.contracts.tokens.USDT,
      from_amount: "20000000",
      owner_address: me.address,
      recipient: me.address,
      expiration: ex.control.now().now + 600,
    });
    const signed = (await ex.signIntent(me, quote.body)).body;
    await expect(fetch(`${ex.baseUrl}/swap`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(signed) })).rejects.toThrow(TypeError);
    expect((await api(ex, "POST", "/swap", signed)).status).toBe(410);

    // The timed rule is added next to the first-request faults not yet met, and removed alone:
    // a bot whose first withdraw or cancel comes late still meets those.
    const unmet = [
      { method: "POST", path: "/withdraw", fail: "timeout", after_commit: true, times: 1 },
      { method: "POST", path: "/orders/cancel", fail: "truncate", after_commit: true, times: 1 },
    ];
    await ex.control.advanceClock(60);
    expect(ex.control.routeFaults()).toEqual([...unmet, { method: "POST", path: "/orders", fail: "reset", after_commit: true, fraction: 0.2 }]);
    await ex.control.advanceClock(240);
    expect(ex.control.routeFaults()).toEqual(unmet);
  }, 120_000);
});

describe("scenarios/live-market.json", () => {
  test("agents on every market from the start; EURC-USDC turns volatile at 600 s and calms at 1200 s; books keep both sides", async () => {
    const ex = await createFakeExchange({ scenario: file("live-market.json") });
    open.push(ex);
    const view = () => ex.control.activity() as ActivityView;
    const eur = ex.registry.markets().find((m) => [m.baseSymbol, m.quoteSymbol].sort().join("/") === "EURC/USDC")!.symbol;
    expect(Object.keys(view().markets).sort()).toEqual(ex.registry.activeMarkets().map((m) => m.symbol).sort());
    await ex.control.advanceClock(600);
    expect(view().markets[eur]).toMatchObject({ takers_per_min: 20, volatility: 0.004 });
    expect(view().markets["USDT/USDC"]).toMatchObject({ takers_per_min: 6, volatility: 0.001 });
    await ex.control.advanceClock(600);
    expect(view().markets[eur]).toMatchObject({ takers_per_min: 6, volatility: 0.001 });
    expect(view().steps).toBe(40);
    for (const m of ex.registry.activeMarkets()) {
      expect(ex.parts.engine.depth(m.symbol, "bid").length, m.symbol).toBeGreaterThan(0);
      expect(ex.parts.engine.depth(m.symbol, "ask").length, m.symbol).toBeGreaterThan(0);
    }
    expect(ex.parts.engine.fillCount()).toBeGreaterThan(0);
  }, 180_000);
});
