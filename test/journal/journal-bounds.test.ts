// The journal alone on an in-memory exchange (no chain node): its size bound, body
// copies cut at the byte limit, snapshot/restore, and a journal of size 0.
import express from "express";
import request from "supertest";
import { describe, expect, test } from "vitest";
import { API_PREFIX } from "../../sim/http/app.ts";
import { CONTROL_PREFIX } from "../../sim/http/control.ts";
import { createMemoryExchange } from "../../sim/http/exchange-app.ts";
import { RequestJournal, keepJournalSeq } from "../../sim/http/journal.ts";
import { journalRouter } from "../../sim/http/journal-control.ts";

function journaled(o: { size?: number; bodyBytes?: number } = {}) {
  const mem = createMemoryExchange({ logger: { error: () => undefined } });
  const journal = new RequestJournal(mem.engine, o);
  const app = express();
  app.use(CONTROL_PREFIX, journalRouter(journal));
  app.use(API_PREFIX, journal.middleware());
  app.use(mem.app);
  return { app, journal, mem };
}

describe("journal bounds", () => {
  test("keeps the newest `size` entries and drops the oldest; ids keep counting", async () => {
    const { app, journal } = journaled({ size: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await request(app).get("/api/v1/tokens")).headers["x-request-id"]!);
    expect(ids).toEqual(["r1", "r2", "r3", "r4", "r5"]);
    expect(journal.length).toBe(3);
    const list = await request(app).get("/__fakex/requests");
    expect(list.body.total).toBe(3);
    expect(list.body.entries.map((e: { id: string }) => e.id)).toEqual(["r5", "r4", "r3"]);
    expect((await request(app).get("/__fakex/requests/r1")).status).toBe(404);
  });

  test("bodies are cut at the byte limit and marked truncated with their full size", async () => {
    const { app, journal } = journaled({ bodyBytes: 64 });
    const big = { owner_address: "0x" + "ab".repeat(20), note: "x".repeat(500) };
    await request(app).post("/api/v1/orders/preview").send(big);
    const e = journal.all()[0]!;
    expect(e.request_body!.truncated).toBe(true);
    expect(e.request_body!.text).toHaveLength(64);
    expect(e.request_body!.bytes).toBe(Buffer.byteLength(JSON.stringify(big)));
    expect(e.request_body!.text).toBe(JSON.stringify(big).slice(0, 64));
    const tokens = await request(app).get("/api/v1/tokens");
    const t = journal.all()[1]!;
    expect(t.response_body!.bytes).toBe(Buffer.byteLength(tokens.text));
    expect(t.response_body!.truncated).toBe(tokens.text.length > 64);
  });

  test("size 0 numbers requests but keeps nothing", async () => {
    const { app, journal } = journaled({ size: 0 });
    const r = await request(app).get("/api/v1/tokens");
    expect(r.headers["x-request-id"]).toBe("r1");
    expect(journal.length).toBe(0);
  });

  test("snapshot/restore: entries come back, the counter does not go back; a smaller journal keeps the newest", async () => {
    const { app, journal } = journaled({ size: 10 });
    await request(app).get("/api/v1/tokens");
    await request(app).get("/api/v1/markets");
    const snap = journal.snapshot();
    await request(app).get("/api/v1/system/time");
    journal.restore(snap);
    expect(journal.all().map((e) => e.id)).toEqual(["r1", "r2"]);
    expect((await request(app).get("/api/v1/tokens")).headers["x-request-id"]).toBe("r4");

    const small = journaled({ size: 1 }).journal;
    small.restore(snap);
    expect(small.all().map((e) => e.id)).toEqual(["r2"]);
    expect(() => small.restore({ seq: 1 } as never)).toThrow(RangeError);
  });

  test("before=<id> lists only the requests received before that one (not it), in the list and the count; a bad id is 400", async () => {
    const { app } = journaled();
    for (let i = 0; i < 4; i++) await request(app).get("/api/v1/tokens");
    const held = await request(app).get("/__fakex/requests?before=r3");
    expect(held.status).toBe(200);
    expect(held.body.entries.map((e: { id: string }) => e.id)).toEqual(["r2", "r1"]);
    expect([held.body.total, held.body.next_offset]).toEqual([2, null]);
    expect((await request(app).get("/__fakex/requests/count?before=r3")).body).toEqual({ count: 2 });
    // An id past the newest (not handed out yet) holds everything so far.
    expect((await request(app).get("/__fakex/requests/count?before=r99")).body).toEqual({ count: 4 });
    const bad = await request(app).get("/__fakex/requests?before=42");
    expect([bad.status, bad.body]).toEqual([400, { detail: 'before: a request id such as r42, not "42"' }]);
  });

  test("a page is 100 entries unless limit says otherwise; limit 1000 is the most", async () => {
    const { app } = journaled();
    for (let i = 0; i < 101; i++) await request(app).get("/api/v1/tokens");
    const first = await request(app).get("/__fakex/requests");
    expect([first.body.entries.length, first.body.total, first.body.next_offset]).toEqual([100, 101, 100]);
    expect(first.body.entries[0].id).toBe("r101");
    const rest = await request(app).get("/__fakex/requests?offset=100");
    expect([rest.body.entries.map((e: { id: string }) => e.id), rest.body.next_offset]).toEqual([["r1"], null]);
    expect((await request(app).get("/__fakex/requests?limit=1000")).body.entries).toHaveLength(101);
    const over = await request(app).get("/__fakex/requests?limit=1001");
    expect([over.status, over.body]).toEqual([400, { detail: "limit must be a number 1-1000, got 1001" }]);
  });

  test("a status class matches its own hundred only: 2xx leaves out a 404, 4xx a 200", async () => {
    const { app } = journaled();
    await request(app).get("/api/v1/tokens");
    await request(app).get("/api/v1/nope");
    expect((await request(app).get("/__fakex/requests/count?status=2xx")).body).toEqual({ count: 1 });
    expect((await request(app).get("/__fakex/requests/count?status=4xx")).body).toEqual({ count: 1 });
    expect((await request(app).get("/__fakex/requests/count?status=5xx")).body).toEqual({ count: 0 });
  });

  test("clearing a journal that has wrapped round: the entries after it list newest first, and the oldest drop first again", async () => {
    const { app } = journaled({ size: 3 });
    for (let i = 0; i < 5; i++) await request(app).get("/api/v1/tokens");
    expect((await request(app).delete("/__fakex/requests")).body).toEqual({ cleared: 3 });
    for (let i = 0; i < 4; i++) await request(app).get("/api/v1/tokens");
    const list = await request(app).get("/__fakex/requests");
    expect(list.body.entries.map((e: { id: string }) => e.id)).toEqual(["r9", "r8", "r7"]);
  });

  test("a request replayed under the id it was first served with (a --state-dir log) keeps it, and later requests number on past it", async () => {
    const mem = createMemoryExchange({ logger: { error: () => undefined } });
    const journal = new RequestJournal(mem.engine);
    const app = express();
    // Stands in for the log's replay, which marks each request it applies again with its logged id.
    app.use(API_PREFIX, (req, _res, next) => {
      const logged = req.headers["x-test-logged-seq"];
      if (typeof logged === "string") keepJournalSeq(req, Number(logged));
      next();
    });
    app.use(API_PREFIX, journal.middleware());
    app.use(mem.app);
    expect((await request(app).get("/api/v1/tokens").set("x-test-logged-seq", "7")).headers["x-request-id"]).toBe("r7");
    expect((await request(app).get("/api/v1/tokens")).headers["x-request-id"]).toBe("r8");
    // An earlier id replayed keeps its own and does not move the counter back.
    expect((await request(app).get("/api/v1/tokens").set("x-test-logged-seq", "3")).headers["x-request-id"]).toBe("r3");
    expect((await request(app).get("/api/v1/tokens")).headers["x-request-id"]).toBe("r9");
  });

  test("a journal of negative size is refused", () => {
    const mem = createMemoryExchange();
    expect(() => new RequestJournal(mem.engine, { size: -1 })).toThrow(RangeError);
  });
});
