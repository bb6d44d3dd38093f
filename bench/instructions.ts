// Fixed-work driver for instruction-count A/B runs under valgrind (wall-clock
// figures are noise on a loaded two-core host; retired instructions are not).
// One path per process, on the bench:engine stream, so the count of the path is
//   Ir(--orders N) - Ir(--orders 0)
// (the second run pays the same start-up and warm-up). Prints the event-log hash,
// which must not change with any optimisation.
// Usage: valgrind --tool=cachegrind --cache-sim=no node --single-threaded \
//          --hash-seed=1 --random-seed=1 --import tsx bench/instructions.ts --path e2e|place|validate|book --orders 20000
import { OrderBook, Side } from "nodejs-order-book";
import { VirtualClock } from "../sim/core/clock.ts";
import { Engine, type ParsedOrder } from "../sim/core/engine.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry } from "../sim/core/registry.ts";
import { MemoryChain } from "../sim/chain/memory.ts";
import { limitOrderBody } from "../sim/core/order-body.ts";
import { formatUnits } from "../sim/core/amounts.ts";
import { Rng } from "../sim/core/rng.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

const PATH = arg("path", "e2e");
const N = Number(arg("orders", "20000"));
const WARM = 5_000;
const SEED = "42";
const SYMBOL = "EURC/USDC";

// The same stream as bench/engine.ts (seed 42): even positions cross the mid.
function makeStream(n: number) {
  const rng = new Rng(`bench-stream:${SEED}`);
  const out: { side: "bid" | "ask"; ticks: number; lots: number; owner: number; id: string }[] = [];
  for (let i = 0; i < n; i++) {
    const side = rng.chance(0.5) ? "bid" : "ask";
    const off = 1 + rng.int(50);
    const crossing = i % 2 === 0;
    const ticks = side === "bid" ? (crossing ? 110_000 + off : 110_000 - off) : crossing ? 110_000 - off : 110_000 + off;
    out.push({ side, ticks, lots: 1000 + rng.int(99_000), owner: rng.int(64), id: rng.uuid4() });
  }
  return out;
}

const owner = (side: "bid" | "ask", k: number) => `0x${(side === "bid" ? "b" : "a").repeat(2)}${k.toString(16).padStart(38, "0")}`;

function buildEngine(): Engine {
  const clock = new VirtualClock();
  const registry = new Registry(DEFAULT_REGISTRY_CONFIG);
  const engine = new Engine({ seed: SEED, clock, registry, executorId: 1, chain: new MemoryChain({ clock }) });
  const m = registry.marketBySymbol(SYMBOL)!;
  for (const side of ["bid", "ask"] as const) for (let k = 0; k < 64; k++) engine.creditDeposit(owner(side, k), side === "bid" ? m.quote : m.base, 10n ** 30n);
  return engine;
}

const stream = makeStream(WARM + N);
const m = new Registry(DEFAULT_REGISTRY_CONFIG).marketBySymbol(SYMBOL)!;
const expiration = new VirtualClock().nowSec() + 86_400;
const bodies = stream.map((o) =>
  limitOrderBody({ owner: owner(o.side, o.owner), side: o.side, amount: formatUnits(BigInt(o.lots), 2), price: formatUnits(BigInt(o.ticks), 5), market: m, orderId: o.id, executorId: 1, expiration }),
);

// Warm-up on a separate instance (same for every N), then the measured N on a fresh one.
function run(from: number, to: number): string {
  if (PATH === "book") {
    const ob = new OrderBook();
    for (let i = from; i < to; i++) { const o = stream[i]!; ob.limit({ id: o.id, side: o.side === "bid" ? Side.BUY : Side.SELL, size: o.lots, price: o.ticks }); }
    return "-";
  }
  const engine = buildEngine();
  if (PATH === "e2e") for (let i = from; i < to; i++) engine.placeOrder(bodies[i]!);
  else {
    const parsed: ParsedOrder[] = [];
    // validate: the parse is the measured work; place: parsing happens in both runs alike (N and 0 differ only in placing)
    for (let i = from; i < to; i++) parsed.push(engine.validateOrder(bodies[i]!));
    if (PATH === "place") for (const p of parsed) engine.placeParsed(p);
  }
  return engine.log.hash();
}
run(0, WARM);
const hash = run(WARM, WARM + N);
process.stdout.write(`path ${PATH} orders ${N} log hash ${hash}\n`);
