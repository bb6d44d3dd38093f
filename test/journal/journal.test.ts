// The request journal on a full fake exchange (Anvil): ids, entries, links from each
// kind of request to its orders, fills, settlement batches, transaction hashes, reverts
// and quotes; near-miss reasons; filters; snapshot/restore; the in-process handle.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { createFakeExchange, type FakeExchange } from "../../fixtures/fake-exchange.ts";
import type { FundedAccount } from "../../fixtures/chain.ts";
import { depositCalls, sendCalls } from "../../fixtures/chain-tx.ts";

let ex: FakeExchange;
let clean: string;

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${ex.baseUrl}${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any, id: res.headers.get("x-request-id") };
}

async function control(method: string, path: string, body?: unknown) {
  const res = await fetch(`${ex.controlUrl}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const market = () => ex.registry.markets().find((x) => x.baseSymbol === "USDT")!;

async function place(acc: FundedAccount, side: "bid" | "ask", price = "1", amount = "20") {
  const preview = await api("POST", "/orders/preview", ex.newOrder(acc, { symbol: market().symbol, side, amount, price }));
  expect(preview.status).toBe(200);
  const { body } = await ex.signOrder(acc, preview.body);
  const r = await api("POST", "/orders", body);
  return { ...r, signed: body };
}

async function fundBoth() {
  const [a, b] = [ex.accounts[0]!, ex.accounts[1]!];
  await ex.control.fund({ address: a.address, token: market().baseSymbol, amount: 100_000_000n, vault: true });
  await ex.control.fund({ address: b.address, token: market().quoteSymbol, amount: 100_000_000n, vault: true });
  return [a, b] as const;
}

beforeAll(async () => {
  ex = await createFakeExchange({ seed: 17 });
  clean = await ex.snapshot();
}, 60_000);

afterAll(async () => {
  await ex?.close();
});

beforeEach(async () => {
  await ex.restore(clean);
});

describe("request journal", () => {
  test("every /api/v1 answer carries X-Request-Id; the entry records time, method, path, query, status, duration and bodies", async () => {
    const r = await api("GET", "/markets?limit=2");
    const missing = await api("GET", "/no-such-route");
    expect(r.id).toMatch(/^r\d+$/);
    expect(missing.status).toBe(404);
    expect(missing.id).toMatch(/^r\d+$/);
    expect(missing.id).not.toBe(r.id);

    const e = (await control("GET", `/requests/${r.id}`)).body;
    expect(e).toMatchObject({ id: r.id, method: "GET", path: "/api/v1/markets", query: { limit: "2" }, status: r.status, wallet: null, rejection: null });
    expect(e.at).toBe(ex.parts.clock.nowMs());
    expect(e.at_iso).toBe(new Date(e.at).toISOString());
    expect(Date.parse(e.wall_time)).toBeGreaterThan(0);
    expect(e.duration_ms).toBeGreaterThanOrEqual(0);
    expect(e.request_body).toBeNull();
    expect(JSON.parse(e.response_body.text)).toEqual(r.body);
    expect(e.response_body.truncated).toBe(false);
    const nf = (await control("GET", `/requests/${missing.id}`)).body;
    expect(nf.status).toBe(404);
    expect(nf.rejection).toMatchObject({ detail: "Not Found" });
  });

  test("a body nested thousands deep (JSON.parse takes it, JSON.stringify overflows) is refused and journaled with a note; the server stays up", async () => {
    const deep = `${'{"a":'.repeat(6000)}1${"}".repeat(6000)}`;
    for (const path of ["/api-keys/verify", "/orders", "/verify-signature"]) {
      const res = await fetch(`${ex.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: deep });
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
      const entry = ex.control.requests({ path: `/api/v1${path}`, limit: 1 }).entries[0]!;
      expect(entry.id).toBe(res.headers.get("x-request-id"));
      expect(entry.request_body).toEqual({ text: "[not recorded: nested too deeply to copy]", bytes: Buffer.byteLength(deep), truncated: true });
    }
    expect((await api("GET", "/health")).status).toBe(200);
  });

  test("a forced 503 (route fault) is journaled too, with its id", async () => {
    expect((await control("POST", "/routes", { rules: [{ method: "GET", path: "/markets", fail: true, times: 1 }] })).status).toBe(200);
    const r = await api("GET", "/markets");
    expect(r.status).toBe(503);
    expect(r.id).toMatch(/^r\d+$/);
    const e = (await control("GET", `/requests/${r.id}`)).body;
    expect(e).toMatchObject({ method: "GET", path: "/api/v1/markets", status: 503 });
    expect(e.rejection).not.toBeNull();
    expect((await control("GET", "/requests/count?status=503")).body).toEqual({ count: 1 });
  });

  test("a fault before commit keeps the route from the body, but the journal still shows the body as sent (503, reset, timeout, truncate)", async () => {
    const kinds = [503, "reset", "timeout", "truncate"] as const;
    const rules = kinds.map((fail) => ({ method: "POST", path: "/orders/preview", fail, times: 1 }));
    // One more 503: a body past the body limit (1 MiB) is not kept.
    rules.push({ method: "POST", path: "/orders/preview", fail: 503, times: 1 });
    expect((await control("POST", "/routes", { rules })).status).toBe(200);
    const sent = kinds.map((kind, i) => JSON.stringify({ probe: i, kind, pad: "x".repeat(100 * i) }));
    sent.push(JSON.stringify({ pad: "y".repeat(1024 * 1024 + 1) }));
    for (const text of sent) {
      // A held (timeout) request is given up by its client, as a real one would.
      await fetch(`${ex.baseUrl}/orders/preview`, { method: "POST", headers: { "content-type": "application/json" }, body: text, signal: AbortSignal.timeout(1_000) })
        .then((r) => r.arrayBuffer())
        .catch(() => undefined);
    }
    const { entries } = (await control("GET", "/requests?path=/api/v1/orders/preview&limit=10")).body;
    const bySeq = [...entries].sort((x: { seq: number }, y: { seq: number }) => x.seq - y.seq);
    expect(bySeq.map((e: { fault: { kind: string } }) => e.fault.kind)).toEqual(["503", "reset", "timeout", "truncate", "503"]);
    for (let i = 0; i < kinds.length; i++) {
      expect(bySeq[i].request_body).toEqual({ text: sent[i]!.slice(0, 4096), bytes: Buffer.byteLength(sent[i]!), truncated: Buffer.byteLength(sent[i]!) > 4096 });
    }
    expect(bySeq[4].status).toBe(503);
    expect(bySeq[4].request_body).toBeNull();
    // Why: the 503 the fault answered, also when a truncate cut that answer short; no answer, no rejection.
    const reasons = bySeq.map((e: { rejection: { code: string | null; detail: string | null } | null }) => e.rejection && [e.rejection.code, e.rejection.detail]);
    const unavailable = [null, "Service temporarily unavailable; please retry"];
    expect(reasons).toEqual([unavailable, null, null, unavailable, unavailable]);
  });

  test("crossing orders: each POST /orders links its order; the taker's its fill; after settle both lead to the batch and its tx hash", async () => {
    const [a, b] = await fundBoth();
    const ask = await place(a, "ask");
    const bid = await place(b, "bid");
    expect([ask.status, bid.status]).toEqual([201, 201]);

    const before = (await control("GET", `/requests/${bid.id}`)).body;
    expect(before.wallet).toBe(b.address);
    expect(before.links.orders_created).toEqual([{ order_id: bid.body.order_id, status: "matched" }]);
    expect(before.links.fills).toHaveLength(1);
    expect(before.links.fills[0]).toMatchObject({ maker_order_id: ask.body.order_id, taker_order_id: bid.body.order_id, status: "pending", during_request: true, tx_hash: null });
    expect(before.links.settlement_batches).toEqual([]);
    expect(JSON.parse(before.request_body.text).order_id).toBe(bid.body.order_id);

    await control("POST", "/settle");
    const after = (await control("GET", `/requests/${bid.id}`)).body;
    const batch = after.links.settlement_batches[0];
    expect(batch).toMatchObject({ status: "confirmed", kind: "match", fill_ids: [after.links.fills[0].fill_id] });
    expect(batch.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(after.links.fills[0]).toMatchObject({ status: "settled", tx_hash: batch.tx_hash });
    // The same hash the interface reports, and a receipt on chain.
    const fills = ex.parts.engine.fillsOfOrder(bid.body.order_id);
    expect(fills[0]!.tx_hash).toBe(batch.tx_hash);
    const receipt = await ex.clients.public.getTransactionReceipt({ hash: batch.tx_hash });
    expect(receipt.status).toBe("success");
    // The maker's request leads to the same transaction: its order was filled later.
    const maker = (await control("GET", `/requests/${ask.id}`)).body;
    expect(maker.links.fills).toEqual([expect.objectContaining({ during_request: false, tx_hash: batch.tx_hash })]);
    expect(maker.links.orders_created[0].status).toBe("settled");
  });

  test("an on-chain revert shows on the request that made the fill", async () => {
    const [a, b] = await fundBoth();
    ex.control.setFaultPlan({ revertFills: [{ fill: ex.parts.engine.fillCount() + 1, reason: "InsufficientBalance" }] });
    await place(a, "ask");
    const bid = await place(b, "bid");
    await ex.control.settle();
    const e = (await control("GET", `/requests/${bid.id}`)).body;
    expect(e.links.revert_reasons).toEqual(["InsufficientBalance"]);
    expect(e.links.fills[0]).toMatchObject({ status: "reverted", revert_reason: "InsufficientBalance" });
    expect(e.links.settlement_batches[0].tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    // The batch carries its fills' reasons on the request's page and the order's page too, as on /batches.
    expect(e.links.settlement_batches[0].revert_reasons).toEqual(["InsufficientBalance"]);
    const order = (await control("GET", `/orders/${e.links.orders_created[0].order_id}`)).body;
    expect(order.settlement_batches[0].revert_reasons).toEqual(["InsufficientBalance"]);
  });

  test("a cancel links the cancelled order", async () => {
    const [a] = await fundBoth();
    const ask = await place(a, "ask", "1.0005");
    await ex.control.advanceClock(301);
    const { body } = await ex.signCancel(a, ask.signed);
    const c = await api("POST", "/orders/cancel", body);
    expect(c.status).toBe(200);
    const e = (await control("GET", `/requests/${c.id}`)).body;
    expect(e.wallet).toBe(a.address);
    expect(e.links.orders_cancelled).toEqual([{ order_id: ask.body.order_id, status: "cancelled" }]);
    expect(e.links.orders_created).toEqual([]);
  });

  test("a request during which the exchange took in its wallet's deposit links it (a balance read's sync here); another wallet's read does not", async () => {
    const [me, other] = [ex.accounts[1]!, ex.accounts[2]!];
    const usdc = ex.registry.tokenBySymbol("USDC")!;
    await sendCalls(ex.clients.public, me.privateKey, depositCalls({ exchange: ex.contracts.exchange, vault: ex.contracts.vault, token: usdc.address, owner: me.address, amount: 40_000_000n }), "deposit");
    const keyOf = async (a: FundedAccount) => {
      const k = (await api("POST", "/api-keys", { ...(await ex.signManageApiKey(a, "create", ex.control.now().now)), label: "moves" })).body;
      return { authorization: `Bearer ${k.api_key}:${k.api_secret}` };
    };
    // The other wallet's read syncs first: the deposit is taken in during its request, but it is not that wallet's.
    const otherRead = await api("GET", `/balances?owner_address=${other.address.toLowerCase()}`, undefined, await keyOf(other));
    expect(otherRead.status).toBe(200);
    expect((await control("GET", `/requests/${otherRead.id}`)).body.links.vault_moves).toEqual([]);
    const amount = 15_000_000n;
    await sendCalls(ex.clients.public, me.privateKey, depositCalls({ exchange: ex.contracts.exchange, vault: ex.contracts.vault, token: usdc.address, owner: me.address, amount }), "deposit");
    const read = await api("GET", `/balances?owner_address=${me.address.toLowerCase()}`, undefined, await keyOf(me));
    expect(read.status).toBe(200);
    const e = (await control("GET", `/requests/${read.id}`)).body;
    expect(e.links.vault_moves).toEqual([{ kind: "deposit", token: usdc.address, amount: amount.toString(), symbol: "USDC", decimals: 6 }]);
  });

  test("a swap links the quote it consumed, its order, its legs and, once settled, its transaction", async () => {
    const me = ex.accounts[0]!;
    const quote = await api("POST", "/swap/quote", {
      from_token: ex.contracts.tokens.USDC,
      to_token: ex.contracts.tokens.USDT,
      from_amount: "50000000",
      owner_address: me.address,
      recipient: me.address,
      expiration: ex.control.now().now + 600,
    });
    expect(quote.status).toBe(200);
    const { body } = await ex.signIntent(me, quote.body);
    const swap = await api("POST", "/swap", body);
    expect(swap.status).toBe(200);
    await ex.control.settle();
    const e = (await control("GET", `/requests/${swap.id}`)).body;
    expect(typeof quote.body.uuid).toBe("string");
    expect(e.links.quotes_consumed).toEqual([quote.body.uuid]);
    expect(e.links.orders_created).toEqual([{ order_id: swap.body.trade_id, status: "settled" }]);
    expect(e.links.fills.length).toBeGreaterThan(0);
    expect(e.links.settlement_batches).toEqual([expect.objectContaining({ kind: "swap", status: "confirmed", tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) })]);
    // The viewer's order view names where a swap's output went; other orders have none.
    expect((await control("GET", `/orders/${swap.body.trade_id}`)).body.swap_recipient).toBe(me.address.toLowerCase());
    const limit = e.links.fills[0].maker_order_id;
    expect((await control("GET", `/orders/${limit}`)).body.swap_recipient).toBeNull();
  });

  test("near misses: a bad signature records the typed data expected and the address it recovers to; a bad field names the field", async () => {
    const [a, b] = await fundBoth();
    const preview = await api("POST", "/orders/preview", ex.newOrder(a, { symbol: market().symbol, side: "ask", amount: "20", price: "1.5" }));
    const { body: signedByB } = await ex.signOrder(b, preview.body);
    const bad = await api("POST", "/orders", { ...signedByB, owner_address: a.address });
    expect(bad.status).toBe(400);
    const e = (await control("GET", `/requests/${bad.id}`)).body;
    expect(e.rejection.code).toBe("SIGNATURE_INVALID");
    expect(e.rejection.fields).toContain("signature");
    expect(e.rejection.signature).toMatchObject({ field: "signature", expected_signer: a.address, recovered_signer: b.address });
    expect(e.rejection.signature.typed_data.primaryType).toBe("Order");
    expect(e.rejection.signature.typed_data.domain).toMatchObject({ name: ex.domain.name, chainId: ex.chainId, verifyingContract: ex.contracts.exchange });
    expect(e.rejection.signature.typed_data.message.user).toBe(a.address);
    expect(e.links.orders_created).toEqual([]);

    const badPrice = await api("POST", "/orders/preview", { ...ex.newOrder(a, { symbol: market().symbol, side: "ask", amount: "20", price: "1" }), price: "abc" });
    expect(badPrice.status).toBe(400);
    const p = (await control("GET", `/requests/${badPrice.id}`)).body;
    expect(p.rejection).toMatchObject({ code: "INVALID_DECIMAL_FORMAT", fields: ["body.price"] });

    // The typed POST /orders envelope names its field inside `detail`.
    const { body: signed } = await ex.signOrder(a, preview.body);
    const badPlace = await api("POST", "/orders", { ...signed, price: "1.5555555555" });
    expect(badPlace.status).toBe(400);
    // The answer carries the spec's keys only; the journal names the field from the error itself.
    expect(Object.keys(badPlace.body.detail).sort()).toEqual(["detail", "error_code"]);
    expect((await control("GET", `/requests/${badPlace.id}`)).body.rejection.fields).toContain("body.price");
  });

  test("a request without a wallet links nothing, even when another wallet's order and fill land while it runs", async () => {
    const [a, b] = await fundBoth();
    expect((await place(a, "ask", "1", "20")).status).toBe(201);
    expect((await control("POST", "/routes", { rules: [{ method: "GET", path: "/tokens", latency_ms: 1500, times: 1 }] })).status).toBe(200);
    const slow = api("GET", "/tokens");
    // In its delay once the rule (times: 1) is spent.
    await expect.poll(async () => (await control("GET", "/routes")).body.rules.length).toBe(0);
    const bid = await place(b, "bid", "1", "20");
    expect(bid.status).toBe(201);
    const tokens = await slow;
    const e = (await control("GET", `/requests/${tokens.id}`)).body;
    expect(e.wallet).toBeNull();
    // The bid and its fill happened inside the slow request's window...
    expect(e.events.to).toBeGreaterThan(e.events.from);
    // ...but are the bid's doing, not the token list's.
    expect(e.links.orders_created).toEqual([]);
    expect(e.links.fills).toEqual([]);
    expect((await control("GET", `/requests/${bid.id}`)).body.links.orders_created).toMatchObject([{ order_id: bid.body.order_id }]);
  });

  test("a request a reset or timeout fault cut off records status 0 (no answer), not 200", async () => {
    expect((await control("POST", "/routes", { rules: [{ method: "GET", path: "/markets", fail: "reset", times: 1 }] })).status).toBe(200);
    await expect(fetch(`${ex.baseUrl}/markets`)).rejects.toThrow();
    const [entry] = (await control("GET", "/requests?path=/api/v1/markets&limit=1")).body.entries;
    expect(entry).toMatchObject({ status: 0, fault: { kind: "reset" } });
    expect((await control("GET", "/requests/count?status=2xx&path=/api/v1/markets")).body).toEqual({ count: 0 });
    // ...and status=0 finds the requests that got no answer.
    const unanswered = (await control("GET", "/requests?status=0")).body;
    expect(unanswered.entries.map((x: { id: string }) => x.id)).toEqual([entry.id]);
    expect(ex.control.requests({ status: "0" }).entries.map((x) => x.id)).toEqual([entry.id]);
    // In code a misspelt key, or HTTP's `since`, would match everything: it is refused instead.
    expect(() => ex.control.requests({ stauts: "0" } as never)).toThrow(/unknown filter key "stauts"; the keys are method, path, status, owner, sinceMs/);
    expect(() => ex.control.requests({ since: "2100-01-01T00:00:00Z" } as never)).toThrow(TypeError);
  });

  /** The request id number a GET takes now. */
  const requestNumber = async () => Number((await fetch(`${ex.baseUrl}/system/time`)).headers.get("x-request-id")!.slice(1));

  test("a client that hangs up before any answer records status 0 and no response body, not express's default 200", async () => {
    const { request } = await import("node:http");
    const url = new URL(ex.baseUrl);
    // Its body declared past the 1 MiB limit (read and dropped before a 413) and within it: the
    // client is gone before either ends, and the route never answers.
    for (const [path, declared] of [["/orders", "2000000"], ["/orders/preview", "2000000"]]) {
      const before = ex.control.requests({ path: `/api/v1${path}` }).total;
      const req = request({ host: url.hostname, port: url.port, method: "POST", path: `/api/v1${path}`, headers: { "content-type": "application/json", "content-length": declared } });
      req.on("error", () => undefined);
      let last = await requestNumber();
      req.write("{");
      // Until the server has the request (a hang-up sooner could come before it arrives): it
      // took a request id when the ids of two requests in a row skip one.
      await expect.poll(async () => {
        const n = await requestNumber();
        const skipped = n > last + 1;
        last = n;
        return skipped;
      }, { timeout: 10_000 }).toBe(true);
      req.destroy();
      await expect.poll(() => ex.control.requests({ path: `/api/v1${path}` }).total, { timeout: 10_000 }).toBe(before + 1);
      const [e] = ex.control.requests({ path: `/api/v1${path}`, limit: 1 }).entries;
      expect([e!.status, e!.response_body, e!.rejection]).toEqual([0, null, null]);
    }
  });

  test("an API-key request records the key's owner as its wallet", async () => {
    const a = ex.accounts[0]!;
    const auth = await ex.signManageApiKey(a, "create", ex.control.now().now);
    const k = await api("POST", "/api-keys", { ...auth, label: "journal" });
    expect(k.status).toBe(200);
    const r = await api("GET", `/orders?owner_address=${a.address}`, undefined, { authorization: `Bearer ${k.body.api_key}:${k.body.api_secret}` });
    expect(r.status).toBe(200);
    expect((await control("GET", `/requests/${r.id}`)).body.wallet).toBe(a.address);
  });

  test("filters, count, pagination (newest first), clearing, and bad filters", async () => {
    await control("DELETE", "/requests");
    const [a, b] = await fundBoth();
    await place(a, "ask");
    await place(b, "bid");
    await api("GET", "/nope");
    const all = (await control("GET", "/requests")).body;
    expect(all.total).toBe(5); // 2 previews, 2 orders, 1 unknown path
    expect(all.entries.map((e: any) => e.seq)).toEqual([...all.entries.map((e: any) => e.seq)].sort((x: number, y: number) => y - x));
    expect((await control("GET", "/requests/count?method=post&path=/api/v1/orders")).body).toEqual({ count: 2 });
    expect((await control("GET", "/requests/count?path=/api/v1/orders*")).body).toEqual({ count: 4 });
    expect((await control("GET", "/requests/count?status=4xx")).body).toEqual({ count: 1 });
    expect((await control("GET", "/requests/count?status=201")).body).toEqual({ count: 2 });
    expect((await control("GET", `/requests/count?owner=${a.address}`)).body).toEqual({ count: 1 });
    const now = ex.control.now().now;
    expect((await control("GET", `/requests/count?since=${now + 1}`)).body).toEqual({ count: 0 });
    expect((await control("GET", `/requests/count?since=${new Date(now * 1000).toISOString()}`)).body).toEqual({ count: 5 });
    // A time without a zone is UTC whatever the server's zone (as GET /orders reads its bounds); a space, a date alone, a day the month lacks.
    const tz = process.env["TZ"];
    process.env["TZ"] = "America/New_York";
    try {
      const zoneless = new Date(now * 1000).toISOString().slice(0, 19);
      expect((await control("GET", `/requests/count?since=${zoneless}`)).body).toEqual({ count: 5 });
      expect((await control("GET", `/requests/count?since=${new Date((now + 1) * 1000).toISOString().slice(0, 19).replace("T", "%20")}`)).body).toEqual({ count: 0 });
      expect((await control("GET", `/requests/count?since=${zoneless.slice(0, 10)}`)).body).toEqual({ count: 5 });
      const impossible = await control("GET", "/requests/count?since=2026-02-31T00:00:00Z");
      expect(impossible.status).toBe(400);
      expect(impossible.body).toEqual({ detail: "since: Unix seconds or an ISO 8601 date-time (a time without a zone is UTC)" });
    } finally {
      if (tz === undefined) delete process.env["TZ"];
      else process.env["TZ"] = tz;
    }
    const p1 = (await control("GET", "/requests?limit=2")).body;
    const p2 = (await control("GET", `/requests?limit=2&offset=${p1.next_offset}`)).body;
    const p3 = (await control("GET", `/requests?limit=2&offset=${p2.next_offset}`)).body;
    expect([...p1.entries, ...p2.entries, ...p3.entries].map((e: any) => e.id)).toEqual(all.entries.map((e: any) => e.id));
    expect(p3.next_offset).toBeNull();
    // A last page that is exactly full has no next page either.
    const full = (await control("GET", "/requests?limit=5")).body;
    expect([full.entries.length, full.next_offset]).toEqual([5, null]);
    expect((await control("GET", "/requests?limit=4&offset=1")).body.next_offset).toBeNull();
    // bodies=0: the same page without each entry's two bodies (the viewer's list poll); bodies=1 is the default.
    const lean = (await control("GET", "/requests?limit=5&bodies=0")).body;
    expect(lean.entries).toEqual(full.entries.map(({ request_body: _q, response_body: _r, ...rest }: any) => rest));
    expect(lean.entries.every((e: any) => !("request_body" in e) && !("response_body" in e))).toBe(true);
    expect(lean.total).toBe(full.total);
    expect((await control("GET", "/requests?limit=5&bodies=1")).body).toEqual(full);
    const badBodies = await control("GET", "/requests?bodies=no");
    expect([badBodies.status, badBodies.body]).toEqual([400, { detail: "bodies: 0 (entries without their bodies) or 1" }]);
    const countBodies = await control("GET", "/requests/count?bodies=0");
    expect([countBodies.status, countBodies.body]).toEqual([400, { detail: "count takes no limit, offset, bodies or fills_limit" }]);
    // In process, the same entries.
    expect(ex.control.requests({ method: "POST", status: "2xx" }).entries.map((e) => e.id)).toEqual(
      all.entries.filter((e: any) => e.method === "POST" && e.status < 300).map((e: any) => e.id),
    );

    for (const q of ["status=99", "owner=bob", "limit=0", "since=yesterday", "colour=red"]) expect((await control("GET", `/requests?${q}`)).status).toBe(400);
    // A key given twice is named as such (as on /api/v1), on the journal and on the viewer's and control's reads.
    for (const path of ["/requests?status=4xx&status=2xx", "/requests/count?limit=1&limit=2", "/orders?limit=1&limit=2", "/events?after=0&after=1"]) {
      const twice = await control("GET", path);
      expect([twice.status, twice.body]).toEqual([400, { detail: `${path.split("&")[1]!.split("=")[0]}: given more than once; send it once` }]);
    }
    expect((await control("GET", "/requests/count?limit=3")).status).toBe(400);
    expect((await control("GET", "/requests/r999999")).status).toBe(404);
    expect((await control("POST", "/requests")).status).toBe(405);

    expect((await control("DELETE", "/requests")).body).toEqual({ cleared: 5 });
    expect((await control("GET", "/requests/count")).body).toEqual({ count: 0 });
    // The run summary counts the entries the journal holds, not the ids it handed out.
    expect((await control("GET", "/run")).body.counts.requests).toBe(0);
  });

  test("snapshots carry the journal: restore brings its entries back; ids are never handed out twice", async () => {
    await control("DELETE", "/requests");
    const first = await api("GET", "/markets");
    const snap = await ex.snapshot();
    const second = await api("GET", "/tokens");
    expect(ex.control.requests().total).toBe(2);
    await ex.restore(snap);
    const after = ex.control.requests();
    expect(after.entries.map((e) => e.id)).toEqual([first.id]);
    const third = await api("GET", "/tokens");
    expect(third.id).not.toBe(second.id);
    expect(Number(third.id!.slice(1))).toBeGreaterThan(Number(second.id!.slice(1)));
  });
});

describe("run views", () => {
  test("/orders lists the newest first and pages; after a restore it shows the restored run's orders", async () => {
    const [a] = await fundBoth();
    const before = (await control("GET", "/orders?limit=500")).body;
    const snap = await ex.snapshot();
    const placed = await place(a, "ask", "1.0005");
    const after = (await control("GET", "/orders?limit=2")).body;
    expect(after.total).toBe(before.total + 1);
    expect(after.orders[0]).toMatchObject({ order_id: placed.body.order_id, owner: a.address, status: "pending" });
    expect(after.orders[1].order_id).toBe(before.orders[0].order_id);
    const page2 = (await control("GET", `/orders?limit=2&offset=${after.next_offset}`)).body;
    expect(page2.orders.map((o: any) => o.order_id)).toEqual(before.orders.slice(1, 3).map((o: any) => o.order_id));
    expect((await control("GET", `/orders?offset=${after.total + 5}`)).body.orders).toEqual([]);
    // The last page, exactly full: no next one.
    const last = (await control("GET", `/orders?limit=2&offset=${after.total - 2}`)).body;
    expect([last.orders.length, last.next_offset]).toEqual([2, null]);
    const detail = (await control("GET", `/orders/${placed.body.order_id}`)).body;
    expect(detail.requests).toEqual([expect.objectContaining({ id: placed.id, method: "POST", path: "/api/v1/orders", status: 201 })]);

    await ex.restore(snap);
    const restored = (await control("GET", "/orders?limit=500")).body;
    expect(restored.total).toBe(before.total);
    expect(restored.orders.map((o: any) => o.order_id)).toEqual(before.orders.map((o: any) => o.order_id));
    expect((await control("GET", `/orders/${placed.body.order_id}`)).status).toBe(404);
    expect((await control("GET", "/orders?limit=0")).status).toBe(400);
  });

  test("/orders after a restore whose log grew back past the last read: the new orders are listed", async () => {
    const [a, b] = await fundBoth();
    await ex.control.fund({ address: a.address, token: market().baseSymbol, amount: 1_000_000_000n, vault: true });
    // Crossing orders leave fills to settle; the snapshot is taken before the settlement.
    expect((await place(a, "ask", "1", "20")).status).toBe(201);
    expect((await place(b, "bid", "1", "20")).status).toBe(201);
    const snap = await ex.snapshot();
    const eventsAt = ex.parts.engine.log.length;
    await ex.control.settle();
    const settlementEvents = ex.parts.engine.log.length - eventsAt;
    expect(settlementEvents).toBeGreaterThan(0);
    // The index reads up to the end of the settlement's events...
    const beforeRestore = (await control("GET", "/orders?limit=500")).body.total;
    await ex.restore(snap);
    // ...then, before the next read, as many new orders as the settlement had events.
    const placed: string[] = [];
    for (let i = 0; i <= settlementEvents; i++) {
      if (i % 4 === 3) await ex.control.advanceClock(1); // the trade group allows 5 per second
      const r = await place(a, "ask", (1.01 + i / 1000).toFixed(4), "20");
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      placed.push(r.body.order_id);
    }
    expect(ex.parts.engine.log.length).toBeGreaterThanOrEqual(eventsAt + settlementEvents);
    const listed = (await control("GET", "/orders?limit=500")).body;
    expect(listed.total).toBe(beforeRestore + placed.length);
    expect(listed.orders.slice(0, placed.length).map((o: any) => o.order_id)).toEqual([...placed].reverse());
    expect((await control("GET", "/run")).body.counts.orders).toBe(listed.total);
  });
});
