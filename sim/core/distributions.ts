// Draws beyond the uniform ones of rng.ts, for latency faults and market
// activity: functions of the seeded Rng computed with portable-math.ts, so a seed
// draws the same numbers on every Node version and platform.
import { portableExp, portableLog, portableSqrt } from "./portable-math.ts";
import type { Rng } from "./rng.ts";

/**
 * Standard normal by Marsaglia's polar method: a uniform point of the unit disc (pairs
 * outside it drawn again), which needs a log and a square root but no cosine.
 */
export function standardNormal(rng: Rng): number {
  for (;;) {
    const v1 = 2 * rng.float() - 1;
    const v2 = 2 * rng.float() - 1;
    const s = v1 * v1 + v2 * v2;
    if (s > 0 && s < 1) return v1 * portableSqrt((-2 * portableLog(s)) / s);
  }
}

/** Poisson count with mean `lambda` (Knuth's product of uniforms), capped at `cap`. */
export function poisson(rng: Rng, lambda: number, cap: number): number {
  if (!(lambda > 0)) return 0;
  const limit = portableExp(-lambda);
  let k = 0;
  let p = rng.float();
  while (p > limit && k < cap) {
    k++;
    p *= rng.float();
  }
  return k;
}
