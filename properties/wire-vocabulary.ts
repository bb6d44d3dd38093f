// The codes a response body may carry, and a walker that finds any other. The
// vocabulary: the spec's error_code table (the POST /swap subset is part of it) plus
// the codes the live service is seen to send (CANCEL_COOLDOWN), for `error_code` and
// `code` keys; the spec's batch-quote list for `rejectionCategory`. Used by
// `fakex conformance` on every response it sees and by the HTTP fuzz tests.

import { WIRE_ERROR_CODES } from "../sim/core/errors.ts";
import { REJECTION_CATEGORIES } from "../sim/core/quotes.ts";

export { REJECTION_CATEGORIES, WIRE_ERROR_CODES };

/** One out-of-vocabulary code: where in the body (JSON path), under which key, what value. */
export interface StrayCode {
  path: string;
  key: "error_code" | "code" | "rejectionCategory";
  value: unknown;
}

const CODE_KEYS: Readonly<Record<StrayCode["key"], readonly string[]>> = {
  error_code: WIRE_ERROR_CODES,
  code: WIRE_ERROR_CODES,
  rejectionCategory: REJECTION_CATEGORIES,
};

/**
 * Every `error_code`, `code` or `rejectionCategory` anywhere in a parsed JSON body
 * whose value is outside its vocabulary. null means "no code" (an order without a
 * failure) and is fine; any other non-listed value, a number included, is stray.
 */
export function strayWireCodes(body: unknown): StrayCode[] {
  const out: StrayCode[] = [];
  const walk = (v: unknown, path: string): void => {
    if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, `${path}[${i}]`));
      return;
    }
    if (v === null || typeof v !== "object") return;
    for (const [k, x] of Object.entries(v)) {
      const at = path === "" ? k : `${path}.${k}`;
      if (Object.hasOwn(CODE_KEYS, k) && x !== null) {
        const key = k as StrayCode["key"];
        if (typeof x !== "string" || !CODE_KEYS[key].includes(x)) out.push({ path: at, key, value: x });
        continue;
      }
      walk(x, at);
    }
  };
  walk(body, "");
  return out;
}
