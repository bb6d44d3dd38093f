// The request journal's cost: requests per second on loopback through the in-memory
// exchange app with and without the journal middleware in front, alternating runs so
// drift on a shared machine hits both alike. Two requests: GET /api/v1/markets (a 4 KB
// answer copied into the entry) and POST /api/v1/orders/preview (a JSON body both ways).
// Besides requests/s it prints this process's CPU time per request (server and load
// generator together, the same load generator both ways): on a machine shared with other
// work, CPU time moves much less with the neighbours than throughput does.
// Run: npx tsx bench/journal.ts   (REQUESTS=20000 CONNECTIONS=16 RUNS=5 by default;
// JOURNAL_SIZE sets the journal's bound, default 10,000)
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import autocannon from "autocannon";
import express from "express";
import { privateKeyToAccount } from "viem/accounts";
import { ANVIL_KEYS } from "../fixtures/accounts.ts";
import { limitOrderBody } from "../sim/core/order-body.ts";
import { API_PREFIX } from "../sim/http/app.ts";
import { createMemoryExchange, MEMORY_EXCHANGE_DEFAULTS } from "../sim/http/exchange-app.ts";
import { RequestJournal } from "../sim/http/journal.ts";
import { median } from "./stats.ts";

const REQUESTS = Number(process.env["REQUESTS"] ?? 20_000);
const CONNECTIONS = Number(process.env["CONNECTIONS"] ?? 16);
const RUNS = Number(process.env["RUNS"] ?? 5);
const JOURNAL_SIZE = process.env["JOURNAL_SIZE"] === undefined ? undefined : Number(process.env["JOURNAL_SIZE"]);

function serve(withJournal: boolean): Promise<{ server: Server; url: string; journal: RequestJournal | null; preview: string }> {
  const mem = createMemoryExchange({ rateLimits: false, logger: { error: () => undefined } });
  const app = express();
  const journal = withJournal ? new RequestJournal(mem.engine, JOURNAL_SIZE === undefined ? {} : { size: JOURNAL_SIZE }) : null;
  if (journal) app.use(API_PREFIX, journal.middleware());
  app.use(mem.app);
  const m = mem.registry.markets()[0]!;
  const preview = JSON.stringify(
    limitOrderBody({
      owner: privateKeyToAccount(ANVIL_KEYS[2]).address.toLowerCase(),
      side: "bid",
      amount: "10",
      price: "1",
      market: m,
      orderId: "5f0e8f4e-3a51-4b8a-9a3e-2b8f4c1d2e3f",
      executorId: MEMORY_EXCHANGE_DEFAULTS.executorId,
      expiration: mem.clock.nowSec() + 3600,
    }),
  );
  const server = createServer(app);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, journal, preview })));
}

/** Requests/s timed at the server (first request in to last answer out) and CPU µs per request. */
async function measure(server: Server, url: string, method: "GET" | "POST", path: string, body?: string): Promise<{ rps: number; cpuUs: number }> {
  let first = 0n;
  let last = 0n;
  const onRequest = (_req: unknown, res: import("node:http").ServerResponse) => {
    if (first === 0n) first = process.hrtime.bigint();
    res.on("finish", () => void (last = process.hrtime.bigint()));
  };
  server.on("request", onRequest);
  const cpu0 = process.cpuUsage();
  // The load generator in a worker thread: it does not share the server's event loop.
  const r = await autocannon({
    url,
    connections: CONNECTIONS,
    amount: REQUESTS,
    workers: 1,
    requests: [{ method, path, ...(body ? { body, headers: { "content-type": "application/json" } } : {}) }],
  });
  const cpu = process.cpuUsage(cpu0);
  server.off("request", onRequest);
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${r.non2xx} non-2xx, ${r.errors} errors at ${url}${path}`);
  return { rps: r["2xx"] / (Number(last - first) / 1e9), cpuUs: (cpu.user + cpu.system) / REQUESTS };
}

const fmt = (xs: number[], unit: string) => `median ${median(xs).toFixed(1)}${unit}, range ${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)}`;

for (const [name, method, path] of [["GET /markets", "GET", "/api/v1/markets"], ["POST /orders/preview", "POST", "/api/v1/orders/preview"]] as const) {
  const off: number[] = [];
  const on: number[] = [];
  const cpuOff: number[] = [];
  const cpuOn: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    for (const withJournal of [false, true]) {
      const s = await serve(withJournal);
      const v = await measure(s.server, s.url, method, path, method === "POST" ? s.preview : undefined);
      (withJournal ? on : off).push(v.rps);
      (withJournal ? cpuOn : cpuOff).push(v.cpuUs);
      if (s.journal && s.journal.length !== Math.min(REQUESTS, s.journal.size)) throw new Error(`journal holds ${s.journal.length} entries`);
      await new Promise((r) => s.server.close(r));
    }
  }
  console.log(`${name}: requests/s without journal ${fmt(off, "")}, with ${fmt(on, "")}; CPU µs/request without ${fmt(cpuOff, "")}, with ${fmt(cpuOn, "")} (+${(median(cpuOn) - median(cpuOff)).toFixed(1)} µs)`);
}
