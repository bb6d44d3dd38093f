// kill -9 at random points of a seeded workload against `fakex serve --state-dir`,
// restart on the same directory each time, and check what survived:
// - every acknowledged request is there: each order that got 201 has its order_placed
//   event, each transaction hash rpc_url returned has a receipt, the clock is at least
//   at the last acknowledged clock move;
// - nothing is applied twice or half: no order id has more than one order_placed event,
//   and the restarted server replayed every logged request with the answer it logged
//   (it says so on stderr otherwise);
// - replay is deterministic: every `verifyEvery`-th crash point is restarted twice from
//   copies of the same directory, and both give the same event-log hash; at the end a
//   SIGTERM and a restart give the same hash again.
// Three workers run at once (orders that cross each other, ERC-20 transfers through
// rpc_url, settlement, clock moves, vault funding), so the kill usually lands with
// requests in flight.
//
//   npx tsx bench/crash-test.ts                 # 50 crash points, seed 1
//   POINTS=60 SEED=7 npx tsx bench/crash-test.ts
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createWalletClient, erc20Abi, http, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { limitOrderBody } from "../sim/core/order-body.ts";
import { exchangeDomain } from "../sim/core/typed-data.ts";
import { createSigners } from "../fixtures/signing.ts";

const BIN = fileURLToPath(new URL("../bin/fakex.js", import.meta.url));
const WORKERS = 3;

interface Info {
  base_url: string;
  rpc_url: string;
  control_url: string;
  chain_id: number;
  executor_id: number;
  contracts: { exchange: Address; tokens: Record<string, Address> };
  accounts: { address: Address; private_key: Hex }[];
}

interface Server {
  child: ChildProcess;
  info: Info;
  err(): string;
  exited: Promise<number | null>;
}

export interface CrashTestOptions {
  points: number;
  seed: number;
  /** Restart twice from copies (determinism) at every n-th point (0: never). */
  verifyEvery: number;
  /** "virtual" with explicit settlement, or "wall" with auto-settle rounds too. */
  clock: "virtual" | "wall";
  log?: (line: string) => void;
}

export interface CrashTestResult {
  points: number;
  acknowledged: { orders: number; txs: number; clockMoves: number; other: number };
  inFlightAtKill: number;
  failures: string[];
}

/** Seeded stream (mulberry32): the workload is the same for the same seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function uuid(r: () => number): string {
  const h = Array.from({ length: 32 }, () => Math.floor(r() * 16).toString(16));
  h[12] = "4";
  h[16] = "8";
  return `${h.slice(0, 8).join("")}-${h.slice(8, 12).join("")}-${h.slice(12, 16).join("")}-${h.slice(16, 20).join("")}-${h.slice(20).join("")}`;
}

function serve(dir: string, clock: "virtual" | "wall"): Promise<Server> {
  const args = ["serve", "--state-dir", dir, "--clock", clock, "--auto-settle", clock === "wall" ? "100" : "0", "--no-liquidity", "--users", String(WORKERS), "--port", "0"];
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (!out.includes("\n}\n")) return;
      clearInterval(timer);
      resolve({ child, info: JSON.parse(out.slice(out.indexOf("\n") + 1)) as Info, err: () => err, exited });
    }, 20);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`serve exited (${code}): ${err}`));
    });
  });
}

async function call(url: string, method: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method, headers: { "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, body: await res.json() };
}

interface Ledger {
  ackedOrders: Set<string>;
  triedOrders: Set<string>;
  ackedTxs: Hex[];
  ackedClockSec: number;
  other: number;
  inFlight: number;
}

/** One worker's next operation on server `s`; records what was acknowledged. */
async function step(s: Server, w: number, r: () => number, l: Ledger, market: { base: string; quote: string }): Promise<void> {
  const info = s.info;
  const me = info.accounts[w]!;
  const x = r();
  l.inFlight++;
  try {
    if (x < 0.55) {
      const id = uuid(r);
      l.triedOrders.add(id);
      const side = r() < 0.5 ? "bid" : "ask";
      const price = (0.98 + Math.floor(r() * 5) / 100).toFixed(2);
      const amount = String(11 + Math.floor(r() * 5));
      const now = (await call(`${info.control_url}/clock`, "GET")).body.now as number;
      const preview = await call(`${info.base_url}/orders/preview`, "POST", limitOrderBody({ owner: me.address.toLowerCase(), side, amount, price, market, orderId: id, executorId: info.executor_id, expiration: now + 3600 }));
      if (preview.status !== 200) throw new Error(`preview ${preview.status} ${JSON.stringify(preview.body)}`);
      const signers = createSigners(() => exchangeDomain("fakex", info.chain_id, info.contracts.exchange));
      const { body } = await signers.signOrder(me.private_key, preview.body);
      const placed = await call(`${info.base_url}/orders`, "POST", body);
      if (placed.status === 201) l.ackedOrders.add(id);
    } else if (x < 0.7) {
      const chain = { id: info.chain_id, name: "fakex", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [info.rpc_url] } } };
      const wallet = createWalletClient({ account: privateKeyToAccount(me.private_key), chain, transport: http(info.rpc_url) });
      const to = info.accounts[(w + 1) % WORKERS]!.address;
      const hash = await wallet.writeContract({ address: info.contracts.tokens["USDC"]!, abi: erc20Abi, functionName: "transfer", args: [to, BigInt(1 + Math.floor(r() * 1000))] });
      l.ackedTxs.push(hash);
    } else if (x < 0.8) {
      if ((await call(`${info.control_url}/settle`, "POST")).status === 200) l.other++;
    } else if (x < 0.9) {
      const a = await call(`${info.control_url}/clock/advance`, "POST", { seconds: 1 + Math.floor(r() * 3) });
      if (a.status === 200) l.ackedClockSec = Math.max(l.ackedClockSec, (await call(`${info.control_url}/clock`, "GET")).body.now as number);
    } else {
      const f = await call(`${info.control_url}/fund`, "POST", { address: me.address, token: r() < 0.5 ? "USDT" : "USDC", amount: String(10 ** 6 * (1 + Math.floor(r() * 100))), vault: true });
      if (f.status === 200) l.other++;
    }
  } finally {
    l.inFlight--;
  }
}

/** What the restarted server must show; failures as lines. */
async function check(s: Server, l: Ledger, label: string): Promise<string[]> {
  const out: string[] = [];
  const info = s.info;
  const placed = new Map<string, number>();
  for (let after = 0; ; ) {
    const page = (await call(`${info.control_url}/events?after=${after}&limit=1000`, "GET")).body as { events: { type: string; data: { order_id?: string } }[]; next_after: number | null };
    for (const e of page.events) if (e.type === "order_placed" && typeof e.data?.order_id === "string") placed.set(e.data.order_id, (placed.get(e.data.order_id) ?? 0) + 1);
    if (page.next_after === null) break;
    after = page.next_after;
  }
  for (const id of l.ackedOrders) if (!placed.has(id)) out.push(`${label}: acknowledged order ${id} is missing`);
  for (const id of l.triedOrders) if ((placed.get(id) ?? 0) > 1) out.push(`${label}: order ${id} placed ${placed.get(id)} times`);
  const receipts = await Promise.all(
    l.ackedTxs.map(async (h) => (await call(info.rpc_url, "POST", { jsonrpc: "2.0", id: 1, method: "eth_getTransactionReceipt", params: [h] })).body.result),
  );
  receipts.forEach((rc, i) => rc || out.push(`${label}: acknowledged transaction ${l.ackedTxs[i]} has no receipt`));
  const now = (await call(`${info.control_url}/clock`, "GET")).body.now as number;
  if (now < l.ackedClockSec) out.push(`${label}: clock ${now} is behind the acknowledged ${l.ackedClockSec}`);
  if (s.err().includes("answered differently")) out.push(`${label}: replay diverged: ${s.err()}`);
  return out;
}

async function eventHash(s: Server): Promise<string> {
  return (await call(`${s.info.control_url}/events/hash`, "GET")).body.hash as string;
}

/**
 * The events recovered from the directory, as JSON: those stamped before `beforeMs`. With
 * the wall clock and auto-settle, rounds run as soon as a server is up, at wall times
 * after the downtime, so two restarts of the same directory differ after that point.
 */
async function recoveredEvents(s: Server, beforeMs: number): Promise<string> {
  const out: unknown[] = [];
  for (let after = 0; ; ) {
    const page = (await call(`${s.info.control_url}/events?after=${after}&limit=1000`, "GET")).body as { events: { at: number }[]; next_after: number | null };
    out.push(...page.events.filter((e) => e.at < beforeMs));
    if (page.next_after === null) break;
    after = page.next_after;
  }
  return JSON.stringify(out);
}

async function kill9(s: Server): Promise<void> {
  s.child.kill("SIGKILL");
  await s.exited;
}

export async function runCrashTest(o: CrashTestOptions): Promise<CrashTestResult> {
  const log = o.log ?? (() => undefined);
  const r = rng(o.seed);
  const root = mkdtempSync(path.join(tmpdir(), "fakex-crash-test-"));
  const dir = path.join(root, "state");
  const l: Ledger = { ackedOrders: new Set(), triedOrders: new Set(), ackedTxs: [], ackedClockSec: 0, other: 0, inFlight: 0 };
  const failures: string[] = [];
  let inFlightAtKill = 0;
  let s = await serve(dir, o.clock);
  try {
    const m = (await call(`${s.info.base_url}/markets`, "GET")).body.markets.find((x: { base_symbol: string }) => x.base_symbol === "USDT");
    const market = { base: m.base_address as string, quote: m.quote_address as string };
    for (const a of s.info.accounts) {
      for (const token of ["USDT", "USDC"]) await call(`${s.info.control_url}/fund`, "POST", { address: a.address, token, amount: String(10 ** 12), vault: true });
    }
    for (let point = 1; point <= o.points; point++) {
      // Run until a seeded number of acknowledgements, then kill with the workers mid-request.
      const target = 3 + Math.floor(r() * 12);
      const acks = () => l.ackedOrders.size + l.ackedTxs.length + l.other;
      const start = acks();
      let stop = false;
      const workers = Array.from({ length: WORKERS }, async (_, w) => {
        const wr = rng(o.seed * 1000 + point * 10 + w);
        while (!stop) await step(s, w, wr, l, market).catch((e: unknown) => process.env["DEBUG"] && console.error(String(e).slice(0, 300)));
      });
      while (acks() - start < target) await new Promise((res) => setTimeout(res, 2));
      await new Promise((res) => setTimeout(res, Math.floor(r() * 15)));
      // Server time at the kill (a second of margin): later events were made after a restart.
      const killedAtMs = o.clock === "wall" ? ((await call(`${s.info.control_url}/clock`, "GET")).body.now as number) * 1000 + 2000 : Infinity;
      inFlightAtKill += l.inFlight;
      await kill9(s);
      stop = true;
      await Promise.all(workers);
      if (o.verifyEvery > 0 && point % o.verifyEvery === 0) {
        // Determinism: two restarts from copies of the same crashed directory agree.
        const copy = path.join(root, `copy-${point}`);
        cpSync(dir, copy, { recursive: true });
        const a = await serve(copy, o.clock);
        const ea = await recoveredEvents(a, killedAtMs);
        await kill9(a);
        s = await serve(dir, o.clock);
        const eb = await recoveredEvents(s, killedAtMs);
        if (ea !== eb) {
          const [xa, xb] = [JSON.parse(ea) as unknown[], JSON.parse(eb) as unknown[]];
          const at = xa.findIndex((e, i) => JSON.stringify(e) !== JSON.stringify(xb[i]));
          failures.push(`point ${point}: two replays of the same directory differ (${xa.length} vs ${xb.length} events; first difference: ${JSON.stringify(xa[at])} vs ${JSON.stringify(xb[at])})`);
        }
        rmSync(copy, { recursive: true, force: true });
      } else s = await serve(dir, o.clock);
      failures.push(...(await check(s, l, `point ${point}`)));
      log(`point ${point}/${o.points}: ${l.ackedOrders.size} orders, ${l.ackedTxs.length} txs acknowledged so far; ${failures.length} failures`);
    }
    // A clean stop and start: the same event log (auto-settle off in between: nothing else moves it).
    if (o.clock === "wall") await new Promise((res) => setTimeout(res, 500));
    const before = await eventHash(s);
    s.child.kill("SIGTERM");
    if ((await s.exited) !== 0) failures.push(`SIGTERM: exit code not 0: ${s.err()}`);
    s = await serve(dir, o.clock);
    const after = await eventHash(s);
    if (before !== after) failures.push(`SIGTERM restart: event-log hash ${after}, before ${before}`);
    failures.push(...(await check(s, l, "after SIGTERM")));
  } finally {
    if (s.child.exitCode === null && s.child.signalCode === null) await kill9(s);
    rmSync(root, { recursive: true, force: true });
  }
  return {
    points: o.points,
    acknowledged: { orders: l.ackedOrders.size, txs: l.ackedTxs.length, clockMoves: l.ackedClockSec > 0 ? 1 : 0, other: l.other },
    inFlightAtKill,
    failures,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const points = Number(process.env["POINTS"] ?? 50);
  const seed = Number(process.env["SEED"] ?? 1);
  const clocks = (process.env["CLOCK"] ?? "virtual,wall").split(",") as ("virtual" | "wall")[];
  let failed = 0;
  for (const clock of clocks) {
    const t0 = performance.now();
    const res = await runCrashTest({ points, seed, verifyEvery: 5, clock, log: (line) => console.log(`[${clock}] ${line}`) });
    console.log(
      `[${clock}] ${res.points} crash points in ${((performance.now() - t0) / 1000).toFixed(0)} s: acknowledged ${res.acknowledged.orders} orders, ${res.acknowledged.txs} transactions, ${res.acknowledged.other} settle/fund calls; ${res.inFlightAtKill} requests in flight at the kills; ${res.failures.length} failures`,
    );
    for (const f of res.failures) console.log(`  FAIL ${f.slice(0, 600)}`);
    failed += res.failures.length;
  }
  process.exit(failed === 0 ? 0 : 1);
}
