import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createFakeExchange } from "../fixtures/fake-exchange.ts";
const dir = mkdtempSync(path.join(tmpdir(), "wal-dbg-"));
const logger = { error: (m: string, meta: unknown) => console.error("LOG", m, JSON.stringify(meta)) };
const ex = await createFakeExchange({ stateDir: dir, users: 2, liquidity: false, logger, rateLimits: false });
const me = ex.accounts[0]!;
await ex.control.fund({ address: me.address, token: "USDT", amount: 10n ** 12n, vault: true });
await ex.persistence!.persist();
const m = ex.registry.markets().find((x) => x.baseSymbol === "USDT")!;
const post = async (u: string, b: unknown) => { const r = await fetch(u, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(b) }); return { status: r.status, body: await r.json() as any }; };
for (let i = 0; i < 3; i++) {
  const p = await post(`${ex.baseUrl}/orders/preview`, ex.newOrder(me, { symbol: m.symbol, side: "ask", amount: "10", price: (2 + i / 100).toFixed(4) }));
  const s = await ex.signOrder(me, p.body);
  const r = await post(`${ex.baseUrl}/orders`, s.body);
  console.log("placed", r.status, r.body.status ?? r.body);
}
const h1 = (await (await fetch(`${ex.controlUrl}/events/hash`)).json()) as any;
console.log("hash1", h1, ex.persistence!.stats);
await ex.parts.anvil.stop();
const ex2 = await createFakeExchange({ stateDir: dir, logger, rateLimits: false });
const h2 = (await (await fetch(`${ex2.controlUrl}/events/hash`)).json()) as any;
console.log("hash2", h2, ex2.persistence!.stats);
await ex2.close();
process.exit(0);
