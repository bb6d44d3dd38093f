// Generators of malformed (and a few well-formed) /api/v1 requests, shared by the
// fast-check fuzz suite (test/reliability/fuzz-http.test.ts) and the soak script
// (bench/soak.ts). A request starts from a route's plausible template and is then
// broken in one or more ways: a field dropped, added or replaced by junk of another
// type, the whole body replaced by broken JSON or an oversized blob, the method
// swapped, the path mangled, the credentials spoiled. Not a test file itself.

import fc from "fast-check";

export type Auth = "none" | "key" | "sig" | "optional";
export type Envelope = "plain" | "typed" | "preview" | "swapQuote";

export interface RouteSpec {
  method: "GET" | "POST" | "DELETE";
  /** Path under /api/v1; `:id` is replaced by an order id (or junk). */
  path: string;
  auth: Auth;
  /** Mounted only with funds services (a chain node). */
  funds?: boolean;
  /** Where the template's fields travel. */
  input: "body" | "query" | "none";
  /** Statuses the spec allows this route to answer, for any input. */
  statuses: readonly number[];
  envelope: Envelope;
}

// Every route of the spec's endpoint tables. Statuses: the route's documented ones
// plus the request-level 4xx every JSON route can answer (415/413/422 for bodies that
// are not JSON objects, 400/422 for validation, 404 for unknown ids). 503 appears only
// where the spec documents it for the route itself (FX without data).
const BODY_4XX = [400, 413, 415, 422] as const;
const KEY_4XX = [401, 403, 429] as const;
export const ROUTES: readonly RouteSpec[] = [
  { method: "GET", path: "/health", auth: "none", input: "none", statuses: [200], envelope: "plain" },
  { method: "GET", path: "/system/time", auth: "none", input: "none", statuses: [200], envelope: "plain" },
  { method: "GET", path: "/tokens", auth: "none", input: "none", statuses: [200], envelope: "plain" },
  { method: "GET", path: "/markets", auth: "none", input: "none", statuses: [200], envelope: "plain" },
  { method: "GET", path: "/config", auth: "none", input: "none", statuses: [200], envelope: "plain" },
  { method: "GET", path: "/fx/rate", auth: "none", input: "query", statuses: [200, 400, 422, 503], envelope: "plain" },
  { method: "POST", path: "/verify-signature", auth: "none", input: "body", statuses: [200, ...BODY_4XX], envelope: "plain" },
  { method: "POST", path: "/orders/preview", auth: "none", input: "body", statuses: [200, ...BODY_4XX], envelope: "preview" },
  { method: "POST", path: "/orders", auth: "sig", input: "body", statuses: [201, ...BODY_4XX, 409, 429], envelope: "typed" },
  { method: "POST", path: "/orders/cancel", auth: "sig", input: "body", statuses: [200, ...BODY_4XX, 404, 409, 429], envelope: "plain" },
  { method: "DELETE", path: "/orders/cancel-all", auth: "key", input: "query", statuses: [200, 400, 422, ...KEY_4XX], envelope: "plain" },
  { method: "GET", path: "/orders", auth: "key", input: "query", statuses: [200, 400, 422, ...KEY_4XX], envelope: "plain" },
  { method: "GET", path: "/orders/:id", auth: "key", input: "none", statuses: [200, 400, 404, 422, ...KEY_4XX], envelope: "plain" },
  { method: "POST", path: "/orders/vl/batch", auth: "sig", input: "body", statuses: [201, ...BODY_4XX, 409, 429], envelope: "typed" },
  { method: "POST", path: "/orders/vl/cancel", auth: "sig", input: "body", statuses: [200, ...BODY_4XX, 404, 409, 429], envelope: "plain" },
  { method: "GET", path: "/fills", auth: "key", input: "query", statuses: [200, 400, 422, ...KEY_4XX], envelope: "plain" },
  { method: "GET", path: "/fills/:id", auth: "key", input: "query", statuses: [200, 400, 404, 422, ...KEY_4XX], envelope: "plain" },
  { method: "POST", path: "/swap/quote", auth: "none", input: "body", statuses: [200, ...BODY_4XX, 409], envelope: "swapQuote" },
  { method: "POST", path: "/swap/quote/batch", auth: "none", input: "body", statuses: [200, ...BODY_4XX], envelope: "plain" },
  { method: "POST", path: "/swap", auth: "sig", input: "body", statuses: [200, ...BODY_4XX, 409, 410, 429], envelope: "typed" },
  { method: "GET", path: "/api-keys", auth: "sig", input: "query", statuses: [200, 400, 401, 409, 422], envelope: "plain" },
  { method: "POST", path: "/api-keys", auth: "sig", input: "body", statuses: [200, 201, ...BODY_4XX, 401, 409], envelope: "plain" },
  { method: "DELETE", path: "/api-keys", auth: "sig", input: "query", statuses: [200, 400, 401, 404, 409, 422], envelope: "plain" },
  { method: "GET", path: "/api-keys/list", auth: "sig", input: "query", statuses: [200, 400, 401, 409, 422], envelope: "plain" },
  { method: "POST", path: "/api-keys/list", auth: "sig", input: "body", statuses: [200, ...BODY_4XX, 401, 409], envelope: "plain" },
  { method: "POST", path: "/api-keys/revoke", auth: "sig", input: "body", statuses: [200, ...BODY_4XX, 401, 404, 409], envelope: "plain" },
  { method: "POST", path: "/api-keys/revoke-all", auth: "sig", input: "body", statuses: [200, ...BODY_4XX, 401, 409], envelope: "plain" },
  { method: "POST", path: "/api-keys/self-revoke", auth: "key", input: "body", statuses: [200, ...BODY_4XX, 401, 403, 404], envelope: "plain" },
  { method: "POST", path: "/api-keys/verify", auth: "none", input: "body", statuses: [200, ...BODY_4XX, 401], envelope: "plain" },
  { method: "GET", path: "/balances", auth: "key", funds: true, input: "query", statuses: [200, 400, 422, ...KEY_4XX], envelope: "plain" },
  { method: "GET", path: "/permit/metadata", auth: "key", funds: true, input: "query", statuses: [200, 400, 404, 422, ...KEY_4XX], envelope: "plain" },
  { method: "POST", path: "/approve", auth: "key", funds: true, input: "body", statuses: [200, ...BODY_4XX, ...KEY_4XX], envelope: "plain" },
  { method: "POST", path: "/deposit", auth: "key", funds: true, input: "body", statuses: [200, ...BODY_4XX, ...KEY_4XX], envelope: "plain" },
  { method: "POST", path: "/tx/send", auth: "key", funds: true, input: "body", statuses: [200, ...BODY_4XX, ...KEY_4XX, 409], envelope: "plain" },
  { method: "POST", path: "/withdraw", auth: "optional", funds: true, input: "body", statuses: [200, ...BODY_4XX, ...KEY_4XX, 409], envelope: "plain" },
  { method: "POST", path: "/withdraw/build", auth: "optional", funds: true, input: "body", statuses: [200, ...BODY_4XX, ...KEY_4XX, 409], envelope: "plain" },
  { method: "POST", path: "/withdraw/send", auth: "optional", funds: true, input: "body", statuses: [200, ...BODY_4XX, ...KEY_4XX, 409], envelope: "plain" },
  { method: "POST", path: "/transfer", auth: "key", funds: true, input: "body", statuses: [200, ...BODY_4XX, ...KEY_4XX], envelope: "plain" },
  { method: "POST", path: "/transfer/send", auth: "key", funds: true, input: "body", statuses: [200, ...BODY_4XX, ...KEY_4XX, 409], envelope: "plain" },
];

/** Values the templates are built from: real addresses, ids and credentials. */
export interface FuzzContext {
  owner: string;
  other: string;
  base: string;
  quote: string;
  orderId: string;
  uuidInt: string;
  nowSec: number;
  /** `Bearer key:secret` of `owner`. */
  bearer: string;
  /** `Bearer key:secret` of `other`. */
  otherBearer: string;
  apiKey: string;
  exchange: string;
  signature: string;
}

/** A plausible request for the route: right shape, mostly right values. */
export function template(r: RouteSpec, c: FuzzContext): Record<string, unknown> {
  const order = {
    owner_address: c.owner,
    side: "ask",
    amount: "10",
    price: "1.08",
    order_type: "limit",
    from_address: c.base,
    to_address: c.quote,
    order_id: c.orderId,
    uuid_int: c.uuidInt,
    signature: c.signature,
    expiration: c.nowSec + 3600,
  };
  const quote = { from_token: c.base, to_token: c.quote, from_amount: "1000000", owner_address: c.owner, recipient: c.owner, expiration: c.nowSec + 3600, gas_mode: "receive_less" };
  const manage = (action: string) => ({ owner_address: c.owner, action, timestamp: c.nowSec, signature: c.signature });
  const intent = { user: c.owner, tokens: [c.base], amounts: ["1"], recipient: c.owner, deadline: String(c.nowSec + 3600), uuid: "7" };
  switch (`${r.method} ${r.path}`) {
    case "GET /fx/rate":
      return { base: "EUR", quote: "USD" };
    case "POST /verify-signature":
    case "POST /orders":
      return order;
    case "POST /orders/preview": {
      const { signature: _s, ...rest } = order;
      return rest;
    }
    case "POST /orders/cancel":
      return { owner_address: c.owner, order_id: c.orderId, uuid_int: c.uuidInt, signature: c.signature };
    case "DELETE /orders/cancel-all":
    case "GET /orders":
    case "GET /fills":
    case "GET /balances":
      return { owner_address: c.owner };
    case "GET /fills/:id":
      return { limit: "10", offset: "0" };
    case "POST /orders/vl/batch":
      return { orders: [order, { ...order, side: "bid" }] };
    case "POST /orders/vl/cancel":
      return { owner_address: c.owner, vl_batch_id: c.orderId, signature: c.signature };
    case "POST /swap/quote":
      return quote;
    case "POST /swap/quote/batch":
      return { quotes: [quote, quote] };
    case "POST /swap":
      return { uuid: c.orderId, signature: c.signature, permit_signature: c.signature, permit_deadline: c.nowSec + 600 };
    case "GET /api-keys":
    case "GET /api-keys/list":
    case "POST /api-keys/list":
      return manage("list");
    case "POST /api-keys":
      return { ...manage("create"), label: "ci" };
    case "DELETE /api-keys":
    case "POST /api-keys/revoke":
      return { ...manage(`revoke_${c.apiKey}`), api_key: c.apiKey };
    case "POST /api-keys/revoke-all":
      return manage("revoke_all");
    case "POST /api-keys/self-revoke":
      return { api_key: c.apiKey };
    case "POST /api-keys/verify":
      return { api_key: c.apiKey, api_secret: "not-the-secret" };
    case "GET /permit/metadata":
      return { token: c.base, owner: c.owner, spender: c.exchange, amount: "1" };
    case "POST /approve":
      return { token: c.base, owner: c.owner, spender: c.exchange, amount: "1" };
    case "POST /deposit":
      return { token: c.base, owner: c.owner, amount: "1", permit_signature: c.signature, permit_deadline: c.nowSec + 600 };
    case "POST /tx/send":
    case "POST /withdraw/send":
    case "POST /transfer/send":
      return { raw_tx: "0x02f86c" };
    case "POST /withdraw":
      return { intent, user_signature: c.signature };
    case "POST /withdraw/build":
      return { intent, user_signature: c.signature, executor: c.other, executor_signature: c.signature };
    case "POST /transfer":
      return { token: c.base, to: c.other, amount: "1", from_address: c.owner };
    default:
      return {};
  }
}

/** Junk of every JSON type and of the classic troublemaker shapes. */
export const junkValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1e308,
    -1e308,
    1.5,
    Number.MAX_SAFE_INTEGER + 2,
    "",
    " ",
    "0",
    "-1",
    "-0",
    "00",
    "1e18",
    "0x",
    "0xzz",
    "0X5FBDB2315678AFECB367F032D93F642F64180AA3",
    "0x" + "f".repeat(40),
    "0x" + "0".repeat(130),
    "0x" + "1".repeat(129),
    "1".repeat(80),
    "115792089237316195423570985008687907853269984665640564039457584007913129639936",
    "1.0000000000000000000000001",
    "NaN",
    "Infinity",
    "\u0000",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "\u202e\ufeff",
    "__proto__",
    "constructor",
    "x".repeat(70_000),
    [],
    {},
    { __proto__: { admin: true } },
  ),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.bigInt({ min: -(2n ** 300n), max: 2n ** 300n }).map(String),
  fc.integer().map((n) => n * 1e9),
  fc.double(),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
  fc.jsonValue({ maxDepth: 3 }),
);

export type Mutation =
  | { kind: "drop"; field: number }
  | { kind: "replace"; field: number; value: unknown }
  | { kind: "extra"; name: string; value: unknown }
  | { kind: "nested"; field: number; value: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("drop" as const), field: fc.nat() }),
  fc.record({ kind: fc.constant("replace" as const), field: fc.nat(), value: junkValue }),
  fc.record({ kind: fc.constant("replace" as const), field: fc.nat(), value: junkValue }),
  fc.record({
    kind: fc.constant("extra" as const),
    name: fc.oneof(fc.constantFrom("client_id", "fee_bps", "__proto__", "constructor", "signature", "x".repeat(300)), fc.string({ maxLength: 12 })),
    value: junkValue,
  }),
  fc.record({ kind: fc.constant("nested" as const), field: fc.nat(), value: junkValue }),
);

/** Apply mutations to a (shallow-copied) template; "nested" reaches into the first array/object member. */
export function mutate(t: Record<string, unknown>, ms: readonly Mutation[]): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(t);
  for (const m of ms) {
    const keys = Object.keys(out);
    if (m.kind === "extra") {
      Object.defineProperty(out, m.name, { value: m.value, enumerable: true, writable: true, configurable: true });
      continue;
    }
    if (keys.length === 0) continue;
    const k = keys[m.field % keys.length]!;
    if (m.kind === "drop") delete out[k];
    else if (m.kind === "replace") out[k] = m.value;
    else {
      const inner = out[k];
      const target = Array.isArray(inner) ? inner[0] : inner;
      if (target && typeof target === "object" && !Array.isArray(target)) {
        const ik = Object.keys(target);
        if (ik.length > 0) (target as Record<string, unknown>)[ik[m.field % ik.length]!] = m.value;
      } else out[k] = m.value;
    }
  }
  return out;
}

export type BodyForm =
  | { kind: "json" }
  | { kind: "raw"; text: string; contentType: string }
  | { kind: "oversized" };

const brokenBodies = fc.constantFrom(
  "{",
  "}",
  "{\"a\":",
  "[1,2",
  "nul",
  "{'single': 'quotes'}",
  "{\"a\":1,}",
  "\"just a string\"",
  "42",
  "null",
  "true",
  "[]",
  "{\"a\":NaN}",
  "\u0000\u0001",
  "\ufeff{}",
  "{\"__proto__\":{\"polluted\":1}}",
  "{\"constructor\":{\"prototype\":{\"polluted\":1}}}",
  "[".repeat(5000),
);

const bodyFormArb = (oversizedWeight: number): fc.Arbitrary<BodyForm> => fc.oneof(
  { weight: 160, arbitrary: fc.constant({ kind: "json" as const }) },
  {
    weight: 40,
    arbitrary: fc.record({
      kind: fc.constant("raw" as const),
      text: fc.oneof(brokenBodies, fc.string({ unit: "binary", maxLength: 60 })),
      contentType: fc.constantFrom("application/json", "application/json; charset=utf-8", "application/json; charset=latin1", "text/plain", "application/x-www-form-urlencoded", "application/vnd.api+json", ""),
    }),
  },
  { weight: oversizedWeight, arbitrary: fc.constant({ kind: "oversized" as const }) },
);

export type AuthForm = "none" | "owner" | "other" | "junk" | "revoked-shape" | "basic";
const authForm: fc.Arbitrary<AuthForm> = fc.constantFrom("none", "owner", "owner", "other", "junk", "revoked-shape", "basic");

export interface FuzzRequest {
  method: string;
  path: string;
  query: Record<string, string> | null;
  body: string | undefined;
  contentType: string | undefined;
  authorization: string | undefined;
  /** The route the request was derived from (null for unknown paths). */
  route: RouteSpec | null;
  /** True when method/path were deliberately made wrong. */
  wrongMethod: boolean;
}

const PATH_JUNK = fc.constantFrom("%00", "%ff", "..%2f..%2fetc", "%E2%80%AE", "x".repeat(3000), "%25", "1%20OR%201=1", "00000000-0000-4000-8000-000000000000", "%F0%9F%92%A9");

export interface RequestArbOptions {
  /** Integer weight of 1.1 MB bodies among body forms (json 160, raw 40); default 20. */
  oversizedWeight?: number;
}

/** One fuzz request over `routes`. */
export function requestArb(routes: readonly RouteSpec[], c: FuzzContext, o: RequestArbOptions = {}): fc.Arbitrary<FuzzRequest> {
  const bodyForm = bodyFormArb(o.oversizedWeight ?? 20);
  const spoilPath = fc.oneof(
    { weight: 12, arbitrary: fc.constant<null | string>(null) },
    { weight: 1, arbitrary: PATH_JUNK.map((j) => `/unknown/${j}`) },
    { weight: 1, arbitrary: PATH_JUNK.map((j) => `/orders/${j}/extra`) },
  );
  return fc
    .record({
      route: fc.constantFrom(...routes),
      mutations: fc.array(mutation, { minLength: 0, maxLength: 3 }),
      body: bodyForm,
      auth: authForm,
      wrongMethod: fc.oneof({ weight: 9, arbitrary: fc.constant<string | null>(null) }, { weight: 1, arbitrary: fc.constantFrom("GET", "POST", "DELETE", "PUT", "PATCH") }),
      idJunk: fc.oneof({ weight: 3, arbitrary: fc.constant<string | null>(null) }, { weight: 1, arbitrary: PATH_JUNK }),
      spoil: spoilPath,
    })
    .map(({ route, mutations, body, auth, wrongMethod, idJunk, spoil }) => {
      const fields = mutate(template(route, c), mutations);
      const path = spoil ?? route.path.replace(":id", idJunk ?? c.orderId);
      const method = wrongMethod ?? route.method;
      const authorization = {
        none: undefined,
        owner: c.bearer,
        other: c.otherBearer,
        junk: "Bearer nope",
        "revoked-shape": `Bearer ${c.apiKey}:wrong-secret`,
        basic: "Basic dXNlcjpwYXNz",
      }[auth];
      let query: Record<string, string> | null = null;
      let text: string | undefined;
      let contentType: string | undefined;
      if (route.input === "query") {
        // Query values are strings on the wire; junk objects become their JSON text.
        query = {};
        for (const [k, v] of Object.entries(fields)) query[k] = typeof v === "string" ? v : JSON.stringify(v) ?? "";
      } else if (route.input === "body" || method !== "GET") {
        if (body.kind === "json") {
          text = JSON.stringify(fields);
          contentType = "application/json";
        } else if (body.kind === "raw") {
          text = body.text;
          contentType = body.contentType || undefined;
        } else {
          text = JSON.stringify({ ...fields, pad: "p".repeat(1_100_000) });
          contentType = "application/json";
        }
      }
      return {
        method,
        path,
        query,
        body: text,
        contentType,
        authorization,
        route: spoil === null ? route : null,
        wrongMethod: method !== route.method,
      };
    });
}

/** Full URL path + query string of a fuzz request. */
export function urlOf(r: FuzzRequest): string {
  const q = r.query ? new URLSearchParams(r.query).toString() : "";
  return `/api/v1${r.path}${q ? `?${q}` : ""}`;
}

/** Whether `body` has the envelope `style` for an error status. */
export function hasErrorEnvelope(style: Envelope, body: unknown): boolean {
  if (typeof body !== "object" || body === null) return false;
  const b = body as Record<string, unknown>;
  const d = b["detail"];
  if (style === "preview" && b["ok"] === false) return typeof b["error_code"] === "string" && typeof d === "string";
  if (typeof d === "string") return true;
  if (typeof d === "object" && d !== null) {
    const inner = d as Record<string, unknown>;
    return typeof inner["detail"] === "string" && (typeof inner["error_code"] === "string" || typeof inner["code"] === "string");
  }
  return false;
}

export interface FuzzResponse {
  status: number;
  body: unknown;
  headers: Headers;
}

/** Send a fuzz request to a live server at `base` (http://127.0.0.1:port). */
export async function send(base: string, r: FuzzRequest): Promise<FuzzResponse> {
  const headers: Record<string, string> = {};
  if (r.contentType) headers["content-type"] = r.contentType;
  if (r.authorization) headers["authorization"] = r.authorization;
  const canHaveBody = r.method !== "GET" && r.method !== "HEAD";
  const res = await fetch(base + urlOf(r), { method: r.method, headers, ...(canHaveBody && r.body !== undefined ? { body: r.body } : {}) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Non-JSON answers are reported as text; the checks flag them.
  }
  return { status: res.status, body, headers: res.headers };
}

/** Statuses any route may answer for a request that is broken at the HTTP level. */
export function allowedStatuses(r: FuzzRequest): Set<number> {
  if (!r.route) return new Set([404, 405]);
  if (r.wrongMethod) {
    // A method the path does not serve is 405; a method another route on the same path
    // serves (GET /api-keys vs POST /api-keys, /orders vs /orders/:id) answers that route's statuses.
    const sibling = ROUTES.filter((x) => x.path === r.route!.path && x.method === r.method).flatMap((x) => x.statuses);
    // GET /orders/:id-like paths: POST /orders/cancel is a different path, so a wrong method
    // on /orders/{id} reaches nothing else but 404/405.
    return new Set([404, 405, ...sibling, ...BODY_4XX, ...KEY_4XX]);
  }
  return new Set(r.route.statuses);
}
