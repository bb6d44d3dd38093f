// The seeded order stream both engine benchmarks replay (bench/engine.ts and
// bench/engine-floor.ts), so their figures are about the same orders.
import { Rng } from "../sim/core/rng.ts";

export const OWNERS_PER_SIDE = 64;
export const SYMBOL = "EURC/USDC";

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
