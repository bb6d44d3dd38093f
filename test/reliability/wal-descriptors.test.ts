// `--state-dir` when the process runs out of file descriptors (EMFILE) for a moment, as under
// a low `ulimit -n` with many client sockets open: the opens a log rotation and a checkpoint
// make (the next log file, the checkpoint's temporary file, the directory for its fsync) wait
// for a descriptor, the server takes changes again once one is free, and nothing
// acknowledged is lost. A shortage that outlasts the wait still stops the server, saying the
// real cause. The file system's `open` is wrapped so a test fails the next few opens of the
// files it names with EMFILE, with no ulimit needed.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import request from "supertest";
import { describe, expect, onTestFinished, test, vi } from "vitest";
import { capturedBase } from "./captured-base.ts";

/** Opens of files whose path passes `matches` fail with `code` while `left` > 0. */
const shortage = vi.hoisted(() => ({ matches: (_file: string) => false, left: 0, code: "EMFILE", failed: [] as string[] }));

vi.mock("node:fs/promises", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs/promises")>();
  const open = (async (file: string, flags?: string) => {
    if (shortage.left > 0 && shortage.matches(String(file))) {
      shortage.left--;
      shortage.failed.push(String(file));
      const text = shortage.code === "EMFILE" ? "too many open files" : "no space left on device";
      throw Object.assign(new Error(`${shortage.code}: ${text}, open '${String(file)}'`), { code: shortage.code, syscall: "open", path: String(file) });
    }
    return fs.open(file, flags);
  }) as typeof fs.open;
  return { ...fs, open, default: { ...fs, open } };
});

const { WalWriter, readWal, segmentPath, walDir } = await import("../../fixtures/wal.ts");
const { readStateFile, statePath, writeStateFile } = await import("../../fixtures/state-dir.ts");
const { RpcRefusedError } = await import("../../fixtures/rpc-proxy.ts");
const { toyPersistedApp } = await import("./toy-persisted-app.ts");
const { encodeLossless } = await import("../../fixtures/lossless-json.ts");

/** Short waits: a test's shortage is over after a count of opens, not after a time. */
const WAITS_MS = [1, 1, 1, 1];

function tmp(): string {
  return mkdtempSync(path.join(tmpdir(), "fakex-wal-fd-"));
}

/** The next `opens` opens of files under `dir` whose path passes `matches` fail with `code`. */
function runOut(opens: number, matches: (file: string) => boolean, code = "EMFILE"): void {
  Object.assign(shortage, { matches, left: opens, code, failed: [] });
  onTestFinished(() => void (shortage.left = 0));
}

const isLogFile = (file: string) => file.endsWith(".log");
const isDirectory = (dir: string) => (file: string) => file === dir || file === walDir(dir);
const isCheckpointTemp = (file: string) => file.endsWith(".tmp");


function toy(dir: string) {
  return toyPersistedApp({ dir, generation: 0, descriptorWaitsMs: WAITS_MS });
}

/** What a restart finds: the checkpoint's list, then the numbers the log after it adds. */
async function afterRestart(dir: string): Promise<number[]> {
  const state = await readStateFile(dir);
  const inState = (JSON.parse(JSON.stringify(state!.layers)) as { list: number[] }).list;
  const { records } = await readWal(dir, state!.walGeneration);
  const logged = (records as { u: string }[]).map((r) => Number(new URL(r.u, "http://x").searchParams.get("n")));
  return [...inState, ...logged];
}

const REVERT = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "evm_revert", params: ["0x1"] });
const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("write-ahead log: out of file descriptors for a moment", () => {
  test("a rotation whose new log file (and then its directory) cannot be opened waits for a descriptor: the records are written, acknowledged and nothing fails", async () => {
    const dir = tmp();
    const failures: unknown[] = [];
    const w = new WalWriter(dir, 1, (e) => failures.push(e), WAITS_MS);
    await w.durable(w.append({ n: 1 }));
    runOut(2, isLogFile);
    const next = w.rotate();
    const seq = w.append({ n: 2 });
    await w.durable(seq);
    expect(shortage.failed).toEqual([segmentPath(dir, 2), segmentPath(dir, 2)]);
    runOut(2, isDirectory(dir));
    w.rotate();
    await w.durable(w.append({ n: 3 }));
    expect(shortage.failed).toEqual([walDir(dir), walDir(dir)]);
    expect(failures).toEqual([]);
    expect(w.failed).toBeNull();
    await w.close();
    expect((await readWal(dir, 1)).records).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect((await readWal(dir, next.generation)).records).toEqual([{ n: 2 }, { n: 3 }]);
  });

  test("a checkpoint whose temporary file, then its directory, cannot be opened waits for a descriptor and is written", async () => {
    const dir = tmp();
    runOut(3, (f) => isCheckpointTemp(f) || f === dir);
    await writeStateFile(dir, { ...capturedBase, savedAtMs: 1, walGeneration: 4, layersJson: encodeLossless({ engine: { orders: [], log: { datas: [] } } }) } as never, WAITS_MS);
    expect(shortage.failed.filter(isCheckpointTemp)).toHaveLength(3);
    runOut(2, (f) => f === dir);
    await writeStateFile(dir, { ...capturedBase, savedAtMs: 2, walGeneration: 5, layersJson: encodeLossless({ engine: { orders: [], log: { datas: [] } } }) } as never, WAITS_MS);
    expect(shortage.failed).toEqual([dir, dir]);
    expect((await readStateFile(dir))!.walGeneration).toBe(5);
    expect(readFileSync(statePath(dir), "utf8").split("\n")).toHaveLength(2);
  });

  test("the server: a checkpoint, and an evm_revert's checkpoint, during a shortage go through; requests go on being taken; a restart has every acknowledged one", async () => {
    const dir = tmp();
    const t = toy(dir);
    await t.p.recover([], null as never, async () => undefined);
    expect((await request(t.app).post("/api/v1/add?n=1").send({})).status).toBe(201);
    runOut(2, (f) => isLogFile(f) || isCheckpointTemp(f));
    const checkpoint = t.p.checkpoint();
    // Sent while the checkpoint waits for a descriptor: answered once its record is on disk.
    const during = await request(t.app).post("/api/v1/add?n=2").send({});
    await checkpoint;
    expect(during.status).toBe(201);
    expect(during.body).toEqual({ n: 2 });
    expect(shortage.failed).toHaveLength(2);
    // rpc_url's evm_revert is kept by a checkpoint in place of a record: it waits too, and is answered.
    runOut(3, (f) => isLogFile(f) || isCheckpointTemp(f) || f === dir);
    const revert = await request(t.app).post("/rpc").set("content-type", "application/json").send(REVERT);
    expect(revert.status).toBe(200);
    expect(revert.body).toEqual({ jsonrpc: "2.0", id: 1, result: true });
    expect(shortage.failed).toHaveLength(3);
    // Taking changes again; reads answer.
    expect(t.p.refusal()).toBeNull();
    expect((await request(t.app).post("/api/v1/add?n=3").send({})).status).toBe(201);
    const read = await request(t.app).get("/api/v1/list");
    expect(read.status).toBe(200);
    expect(read.body).toEqual([1, 2, 3]);
    expect(t.failures).toEqual([]);
    // A crash now: the checkpoint plus the log after it hold every acknowledged request.
    expect(await afterRestart(dir)).toEqual([1, 2, 3]);
  });

  test("a shortage that outlasts the wait stops the server as before, saying the cause (out of file descriptors, raise ulimit -n), not 'make room'", async () => {
    const dir = tmp();
    const t = toy(dir);
    await t.p.recover([], null as never, async () => undefined);
    expect((await request(t.app).post("/api/v1/add?n=1").send({})).status).toBe(201);
    runOut(WAITS_MS.length + 1, isLogFile);
    await expect(t.p.checkpoint()).rejects.toThrow(/^EMFILE: too many open files/);
    expect(t.failures).toHaveLength(1);
    const detail = `the --state-dir ${dir} could not be written (out of file descriptors (EMFILE; raise ulimit -n): EMFILE: too many open files, open '${segmentPath(dir, 2)}'): this server takes no more changes. Every acknowledged request is kept there; stop fakex, raise its file-descriptor limit (ulimit -n) and start it again with the same --state-dir`;
    const refused = await request(t.app).post("/api/v1/add?n=2").send({});
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ detail });
    expect(refused.headers["retry-after"]).toBeUndefined();
    const rpc = await request(t.app).post("/rpc").set("content-type", "application/json").send(REVERT);
    expect(rpc.status).toBe(503);
    expect(rpc.body).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: detail } });
    await expect(t.p.close()).rejects.toThrow(/^the final checkpoint could not be written \(out of file descriptors \(EMFILE; raise ulimit -n\): /);
    expect(await afterRestart(dir)).toEqual([1]);
  });

  test("a full disk keeps saying 'make room'", async () => {
    const dir = tmp();
    const t = toy(dir);
    await t.p.recover([], null as never, async () => undefined);
    runOut(1, isLogFile, "ENOSPC");
    await expect(t.p.checkpoint()).rejects.toThrow(/^ENOSPC/);
    expect(t.p.refusal()).toBe(
      `the --state-dir ${dir} could not be written (the disk is full (ENOSPC; make room): ENOSPC: no space left on device, open '${segmentPath(dir, 2)}'): this server takes no more changes. Every acknowledged request is kept there; stop fakex, make room and start it again with the same --state-dir`,
    );
  });

  test("an evm_revert whose checkpoint cannot be written is refused with the state directory's reason, not 'the chain node did not answer', and no later change is taken", async () => {
    const dir = tmp();
    const t = toy(dir);
    await t.p.recover([], null as never, async () => undefined);
    expect((await request(t.app).post("/api/v1/add?n=1").send({})).status).toBe(201);
    // The log's new file opens; the checkpoint's temporary file does not, however long it waits.
    runOut(WAITS_MS.length + 1, isCheckpointTemp);
    const revert = await request(t.app).post("/rpc").set("content-type", "application/json").send(REVERT);
    const detail = new RegExp(
      `^the --state-dir ${escaped(dir)} could not be written \\(out of file descriptors \\(EMFILE; raise ulimit -n\\): EMFILE: too many open files, open '${escaped(statePath(dir))}\\.\\d+\\.tmp'\\): this server takes no more changes\\. Every acknowledged request is kept there; stop fakex, raise its file-descriptor limit \\(ulimit -n\\) and start it again with the same --state-dir$`,
    );
    expect(revert.status).toBe(503);
    expect(revert.headers["retry-after"]).toBeUndefined();
    expect(Object.keys(revert.body)).toEqual(["jsonrpc", "id", "error"]);
    expect(revert.body.id).toBe(1);
    expect(revert.body.error.code).toBe(-32603);
    expect(revert.body.error.message).toMatch(detail);
    // The revert is in memory and in neither the log nor a checkpoint: nothing may build on it.
    expect(t.failures).toHaveLength(1);
    const after = await request(t.app).post("/api/v1/add?n=2").send({});
    expect(after.status).toBe(503);
    expect(after.body.detail).toMatch(detail);
    expect(t.list).toEqual([1]);
    await expect(t.p.rpc(Buffer.from(REVERT), async () => ({ status: 200, text: "{}" }))).rejects.toBeInstanceOf(RpcRefusedError);
    // The final checkpoint would keep the refused revert: it is refused too, and the log has what was acknowledged.
    await expect(t.p.close()).rejects.toThrow(/^the final checkpoint could not be written \(out of file descriptors/);
    expect(await afterRestart(dir)).toEqual([1]);
  });
});
