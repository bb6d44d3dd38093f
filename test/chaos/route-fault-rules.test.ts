// Route fault rules as data: what parses, what is refused (400 with the field named),
// seeded fractions, and latency distributions that are seeded and bounded.
import { describe, expect, test } from "vitest";
import { Rng } from "../../sim/core/rng.ts";
import { ExchangeError } from "../../sim/core/errors.ts";
import { RouteFaults, failKind, parseRouteFaultRules } from "../../sim/http/control-faults.ts";
import { MAX_FAULT_LATENCY_MS, drawLatency, parseLatency, type LatencySpec } from "../../sim/http/route-faults-latency.ts";

function refused(rules: unknown): string {
  try {
    parseRouteFaultRules(rules);
  } catch (e) {
    expect(e).toBeInstanceOf(ExchangeError);
    expect((e as ExchangeError).status).toBe(400);
    return (e as ExchangeError).message;
  }
  throw new Error(`accepted ${JSON.stringify(rules)}`);
}

describe("route fault rules", () => {
  test("fail kinds, after_commit, fraction and latency distributions parse; true still means 503", () => {
    const rules = parseRouteFaultRules([
      { path: "/orders", method: "post", fail: "timeout", after_commit: true, times: 2 },
      { path: "/swap", fail: "reset", fraction: 0.25 },
      { path: "/withdraw", fail: "truncate", after_commit: false },
      { path: "/tokens", fail: true },
      { path: "/markets", latency_ms: { dist: "uniform", min: 5, max: 50 } },
      { path: "/fills*", fail: 503, latency_ms: { dist: "lognormal", median: 80, sigma: 0.5, max: 2000 } },
    ]);
    expect(rules[0]).toEqual({ path: "/orders", method: "POST", fail: "timeout", after_commit: true, times: 2 });
    expect(rules.map(failKind)).toEqual(["timeout", "reset", "truncate", 503, null, 503]);
  });

  test("bad rules are refused naming the field", () => {
    expect(refused([{ path: "/orders", fail: "explode" }])).toContain("rules[0].fail");
    // A misspelt key is refused, not dropped (a dropped "times" would fail every request).
    expect(refused([{ path: "/orders", fail: 503, tims: 2 }])).toBe("VALIDATION: route faults: rules[0]: unknown key tims");
    expect(refused([{ path: "/orders", after_commit: true }])).toContain("after_commit needs a fail");
    expect(refused([{ path: "/orders", fail: 503, after_commit: "yes" }])).toContain("after_commit");
    expect(refused([{ path: "/orders", fail: 503, fraction: 0 }])).toContain("fraction");
    expect(refused([{ path: "/orders", fail: 503, fraction: 1.5 }])).toContain("fraction");
    expect(refused([{ path: "/orders", latency_ms: { dist: "uniform", min: 9, max: 3 } }])).toContain("latency_ms");
    expect(refused([{ path: "/orders", latency_ms: { dist: "lognormal", sigma: 1 } }])).toContain("median");
    expect(refused([{ path: "/orders", latency_ms: { dist: "lognormal", median: 10, mu: 2, sigma: 1 } }])).toContain("exactly one");
    expect(refused([{ path: "/orders", latency_ms: { dist: "pareto" } }])).toContain("dist");
    expect(refused([{ path: "/orders", latency_ms: MAX_FAULT_LATENCY_MS + 1 }])).toContain("latency_ms");
    expect(refused([{ path: "/orders", latency_ms: { dist: "uniform", min: 0, max: 0 } }])).toContain("needs fail (true");
    // Paths are under /api/v1: a rule repeating the prefix could never match, so it is refused with the path to write.
    expect(refused([{ path: "/api/v1/tokens", fail: 503 }])).toContain('rules[0].path is relative to /api/v1: write "/tokens"');
    expect(refused([{ path: "/api/v1", fail: 503 }])).toContain('write "/"');
    expect(refused([{ path: "/p1/api/v1/orders", fail: 503 }])).toContain('write "/orders"');
    expect(refused([{ path: "/API/V1/orders", fail: 503 }])).toContain('write "/orders"');
    expect(refused([{ path: "//api/v1/orders*", fail: 503 }])).toContain('write "/orders*"');
    expect(refused([{ path: "/api/v1*", fail: 503 }])).toContain('write "/*"');
  });

  test("fraction: the same seed picks the same requests; times counts only the picked ones", () => {
    const picks = (seed: string) => {
      const f = new RouteFaults(new Rng(seed));
      f.set(parseRouteFaultRules([{ path: "/orders", fail: 503, fraction: 0.3, times: 5 }]));
      return Array.from({ length: 60 }, () => (f.take("POST", "/orders") ? 1 : 0));
    };
    const a = picks("7/route-faults");
    expect(picks("7/route-faults")).toEqual(a);
    expect(picks("8/route-faults")).not.toEqual(a);
    expect(a.reduce((s: number, x) => s + x, 0)).toBe(5);
  });

  test("a rule matches its method only, its path exactly (a trailing slash aside) or, ending in *, as a prefix", () => {
    const f = new RouteFaults(new Rng(1));
    f.set(parseRouteFaultRules([{ method: "POST", path: "/orders", fail: true }, { path: "/swap*", fail: "reset" }]));
    const orders = { method: "POST", path: "/orders", fail: true };
    const swap = { path: "/swap*", fail: "reset" };
    expect(f.take("GET", "/orders")).toBeUndefined();
    expect(f.take("POST", "/orders")).toEqual(orders);
    expect(f.take("POST", "/orders/")).toEqual(orders);
    expect(f.take("POST", "/orders/preview")).toBeUndefined();
    expect(f.take("GET", "/swap")).toEqual(swap);
    expect(f.take("DELETE", "/swap/quote")).toEqual(swap);
    expect(f.take("GET", "/swa")).toBeUndefined();
  });

  test("fraction: a matching request is affected when the seeded draw says so, with that probability, not the rest", () => {
    const f = new RouteFaults(new Rng("fraction-picks"));
    f.set(parseRouteFaultRules([{ path: "/orders", fail: 503, fraction: 0.2 }]));
    const picked = Array.from({ length: 100 }, () => f.take("POST", "/orders") !== undefined);
    // The same seed, drawn once per matching request: the requests the rule must pick.
    const draws = new Rng("fraction-picks");
    expect(picked).toEqual(Array.from({ length: 100 }, () => draws.chance(0.2)));
    expect(picked.filter(Boolean).length).toBeLessThan(50);
  });

  test("times: a rule affects that many requests, then is gone; 0 or a fraction of one is refused", () => {
    const f = new RouteFaults(new Rng(1));
    f.set(parseRouteFaultRules([{ path: "/tokens", fail: true, times: 2 }]));
    expect([f.take("GET", "/tokens"), f.list()]).toEqual([{ path: "/tokens", fail: true, times: 2 }, [{ path: "/tokens", fail: true, times: 1 }]]);
    expect([f.take("GET", "/tokens"), f.list()]).toEqual([{ path: "/tokens", fail: true, times: 1 }, []]);
    expect(f.take("GET", "/tokens")).toBeUndefined();
    expect(refused([{ path: "/tokens", fail: true, times: 0 }])).toBe("VALIDATION: route faults: rules[0].times must be an integer >= 1");
    expect(refused([{ path: "/tokens", fail: true, times: 1.5 }])).toBe("VALIDATION: route faults: rules[0].times must be an integer >= 1");
  });

  test("snapshot and restore bring back the rules and the Rng (the same picks again)", () => {
    const f = new RouteFaults(new Rng(3));
    f.set(parseRouteFaultRules([{ path: "/swap", fail: "reset", fraction: 0.5 }]));
    const s = f.snapshot();
    const first = Array.from({ length: 20 }, () => Boolean(f.take("POST", "/swap")));
    f.restore(s);
    expect(Array.from({ length: 20 }, () => Boolean(f.take("POST", "/swap")))).toEqual(first);
    // A state written before the Rng was kept: a bare list of rules.
    f.restore([{ path: "/x", fail: true }]);
    expect(f.list()).toEqual([{ path: "/x", fail: true }]);
  });
});

describe("latency distributions", () => {
  const draws = (spec: LatencySpec, seed: number, n = 2000) => {
    const rng = new Rng(seed);
    return Array.from({ length: n }, () => drawLatency(spec, rng));
  };

  test("a fixed number draws nothing from the Rng", () => {
    const rng = new Rng(1);
    const before = rng.snapshot();
    expect(drawLatency(250, rng)).toBe(250);
    expect(rng.snapshot()).toEqual(before);
  });

  test("uniform: seeded, whole ms, inside [min, max], reaching both ends", () => {
    const spec = parseLatency({ dist: "uniform", min: 10, max: 20 }, "latency_ms");
    const a = draws(spec, 5);
    expect(draws(spec, 5)).toEqual(a);
    expect(draws(spec, 6)).not.toEqual(a);
    expect(a.every((x) => Number.isInteger(x) && x >= 10 && x <= 20)).toBe(true);
    expect(Math.min(...a)).toBe(10);
    expect(Math.max(...a)).toBe(20);
  });

  test("lognormal: seeded, median near the given one, capped by max and by the global cap", () => {
    const spec = parseLatency({ dist: "lognormal", median: 100, sigma: 1, max: 400 }, "latency_ms");
    const a = draws(spec, 9);
    expect(draws(spec, 9)).toEqual(a);
    expect(a.every((x) => Number.isInteger(x) && x >= 0 && x <= 400)).toBe(true);
    expect(a.filter((x) => x === 400).length).toBeGreaterThan(0); // the tail hits the cap
    const sorted = [...a].sort((x, y) => x - y);
    const median = sorted[sorted.length / 2]!;
    expect(median).toBeGreaterThan(85);
    expect(median).toBeLessThan(118);
    // mu form, no max: a heavy tail still stops at MAX_FAULT_LATENCY_MS.
    const wild = draws(parseLatency({ dist: "lognormal", mu: Math.log(20_000), sigma: 5 }, "latency_ms"), 2);
    expect(Math.max(...wild)).toBe(MAX_FAULT_LATENCY_MS);
    expect(wild.every((x) => x >= 0 && x <= MAX_FAULT_LATENCY_MS)).toBe(true);
  });
});
