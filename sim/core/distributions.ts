// Draws beyond the uniform ones of rng.ts, for latency faults and market
// activity: deterministic functions of the seeded Rng (Math.log / exp / cos are
// the same on every run of one Node build).
import type { Rng } from "./rng.ts";

/** Standard normal by Box–Muller; 1 - float() is in (0, 1], so the log is finite. */
export function standardNormal(rng: Rng): number {
  const u1 = 1 - rng.float();
  const u2 = rng.float();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** Poisson count with mean `lambda` (Knuth's product of uniforms), capped at `cap`. */
export function poisson(rng: Rng, lambda: number, cap: number): number {
  if (!(lambda > 0)) return 0;
  const limit = Math.exp(-lambda);
  let k = 0;
  let p = rng.float();
  while (p > limit && k < cap) {
    k++;
    p *= rng.float();
  }
  return k;
}
