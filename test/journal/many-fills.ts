// A fake exchange with one resting ask filled many times by small bids (settled every 50
// fills, so in many batches): the run the fill-page tests read and show.
import { expect } from "vitest";
import { createFakeExchange, type FakeExchange } from "../../fixtures/fake-exchange.ts";

export interface ManyFills {
  ex: FakeExchange;
  /** The ask and the request that placed it. */
  ask: { order_id: string; request: string };
  /** A signed order through preview and POST /orders: asks by the first account, bids by the second. */
  place(side: "bid" | "ask", amount: string, price?: string): Promise<{ order_id: string; request: string }>;
}

export async function exchangeWithManyFills(fills: number): Promise<ManyFills> {
  // Rate limits off: a few hundred orders in a row.
  const ex = await createFakeExchange({ seed: 5, liquidity: false, rateLimits: false });
  const m = ex.registry.markets().find((x) => x.baseSymbol === "USDT")!;
  const [a, b] = [ex.accounts[0]!, ex.accounts[1]!];
  await ex.control.fund({ address: a.address, token: m.baseSymbol, amount: 10_000_000_000n, vault: true });
  await ex.control.fund({ address: b.address, token: m.quoteSymbol, amount: 10_000_000_000n, vault: true });
  const post = (path: string, body: unknown) => fetch(`${ex.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const place: ManyFills["place"] = async (side, amount, price = "1") => {
    const acc = side === "ask" ? a : b;
    const preview = (await (await post("/orders/preview", ex.newOrder(acc, { symbol: m.symbol, side, amount, price }))).json()) as any;
    const res = await post("/orders", (await ex.signOrder(acc, preview)).body);
    expect(res.status).toBe(201);
    return { order_id: ((await res.json()) as { order_id: string }).order_id, request: res.headers.get("x-request-id")! };
  };
  const ask = await place("ask", "5000");
  for (let i = 0; i < fills; i++) {
    await place("bid", "10");
    if (i % 50 === 49) await ex.parts.engine.settleAll();
  }
  return { ex, ask, place };
}
