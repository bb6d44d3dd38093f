// Soak: a long stream of generated requests (mostly malformed, plus valid reads,
// previews, quotes and signed orders that really trade) against the full memory
// exchange on loopback. Bounded in count and in time. Reports the count per status,
// every 5xx that is not a documented 503, every unexpected exception the error
// handler logged, statuses the spec does not allow for the route, and the duration.
// With CONCURRENCY=1 it also checks that no rejected request moved the event-log hash.
//
// Run: npm run soak        (SOAK_REQUESTS=100000 SOAK_SECONDS=900 CONCURRENCY=8 SOAK_SEED=19)
// Exit code 1 when anything was found.

import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import fc from "fast-check";
import { ALICE, BOB, alice, apiKeyFor, bob, exchange, signedOrder, type Ex } from "../test/http/exchange-harness.ts";
import { MEMORY_EXCHANGE_DEFAULTS } from "../sim/http/exchange-app.ts";
import { ROUTES, allowedStatuses, requestArb, send, type FuzzContext, type FuzzRequest } from "../test/reliability/malformed.ts";

const REQUESTS = Number(process.env["SOAK_REQUESTS"] ?? 100_000);
const SECONDS = Number(process.env["SOAK_SECONDS"] ?? 900);
const CONCURRENCY = Number(process.env["CONCURRENCY"] ?? 8);
const SEED = Number(process.env["SOAK_SEED"] ?? 19);
/** Signed orders (alternating asks and crossing bids) mixed into the stream. */
const SIGNED_ORDERS = Number(process.env["SOAK_SIGNED_ORDERS"] ?? 2_000);
const CHUNK = 1_000;

interface Finding {
  why: string;
  method: string;
  url: string;
  status: number;
  body: string;
}

async function main(): Promise<void> {
  const unexpected: string[] = [];
  const ex: Ex = exchange({
    rateLimits: false,
    logger: { error: (m, meta) => void (m === "unexpected error" && unexpected.push(`${m} ${JSON.stringify(meta).slice(0, 500)}`)) },
  });
  const resting = await signedOrder(ex, alice);
  const bearer = apiKeyFor(ex, ALICE);
  const m = ex.registry.marketBySymbol("EURC/USDC")!;
  const ctx: FuzzContext = {
    owner: ALICE,
    other: BOB,
    base: m.base,
    quote: m.quote,
    orderId: resting["order_id"] as string,
    uuidInt: resting["uuid_int"] as string,
    nowSec: ex.clock.nowSec(),
    bearer,
    otherBearer: apiKeyFor(ex, BOB),
    apiKey: bearer.slice("Bearer ".length).split(":")[0]!,
    exchange: MEMORY_EXCHANGE_DEFAULTS.exchangeAddress,
    signature: resting["signature"] as string,
  };

  // Valid trades: asks by alice and bids by bob at the same price, so the book matches.
  const t0 = performance.now();
  const valid: string[] = [];
  for (let i = 0; i < SIGNED_ORDERS; i++) {
    const body = await signedOrder(ex, i % 2 === 0 ? alice : bob, { side: i % 2 === 0 ? "ask" : "bid", amount: "10", price: "1.08" });
    valid.push(JSON.stringify(body));
  }
  const signMs = performance.now() - t0;

  const server: Server = ex.app.listen(0, "127.0.0.1");
  await new Promise<void>((ok) => server.once("listening", () => ok()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const orderRoute = ROUTES.find((r) => r.method === "POST" && r.path === "/orders")!;
  const routes = ROUTES.filter((r) => !r.funds);
  // Oversized (1.1 MB) bodies are rare here so the run measures the app, not the loopback.
  const arb = requestArb(routes, ctx, { oversizedWeight: 1 });

  const byStatus = new Map<number, number>();
  const findings: Finding[] = [];
  let sent = 0;
  let validSent = 0;
  let chunkNo = 0;
  let queue: FuzzRequest[] = [];
  const start = performance.now();
  const deadline = start + SECONDS * 1000;

  const next = (): FuzzRequest | null => {
    if (sent >= REQUESTS || performance.now() > deadline) return null;
    sent++;
    // Every 20th request is a signed order from the pool (valid until used once).
    if (sent % 20 === 0 && validSent < valid.length) {
      return { method: "POST", path: "/orders", query: null, body: valid[validSent++], contentType: "application/json", authorization: undefined, route: orderRoute, wrongMethod: false };
    }
    if (queue.length === 0) queue = fc.sample(arb, { numRuns: CHUNK, seed: SEED * 1_000_003 + chunkNo++ });
    return queue.pop()!;
  };

  const worker = async (): Promise<void> => {
    for (let r = next(); r; r = next()) {
      const hashBefore = CONCURRENCY === 1 ? ex.engine.eventHash() : "";
      const seen = unexpected.length;
      let status = 0;
      let body = "";
      try {
        const res = await send(base, r);
        status = res.status;
        body = typeof res.body === "string" ? res.body : JSON.stringify(res.body);
      } catch (e) {
        body = String(e);
      }
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      const url = `/api/v1${r.path}`.slice(0, 200);
      const add = (why: string) => findings.length < 200 && findings.push({ why, method: r.method, url, status, body: body.slice(0, 300) });
      if (status === 0) add("no response");
      else if (CONCURRENCY === 1 && unexpected.length > seen) add("unexpected exception logged");
      else if (status >= 500 && !(status === 503 && r.route?.statuses.includes(503))) add(`server error ${status}`);
      else if (!allowedStatuses(r).has(status) && !(status === 431 && (r.query ? JSON.stringify(r.query).length : 0) > 16_000)) add(`status ${status} not allowed`);
      if (CONCURRENCY === 1 && status >= 400 && ex.engine.eventHash() !== hashBefore) add("rejected request moved the event-log hash");
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - start) / 1000;
  await new Promise<void>((ok) => server.close(() => ok()));

  const statuses = [...byStatus.entries()].sort(([a], [b]) => a - b);
  console.log(`soak: ${sent} requests (${validSent} signed orders) in ${seconds.toFixed(1)} s, ${(sent / seconds).toFixed(0)} req/s, concurrency ${CONCURRENCY}, seed ${SEED}`);
  console.log(`signing ${SIGNED_ORDERS} orders beforehand took ${(signMs / 1000).toFixed(1)} s`);
  console.log(`by status: ${statuses.map(([s, n]) => `${s}: ${n}`).join(", ")}`);
  console.log(`orders in engine: ${ex.engine.listOrders(ALICE).length + ex.engine.listOrders(BOB).length}, fills: ${ex.engine.fillRecords().length}`);
  console.log(`unexpected exceptions logged: ${unexpected.length}`);
  for (const u of unexpected.slice(0, 10)) console.log(`  ${u}`);
  console.log(`findings: ${findings.length}`);
  for (const f of findings.slice(0, 30)) console.log(`  ${f.why}: ${f.method} ${f.url} -> ${f.status} ${f.body}`);
  if (unexpected.length > 0 || findings.length > 0) process.exitCode = 1;
}

await main();
