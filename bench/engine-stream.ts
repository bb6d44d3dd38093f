// What both engine benchmarks share (bench/engine.ts and bench/engine-floor.ts), so their
// figures are about the same orders on the same engine: the seeded stream, its POST /orders
// bodies and nodejs-order-book input, the funded engine, the command line and a full GC.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Side, type LimitOrderOptions } from "nodejs-order-book";
import { formatUnits } from "../sim/core/amounts.ts";
import { VirtualClock } from "../sim/core/clock.ts";
import { Engine, type OrderBody } from "../sim/core/engine.ts";
import { limitOrderBody } from "../sim/core/order-body.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry } from "../sim/core/registry.ts";
import { Rng } from "../sim/core/rng.ts";
import { MemoryChain } from "../sim/chain/memory.ts";

export const OWNERS_PER_SIDE = 64;
export const SYMBOL = "EURC/USDC";
export const EXECUTOR_ID = 1;

/** `--name value` from the command line, or the fallback. */
export function arg(name: string, fallback: number | string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : String(fallback);
}

// A full collection before each timed run, so no run pays for the garbage the
// previous one (of either library) left behind.
setFlagsFromString("--expose-gc");
export const collect = runInNewContext("gc") as () => void;

export interface StreamOrder {
  side: "bid" | "ask";
  /** Price in ticks and size in lots (integers on the market grid). */
  ticks: number;
  lots: number;
  owner: number;
  id: string;
}

/** Seeded stream: even positions cross the mid (they take), odd ones rest away from it. */
export function makeStream(n: number, seed: string): StreamOrder[] {
  const rng = new Rng(`bench-stream:${seed}`);
  const mid = 110_000; // 1.10000 at tick precision 5
  const out: StreamOrder[] = [];
  for (let i = 0; i < n; i++) {
    const side = rng.chance(0.5) ? "bid" : "ask";
    const off = 1 + rng.int(50);
    const crossing = i % 2 === 0;
    const ticks = side === "bid" ? (crossing ? mid + off : mid - off) : crossing ? mid - off : mid + off;
    const lots = 1000 + rng.int(99_000); // 10.00 .. 999.99 units at quantity precision 2
    out.push({ side, ticks, lots, owner: rng.int(OWNERS_PER_SIDE), id: rng.uuid4() });
  }
  return out;
}

export function ownerAddress(side: "bid" | "ask", k: number): string {
  // Bids and asks come from disjoint owner sets, so STP never rejects a stream order.
  return `0x${(side === "bid" ? "b" : "a").repeat(2)}${k.toString(16).padStart(38, "0")}`;
}

/** An engine with every stream owner funded (bids in the quote token, asks in the base). */
export function buildEngine(seed: string): Engine {
  const clock = new VirtualClock();
  const registry = new Registry(DEFAULT_REGISTRY_CONFIG);
  const chain = new MemoryChain({ clock });
  const engine = new Engine({ seed, clock, registry, executorId: EXECUTOR_ID, chain });
  const m = registry.marketBySymbol(SYMBOL)!;
  for (const side of ["bid", "ask"] as const) {
    for (let k = 0; k < OWNERS_PER_SIDE; k++) {
      engine.creditDeposit(ownerAddress(side, k), side === "bid" ? m.quote : m.base, 10n ** 30n);
    }
  }
  return engine;
}

/**
 * POST /orders bodies as the HTTP layer hands them over (built before timing): parsed from
 * JSON text, as express.json() makes them, each with a 65-byte signature of its own, which
 * placeOrder reads (the route passes its own, already read: validateOrder's second argument).
 */
export function engineInput(stream: StreamOrder[]): OrderBody[] {
  const registry = new Registry(DEFAULT_REGISTRY_CONFIG);
  const m = registry.marketBySymbol(SYMBOL)!;
  const expiration = new VirtualClock().nowSec() + 86_400;
  return stream.map((o) => {
    const body = limitOrderBody({
      owner: ownerAddress(o.side, o.owner),
      side: o.side,
      amount: formatUnits(BigInt(o.lots), m.quantityPrecision),
      price: formatUnits(BigInt(o.ticks), m.tickPrecision),
      market: m,
      orderId: o.id,
      executorId: EXECUTOR_ID,
      expiration,
    });
    const digits = o.id.replace(/-/g, "");
    return JSON.parse(JSON.stringify({ ...body, signature: `0x${digits}${digits}${digits}${digits.slice(0, 32)}1b` })) as OrderBody;
  });
}

/** The same orders as nodejs-order-book limit orders (ticks and lots). */
export function bookInput(stream: StreamOrder[]): LimitOrderOptions[] {
  return stream.map((o) => ({ id: o.id, side: o.side === "bid" ? Side.BUY : Side.SELL, size: o.lots, price: o.ticks }));
}
