// Engine throughput against nodejs-order-book on one seeded stream of limit
// orders (half of them crossing). placeOrder = validateOrder (field checks,
// decimals, uuid_int; the HTTP edge's job) + placeParsed (duplicate id, equity,
// STP, matching at the maker's price with exact bigint amounts, ledger, fills
// and events) — the same Engine the HTTP layer drives. The ratio line is
// placeParsed against nodejs-order-book; `end_to_end_ratio:` (placeOrder against
// nodejs-order-book) comes just before it. Settlement is not part of the timed loops.
// Usage: npm run bench:engine [-- --orders 200000 --seed 42]
import { OrderBook, type LimitOrderOptions } from "nodejs-order-book";
import type { Engine, OrderBody, ParsedOrder } from "../sim/core/engine.ts";
import { arg, bookInput, buildEngine as buildFundedEngine, collect, engineInput, makeStream, SYMBOL } from "./engine-stream.ts";
import { median } from "./stats.ts";

const N = Number(arg("orders", 200_000));
const SEED = arg("seed", 42);
const buildEngine = (): Engine => buildFundedEngine(SEED);

type BookInput = LimitOrderOptions[];

/** End to end: Engine.placeOrder on each body (validation + matching). */
function runEngine(input: OrderBody[]): { perSec: number; fills: number; engine: Engine } {
  const engine = buildEngine();
  const t0 = performance.now();
  for (const b of input) engine.placeOrder(b);
  const ms = performance.now() - t0;
  return { perSec: (input.length / ms) * 1000, fills: engine.fillCount(), engine };
}

/**
 * The same two halves placeOrder runs, timed apart: validateOrder over every
 * body (the HTTP edge's share), then placeParsed over the results (match +
 * ledger + fills + events). Same Engine class, same calls the server makes.
 */
function runEngineSplit(input: OrderBody[]): { parsePerSec: number; placePerSec: number; fills: number; engine: Engine } {
  const engine = buildEngine();
  const parsed: ParsedOrder[] = new Array(input.length);
  const t0 = performance.now();
  for (let i = 0; i < input.length; i++) parsed[i] = engine.validateOrder(input[i]!);
  const t1 = performance.now();
  for (let i = 0; i < parsed.length; i++) engine.placeParsed(parsed[i]!);
  const t2 = performance.now();
  return { parsePerSec: (input.length / (t1 - t0)) * 1000, placePerSec: (input.length / (t2 - t1)) * 1000, fills: engine.fillCount(), engine };
}

function runOrderBook(input: BookInput): { perSec: number } {
  const ob = new OrderBook();
  const t0 = performance.now();
  for (const o of input) ob.limit(o);
  const ms = performance.now() - t0;
  return { perSec: (input.length / ms) * 1000 };
}

const ROUNDS = Number(arg("rounds", 3));
const stream = makeStream(N, SEED);
const engIn = engineInput(stream);
const bookIn = bookInput(stream);
// Warm both code paths up on a short prefix so neither pays for JIT alone.
runOrderBook(bookIn.slice(0, 20_000));
runOrderBook(bookIn.slice(0, 20_000));
runEngine(engIn.slice(0, 20_000));
runEngineSplit(engIn.slice(0, 20_000));

const profile = process.env.FAKEX_BENCH_PROFILE === "1" ? await import("node:inspector/promises") : null;
const session = profile ? new profile.Session() : null;
if (session) {
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
}
// Alternate the runs in each round (fresh instances) and report medians.
const bookRates: number[] = [];
const engRates: number[] = [];
const parseRates: number[] = [];
const e2eRates: number[] = [];
let fills = 0;
let logHash = "";
for (let r = 0; r < ROUNDS; r++) {
  collect();
  bookRates.push(runOrderBook(bookIn).perSec);
  collect();
  const s = runEngineSplit(engIn);
  engRates.push(s.placePerSec);
  parseRates.push(s.parsePerSec);
  collect();
  const e = runEngine(engIn);
  e2eRates.push(e.perSec);
  if (e.fills !== s.fills) throw new Error(`split and end-to-end runs disagree: ${s.fills} vs ${e.fills} fills`);
  fills = e.fills;
  // Outside the timed loops: both entry points must leave the same event log, and
  // its hash is the stream's fingerprint (it must not move with any optimisation).
  if (r === ROUNDS - 1) {
    logHash = e.engine.log.hash();
    if (s.engine.log.hash() !== logHash) throw new Error("split and end-to-end runs left different event logs");
  }
}
if (session) {
  const { profile: p } = await session.post("Profiler.stop");
  (await import("node:fs")).writeFileSync(process.env.FAKEX_BENCH_PROFILE_OUT ?? "engine.cpuprofile", JSON.stringify(p));
}
const fmt = (x: number) => Math.round(x).toLocaleString("en-US");
console.log(`stream: ${N} limit orders, seed ${SEED}, half crossing, market ${SYMBOL}, ${ROUNDS} rounds (median)`);
console.log(`nodejs-order-book: ${fmt(median(bookRates))} orders/s  [${bookRates.map(fmt).join(", ")}]`);
console.log(`engine validateOrder (HTTP edge, not in the ratio): ${fmt(median(parseRates))} orders/s  [${parseRates.map(fmt).join(", ")}]`);
console.log(`event log hash: ${logHash}`);
console.log(`engine end to end, placeOrder (validate + match): ${fmt(median(e2eRates))} orders/s  [${e2eRates.map(fmt).join(", ")}]`);
console.log(`engine placeParsed (match + ledger + fills + events): ${fmt(median(engRates))} orders/s  [${engRates.map(fmt).join(", ")}]  (${fills} fills)`);
console.log(`end_to_end_ratio: ${(median(e2eRates) / median(bookRates)).toFixed(2)}`);
console.log(`ratio: ${(median(engRates) / median(bookRates)).toFixed(2)}`);
