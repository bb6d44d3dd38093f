// Regenerates the README's viewer screenshots (docs/viewer.png, docs/viewer-near-miss.png):
// a fake exchange with two crossing pairs (one fill reverted on chain), a request signed
// by the wrong wallet, a settlement round; then headless Chromium on the viewer.
//   npx tsx tools/viewer-screenshots.ts
import { createFakeExchange } from "../fixtures/fake-exchange.ts";
import type { FundedAccount } from "../fixtures/chain.ts";
import { launchChromium } from "../test/journal/browser.ts";

const ex = await createFakeExchange({ seed: 17 });
try {
  const api = async (path: string, body: unknown) => {
    const res = await fetch(`${ex.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return { body: (await res.json()) as any, id: res.headers.get("x-request-id")! };
  };
  const m = ex.registry.markets().find((x) => x.baseSymbol === "USDT")!;
  const [a, b] = [ex.accounts[0]!, ex.accounts[1]!];
  await ex.control.fund({ address: a.address, token: m.baseSymbol, amount: 1_000_000_000n, vault: true });
  await ex.control.fund({ address: b.address, token: m.quoteSymbol, amount: 1_000_000_000n, vault: true });
  const place = async (acc: FundedAccount, side: "bid" | "ask", amount: string) => {
    const preview = await api("/orders/preview", ex.newOrder(acc, { symbol: m.symbol, side, amount, price: "1" }));
    return api("/orders", (await ex.signOrder(acc, preview.body)).body);
  };
  await place(a, "ask", "20");
  const bid = await place(b, "bid", "20");
  await ex.control.advanceClock(30);
  await place(a, "ask", "15");
  ex.control.setFaultPlan({ revertFills: [{ fill: ex.parts.engine.fillCount() + 1, reason: "InsufficientBalance" }] });
  await place(b, "bid", "15");
  const preview = await api("/orders/preview", ex.newOrder(a, { symbol: m.symbol, side: "ask", amount: "20", price: "1.5" }));
  const signedByB = (await ex.signOrder(b, preview.body)).body;
  const bad = await api("/orders", { ...signedByB, owner_address: a.address });
  await ex.control.advanceClock(30);
  await ex.control.settle();
  ex.control.setFaultPlan(null);

  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1280, height: 820 });
    await page.goto(`${ex.controlUrl}/ui/orders/${bid.body.order_id}`);
    await page.locator("table.fills code.hash").first().waitFor();
    await page.screenshot({ path: "docs/viewer.png" });
    await page.goto(`${ex.controlUrl}/ui/requests/${bad.id}`);
    await page.locator(".rejection").waitFor();
    await page.screenshot({ path: "docs/viewer-near-miss.png" });
  } finally {
    await browser.close();
  }
} finally {
  await ex.close();
}
