// Latency of a route rule: a fixed number of ms, or a distribution drawn per
// request from the route faults' seeded Rng (same seed and request sequence ⇒
// same delays). Every draw is bounded: a uniform by its max, a lognormal by its
// `max` when given, and every draw by MAX_FAULT_LATENCY_MS (60 s), so a heavy
// tail never holds a request for minutes.
import { ExchangeError } from "../core/errors.ts";
import { standardNormal } from "../core/distributions.ts";
import { portableExp, portableLog } from "../core/portable-math.ts";
import type { Rng } from "../core/rng.ts";

export const MAX_FAULT_LATENCY_MS = 60_000;

export type LatencySpec =
  | number
  | { dist: "uniform"; min: number; max: number }
  /** Median exp(mu); give median (ms) or mu (log-ms), and sigma; max caps the draw. */
  | { dist: "lognormal"; median?: number; mu?: number; sigma: number; max?: number };

function invalid(where: string, detail: string): ExchangeError {
  return new ExchangeError("VALIDATION", 400, `route faults: ${where} ${detail}`);
}

const isMs = (x: unknown): x is number => typeof x === "number" && Number.isInteger(x) && x >= 0 && x <= MAX_FAULT_LATENCY_MS;

/** Validate latency_ms from JSON; `where` names the field in errors ("rules[0].latency_ms"). */
export function parseLatency(input: unknown, where: string): LatencySpec {
  if (typeof input === "number") {
    if (!isMs(input)) throw invalid(where, `must be an integer 0-${MAX_FAULT_LATENCY_MS}`);
    return input;
  }
  if (input === null || typeof input !== "object" || Array.isArray(input)) throw invalid(where, 'must be a number or {"dist": "uniform"|"lognormal", ...}');
  const o = input as Record<string, unknown>;
  if (o.dist === "uniform") {
    for (const k of Object.keys(o)) if (!["dist", "min", "max"].includes(k)) throw invalid(where, `unknown key ${k}`);
    if (!isMs(o.min) || !isMs(o.max) || o.min > o.max) throw invalid(where, `uniform needs integers 0 <= min <= max <= ${MAX_FAULT_LATENCY_MS}`);
    return { dist: "uniform", min: o.min, max: o.max };
  }
  if (o.dist === "lognormal") {
    for (const k of Object.keys(o)) if (!["dist", "median", "mu", "sigma", "max"].includes(k)) throw invalid(where, `unknown key ${k}`);
    if ((o.median === undefined) === (o.mu === undefined)) throw invalid(where, "lognormal needs exactly one of median (ms) and mu (log ms)");
    if (o.median !== undefined && (typeof o.median !== "number" || !(o.median > 0) || o.median > MAX_FAULT_LATENCY_MS)) {
      throw invalid(where, `lognormal median must be a number in (0, ${MAX_FAULT_LATENCY_MS}]`);
    }
    if (o.mu !== undefined && (typeof o.mu !== "number" || !Number.isFinite(o.mu) || portableExp(o.mu) > MAX_FAULT_LATENCY_MS)) {
      throw invalid(where, `lognormal mu must be finite with exp(mu) <= ${MAX_FAULT_LATENCY_MS}`);
    }
    if (typeof o.sigma !== "number" || !(o.sigma >= 0) || o.sigma > 5) throw invalid(where, "lognormal sigma must be a number in [0, 5]");
    if (o.max !== undefined && !isMs(o.max)) throw invalid(where, `lognormal max must be an integer 0-${MAX_FAULT_LATENCY_MS}`);
    return {
      dist: "lognormal",
      ...(o.median !== undefined ? { median: o.median as number } : { mu: o.mu as number }),
      sigma: o.sigma,
      ...(o.max !== undefined ? { max: o.max } : {}),
    };
  }
  throw invalid(where, 'dist must be "uniform" or "lognormal"');
}

/** True when the spec can never delay (0, or a distribution pinned at 0). */
export function isZeroLatency(spec: LatencySpec | undefined): boolean {
  if (spec === undefined) return true;
  if (typeof spec === "number") return spec === 0;
  if (spec.dist === "uniform") return spec.max === 0;
  return spec.max === 0;
}

/** One delay in whole ms, within [0, MAX_FAULT_LATENCY_MS]; draws from rng only for distributions. */
export function drawLatency(spec: LatencySpec, rng: Rng): number {
  if (typeof spec === "number") return spec;
  if (spec.dist === "uniform") return spec.min + rng.int(spec.max - spec.min + 1);
  const z = standardNormal(rng);
  const mu = spec.mu ?? portableLog(spec.median!);
  const cap = Math.min(spec.max ?? MAX_FAULT_LATENCY_MS, MAX_FAULT_LATENCY_MS);
  return Math.min(cap, Math.max(0, Math.round(portableExp(mu + spec.sigma * z))));
}
