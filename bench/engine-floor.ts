// What bench:engine's placeParsed work costs on this machine with no per-order
// objects and no bigints: a measurement of the floor, not a second engine.
//
// The same stream (bench/engine-stream.ts), validated by the real Engine's
// validateOrder before timing, is replayed by a column-only matcher doing the
// work placeParsed does per order: the duplicate-id probe (same hash as
// OrderIndex), the equity read, the order's fields, the best-first book walk
// with expiry and self-trade checks, the fill amounts at the maker's price
// (rounded as the engine rounds them, in exact doubles), the freeze, the id
// index insert, the fill columns and both orders' fill links, the event log,
// the status moves and the release of the unused reservation. Everything lives
// in typed arrays; the only heap values kept per order are references the
// input already holds (id, uuid_int, signature). It leaves out what the engine
// does for other inputs (wide amounts, fault spreads, markets whose amounts do
// not fit a double) and never throws a client error: it is a lower bound.
//
// It checks that it makes exactly the engine's fills (same orders, same lots,
// same base and quote amounts, in the same order) and prints, measured side by
// side in each round like bench:engine: nodejs-order-book, placeParsed and the
// floor; `floor_speedup:` (how much faster the floor is than placeParsed) and
// `floor_ratio:` (the floor ÷ nodejs-order-book), about the most any
// representation of this work could give `ratio:` on this machine.
// Usage: npm run bench:engine-floor [-- --orders 200000 --seed 42 --rounds 3 --planned [views,ledger,results]]
import { OrderBook, type LimitOrderOptions } from "nodejs-order-book";
import { VirtualClock } from "../sim/core/clock.ts";
import type { Engine, ParsedOrder } from "../sim/core/engine.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry } from "../sim/core/registry.ts";
import { orderIdHash } from "../sim/core/order-index.ts";
import { arg, bookInput, buildEngine, collect, engineInput, makeStream, SYMBOL } from "./engine-stream.ts";
import { median } from "./stats.ts";

const N = Number(arg("orders", 200_000));
const SEED = arg("seed", 42);
const ROUNDS = Number(arg("rounds", 3));
/**
 * `--planned [views,ledger,results]`: the floor plus what a column engine would still
 * do per order if it kept these parts of today's engine (all three without a list):
 * `views`, a small object per order (the view through which the rest of the engine
 * reads a record); `ledger`, the exact bigint freeze and release on an account object
 * (the stream's owners hold 10^30 raw, beyond a double); `results`, the result object
 * placeParsed returns. An estimate of where such a design would land, part by part.
 */
const PLANNED_PARTS = ["views", "ledger", "results"] as const;
const plannedAt = process.argv.indexOf("--planned");
const plannedList = plannedAt < 0 ? [] : process.argv[plannedAt + 1]?.startsWith("--") === false ? process.argv[plannedAt + 1]!.split(",") : [...PLANNED_PARTS];
for (const part of plannedList) if (!(PLANNED_PARTS as readonly string[]).includes(part)) throw new Error(`--planned takes a list of ${PLANNED_PARTS.join(", ")}; got ${part}`);
const PLANNED = plannedList.length > 0;
const WITH_VIEWS = plannedList.includes("views");
const WITH_LEDGER = plannedList.includes("ledger");
const WITH_RESULTS = plannedList.includes("results");

/** The stream through the real intake (untimed): what placeParsed is handed. */
function parsedInput(stream: ReturnType<typeof makeStream>): { parsed: ParsedOrder[]; baseUnit: number } {
  const engine = buildEngine(SEED);
  const m = new Registry(DEFAULT_REGISTRY_CONFIG).marketBySymbol(SYMBOL)!;
  const parsed = engineInput(stream).map((body) => engine.validateOrder(body));
  return { parsed, baseUnit: 10 ** (m.baseDecimals - m.quantityPrecision) };
}

/** The floor's input: placeParsed's input as numbers (every figure of this stream is below 2^53). */
interface FloorInput {
  n: number;
  bid: Uint8Array;
  ticks: Float64Array;
  lots: Float64Array;
  fromAmount: Float64Array;
  toAmount: Float64Array;
  expiration: Float64Array;
  ids: string[];
  owners: string[];
  uuidInts: bigint[];
  /** The signed from-amounts as the intake hands them over (what the ledger freezes). */
  fromAmountBig: bigint[];
}

function floorInput(parsed: ParsedOrder[]): FloorInput {
  const n = parsed.length;
  const num = (x: bigint) => {
    if (x > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`the floor needs amounts below 2^53, got ${x}`);
    return Number(x);
  };
  const input: FloorInput = {
    n,
    bid: new Uint8Array(n),
    ticks: new Float64Array(n),
    lots: new Float64Array(n),
    fromAmount: new Float64Array(n),
    toAmount: new Float64Array(n),
    expiration: new Float64Array(n),
    ids: [],
    owners: [],
    uuidInts: [],
    fromAmountBig: [],
  };
  parsed.forEach((p, i) => {
    input.bid[i] = p.side === "bid" ? 1 : 0;
    input.ticks[i] = num(p.priceTicks);
    input.lots[i] = num(p.lots);
    input.fromAmount[i] = num(p.fromAmount);
    input.toAmount[i] = num(p.toAmount);
    input.expiration[i] = p.expiration;
    input.ids.push(p.orderId);
    input.owners.push(p.owner);
    input.uuidInts.push(p.uuidInt);
    input.fromAmountBig.push(p.fromAmount);
  });
  return input;
}

const PENDING = 0;
const MATCHED = 1;
const EV_PLACED = 0;
const EV_FILL = 1;

/** One market's resting side: level prices sorted best-last, a FIFO of order handles per level. */
class FloorSide {
  readonly ticks: number[] = [];
  readonly queues: number[][] = [];
  readonly heads: number[] = [];
  constructor(readonly isBid: boolean) {}

  add(h: number, t: number): void {
    const ticks = this.ticks;
    let lo = 0;
    let hi = ticks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.isBid ? ticks[mid]! < t : ticks[mid]! > t) lo = mid + 1;
      else hi = mid;
    }
    if (lo === ticks.length || ticks[lo] !== t) {
      ticks.splice(lo, 0, t);
      this.queues.splice(lo, 0, []);
      this.heads.splice(lo, 0, 0);
    }
    this.queues[lo]!.push(h);
  }

  popBest(): void {
    this.ticks.pop();
    this.queues.pop();
    this.heads.pop();
  }
}

/** --planned: the per-order view object (an engine handle and a position). */
class OrderView {
  constructor(
    readonly engine: FloorEngine,
    readonly h: number,
  ) {}
}

/** --planned: the ledger's account, in exact bigints as the engine keeps it. */
interface BigAccount {
  available: bigint;
  frozen: bigint;
}

/** Column-only placement of already validated orders (see the header). */
class FloorEngine {
  // --planned only.
  private readonly views: OrderView[] = [];
  private readonly bigAccounts: BigAccount[] = [];
  lastResult: { orderId: string; status: number; firstFill: number; fills: number } | null = null;
  private count = 0;
  // Orders, by handle (placement order).
  private readonly bid: Uint8Array;
  private readonly ticks: Float64Array;
  private readonly amountLots: Float64Array;
  private readonly remaining: Float64Array;
  private readonly fromAmount: Float64Array;
  private readonly toAmount: Float64Array;
  private readonly expiration: Float64Array;
  private readonly ownerOf: Int32Array;
  private readonly status: Uint8Array;
  private readonly inBook: Uint8Array;
  private readonly reserved: Float64Array;
  private readonly lastFill: Int32Array;
  private readonly times: Float64Array;
  private readonly ids: string[] = [];
  private readonly uuidInts: bigint[] = [];
  // Duplicate-id index: (handle + 1, hash) pairs, open addressing.
  private table = new Int32Array(2 * 1024);
  private mask = 1023;
  // Ledger: available and frozen per (owner, token), token 0 = base, 1 = quote.
  private readonly ownerIndex = new Map<string, number>();
  private readonly available: Float64Array;
  private readonly frozen: Float64Array;
  // Fills, by id − 1.
  fills = 0;
  readonly fillMaker: Int32Array;
  readonly fillTaker: Int32Array;
  readonly fillLots: Float64Array;
  readonly fillBase: Float64Array;
  readonly fillQuote: Float64Array;
  private readonly fillTakerGive: Float64Array;
  private readonly fillStatus: Uint8Array;
  private readonly fillAt: Float64Array;
  private readonly makerPrev: Int32Array;
  private readonly takerPrev: Int32Array;
  // Event log: kind, time, subject.
  private events = 0;
  private readonly evKind: Uint8Array;
  private readonly evAt: Float64Array;
  private readonly evRef: Int32Array;
  // The plan of the order being placed (reused; nothing is written before it is complete).
  private readonly planMaker: Int32Array;
  private readonly planLots: Float64Array;
  private readonly planBase: Float64Array;
  private readonly planQuote: Float64Array;
  private readonly book = { bids: new FloorSide(true), asks: new FloorSide(false) };

  constructor(
    capacity: number,
    owners: string[],
    credit: number,
    private readonly baseUnit: number,
    private readonly nowSec: number,
    private readonly nowMs: number,
  ) {
    this.bid = new Uint8Array(capacity);
    this.ticks = new Float64Array(capacity);
    this.amountLots = new Float64Array(capacity);
    this.remaining = new Float64Array(capacity);
    this.fromAmount = new Float64Array(capacity);
    this.toAmount = new Float64Array(capacity);
    this.expiration = new Float64Array(capacity);
    this.ownerOf = new Int32Array(capacity);
    this.status = new Uint8Array(capacity);
    this.inBook = new Uint8Array(capacity);
    this.reserved = new Float64Array(capacity);
    this.lastFill = new Int32Array(capacity);
    this.times = new Float64Array(2 * capacity);
    for (const o of owners) if (!this.ownerIndex.has(o)) this.ownerIndex.set(o, this.ownerIndex.size);
    this.available = new Float64Array(2 * this.ownerIndex.size).fill(credit);
    // As buildEngine credits every stream owner.
    for (let a = 0; a < 2 * this.ownerIndex.size; a++) this.bigAccounts.push({ available: 10n ** 30n, frozen: 0n });
    this.frozen = new Float64Array(2 * this.ownerIndex.size);
    const fillCap = capacity * 2;
    this.fillMaker = new Int32Array(fillCap);
    this.fillTaker = new Int32Array(fillCap);
    this.fillLots = new Float64Array(fillCap);
    this.fillBase = new Float64Array(fillCap);
    this.fillQuote = new Float64Array(fillCap);
    this.fillTakerGive = new Float64Array(fillCap);
    this.fillStatus = new Uint8Array(fillCap);
    this.fillAt = new Float64Array(2 * fillCap);
    this.makerPrev = new Int32Array(fillCap);
    this.takerPrev = new Int32Array(fillCap);
    this.evKind = new Uint8Array(capacity + fillCap);
    this.evAt = new Float64Array(capacity + fillCap);
    this.evRef = new Int32Array(capacity + fillCap);
    this.planMaker = new Int32Array(1024);
    this.planLots = new Float64Array(1024);
    this.planBase = new Float64Array(1024);
    this.planQuote = new Float64Array(1024);
  }

  /** The index slot of `id` (≥ 0) or −(empty slot) − 1. */
  private find(id: string, tag: number): number {
    for (let s = tag & this.mask; ; s = (s + 1) & this.mask) {
      const h = this.table[2 * s]!;
      if (h === 0) return -s - 1;
      if (this.table[2 * s + 1] === tag && this.ids[h - 1] === id) return s;
    }
  }

  private growIndex(): void {
    const old = this.table;
    const mask = this.mask * 2 + 1;
    const table = new Int32Array(2 * (mask + 1));
    for (let s = 0; s < old.length; s += 2) {
      if (old[s] === 0) continue;
      let t = old[s + 1]! & mask;
      while (table[2 * t] !== 0) t = (t + 1) & mask;
      table[2 * t] = old[s]!;
      table[2 * t + 1] = old[s + 1]!;
    }
    this.table = table;
    this.mask = mask;
  }

  private log(kind: number, ref: number): void {
    const e = this.events++;
    this.evKind[e] = kind;
    this.evAt[e] = this.nowMs;
    this.evRef[e] = ref;
  }

  /** Place input order `i`; returns its status (−1: duplicate id, −2: equity short, −3: self-trade). */
  place(input: FloorInput, i: number): number {
    const id = input.ids[i]!;
    const tag = orderIdHash(id);
    const slot = this.find(id, tag);
    if (slot >= 0) return -1;
    const owner = this.ownerIndex.get(input.owners[i]!)!;
    const isBid = input.bid[i]!;
    const account = 2 * owner + isBid; // a bid spends the quote token, an ask the base token
    const need = input.fromAmount[i]!;
    if (this.available[account]! < need) return -2;
    if (WITH_LEDGER && this.bigAccounts[account]!.available < input.fromAmountBig[i]!) return -2;
    const takerTicks = input.ticks[i]!;
    const takerLots = input.lots[i]!;
    const takerFrom = input.fromAmount[i]!;
    const takerTo = input.toAmount[i]!;
    // Plan: walk the opposite side best-first.
    const side = isBid ? this.book.asks : this.book.bids;
    let planned = 0;
    let left = takerLots;
    const bu = this.baseUnit;
    for (let li = side.ticks.length - 1; li >= 0 && left > 0; li--) {
      const levelTicks = side.ticks[li]!;
      if (isBid ? levelTicks > takerTicks : levelTicks < takerTicks) break;
      const queue = side.queues[li]!;
      // Lazy removal, as the engine's levels do: skip dead entries at the head, drop an empty best level.
      let head = side.heads[li]!;
      while (head < queue.length && this.inBook[queue[head]!] === 0) head++;
      if (head > 64 && head * 2 > queue.length) {
        queue.splice(0, head);
        head = 0;
      }
      side.heads[li] = head;
      if (head === queue.length) {
        if (li === side.ticks.length - 1) side.popBest();
        continue;
      }
      for (let q = head; q < queue.length && left > 0; q++) {
        const m = queue[q]!;
        if (this.inBook[m] === 0) continue;
        if (this.expiration[m]! <= this.nowSec) continue;
        if (this.ownerOf[m] === owner) return -3;
        const makerLots = this.amountLots[m]!;
        const rem = this.remaining[m]!;
        const lots = left < rem ? left : rem;
        const baseRaw = lots * bu;
        // Maker amounts in base units cancel baseUnit, which keeps every product below 2^53.
        let quoteRaw: number;
        if (lots === makerLots) quoteRaw = isBid ? this.toAmount[m]! : this.fromAmount[m]!;
        else if (isBid) quoteRaw = Math.ceil((lots * this.toAmount[m]!) / makerLots);
        else quoteRaw = Math.floor((lots * this.fromAmount[m]!) / makerLots);
        const ok = isBid ? quoteRaw > 0 && quoteRaw * takerLots <= lots * takerFrom : quoteRaw > 0 && quoteRaw * takerLots >= lots * takerTo;
        if (!ok) {
          li = -1;
          break;
        }
        this.planMaker[planned] = m;
        this.planLots[planned] = lots;
        this.planBase[planned] = baseRaw;
        this.planQuote[planned] = quoteRaw;
        planned++;
        left -= lots;
      }
    }
    // Commit.
    const h = this.count++;
    this.bid[h] = isBid;
    this.ticks[h] = takerTicks;
    this.amountLots[h] = takerLots;
    this.remaining[h] = takerLots;
    this.fromAmount[h] = takerFrom;
    this.toAmount[h] = takerTo;
    this.expiration[h] = input.expiration[i]!;
    this.ownerOf[h] = owner;
    this.status[h] = PENDING;
    this.reserved[h] = need;
    this.lastFill[h] = 0;
    this.times[2 * h] = this.nowMs;
    this.times[2 * h + 1] = this.nowMs;
    this.ids.push(id);
    this.uuidInts.push(input.uuidInts[i]!);
    this.available[account] = this.available[account]! - need;
    if (WITH_LEDGER) {
      const acc = this.bigAccounts[account]!;
      const needBig = input.fromAmountBig[i]!;
      acc.available -= needBig;
      acc.frozen += needBig;
    }
    if (WITH_VIEWS) this.views.push(new OrderView(this, h));
    this.frozen[account] = this.frozen[account]! + need;
    const empty = -slot - 1;
    this.table[2 * empty] = h + 1;
    this.table[2 * empty + 1] = tag;
    if (this.count * 2 > this.mask + 1) this.growIndex();
    this.log(EV_PLACED, h);
    for (let k = 0; k < planned; k++) {
      const m = this.planMaker[k]!;
      const lots = this.planLots[k]!;
      const f = this.fills++;
      this.fillMaker[f] = m;
      this.fillTaker[f] = h;
      this.fillLots[f] = lots;
      this.fillBase[f] = this.planBase[k]!;
      this.fillQuote[f] = this.planQuote[k]!;
      this.fillTakerGive[f] = isBid ? this.planQuote[k]! : this.planBase[k]!;
      this.fillStatus[f] = PENDING;
      this.fillAt[2 * f] = this.nowMs;
      this.fillAt[2 * f + 1] = this.nowMs;
      this.makerPrev[f] = this.lastFill[m]!;
      this.takerPrev[f] = this.lastFill[h]!;
      this.lastFill[m] = f + 1;
      this.lastFill[h] = f + 1;
      this.remaining[m] = this.remaining[m]! - lots;
      this.remaining[h] = this.remaining[h]! - lots;
      this.times[2 * m + 1] = this.nowMs;
      this.log(EV_FILL, f);
      if (this.remaining[m] === 0) {
        this.inBook[m] = 0;
        this.moveToMatched(m);
      }
    }
    if (this.remaining[h]! > 0) {
      (isBid ? this.book.bids : this.book.asks).add(h, takerTicks);
      this.inBook[h] = 1;
      if (WITH_RESULTS) this.lastResult = { orderId: id, status: PENDING, firstFill: planned > 0 ? this.fills - planned + 1 : 0, fills: planned };
      return PENDING;
    }
    this.moveToMatched(h);
    if (WITH_RESULTS) this.lastResult = { orderId: id, status: MATCHED, firstFill: this.fills - planned + 1, fills: planned };
    return MATCHED;
  }

  /** pending → matched: release what the order froze beyond its fills still to settle. */
  private moveToMatched(h: number): void {
    this.status[h] = MATCHED;
    this.times[2 * h + 1] = this.nowMs;
    let inflight = 0;
    for (let f = this.lastFill[h]!; f !== 0; ) {
      const k = f - 1;
      const asMaker = this.fillMaker[k] === h;
      if (this.fillStatus[k] === PENDING) inflight += asMaker ? (this.bid[h] ? this.fillQuote[k]! : this.fillBase[k]!) : this.fillTakerGive[k]!;
      f = asMaker ? this.makerPrev[k]! : this.takerPrev[k]!;
    }
    const unused = this.reserved[h]! - inflight;
    if (unused > 0) {
      const account = 2 * this.ownerOf[h]! + this.bid[h]!;
      this.frozen[account] = this.frozen[account]! - unused;
      this.available[account] = this.available[account]! + unused;
      if (WITH_LEDGER) {
        const acc = this.bigAccounts[account]!;
        const u = BigInt(unused);
        acc.frozen -= u;
        acc.available += u;
      }
      this.reserved[h] = inflight;
    }
  }
}

const stream = makeStream(N, SEED);
const { parsed, baseUnit } = parsedInput(stream);
const input = floorInput(parsed);
const bookIn: LimitOrderOptions[] = bookInput(stream);
const clock = new VirtualClock();
// The credit must stay exact in doubles: 2^52 raw is far above what the stream spends.
const FLOOR_CREDIT = 2 ** 52;

function runFloor(count: number): { perSec: number; floor: FloorEngine } {
  const floor = new FloorEngine(count, input.owners, FLOOR_CREDIT, baseUnit, clock.nowSec(), clock.nowMs());
  const t0 = performance.now();
  for (let i = 0; i < count; i++) if (floor.place(input, i) < 0) throw new Error(`floor refused order ${i}`);
  return { perSec: (count / (performance.now() - t0)) * 1000, floor };
}

function runEngine(count: number): { perSec: number; engine: Engine } {
  const engine = buildEngine(SEED);
  const t0 = performance.now();
  for (let i = 0; i < count; i++) engine.placeParsed(parsed[i]!);
  return { perSec: (count / (performance.now() - t0)) * 1000, engine };
}

function runOrderBook(count: number): number {
  const ob = new OrderBook();
  const t0 = performance.now();
  for (let i = 0; i < count; i++) ob.limit(bookIn[i]!);
  return (count / (performance.now() - t0)) * 1000;
}

/** The floor must make the engine's fills: same maker and taker (by placement), lots and amounts. */
function checkSameFills(engine: Engine, floor: FloorEngine): void {
  if (engine.fillCount() !== floor.fills) throw new Error(`fills differ: engine ${engine.fillCount()}, floor ${floor.fills}`);
  const seqOf = new Map(parsed.map((p, i) => [p.orderId, i]));
  const records = engine.fillRecords();
  for (let k = 0; k < floor.fills; k++) {
    const f = records[k]!;
    const same =
      seqOf.get(f.makerOrderId) === floor.fillMaker[k] &&
      seqOf.get(f.takerOrderId) === floor.fillTaker[k] &&
      Number(f.lots) === floor.fillLots[k] &&
      Number(f.baseRaw) === floor.fillBase[k] &&
      Number(f.quoteRaw) === floor.fillQuote[k];
    if (!same) throw new Error(`fill ${f.id} differs between the engine and the floor`);
  }
}

// Warm-up on a prefix, then alternate the three in each round (fresh instances), medians reported.
runOrderBook(20_000);
runOrderBook(20_000);
for (let w = 0; w < 2; w++) {
  runEngine(20_000);
  runFloor(20_000);
}
const bookRates: number[] = [];
const engineRates: number[] = [];
const floorRates: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  collect();
  bookRates.push(runOrderBook(N));
  collect();
  const e = runEngine(N);
  engineRates.push(e.perSec);
  collect();
  const f = runFloor(N);
  floorRates.push(f.perSec);
  if (r === ROUNDS - 1) checkSameFills(e.engine, f.floor);
}
const fmt = (x: number) => Math.round(x).toLocaleString("en-US");
const nsPer = (rate: number) => `${Math.round(1e9 / rate)} ns/order`;
console.log(`stream: ${N} limit orders, seed ${SEED}, market ${SYMBOL}, ${ROUNDS} rounds (median); the floor made the engine's ${fmt(input.n)} orders' fills exactly`);
console.log(`nodejs-order-book: ${fmt(median(bookRates))} orders/s (${nsPer(median(bookRates))})  [${bookRates.map(fmt).join(", ")}]`);
console.log(`engine placeParsed: ${fmt(median(engineRates))} orders/s (${nsPer(median(engineRates))})  [${engineRates.map(fmt).join(", ")}]`);
console.log(`floor (columns, no bigints${PLANNED ? `, --planned: + ${plannedList.join(", ")}` : ""}): ${fmt(median(floorRates))} orders/s (${nsPer(median(floorRates))})  [${floorRates.map(fmt).join(", ")}]`);
// The floor against placeParsed needs no third library: it holds when nodejs-order-book has a slow run.
console.log(`floor_speedup: ${(median(floorRates) / median(engineRates)).toFixed(2)} (placeParsed time ÷ the floor's)`);
console.log(`placeparsed_ratio: ${(median(engineRates) / median(bookRates)).toFixed(2)}`);
console.log(`floor_ratio: ${(median(floorRates) / median(bookRates)).toFixed(2)}`);
