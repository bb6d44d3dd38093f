// The journal alone on an in-memory exchange (no chain node): its size bound, body
// copies cut at the byte limit, snapshot/restore, and a journal of size 0.
import express from "express";
import request from "supertest";
import { describe, expect, test } from "vitest";
import { API_PREFIX } from "../../sim/http/app.ts";
import { CONTROL_PREFIX } from "../../sim/http/control.ts";
import { createMemoryExchange } from "../../sim/http/exchange-app.ts";
import { RequestJournal } from "../../sim/http/journal.ts";
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

  test("a journal of negative size is refused", () => {
    const mem = createMemoryExchange();
    expect(() => new RequestJournal(mem.engine, { size: -1 })).toThrow(RangeError);
  });
});
