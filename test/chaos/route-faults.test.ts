// Ambiguous outcomes over real HTTP: for each fault kind (503, timeout, reset,
// truncate), with and without after_commit, what the client sees and what the
// exchange committed. after_commit: the order exists exactly once and a replay of
// the same signed body gets 409; a consumed swap quote gets 410 on retry. Before
// commit: nothing happened, so the same retry succeeds.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { createFakeExchange, type FakeExchange } from "../../fixtures/fake-exchange.ts";

let ex: FakeExchange;
let clean: string;
let bearer: string;

type Outcome =
  | { kind: "answer"; status: number; retryAfter: string | null; text: string }
  | { kind: "body-cut"; status: number; contentLength: number; error: string }
  | { kind: "no-answer"; error: string };

/** One request as a bot would send it, with a client-side timeout; what came back. */
async function attempt(method: string, path: string, body: unknown, timeoutMs = 1500): Promise<Outcome> {
  let res: Response;
  try {
    res = await fetch(`${ex.baseUrl}${path}`, {
      method,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    return { kind: "no-answer", error: (e as Error).name };
  }
  try {
    const text = await res.text();
    return { kind: "answer", status: res.status, retryAfter: res.headers.get("retry-after"), text };
  } catch (e) {
    return { kind: "body-cut", status: res.status, contentLength: Number(res.headers.get("content-length")), error: (e as Error).name };
  }
}

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${ex.baseUrl}${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function signedOrder(orderId: string) {
  const m = ex.registry.markets().find((x) => x.baseSymbol === "USDT")!;
  const preview = await api("POST", "/orders/preview", ex.newOrder(ex.accounts[0]!, { symbol: m.symbol, side: "bid", amount: "20", price: "0.95", orderId }));
  expect(preview.status).toBe(200);
  return (await ex.signOrder(ex.accounts[0]!, preview.body)).body;
}

async function signedSwap() {
  const me = ex.accounts[1]!;
  const quote = await api("POST", "/swap/quote", {
    from_token: ex.contracts.tokens.USDC,
    to_token: ex.contracts.tokens.USDT,
    from_amount: "20000000",
    owner_address: me.address,
    recipient: me.address,
    expiration: ex.control.now().now + 600,
  });
  expect(quote.status).toBe(200);
  return (await ex.signIntent(me, quote.body)).body;
}

/**
 * The journal's entry for the POST /orders a fault hit (polling: a held request is
 * journaled when its socket closes). Each test starts from a restored journal.
 */
async function journaledFault() {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const entry = ex.control.requests({ method: "POST", path: "/api/v1/orders" }).entries.find((e) => e.fault !== null);
    if (entry || Date.now() > deadline) return entry;
    await new Promise((res) => setTimeout(res, 50));
  }
}

const placedEvents = (orderId: string) => ex.parts.engine.log.since(0).filter((e) => e.type === "order_placed" && e.data["order_id"] === orderId).length;

/** The order as its owner sees it (polling: a timed-out request may still be running server-side). */
async function orderView(orderId: string, wait: boolean): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const r = await api("GET", `/orders/${orderId}`, undefined, { authorization: bearer });
    if (r.status === 200 || !wait || Date.now() > deadline) return r.status;
    await new Promise((res) => setTimeout(res, 50));
  }
}

function expectSeen(kind: string | number, afterCommit: boolean, o: Outcome, committedStatus: number): void {
  switch (kind) {
    case 503:
      expect(o).toMatchObject({ kind: "answer", status: 503, retryAfter: "1" });
      expect(JSON.parse((o as { text: string }).text)).toEqual({ detail: expect.any(String) });
      return;
    case "timeout":
      expect(o).toEqual({ kind: "no-answer", error: "TimeoutError" });
      return;
    case "reset":
      expect(o).toEqual({ kind: "no-answer", error: "TypeError" }); // fetch failed: the socket closed with no response
      return;
    case "truncate":
      // Headers with the full length arrive, the body stops half way.
      expect(o).toMatchObject({ kind: "body-cut", status: afterCommit ? committedStatus : 503 });
      expect((o as { contentLength: number }).contentLength).toBeGreaterThan(0);
      return;
  }
}

beforeAll(async () => {
  ex = await createFakeExchange({ seed: 18 });
  const auth = await ex.signManageApiKey(ex.accounts[0]!, "create", ex.control.now().now);
  const r = await api("POST", "/api-keys", { ...auth, label: "bot" });
  expect(r.status).toBe(200);
  bearer = `Bearer ${r.body.api_key}:${r.body.api_secret}`;
  await ex.control.fund({ address: ex.accounts[0]!.address, token: "USDC", amount: 1_000_000_000n, vault: true });
  clean = await ex.snapshot();
}, 120_000);
afterAll(async () => {
  await ex?.close();
});
beforeEach(async () => {
  await ex.restore(clean);
});

const KINDS = [503, "timeout", "reset", "truncate"] as const;
let n = 0;
const nextOrderId = () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;

describe("route faults: ambiguous outcomes on POST /orders", () => {
  for (const kind of KINDS) {
    test(`fail ${JSON.stringify(kind)} after_commit: the order is placed once, the client never learns it, a replay gets 409`, async () => {
      const body = await signedOrder(nextOrderId());
      ex.control.setRouteFaults([{ method: "POST", path: "/orders", fail: kind, after_commit: true, times: 1 }]);
      expectSeen(kind, true, await attempt("POST", "/orders", body), 201);
      expect(await orderView(body.order_id, true)).toBe(200);
      expect(placedEvents(body.order_id)).toBe(1);
      // The journal holds the committed effect and the answer the client lost.
      const journaled = await journaledFault();
      expect(journaled?.fault).toEqual({ kind: String(kind), after_commit: true, committed_status: 201 });
      expect(journaled?.links.orders_created.map((o) => o.order_id)).toEqual([body.order_id]);
      // The bot retries the same signed body blindly: the rule is spent, the exchange refuses the duplicate.
      const retry = await api("POST", "/orders", body);
      expect(retry.status).toBe(409);
      // The duplicate order_id (not a signature replay) refuses it, with POST /orders' catch-all code.
      expect(retry.body.detail).toEqual({ detail: `order_id ${body.order_id} already exists`, error_code: "TRANSIENT_SETTLEMENT_FAILURE" });
      const listed = await api("GET", `/orders?owner_address=${ex.accounts[0]!.address}`, undefined, { authorization: bearer });
      expect(listed.status).toBe(200);
      const rows = listed.body.trades as { trade_id: string }[];
      expect(rows.filter((o) => o.trade_id === body.order_id)).toHaveLength(1);
      expect(placedEvents(body.order_id)).toBe(1);
    });

    test(`fail ${JSON.stringify(kind)} before commit: nothing happened, the same retry is accepted`, async () => {
      const body = await signedOrder(nextOrderId());
      ex.control.setRouteFaults([{ method: "POST", path: "/orders", fail: kind, times: 1 }]);
      expectSeen(kind, false, await attempt("POST", "/orders", body), 201);
      expect(await orderView(body.order_id, false)).toBe(404);
      expect(placedEvents(body.order_id)).toBe(0);
      const journaled = await journaledFault();
      expect(journaled?.fault).toEqual({ kind: String(kind), after_commit: false, committed_status: null });
      expect(journaled?.links.orders_created).toEqual([]);
      expect((await api("POST", "/orders", body)).status).toBe(201);
      expect(placedEvents(body.order_id)).toBe(1);
    });
  }
});

describe("route faults: ambiguous outcomes on POST /swap", () => {
  for (const kind of KINDS) {
    test(`fail ${JSON.stringify(kind)} after_commit: the quote is consumed, a retry gets 410; without it the retry swaps`, async () => {
      const swapsBefore = ex.parts.engine.log.since(0).filter((e) => e.type === "swap_accepted").length;
      const committed = await signedSwap();
      ex.control.setRouteFaults([{ method: "POST", path: "/swap", fail: kind, after_commit: true, times: 1 }]);
      expectSeen(kind, true, await attempt("POST", "/swap", committed), 200);
      const deadline = Date.now() + 10_000;
      while (ex.parts.engine.log.since(0).filter((e) => e.type === "swap_accepted").length === swapsBefore && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(ex.parts.engine.log.since(0).filter((e) => e.type === "swap_accepted").length).toBe(swapsBefore + 1);
      expect((await api("POST", "/swap", committed)).status).toBe(410);

      const lost = await signedSwap();
      ex.control.setRouteFaults([{ method: "POST", path: "/swap", fail: kind, times: 1 }]);
      expectSeen(kind, false, await attempt("POST", "/swap", lost), 200);
      expect(ex.parts.engine.log.since(0).filter((e) => e.type === "swap_accepted").length).toBe(swapsBefore + 1);
      expect((await api("POST", "/swap", lost)).status).toBe(200);
      expect(ex.parts.engine.log.since(0).filter((e) => e.type === "swap_accepted").length).toBe(swapsBefore + 2);
    });
  }
});

describe("route faults: ambiguous outcomes on POST /withdraw", () => {
  test("reset after_commit: the co-signature was given (the uuid is bound); the same intent again gets the same signature, another intent under the uuid is refused", async () => {
    const me = ex.accounts[0]!;
    const intent = {
      user: me.address,
      tokens: [ex.contracts.tokens.USDC!],
      amounts: ["5000000"],
      recipient: me.address,
      deadline: String(ex.control.now().now + 600),
      uuid: "4242",
    };
    const body = { intent, user_signature: await ex.signWithdrawIntent(me, intent) };
    ex.control.setRouteFaults([{ method: "POST", path: "/withdraw", fail: "reset", after_commit: true, times: 1 }]);
    expect(await attempt("POST", "/withdraw", body)).toEqual({ kind: "no-answer", error: "TypeError" });
    const again = await api("POST", "/withdraw", body, { authorization: bearer });
    expect(again.status).toBe(200);
    expect(again.body.success).toBe(true);
    const other = { ...intent, amounts: ["6000000"] };
    const refused = await api("POST", "/withdraw", { intent: other, user_signature: await ex.signWithdrawIntent(me, other) }, { authorization: bearer });
    expect(refused.body).toMatchObject({ success: false });
    expect(refused.body.error).toContain("already used");
  });
});

describe("route faults: headers", () => {
  test("a fault's answer keeps the headers set in front of the routes (CORS), and drops the route's own", async () => {
    const origin = "https://dapp.example";
    const allowed = (await fetch(`${ex.baseUrl}/tokens`, { headers: { origin } })).headers.get("access-control-allow-origin");
    expect(allowed).not.toBeNull();
    for (const after_commit of [false, true]) {
      ex.control.setRouteFaults([{ method: "GET", path: "/tokens", fail: 503, after_commit, times: 1 }]);
      const res = await fetch(`${ex.baseUrl}/tokens`, { headers: { origin } });
      expect(res.status).toBe(503);
      expect(res.headers.get("access-control-allow-origin")).toBe(allowed);
      expect(res.headers.get("retry-after")).toBe("1");
      expect(await res.json()).toEqual({ detail: expect.any(String) });
    }
  });
});

describe("route faults: control validation", () => {
  test("a bad rule is 400 over HTTP and leaves the rules as they were", async () => {
    ex.control.setRouteFaults([{ path: "/tokens", fail: 503 }]);
    for (const rules of [[{ path: "/orders", fail: "explode" }], [{ path: "/orders", after_commit: true }], [{ path: "/orders", fail: 503, fraction: 2 }], [{ path: "/api/v1/orders", fail: 503 }]]) {
      const res = await fetch(`${ex.controlUrl}/routes`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ rules }) });
      expect(res.status).toBe(400);
      expect(typeof ((await res.json()) as { detail: string }).detail).toBe("string");
    }
    expect(ex.control.routeFaults()).toEqual([{ path: "/tokens", fail: 503 }]);
    const prefixed = await fetch(`${ex.controlUrl}/routes`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ rules: [{ path: "/api/v1/tokens", fail: 503 }] }) });
    expect(prefixed.status).toBe(400);
    expect(await prefixed.json()).toEqual({ detail: expect.stringContaining('rules[0].path is relative to /api/v1: write "/tokens"') });
  });
});

describe("route faults: seeded fraction, matching, and a held request at shutdown", () => {
  test("fraction picks requests from the seeded Rng: the same seed picks the same ones after a restore", async () => {
    const run = async () => {
      ex.control.setRouteFaults([{ method: "GET", path: "/tokens", fail: 503, fraction: 0.5 }]);
      const statuses: number[] = [];
      for (let i = 0; i < 24; i++) statuses.push((await fetch(`${ex.baseUrl}/tokens`)).status);
      return statuses;
    };
    const first = await run();
    await ex.restore(clean);
    const second = await run();
    expect(second).toEqual(first);
    expect(first).toContain(503);
    expect(first).toContain(200);
    // Other methods and paths are untouched.
    expect((await fetch(`${ex.baseUrl}/markets`)).status).toBe(200);
  });

  test("a held (timeout) request does not stop the server from closing; the held socket is closed with it", async () => {
    ex.control.setRouteFaults([{ method: "GET", path: "/markets", fail: "timeout" }]);
    const takenBefore = ex.parts.routeFaults.taken;
    const held = fetch(`${ex.baseUrl}/markets`).then(
      (r) => `answered ${r.status}`,
      (e: Error) => `failed ${e.name}`,
    );
    // The request reached the server (the rule took it) before the close.
    await expect.poll(() => ex.parts.routeFaults.taken, { timeout: 10_000 }).toBe(takenBefore + 1);
    await ex.close();
    expect(await held).toBe("failed TypeError");
  });
});
