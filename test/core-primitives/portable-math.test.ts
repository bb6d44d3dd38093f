// The seeded draws' exp, log and square root (sim/core/portable-math.ts): close to
// Math's, and pinned bit for bit, since a changed last bit moves a seeded market's
// prices and latency faults' delays.
import { describe, expect, test } from "vitest";
import { portableExp, portableLog, portableSqrt } from "../../sim/core/portable-math.ts";
import { poisson, standardNormal } from "../../sim/core/distributions.ts";
import { midOf, stepWalk } from "../../sim/core/market-walk.ts";
import { Rng } from "../../sim/core/rng.ts";

const EPSILON = 2 ** -52;

/** |a − b| in units of b's last place (relative, as both are far from the subnormals here). */
function ulps(a: number, b: number): number {
  return Math.abs(a - b) / (Math.abs(b) * EPSILON);
}

describe("portable exp, log and sqrt", () => {
  test("within a few ulp of Math's over their whole range (seeded inputs)", () => {
    const rng = new Rng("portable-math");
    let worst = { exp: 0, log: 0, sqrt: 0 };
    for (let i = 0; i < 20_000; i++) {
      const x = (rng.float() - 0.5) * 1400;
      const y = Math.exp((rng.float() - 0.5) * 1400);
      const u = 1 - rng.float();
      worst = {
        exp: Math.max(worst.exp, ulps(portableExp(x), Math.exp(x))),
        log: Math.max(worst.log, ulps(portableLog(y), Math.log(y)), ulps(portableLog(u), Math.log(u))),
        sqrt: Math.max(worst.sqrt, ulps(portableSqrt(y), Math.sqrt(y)), ulps(portableSqrt(u), Math.sqrt(u))),
      };
    }
    expect(worst.exp).toBeLessThan(8);
    expect(worst.log).toBeLessThan(8);
    expect(worst.sqrt).toBeLessThan(2);
  });

  test("special values, the ends of the range and subnormals", () => {
    expect([portableExp(0), portableExp(NaN), portableExp(710), portableExp(-746), portableExp(-Infinity)]).toEqual([1, NaN, Infinity, 0, 0]);
    expect(ulps(portableExp(709.7), Math.exp(709.7))).toBeLessThan(8);
    expect(portableExp(-745)).toBe(5e-324);
    expect([portableLog(1), portableLog(0), portableLog(-1), portableLog(Infinity), portableLog(NaN)]).toEqual([0, -Infinity, NaN, Infinity, NaN]);
    expect(portableLog(5e-324)).toBeCloseTo(Math.log(5e-324), 10);
    expect([portableSqrt(0), portableSqrt(-1), portableSqrt(Infinity), portableSqrt(4), portableSqrt(1e-300 * 1e-10)]).toEqual([0, NaN, Infinity, 2, Math.sqrt(1e-310)]);
  });

  test("pinned bits: these figures are what every Node version computes (a change here moves seeded markets)", () => {
    expect([portableExp(1), portableExp(-2.5), portableLog(10), portableLog(0.001), portableSqrt(2)]).toEqual([
      2.7182818284590446, 0.0820849986238988, 2.302585092994046, -6.907755278982137, 1.414213562373095,
    ]);
  });
});

describe("the seeded draws built on them", () => {
  test("standard normal: pinned first draws; mean 0 and variance 1 over a long seeded sample", () => {
    const pinned = new Rng("golden");
    expect([standardNormal(pinned), standardNormal(pinned), standardNormal(pinned)]).toEqual([-1.5763138456979124, -0.04963799530449551, 1.1330010695756225]);
    const rng = new Rng("normal-moments");
    let sum = 0;
    let squares = 0;
    const n = 50_000;
    for (let i = 0; i < n; i++) {
      const z = standardNormal(rng);
      sum += z;
      squares += z * z;
    }
    expect(Math.abs(sum / n)).toBeLessThan(0.02);
    expect(Math.abs(squares / n - 1)).toBeLessThan(0.03);
  });

  test("poisson: the sample mean is lambda", () => {
    const rng = new Rng("poisson-mean");
    let sum = 0;
    for (let i = 0; i < 20_000; i++) sum += poisson(rng, 3, 50);
    expect(Math.abs(sum / 20_000 - 3)).toBeLessThan(0.05);
  });

  test("the market walk: one seed gives one path of mid prices, within its band", () => {
    const path = (seed: string) => {
      const rng = new Rng(seed);
      let dev = 0;
      const mids: bigint[] = [];
      for (let i = 0; i < 500; i++) {
        dev = stepWalk(dev, 0.002, 5, rng);
        mids.push(midOf(110_000n, dev));
      }
      return mids;
    };
    const a = path("walk");
    expect(path("walk")).toEqual(a);
    expect(path("walk-2")).not.toEqual(a);
    // ±walkBand(0.002) = ±4 % of the anchor in log terms.
    for (const m of a) expect(m >= 105_000n && m <= 115_000n).toBe(true);
  });
});
