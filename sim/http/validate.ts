// Schema validation for requests: one zod schema per route, failures become an
// ExchangeError with the status the spec gives for that route (400 or 422) and a
// detail a person can read ("query.base: required; query.quote: must be alphabetic").

import type { z } from "zod";
import { ExchangeError } from "../core/errors.ts";

export type RequestSource = "body" | "query" | "params";

export interface ValidateOptions {
  /** 422 (FastAPI-style validation failure) unless the spec says 400 for the route. */
  status?: 400 | 422;
}

/**
 * An issue in words, where zod's own default would print its internals ("Invalid input:
 * expected number, received undefined", "must match pattern /^…$/"). Custom messages pass.
 */
export function issueText(i: z.core.$ZodIssue): string {
  if (i.code === "invalid_type") {
    if (/received undefined$/.test(i.message)) return "is required";
    if (i.message.startsWith("Invalid input")) return `must be ${/^[aeiou]/.test(i.expected) ? "an" : "a"} ${i.expected}`;
  }
  if (i.code === "invalid_format" && i.message.startsWith("Invalid string: must match pattern")) return "is not in this field's form";
  return i.message;
}

/** Zod issues → "source.path: message; ..." (first few issues; enough to fix the request). */
export function describeIssues(source: RequestSource, issues: readonly z.core.$ZodIssue[], value?: unknown): string {
  const parts = issues.slice(0, 5).map((i) => {
    const where = [source, ...i.path.map(String)].join(".");
    // A query key given twice arrives as an array: say so rather than the schema's "is required".
    if (source === "query" && Array.isArray(valueAt(value, i.path))) return `${where}: given more than once; send it once`;
    return `${where}: ${issueText(i)}`;
  });
  if (issues.length > 5) parts.push(`and ${issues.length - 5} more`);
  return parts.join("; ");
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const k of path) v = v !== null && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/** Parse `value` with `schema`, or throw the route's validation error. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, source: RequestSource, opts: ValidateOptions = {}): z.output<S> {
  const res = schema.safeParse(value);
  if (res.success) return res.data;
  const body = source === "body" && (value === undefined || value === null || typeof value !== "object")
    ? "body: request body must be a JSON object"
    : describeIssues(source, res.error.issues, value);
  throw new ExchangeError("VALIDATION", opts.status ?? 422, body);
}
