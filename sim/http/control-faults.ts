// Forced failures and latency on chosen /api/v1 routes, set through the control
// API: a middleware in front of the exchange app. A rule matches a method (or
// any) and a path under /api/v1 (exact, or a prefix when it ends in "*"); it
// delays the request by `latency_ms` of real time (this is the HTTP edge, not the
// simulator: the virtual clock does not move) and/or answers 503 with the
// spec's envelope. `times` limits how many requests a rule affects.
import type { RequestHandler } from "express";
import { ExchangeError } from "../core/errors.ts";
import { SERVICE_UNAVAILABLE_DETAIL } from "./errors.ts";

export interface RouteFaultRule {
  /** HTTP method, upper case; absent = any. */
  method?: string;
  /** Path under /api/v1 ("/orders", "/swap/quote"); a trailing "*" makes it a prefix ("/orders*"). */
  path: string;
  /** Answer 503 (Retry-After: 1) instead of serving the request. */
  fail?: boolean;
  /** Real delay before the request is served (or failed), ms. */
  latency_ms?: number;
  /** How many matching requests the rule applies to; absent = until cleared. */
  times?: number;
}

export const MAX_FAULT_LATENCY_MS = 60_000;
const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);

function invalid(detail: string): ExchangeError {
  return new ExchangeError("VALIDATION", 400, `route faults: ${detail}`);
}

/** Validate a list of rules from JSON; returns normalised copies. */
export function parseRouteFaultRules(input: unknown): RouteFaultRule[] {
  if (!Array.isArray(input)) throw invalid("rules must be an array");
  return input.map((r: unknown, i) => {
    if (r === null || typeof r !== "object" || Array.isArray(r)) throw invalid(`rules[${i}] must be an object`);
    const o = r as Record<string, unknown>;
    for (const k of Object.keys(o)) if (!["method", "path", "fail", "latency_ms", "times"].includes(k)) throw invalid(`rules[${i}]: unknown key ${k}`);
    if (typeof o.path !== "string" || !o.path.startsWith("/") || o.path.length > 200) throw invalid(`rules[${i}].path must be a path starting with "/"`);
    const rule: RouteFaultRule = { path: o.path };
    if (o.method !== undefined) {
      if (typeof o.method !== "string" || !METHODS.has(o.method.toUpperCase())) throw invalid(`rules[${i}].method must be an HTTP method`);
      rule.method = o.method.toUpperCase();
    }
    if (o.fail !== undefined) {
      if (typeof o.fail !== "boolean") throw invalid(`rules[${i}].fail must be true or false`);
      rule.fail = o.fail;
    }
    if (o.latency_ms !== undefined) {
      if (!Number.isInteger(o.latency_ms) || (o.latency_ms as number) < 0 || (o.latency_ms as number) > MAX_FAULT_LATENCY_MS) {
        throw invalid(`rules[${i}].latency_ms must be an integer 0-${MAX_FAULT_LATENCY_MS}`);
      }
      rule.latency_ms = o.latency_ms as number;
    }
    if (o.times !== undefined) {
      if (!Number.isInteger(o.times) || (o.times as number) < 1) throw invalid(`rules[${i}].times must be an integer >= 1`);
      rule.times = o.times as number;
    }
    if (!rule.fail && !rule.latency_ms) throw invalid(`rules[${i}] needs fail: true or a positive latency_ms`);
    return rule;
  });
}

export class RouteFaults {
  private rules: RouteFaultRule[] = [];

  set(rules: readonly RouteFaultRule[]): void {
    this.rules = rules.map((r) => ({ ...r }));
  }

  clear(): void {
    this.rules = [];
  }

  list(): RouteFaultRule[] {
    return this.rules.map((r) => ({ ...r }));
  }

  snapshot(): RouteFaultRule[] {
    return this.list();
  }

  restore(rules: readonly RouteFaultRule[]): void {
    this.set(rules);
  }

  /** The rule for this request, counting it against `times`. */
  take(method: string, path: string): RouteFaultRule | undefined {
    const i = this.rules.findIndex((r) => (r.method === undefined || r.method === method) && matches(r.path, path));
    if (i < 0) return undefined;
    const rule = this.rules[i]!;
    if (rule.times !== undefined) {
      if (rule.times <= 1) this.rules.splice(i, 1);
      else this.rules[i] = { ...rule, times: rule.times - 1 };
    }
    return rule;
  }

  /** Express middleware, mounted at the API prefix (req.path is relative to it). */
  middleware(): RequestHandler {
    return (req, res, next) => {
      if (this.rules.length === 0) return next();
      const rule = this.take(req.method, req.path);
      if (!rule) return next();
      const act = () => {
        if (!rule.fail) return next();
        res.status(503).set("Retry-After", "1").json({ detail: SERVICE_UNAVAILABLE_DETAIL });
      };
      if (rule.latency_ms) setTimeout(act, rule.latency_ms);
      else act();
    };
  }
}

function matches(pattern: string, path: string): boolean {
  const p = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  return pattern.endsWith("*") ? p.startsWith(pattern.slice(0, -1)) : p === pattern;
}
