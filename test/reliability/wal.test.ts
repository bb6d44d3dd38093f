// The write-ahead log below the server: framing and checksums, torn tails against
// damage, generations, group commit, and WalPersistence's lock, records, hold-back,
// checkpoints and replay order, with a stand-in capture (no chain needed).
import { describe, expect, onTestFinished, test, vi } from "vitest";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import express from "express";
import request from "supertest";
import { encodeLossless } from "../../fixtures/lossless-json.ts";
import { StateFileError, readStateFile } from "../../fixtures/state-dir.ts";
import { WalWriter, checkNoLogWithoutCheckpoint, decodeSegment, dropTornTail, encodeFrame, listGenerations, readWal, segmentPath, walDir } from "../../fixtures/wal.ts";
import { UNPARSED_BODY, WalPersistence, type WalRecord } from "../../fixtures/wal-persistence.ts";
import { RouteFaults } from "../../sim/http/control-faults.ts";
import { parseAhead } from "../../sim/http/body-ahead.ts";
import { jsonBody } from "../../sim/http/body.ts";
import { errorHandler } from "../../sim/http/errors.ts";
import { Rng } from "../../sim/core/rng.ts";
import { capturedBase } from "./captured-base.ts";

function tmp(): string {
  return mkdtempSync(path.join(tmpdir(), "fakex-wal-"));
}

async function writeRecords(dir: string, generation: number, records: unknown[]): Promise<void> {
  const w = new WalWriter(dir, generation);
  await w.durable(records.map((r) => w.append(r)).at(-1)!);
  await w.close();
}

describe("frames", () => {
  test("records come back in order; the file is length, CRC-32, JSON per record", async () => {
    const dir = tmp();
    const recs = [{ a: 1 }, { b: "ü€" }, { c: [1, 2, 3] }];
    await writeRecords(dir, 1, recs);
    const buf = readFileSync(segmentPath(dir, 1));
    expect(buf.equals(Buffer.concat(recs.map(encodeFrame)))).toBe(true);
    expect(buf.readUInt32LE(0)).toBe(Buffer.byteLength(JSON.stringify(recs[0])));
    expect(await readWal(dir, 1)).toEqual({ records: recs, tornBytes: 0, tornGeneration: null, generations: [1] });
  });

  test("a torn tail (cut record, cut header, bad checksum on the last record, zero fill, a zero header) is dropped", () => {
    const good = Buffer.concat([encodeFrame({ n: 1 }), encodeFrame({ n: 2 })]);
    const last = encodeFrame({ n: 3 });
    const bad = Buffer.from(last);
    bad[bad.length - 2] = bad[bad.length - 2]! ^ 0xff;
    // Junk whose first four bytes read as a length above the record cap runs past the end all the same.
    const junk = Buffer.from([0xff, 0xff, 0xff, 0x0f, 1, 2, 3, 4, 5, 6]);
    // A zero header (an empty record, which is never written) with anything after it: zeros a power loss left.
    const zeroHeaderThenJunk = Buffer.concat([Buffer.alloc(8), Buffer.from([1, 0x41, 0x7b])]);
    for (const tail of [last.subarray(0, last.length - 3), last.subarray(0, 5), bad, Buffer.alloc(40), junk, zeroHeaderThenJunk]) {
      const seg = decodeSegment(Buffer.concat([good, tail]), "f", true);
      expect(seg.records).toEqual([{ n: 1 }, { n: 2 }]);
      expect(seg.tornBytes).toBe(tail.length);
    }
  });

  test("dropTornTail cuts the torn bytes off on disk, so the file reads whole once a newer one follows it (a second crash before the restart's checkpoint)", async () => {
    const dir = tmp();
    await writeRecords(dir, 1, [{ n: 1 }, { n: 2 }]);
    const whole = readFileSync(segmentPath(dir, 1)).length;
    appendFileSync(segmentPath(dir, 1), encodeFrame({ n: 3 }).subarray(0, 7));
    const read = await readWal(dir, 1);
    expect(read.tornBytes).toBe(7);
    await dropTornTail(dir, 1, read.tornBytes);
    expect(readFileSync(segmentPath(dir, 1)).length).toBe(whole);
    await writeRecords(dir, 2, [{ n: 4 }]);
    expect((await readWal(dir, 1)).records).toEqual([{ n: 1 }, { n: 2 }, { n: 4 }]);
  });

  test("a torn tail in a newer generation (a crash after a checkpoint began a log file) is named by that generation, and only that file is cut", async () => {
    const dir = tmp();
    await writeRecords(dir, 1, [{ n: 1 }]);
    await writeRecords(dir, 2, [{ n: 2 }]);
    const older = readFileSync(segmentPath(dir, 1));
    const newerWhole = readFileSync(segmentPath(dir, 2)).length;
    appendFileSync(segmentPath(dir, 2), encodeFrame({ n: 3 }).subarray(0, 5));
    const read = await readWal(dir, 1);
    expect(read).toEqual({ records: [{ n: 1 }, { n: 2 }], tornBytes: 5, tornGeneration: 2, generations: [1, 2] });
    await dropTornTail(dir, read.tornGeneration!, read.tornBytes);
    // The older file keeps every byte: its record was acknowledged.
    expect(readFileSync(segmentPath(dir, 1)).equals(older)).toBe(true);
    expect(readFileSync(segmentPath(dir, 2)).length).toBe(newerWhole);
    expect(await readWal(dir, 1)).toEqual({ records: [{ n: 1 }, { n: 2 }], tornBytes: 0, tornGeneration: null, generations: [1, 2] });
  });

  test("a damaged record with records after it, or damage in an older file, is a StateFileError", async () => {
    const frames = [encodeFrame({ n: 1 }), encodeFrame({ n: 2 }), encodeFrame({ n: 3 })];
    const buf = Buffer.concat(frames);
    buf[frames[0]!.length + 10] = buf[frames[0]!.length + 10]! ^ 0x01; // inside record 2's payload
    expect(() => decodeSegment(buf, "f", true)).toThrow(StateFileError);
    expect(() => decodeSegment(buf, "f", true)).toThrow(/fails its checksum and records follow/);
    // A zeroed length (the checksum left) or an all-zero header with a whole record after it: damage, not a tail.
    const zeroedLength = Buffer.concat(frames);
    zeroedLength.writeUInt32LE(0, frames[0]!.length);
    expect(() => decodeSegment(zeroedLength, "f", true)).toThrow(StateFileError);
    const zeroHeaderThenRecord = Buffer.concat([frames[0]!, Buffer.alloc(8), frames[2]!]);
    expect(() => decodeSegment(zeroHeaderThenRecord, "f", true)).toThrow(StateFileError);
    // A cut record is only a torn tail in the newest file.
    const cut = Buffer.concat([frames[0]!, frames[1]!.subarray(0, 6)]);
    expect(() => decodeSegment(cut, "f", false)).toThrow(/not the newest log file/);
    const dir = tmp();
    await writeRecords(dir, 4, [{ n: 1 }]);
    appendFileSync(segmentPath(dir, 4), frames[1]!.subarray(0, 6));
    await writeRecords(dir, 5, [{ n: 2 }]);
    await expect(readWal(dir, 4)).rejects.toThrow(StateFileError);
  });

  test("generations are read from the checkpoint's on; a missing one, in between or the checkpoint's own, is an error", async () => {
    const dir = tmp();
    await writeRecords(dir, 2, [{ g: 2 }]);
    await writeRecords(dir, 3, [{ g: 3 }]);
    expect((await readWal(dir, 2)).records).toEqual([{ g: 2 }, { g: 3 }]);
    expect((await readWal(dir, 3)).records).toEqual([{ g: 3 }]);
    // The checkpoint's generation is created before the checkpoint is written: never legitimately absent.
    await expect(readWal(dir, 4)).rejects.toThrow(/log 4, which the checkpoint names, is missing/);
    await writeRecords(dir, 5, [{ g: 5 }]);
    // 4 is missing before 5.
    await expect(readWal(dir, 3)).rejects.toThrow(/log 4 is missing/);
    expect((await readWal(dir, 5)).records).toEqual([{ g: 5 }]);
  });

  test("generations are ordered by number, not by name: the tenth checkpoint's log follows the ninth's", async () => {
    const dir = tmp();
    await writeRecords(dir, 10, [{ g: 10 }]);
    await writeRecords(dir, 9, [{ g: 9 }]);
    await writeRecords(dir, 100, [{ g: 100 }]);
    expect(await listGenerations(dir)).toEqual([9, 10, 100]);
    await expect(readWal(dir, 9)).rejects.toThrow(/log 11 is missing \(found 9, 10, 100\)/);
    rmSync(segmentPath(dir, 100));
    expect(await readWal(dir, 9)).toEqual({ records: [{ g: 9 }, { g: 10 }], tornBytes: 0, tornGeneration: null, generations: [9, 10] });
  });

  test("a log with records and no checkpoint file is an error; an empty log (a start cut before its first checkpoint) is not", async () => {
    const dir = tmp();
    await checkNoLogWithoutCheckpoint(dir);
    mkdirSync(walDir(dir), { recursive: true });
    writeFileSync(segmentPath(dir, 1), "");
    await checkNoLogWithoutCheckpoint(dir);
    await writeRecords(dir, 2, [{ g: 2 }]);
    await expect(checkNoLogWithoutCheckpoint(dir)).rejects.toThrow(/holds 1 logged request\(s\) but .* has no state file/);
  });
});

describe("group commit", () => {
  test("records appended while a write is in flight share the next write + fdatasync", async () => {
    const dir = tmp();
    const w = new WalWriter(dir, 1);
    const seqs = Array.from({ length: 200 }, (_, i) => w.append({ i }));
    await Promise.all(seqs.map((s) => w.durable(s)));
    expect(w.stats.records).toBe(200);
    expect(w.stats.syncs).toBeGreaterThanOrEqual(1);
    expect(w.stats.syncs).toBeLessThan(200);
    await w.close();
    expect((await readWal(dir, 1)).records).toHaveLength(200);
  });

  test("close writes the records still in the group commit (answers that did not wait for them) before it returns", async () => {
    const dir = tmp();
    const w = new WalWriter(dir, 1);
    await w.durable(w.append({ n: 1 }));
    w.append({ n: 2 });
    w.append({ n: 3 });
    await w.close();
    expect(await readWal(dir, 1)).toEqual({ records: [{ n: 1 }, { n: 2 }, { n: 3 }], tornBytes: 0, tornGeneration: null, generations: [1] });
  });

  test("rotate: later records go to the next file, which exists once the rotation is durable", async () => {
    const dir = tmp();
    const w = new WalWriter(dir, 1);
    w.append({ a: 1 });
    const next = w.rotate();
    expect(next.generation).toBe(2);
    await w.durable(next.seq);
    expect(await listGenerations(dir)).toEqual([1, 2]);
    await w.durable(w.append({ b: 2 }));
    await w.close();
    expect((await readWal(dir, 1)).records).toEqual([{ a: 1 }, { b: 2 }]);
    expect((await readWal(dir, 2)).records).toEqual([{ b: 2 }]);
  });
});


/**
 * A WalPersistence closed when its test ends: tests that stop at "a crash here" leave it open,
 * and its log's file handle would be closed by the collector, which Node deprecates (DEP0137).
 * A late checkpoint in the test's own folder is harmless; one that fails has nothing to say.
 */
function persistence(options: ConstructorParameters<typeof WalPersistence>[0]): WalPersistence {
  const p = new WalPersistence(options);
  onTestFinished(() => p.close().catch(() => undefined));
  return p;
}

/** A toy app under WalPersistence: POST /api/v1/add?n= appends to a list, with an await in the middle. */
function toy(dir: string, generation = 0, thresholds?: { bytes?: number; ageMs?: number }, onFailed?: (e: unknown) => void) {
  const list: number[] = [];
  let captures = 0;
  const p = persistence({
    dir,
    generation,
    ...(onFailed ? { onFailed } : {}),
    clockMs: () => 1_000 + list.length,
    stateVersion: () => list.length,
    ...(thresholds ? { thresholds } : {}),
    capture: async () => {
      captures++;
      return { ...capturedBase, savedAtMs: list.length, layersJson: encodeLossless({ engine: { orders: [], log: { datas: [] } }, list: [...list] }) };
    },
  });
  const app = express();
  app.use("/api/v1", p.middleware(1024 * 1024));
  app.post("/api/v1/add", parseAhead(express.json()), async (req, res) => {
    const n = Number(req.query["n"]);
    if (!Number.isInteger(n)) return res.status(422).json({ detail: "n" });
    // Without the lock, a later request could finish first and be logged first.
    await new Promise((r) => setTimeout(r, (n * 7) % 5));
    list.push(n);
    res.status(201).json({ n, auth: req.headers.authorization ?? null, body: req.body as unknown });
  });
  app.get("/api/v1/list", (_req, res) => {
    res.json(list);
  });
  return { p, app, list, captures: () => captures };
}

describe("WalPersistence", () => {
  test("state-changing requests apply one at a time, and the log holds them in apply order with what replay needs", async () => {
    const dir = tmp();
    const t = toy(dir);
    await t.p.recover([], null as never, async () => undefined);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => request(t.app).post(`/api/v1/add?n=${i}`).set("authorization", `Bearer k${i}`).send({ i })),
    );
    expect(answers.every((a) => a.status === 201)).toBe(true);
    expect((await request(t.app).post("/api/v1/add?n=x").send({})).status).toBe(422);
    expect((await request(t.app).get("/api/v1/list")).status).toBe(200);
    await t.p.close();
    const state = await readStateFile(dir);
    // close() checkpointed: the log after it is empty, the state holds everything.
    expect((await readWal(dir, state!.walGeneration)).records).toEqual([]);
    expect(state!.walGeneration).toBe(2);
    // The log before the checkpoint (generation 1, removed by it) is gone.
    expect(await listGenerations(dir)).toEqual([2]);
  });

  test("the records of a run, replayed in order, rebuild the same list; the 422 is logged too, the read is not", async () => {
    const dir = tmp();
    const t = toy(dir);
    await t.p.recover([], null as never, async () => undefined);
    await Promise.all(Array.from({ length: 8 }, (_, i) => request(t.app).post(`/api/v1/add?n=${i}`).set("authorization", `Bearer k${i}`).send({ i })));
    await request(t.app).post("/api/v1/add?n=bad").send({});
    await request(t.app).get("/api/v1/list");
    // A crash here: the log (generation 1) is what is left.
    const { records } = await readWal(dir, 1);
    const http = records as Extract<WalRecord, { k: "http" }>[];
    expect(http.map((r) => r.k)).toEqual(Array(9).fill("http"));
    expect(http.at(-1)).toMatchObject({ m: "POST", u: "/api/v1/add?n=bad", s: 422 });
    const first = http[0]!;
    expect(first.h["authorization"]).toMatch(/^Bearer k\d$/);
    expect(first.h["host"]).toBeUndefined();
    expect(first.b).toEqual({ i: Number(first.h["authorization"]!.slice(8)) });
    // Replay into a fresh toy: the same list, in the same order.
    const dir2 = tmp();
    const u = toy(dir2);
    const server = u.app.listen(0);
    const port = (server.address() as { port: number }).port;
    const clockTo: number[] = [];
    await u.p.recover(
      records as WalRecord[],
      {
        clockTo: async (ms) => void clockTo.push(ms),
        http: async (rec, headers) => (await fetch(`http://127.0.0.1:${port}${rec.u}`, { method: rec.m, headers: { ...rec.h, ...headers }, body: JSON.stringify(rec.b) })).status,
        rpc: async () => undefined,
        settle: async () => undefined,
      },
      async () => undefined,
    );
    server.close();
    expect(u.list).toEqual(t.list);
    expect(clockTo).toEqual(http.map((r) => r.t));
    expect(u.p.stats.replayMismatches).toBe(0);
    // Replayed requests were not logged again; the recovery checkpoint holds them.
    expect(u.p.stats.wal.records).toBe(0);
    expect((await readStateFile(dir2))!.savedAtMs).toBe(8);
  });

  test("replay carries out every kind of record in log order, each after the clock is moved to its reading; a status that differs is counted and said", async () => {
    const errors: string[] = [];
    const p = persistence({
      dir: tmp(),
      generation: 0,
      clockMs: () => 1_000,
      stateVersion: () => 0,
      onError: (what, e) => void errors.push(`${what}: ${(e as Error).message}`),
      capture: async () => ({ ...capturedBase, savedAtMs: 1_000, layersJson: encodeLossless({ engine: { orders: [], log: { datas: [] } } }) }),
    });
    const records: WalRecord[] = [
      { k: "http", m: "POST", u: "/api/v1/add?n=1", h: {}, b: {}, s: 201, t: 10, w: 0 },
      { k: "rpc", body: '{"jsonrpc":"2.0","id":1,"method":"evm_mine"}', t: 20, w: 0 },
      { k: "settle", t: 30, w: 0 },
      { k: "clock", t: 40, w: 0 },
      { k: "http", m: "DELETE", u: "/api/v1/orders/x", h: {}, s: 200, t: 50, w: 0 },
    ];
    const done: string[] = [];
    await p.recover(
      records,
      {
        clockTo: async (ms) => void done.push(`clock ${ms}`),
        // The DELETE answers 404 on replay where it was logged as 200.
        http: async (rec) => (done.push(`http ${rec.m} ${rec.u}`), rec.m === "DELETE" ? 404 : rec.s),
        rpc: async (body) => void done.push(`rpc ${body}`),
        settle: async () => void done.push("settle"),
      },
      async () => void done.push("after"),
    );
    expect(done).toEqual([
      "clock 10",
      "http POST /api/v1/add?n=1",
      "clock 20",
      'rpc {"jsonrpc":"2.0","id":1,"method":"evm_mine"}',
      "clock 30",
      "settle",
      "clock 40",
      "clock 50",
      "http DELETE /api/v1/orders/x",
      "after",
    ]);
    expect(p.stats.replayMismatches).toBe(1);
    expect(errors).toEqual(["replayed request answered differently: DELETE /api/v1/orders/x: 404, logged 200"]);
  });

  test("once a checkpoint written in place of a record failed, no later checkpoint is written: it would keep the change its client was told failed", async () => {
    const dir = tmp();
    let failCapture = false;
    let captures = 0;
    const p = persistence({
      dir,
      generation: 0,
      clockMs: () => 1_000,
      stateVersion: () => 0,
      capture: async () => {
        captures++;
        if (failCapture) throw new Error("the chain dump failed");
        return { ...capturedBase, savedAtMs: captures, layersJson: encodeLossless({ engine: { orders: [], log: { datas: [] } } }) };
      },
    });
    const app = express();
    app.use("/api/v1", p.middleware(1024 * 1024));
    // A request whose effect only a checkpoint can keep (a stale snapshot's restore).
    app.post("/api/v1/restore", async (_req, res) => {
      failCapture = true;
      const kept = await p.checkpointInsteadOfRecord().then(() => true, () => false);
      failCapture = false;
      res.status(kept ? 200 : 503).json({});
    });
    await p.recover([], null as never, async () => undefined);
    expect((await request(app).post("/api/v1/restore").send({})).status).toBe(503);
    expect(captures).toBe(2);
    await expect(p.checkpoint()).rejects.toThrow("the chain dump failed");
    // Refused before capturing: the state file is still the recovery's.
    expect(captures).toBe(2);
    expect(p.stats.checkpoints).toBe(1);
    expect((await readStateFile(dir))!.savedAtMs).toBe(1);
  });

  test("background work is logged as a clock record only when it changed the state; a JSON-RPC call the node never answered is not logged, one it answered is, byte for byte", async () => {
    const dir = tmp();
    let version = 0;
    const p = persistence({
      dir,
      generation: 0,
      clockMs: () => 3_000 + version,
      stateVersion: () => version,
      capture: async () => ({ ...capturedBase, savedAtMs: 3_000, layersJson: encodeLossless({ engine: { orders: [], log: { datas: [] } } }) }),
    });
    await p.recover([], null as never, async () => undefined);
    await p.background(async () => undefined);
    await p.background(async () => void version++);
    const unanswered = p.rpc(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"evm_mine"}'), async () => {
      throw new Error("the node does not answer");
    });
    await expect(unanswered).rejects.toThrow("the node does not answer");
    const sent = '{"jsonrpc":"2.0","id":2,"method":"eth_sendRawTransaction","params":["0x02"]}';
    expect(await p.rpc(Buffer.from(sent), async () => "0xhash")).toBe("0xhash");
    const { records } = await readWal(dir, 1);
    expect(records).toEqual([
      { k: "clock", t: 3_001, w: expect.any(Number) },
      { k: "rpc", body: sent, t: 3_001, w: expect.any(Number) },
    ]);
  });

  test("a client that gives up does not end its request: the next waits until the handler answers, and the log holds both in apply order with the handler's status", async () => {
    const dir = tmp();
    const t = toy(dir);
    await t.p.recover([], null as never, async () => undefined);
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => (entered = r));
    t.app.post("/api/v1/slow", async (_req, res) => {
      entered();
      await gate;
      t.list.push(-1);
      res.status(201).json({});
    });
    const server = t.app.listen(0);
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/v1`;
    try {
      const abort = new AbortController();
      const slow = fetch(`${url}/slow`, { method: "POST", signal: abort.signal }).catch(() => "gave up");
      await inHandler;
      abort.abort();
      expect(await slow).toBe("gave up");
      await new Promise((r) => setTimeout(r, 50));
      const next = fetch(`${url}/add?n=2`, { method: "POST" });
      await new Promise((r) => setTimeout(r, 50));
      expect(t.list).toEqual([]);
      open();
      expect((await next).status).toBe(201);
      expect(t.list).toEqual([-1, 2]);
      const http = (await readWal(dir, 1)).records as Extract<WalRecord, { k: "http" }>[];
      expect(http.map((r) => [r.u, r.s])).toEqual([["/api/v1/slow", 201], ["/api/v1/add?n=2", 201]]);
    } finally {
      open();
      server.close();
    }
  });

  test("a body that did not parse is logged as such (no body to re-apply): its replay sends one that does not parse either", async () => {
    const dir = tmp();
    const t = toy(dir);
    await t.p.recover([], null as never, async () => undefined);
    expect((await request(t.app).post("/api/v1/add?n=4").set("content-type", "application/json").send("{not json")).status).toBe(400);
    const [rec] = (await readWal(dir, 1)).records as Extract<WalRecord, { k: "http" }>[];
    expect(rec).toMatchObject({ u: "/api/v1/add?n=4", x: true, s: 400 });
    expect("b" in rec!).toBe(false);
    expect(t.list).toEqual([]);
  });

  test("a route fault's delay moves the wall clock again under the lock: the request is logged with the time it was served at", async () => {
    const dir = tmp();
    let clock = 5_000;
    let applied = 0;
    const servedAt: number[] = [];
    const p = persistence({
      dir,
      generation: 0,
      clockMs: () => clock,
      stateVersion: () => applied,
      // Each wall-clock move finds a second of real time passed.
      moveWallClock: async () => {
        clock += 1_000;
        return false;
      },
      capture: async () => ({ ...capturedBase, savedAtMs: clock, layersJson: encodeLossless({ engine: { orders: [], log: { datas: [] } } }) }),
    });
    const faults = new RouteFaults(new Rng("latency-clock"));
    faults.set([{ method: "POST", path: "/add", latency_ms: 20, times: 1 }]);
    const app = express();
    app.use("/api/v1", p.middleware(1024 * 1024));
    app.use("/api/v1", faults.middleware());
    app.post("/api/v1/add", (_req, res) => {
      servedAt.push(clock);
      applied++;
      res.status(201).json({});
    });
    await p.recover([], null as never, async () => undefined);
    expect((await request(app).post("/api/v1/add").send({})).status).toBe(201);
    expect((await request(app).post("/api/v1/add").send({})).status).toBe(201);
    // Moved on arrival (6000) and again when the delay ended (7000); the next one on arrival only.
    expect(servedAt).toEqual([7_000, 8_000]);
    const { records } = await readWal(dir, 1);
    expect((records as Extract<WalRecord, { k: "http" }>[]).map((r) => r.t)).toEqual(servedAt);
    await p.close();
  });

  test("a read whose wall-clock move fired timed scenario events is logged, though the state version did not move; a read that fired none is not", async () => {
    const dir = tmp();
    // Two reads: the first finds timed events due (the move fires them), the second finds none.
    const fires = [true, false];
    const p = persistence({
      dir,
      generation: 0,
      clockMs: () => 2_000,
      stateVersion: () => 0,
      moveWallClock: async () => fires.shift() ?? false,
      capture: async () => ({ ...capturedBase, savedAtMs: 2_000, layersJson: encodeLossless({ engine: { orders: [], log: { datas: [] } } }) }),
    });
    const app = express();
    app.use("/api/v1", p.middleware(1024 * 1024));
    app.get("/api/v1/markets", (_req, res) => void res.json([]));
    await p.recover([], null as never, async () => undefined);
    expect((await request(app).get("/api/v1/markets?first")).status).toBe(200);
    expect((await request(app).get("/api/v1/markets?second")).status).toBe(200);
    const { records } = await readWal(dir, 1);
    expect((records as Extract<WalRecord, { k: "http" }>[]).map((r) => [r.m, r.u, r.s, r.t])).toEqual([["GET", "/api/v1/markets?first", 200, 2_000]]);
    await p.close();
  });

  test("a read that used up a route-fault rule is logged, so the replay gives the rule to that read again, not to the next write", async () => {
    const rules = [{ path: "/*", fail: 503 as const, times: 1 }];
    const app = (dir: string) => {
      const list: number[] = [];
      const faults = new RouteFaults(new Rng("read-rule"));
      faults.set(rules);
      const p = persistence({
        dir,
        generation: 0,
        clockMs: () => 1_000,
        stateVersion: () => list.length + faults.taken,
        capture: async () => ({ ...capturedBase, savedAtMs: 1_000, layersJson: encodeLossless({ engine: { orders: [], log: { datas: [] } }, list: [...list] }) }),
      });
      const a = express();
      a.use("/api/v1", p.middleware(1024 * 1024));
      a.use("/api/v1", faults.middleware());
      a.get("/api/v1/list", (_req, res) => void res.json(list));
      a.post("/api/v1/add", (req, res) => {
        list.push(Number(req.query["n"]));
        res.status(201).json({});
      });
      return { a, p, list };
    };
    const first = app(tmp());
    const dir = tmp();
    const live = app(dir);
    await live.p.recover([], null as never, async () => undefined);
    expect((await request(live.a).get("/api/v1/list")).status).toBe(503);
    expect((await request(live.a).post("/api/v1/add?n=1")).status).toBe(201);
    const { records } = await readWal(dir, 1);
    expect((records as Extract<WalRecord, { k: "http" }>[]).map((r) => [r.m, r.s])).toEqual([["GET", 503], ["POST", 201]]);
    const server = first.a.listen(0);
    const port = (server.address() as { port: number }).port;
    await first.p.recover(
      records as WalRecord[],
      {
        clockTo: async () => undefined,
        http: async (rec, headers) => (await fetch(`http://127.0.0.1:${port}${rec.u}`, { method: rec.m, headers: { ...rec.h, ...headers }, ...(rec.m === "GET" ? {} : { body: JSON.stringify(rec.b ?? {}) }) })).status,
        rpc: async () => undefined,
        settle: async () => undefined,
      },
      async () => undefined,
    );
    server.close();
    expect(first.list).toEqual([1]);
    expect(first.p.stats.replayMismatches).toBe(0);
  });

  test("a record of a body its client cut short, as logs before `xe` wrote it (`xc`), replays as the same refusal", async () => {
    // The exchange's own body reader and error answers: the stand-in alone would get a 422.
    const p = persistence({ dir: tmp(), generation: 0, clockMs: () => 1_000, stateVersion: () => 0, capture: async () => ({ ...capturedBase, savedAtMs: 1_000, layersJson: encodeLossless({}) }) });
    const applied: unknown[] = [];
    const app = express();
    app.use("/api/v1", p.middleware(1024 * 1024));
    app.post("/api/v1/add", jsonBody(), (req, res) => {
      applied.push(req.body);
      res.status(201).json({});
    });
    app.use(errorHandler({ error: () => undefined }));
    const server = app.listen(0);
    const port = (server.address() as { port: number }).port;
    const cut: WalRecord = { k: "http", m: "POST", u: "/api/v1/add?n=9", h: { "content-type": "application/json" }, x: true, xc: true, s: 400, t: 1_000, w: 0 };
    try {
      await p.recover(
        [cut],
        {
          clockTo: async () => undefined,
          // The stand-in recovery sends for a body it does not have (fixtures/boot/recovery.ts).
          http: async (rec, headers) => (await fetch(`http://127.0.0.1:${port}${rec.u}`, { method: rec.m, headers: { ...rec.h, ...headers }, body: UNPARSED_BODY })).status,
          rpc: async () => undefined,
          settle: async () => undefined,
        },
        async () => undefined,
      );
    } finally {
      server.close();
    }
    expect(applied).toEqual([]);
    expect(p.stats.replayMismatches).toBe(0);
  });

  test("a compressed body, or one in another charset, is logged as its JSON with headers that describe that: the replay applies it", async () => {
    const dir = tmp();
    const t = toy(dir);
    await t.p.recover([], null as never, async () => undefined);
    const server = t.app.listen(0);
    const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const gz = await fetch(`${origin}/api/v1/add?n=5`, { method: "POST", headers: { "content-type": "application/json", "content-encoding": "gzip" }, body: gzipSync(JSON.stringify({ i: 5 })) });
      expect(gz.status).toBe(201);
      const utf16 = await fetch(`${origin}/api/v1/add?n=6`, { method: "POST", headers: { "content-type": "application/json; charset=utf-16le" }, body: Buffer.from(JSON.stringify({ i: "é6" }), "utf16le") });
      expect(utf16.status).toBe(201);
    } finally {
      server.close();
    }
    const { records } = await readWal(dir, 1);
    const http = records as Extract<WalRecord, { k: "http" }>[];
    expect(http.map((r) => [r.b, r.h["content-encoding"], r.h["content-type"]])).toEqual([
      [{ i: 5 }, undefined, "application/json"],
      [{ i: "é6" }, undefined, "application/json"],
    ]);
    // Replayed the way recovery does (fixtures/boot/recovery.ts): the same list.
    const u = toy(tmp());
    const replayServer = u.app.listen(0);
    const port = (replayServer.address() as { port: number }).port;
    await u.p.recover(
      http,
      {
        clockTo: async () => undefined,
        http: async (rec, headers) => (await fetch(`http://127.0.0.1:${port}${rec.u}`, { method: rec.m, headers: { ...rec.h, ...headers }, body: JSON.stringify(rec.b) })).status,
        rpc: async () => undefined,
        settle: async () => undefined,
      },
      async () => undefined,
    );
    replayServer.close();
    expect(u.list).toEqual([5, 6]);
    expect(u.p.stats.replayMismatches).toBe(0);
  });

  test("a 2xx waits for its record's fsync; after a failed log write every request is refused (503 saying why) and no background work runs", async () => {
    const dir = tmp();
    const failures: unknown[] = [];
    const t = toy(dir, 0, undefined, (e) => failures.push(e));
    await t.p.recover([], null as never, async () => undefined);
    expect((await request(t.app).post("/api/v1/add?n=0").send({})).status).toBe(201);
    // Break the log: its directory becomes a file, so the next generation (the next checkpoint's) cannot be opened.
    rmSync(walDir(dir), { recursive: true });
    writeFileSync(walDir(dir), "not a directory");
    expect(await t.p.checkpoint().catch((e: unknown) => e)).toBeInstanceOf(Error);
    expect(failures).toHaveLength(1);
    const said = new RegExp(`^the --state-dir ${dir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} could not be written \\(.+\\): this server takes no more changes`);
    for (const n of [1, 2]) {
      const r = await request(t.app).post(`/api/v1/add?n=${n}`).send({});
      expect(r.status).toBe(503);
      expect(r.body.detail).toMatch(said);
      // Retrying does not help: no Retry-After.
      expect(r.headers["retry-after"]).toBeUndefined();
    }
    // Refused before they ran, and reads too: the server shows nothing a restart would not have.
    expect(t.list).toEqual([0]);
    const read = await request(t.app).get("/api/v1/list");
    expect(read.status).toBe(503);
    expect(read.body.detail).toMatch(said);
    expect(t.p.refusal()).toMatch(said);
    // A state-changing JSON-RPC call (rpc_url) is refused before it reaches the node, saying why.
    let forwarded = 0;
    await expect(t.p.rpc(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"evm_mine"}'), async () => void forwarded++)).rejects.toThrow(said);
    expect(forwarded).toBe(0);
    // An auto-settle round or a clock tick would change what could not be logged: they do not run.
    let ran = 0;
    await t.p.settleRound(async () => (ran++, true));
    await t.p.background(async () => void ran++);
    expect(ran).toBe(0);
    // Told once, and the final checkpoint refuses rather than starting a log file after the failed one.
    await expect(t.p.close()).rejects.toThrow(/final checkpoint could not be written/);
    expect(failures).toHaveLength(1);
  });

  test("the age threshold counts from the oldest record since the last checkpoint: records after a checkpoint start it again", async () => {
    // Only performance.now is faked: the age is read from it, and the test moves it by hand.
    vi.useFakeTimers({ toFake: ["performance"] });
    onTestFinished(() => void vi.useRealTimers());
    const t = toy(tmp(), 0, { ageMs: 60_000 });
    await t.p.recover([], null as never, async () => undefined);
    expect((await request(t.app).post("/api/v1/add?n=1").send({})).status).toBe(201);
    vi.advanceTimersByTime(60_000);
    // Its record finds the oldest one a minute old: a checkpoint.
    expect((await request(t.app).post("/api/v1/add?n=2").send({})).status).toBe(201);
    await t.p.idle();
    expect(t.p.stats.checkpoints).toBe(2);
    // The first record after that checkpoint is its log's oldest, and it is new: no checkpoint.
    expect((await request(t.app).post("/api/v1/add?n=3").send({})).status).toBe(201);
    await t.p.idle();
    expect(t.p.stats.checkpoints).toBe(2);
    expect(t.captures()).toBe(2);
  });

  test("changes logged while a threshold checkpoint waits for its turn start no second one: one checkpoint at a time", async () => {
    let version = 0;
    let captures = 0;
    const p = persistence({
      dir: tmp(),
      generation: 0,
      clockMs: () => 1_000,
      stateVersion: () => version,
      // Every record passes the size threshold.
      thresholds: { bytes: 1 },
      capture: async () => {
        captures++;
        return { ...capturedBase, savedAtMs: captures, layersJson: encodeLossless({ engine: { orders: [], log: { datas: [] } } }) };
      },
    });
    await p.recover([], null as never, async () => undefined);
    // Three changes queued for the lock at once: the first one's record starts a checkpoint,
    // which waits behind the other two; their records find it already started.
    await Promise.all([1, 2, 3].map(() => p.background(async () => void version++)));
    await p.idle();
    expect(captures).toBe(2);
    expect(p.stats.checkpoints).toBe(2);
  });

  test("the size threshold starts a checkpoint in the background while requests go on; nothing is lost across it", async () => {
    const dir = tmp();
    const t = toy(dir, 0, { bytes: 2_000 });
    await t.p.recover([], null as never, async () => undefined);
    const answers = [];
    for (let i = 0; i < 60; i++) answers.push(request(t.app).post(`/api/v1/add?n=${i}`).send({ pad: "x".repeat(100) }));
    expect((await Promise.all(answers)).every((a) => a.status === 201)).toBe(true);
    await t.p.idle();
    // Below the threshold: these stay in the log.
    for (let i = 60; i < 63; i++) expect((await request(t.app).post(`/api/v1/add?n=${i}`).send({})).status).toBe(201);
    // The recovery checkpoint, then at least one in the background (one at a time, so fewer than one per 2 kB).
    expect(t.p.stats.checkpoints).toBeGreaterThanOrEqual(2);
    // Crash now: checkpoint + log after it = every acknowledged request.
    const state = await readStateFile(dir);
    const { records } = await readWal(dir, state!.walGeneration);
    const inState = (JSON.parse(JSON.stringify(state!.layers)) as { list: number[] }).list;
    expect(inState.length + records.length).toBe(63);
    expect(records.length).toBeGreaterThanOrEqual(3);
    expect(new Set(inState).size).toBe(inState.length);
    expect(readdirSync(walDir(dir)).length).toBeLessThanOrEqual(2);
  });
});
