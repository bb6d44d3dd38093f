// A client that gives up while a latency rule holds its request (the commonest ambiguous
// outcome: a client time-out on a slow answer) has still sent the request: it is served when
// the delay ends, so after_commit takes effect as the README promises, and the journal entry
// ends with what was served, not at the hang-up (before: the body was read after the delay,
// refused as cut short, the order never placed, and the entry said 200 with no fault). Also:
// a committed 201 that an after_commit 503 lost is not recorded as a rejection. With and
// without a state directory (which reads bodies before its lock already).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { createFakeExchange, type FakeExchange } from "../../fixtures/fake-exchange.ts";
import type { RouteFaultRule } from "../../sim/http/control-faults.ts";
import { crashCopy } from "../reliability/crash-copy.ts";

const DELAY_MS = 1200;

/** A signed limit order body of `acc` on the USDT market, resting (price 0.5). */
async function signedOrder(ex: FakeExchange) {
  const m = ex.registry.markets().find((x) => x.baseSymbol === "USDT")!;
  const acc = ex.accounts[0]!;
  await ex.control.fund({ address: acc.address, token: m.quoteSymbol, amount: 100_000_000n, vault: true });
  const preview = await (await fetch(`${ex.baseUrl}/orders/preview`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(ex.newOrder(acc, { symbol: m.symbol, side: "bid", amount: "20", price: "0.5" })) })).json();
  return (await ex.signOrder(acc, preview as never)).body as { order_id: string };
}

/** POST /orders with a client that gives up once the rule holds it (in its delay); resolves to the error it saw. */
async function postAndGiveUp(ex: FakeExchange, body: unknown): Promise<unknown> {
  const gaveUp = new AbortController();
  const taken = ex.parts.routeFaults.taken;
  const sent = fetch(`${ex.baseUrl}/orders`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: gaveUp.signal }).then(
    () => "answered",
    (e: unknown) => e,
  );
  // Not on a timer: on a busy machine the request might not have reached the server yet.
  await expect.poll(() => ex.parts.routeFaults.taken, { timeout: 10_000 }).toBe(taken + 1);
  gaveUp.abort();
  return sent;
}

/** The journal entry of the one POST /orders, once it has ended. */
async function entryOfPost(ex: FakeExchange) {
  await expect.poll(() => ex.control.requests({ method: "POST", path: "/api/v1/orders" }).total, { timeout: 10_000 }).toBe(1);
  return ex.control.requests({ method: "POST", path: "/api/v1/orders" }).entries[0]!;
}

describe.each([
  ["without a state directory", false],
  ["with a state directory", true],
])("a client that hangs up during a latency rule's delay (%s)", (_name, withStateDir) => {
  const start = () =>
    createFakeExchange({ liquidity: false, users: 1, ...(withStateDir ? { stateDir: path.join(mkdtempSync(path.join(tmpdir(), "fakex-latency-hangup-")), "state") } : {}) });
  const rule = (extra: Partial<RouteFaultRule>): RouteFaultRule[] => [{ method: "POST", path: "/orders", latency_ms: DELAY_MS, times: 1, ...extra }];

  test("after_commit reset: the order is placed when the delay ends, and the entry says reset after a committed 201", async () => {
    const ex = await start();
    try {
      const body = await signedOrder(ex);
      ex.control.setRouteFaults(rule({ fail: "reset", after_commit: true }));
      expect(await postAndGiveUp(ex, body)).toBeInstanceOf(Error);
      await expect.poll(() => ex.parts.engine.orderRecord(body.order_id)?.status, { timeout: 10_000 }).toBe("pending");
      const e = await entryOfPost(ex);
      expect(e.status).toBe(0);
      expect(e.fault).toEqual({ kind: "reset", after_commit: true, committed_status: 201 });
      expect(e.links.orders_created.map((o) => o.order_id)).toEqual([body.order_id]);
      expect(e.rejection).toBeNull();
      // A faithful retry is a replay: 409, no second order.
      const retry = await fetch(`${ex.baseUrl}/orders`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      expect(retry.status).toBe(409);
    } finally {
      await ex.close();
    }
  }, 60_000);

  test("plain latency: the order is placed all the same, and the entry shows the 201 the route answered into nothing", async () => {
    const ex = await start();
    try {
      const body = await signedOrder(ex);
      ex.control.setRouteFaults(rule({}));
      expect(await postAndGiveUp(ex, body)).toBeInstanceOf(Error);
      await expect.poll(() => ex.parts.engine.orderRecord(body.order_id)?.status, { timeout: 10_000 }).toBe("pending");
      const e = await entryOfPost(ex);
      expect(e.status).toBe(201);
      expect(e.fault).toBeNull();
      expect(e.links.orders_created.map((o) => o.order_id)).toEqual([body.order_id]);
      expect(e.duration_ms).toBeGreaterThanOrEqual(DELAY_MS - 50);
    } finally {
      await ex.close();
    }
  }, 60_000);
});

describe.each([
  ["without a state directory", false],
  ["with a state directory", true],
])("a restore while a request waits out a latency rule's delay (%s)", (_name, withStateDir) => {
  test("the request answers 503 at once and is never served: the restored state has no trace of it", async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), "fakex-latency-restore-")), "state");
    const ex = await createFakeExchange({ liquidity: false, users: 1, ...(withStateDir ? { stateDir: dir } : {}) });
    try {
      const body = await signedOrder(ex);
      // The funding was a call from code, which the log does not hold: on disk before the rest.
      if (withStateDir) await ex.persistence!.persist();
      const snap = (await (await fetch(`${ex.controlUrl}/snapshot`, { method: "POST" })).json()) as { id: string };
      ex.control.setRouteFaults([{ method: "POST", path: "/orders", latency_ms: 30_000, times: 1 }]);
      const placed = fetch(`${ex.baseUrl}/orders`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      // In its delay once the rule has taken it.
      await expect.poll(() => ex.parts.routeFaults.taken, { timeout: 10_000 }).toBe(1);
      const restored = await fetch(`${ex.controlUrl}/restore`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: snap.id }) });
      expect(restored.status).toBe(200);
      const answer = await placed;
      expect([answer.status, answer.headers.get("retry-after")]).toEqual([503, "1"]);
      expect(() => ex.parts.engine.orderRecord(body.order_id)).toThrow(/not found/);
      // The same order now: placed (no trace of the first attempt, no 409).
      expect((await fetch(`${ex.baseUrl}/orders`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).status).toBe(201);
      if (withStateDir) {
        // As after kill -9: a copy of the directory resumes with nothing to report (the refused
        // request never ran, so the log holds nothing of it: before, its replay answered 422
        // against a logged 503) and with the order placed once.
        const copy = crashCopy(dir);
        const replayErrors: string[] = [];
        const back = await createFakeExchange({ liquidity: false, users: 1, stateDir: copy, logger: { error: (m, meta) => replayErrors.push(`${m} ${JSON.stringify(meta)}`) } });
        try {
          expect(replayErrors).toEqual([]);
          expect(back.parts.engine.orderRecord(body.order_id).status).toBe("pending");
        } finally {
          await back.close();
        }
      }
    } finally {
      await ex.close();
    }
  }, 60_000);
});

describe("an after_commit 503 in the journal", () => {
  test("the committed 201 it lost is not a rejection; a committed refusal still is", async () => {
    const ex = await createFakeExchange({ liquidity: false, users: 1 });
    try {
      const body = await signedOrder(ex);
      ex.control.setRouteFaults([{ method: "POST", path: "/orders", fail: 503, after_commit: true, times: 2 }]);
      const post = () => fetch(`${ex.baseUrl}/orders`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      expect((await post()).status).toBe(503);
      // The same order again: the route refuses it (409) and the fault loses that answer too.
      expect((await post()).status).toBe(503);
      const [replay, placed] = ex.control.requests({ method: "POST", path: "/api/v1/orders" }).entries;
      expect(placed!.fault).toEqual({ kind: "503", after_commit: true, committed_status: 201 });
      expect(placed!.rejection).toBeNull();
      expect(replay!.fault).toEqual({ kind: "503", after_commit: true, committed_status: 409 });
      expect(replay!.rejection).not.toBeNull();
    } finally {
      await ex.close();
    }
  }, 60_000);
});
