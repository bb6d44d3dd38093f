// A `--state-dir` server whose lock another server took over while it was paused (a
// debugger, `docker pause`, SIGSTOP past the stale time: a server of another pid space then
// takes the lock for stale, checkpoints and removes the old logs). Resumed, the first must
// not acknowledge a change, checkpoint or remove anything there: it refuses changes with
// the reason (503, as when the directory cannot be written), and on close leaves the new
// owner's lock, checkpoint and log byte for byte. The takeover is simulated: the lock is
// replaced, in one step, by one naming pid 1 of another pid space, as that server writes it.
import { existsSync, linkSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import request from "supertest";
import { describe, expect, onTestFinished, test } from "vitest";
import { createFakeExchange } from "../../fixtures/fake-exchange.ts";
import { encodeLossless } from "../../fixtures/lossless-json.ts";
import { LOCK_FILE, ownerFileName, StateDirLockLostError, takeStateDirLock, type LockOptions, type StateDirLock } from "../../fixtures/state-dir-lock.ts";
import { STATE_FILE, writeStateFile } from "../../fixtures/state-dir.ts";
import { WalWriter, listGenerations, readWal, segmentPath, walDir } from "../../fixtures/wal.ts";
import { toyPersistedApp } from "./toy-persisted-app.ts";
import { capturedBase } from "./captured-base.ts";

const OTHER_SPACE = "00000000-0000-4000-8000-000000000000/4026531999";

function tmp(): string {
  return mkdtempSync(path.join(tmpdir(), "fakex-sd-takeover-"));
}

/**
 * What the new owner does: its lock (pid 1 of another pid space) renamed over ours, its
 * checkpoint naming the next log generation, that log, and the older logs removed.
 */
function takeOver(dir: string): void {
  takeLockOver(dir);
  writeFileSync(path.join(dir, STATE_FILE), "the new owner's checkpoint\n");
  const next = Math.max(0, ...readdirSync(walDir(dir)).map((n) => Number(n.slice(0, 10)))) + 1;
  for (const name of readdirSync(walDir(dir))) rmSync(path.join(walDir(dir), name));
  writeFileSync(segmentPath(dir, next), "the new owner's log");
}

/** The new owner's first step: its lock (pid 1 of another pid space) renamed over ours. */
function takeLockOver(dir: string): void {
  const owner = path.join(dir, ownerFileName(1, OTHER_SPACE));
  writeFileSync(owner, "1");
  linkSync(owner, path.join(dir, `${LOCK_FILE}.new`));
  renameSync(path.join(dir, `${LOCK_FILE}.new`), path.join(dir, LOCK_FILE));
}

/** Every file under `dir` (its log folder too), by name, with its bytes. */
function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const file = path.join(dir, name);
    if (statSync(file).isFile()) out[name] = readFileSync(file, "base64");
  }
  return out;
}

const lostMessage = (dir: string, seconds: number) =>
  `${dir}'s lock was taken over by another fakex (pid 1) while this one was paused or unresponsive for over ${seconds} s; this server takes no more changes: stop it`;
const leftMessage = (dir: string) => `${dir} is left to the fakex that took its lock over, as that one has it: this server wrote no checkpoint there and removed nothing`;

/** POST /api/v1/add?n= appends to a list under WalPersistence, on a directory this process holds the lock of. */
async function toy(dir: string, timing: LockOptions, duringRequest: () => void = () => undefined) {
  const said: string[] = [];
  const lock = await takeStateDirLock(dir, { ...timing, onLost: (m) => said.push(`lost: ${m}`), onLeft: (m) => said.push(`left: ${m}`) });
  onTestFinished(() => lock.release());
  const { p, app, list, failures, node } = toyPersistedApp({ dir, generation: 0, dirLock: lock }, duringRequest);
  await p.recover([], null as never, async () => undefined);
  return { p, app, list, failures, node, said, lock };
}

const MINE_RPC = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "evm_mine", params: [] });

describe("a server whose state directory's lock was taken over while it was paused", () => {
  test("the next change, before the heartbeat sees it, is refused (503, the reason) and not carried out; close leaves the new owner's files as they are", async () => {
    const dir = tmp();
    // A heartbeat that never comes in the test: the change itself must notice.
    const t = await toy(dir, { heartbeatMs: 600_000 });
    expect((await request(t.app).post("/api/v1/add?n=1").send({})).status).toBe(201);
    takeOver(dir);
    const theirs = files(dir);
    const detail = lostMessage(dir, 5);
    const refused = await request(t.app).post("/api/v1/add?n=2").send({});
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ detail });
    expect(refused.headers["content-type"]).toBe("application/json; charset=utf-8");
    // Retrying does not help: no Retry-After, as for a directory that cannot be written.
    expect(refused.headers["retry-after"]).toBeUndefined();
    expect(t.list).toEqual([1]);
    // From then on everything is refused, the chain's mutating calls too.
    const read = await request(t.app).get("/api/v1/list");
    expect(read.status).toBe(503);
    expect(read.body).toEqual({ detail });
    const rpc = await request(t.app).post("/rpc").set("content-type", "application/json").send(MINE_RPC);
    expect(rpc.status).toBe(503);
    expect(rpc.body).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: detail } });
    expect(t.p.refusal()).toBe(detail);
    expect(t.failures).toHaveLength(1);
    expect(t.failures[0]).toBeInstanceOf(StateDirLockLostError);
    // SIGTERM: no checkpoint over the new owner's, nothing removed, and no failure.
    await t.p.close();
    await t.lock.release();
    expect(files(dir)).toEqual(theirs);
    expect(t.said).toEqual([`lost: ${detail}`, `left: ${leftMessage(dir)}`]);
  });

  test("a JSON-RPC change first after the takeover is refused (503, the reason) and never reaches the node", async () => {
    const dir = tmp();
    const t = await toy(dir, { heartbeatMs: 600_000 });
    takeOver(dir);
    const rpc = await request(t.app).post("/rpc").set("content-type", "application/json").send(MINE_RPC);
    expect(rpc.status).toBe(503);
    expect(rpc.body).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: lostMessage(dir, 5) } });
    expect(t.node.calls).toBe(0);
  });

  test("a takeover while a change runs (after it was let in, before its record is written): the change is not acknowledged and its record never reaches the directory", async () => {
    const dir = tmp();
    let takeOverNow = false;
    let theirs: Record<string, string> = {};
    const t = await toy(dir, { heartbeatMs: 600_000 }, () => {
      if (!takeOverNow) return;
      takeOver(dir);
      theirs = files(dir);
    });
    expect((await request(t.app).post("/api/v1/add?n=1").send({})).status).toBe(201);
    takeOverNow = true;
    const refused = await request(t.app).post("/api/v1/add?n=2").send({});
    takeOverNow = false;
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ detail: lostMessage(dir, 5) });
    expect(files(dir)).toEqual(theirs);
    await t.p.close();
    await t.lock.release();
    expect(files(dir)).toEqual(theirs);
    expect(t.said).toEqual([`lost: ${lostMessage(dir, 5)}`, `left: ${leftMessage(dir)}`]);
  });

  test("the heartbeat that sees the lock taken stops the server taking changes with no request running, and a checkpoint is refused", async () => {
    const dir = tmp();
    const t = await toy(dir, { heartbeatMs: 20, staleAfterMs: 400 });
    expect((await request(t.app).post("/api/v1/add?n=1").send({})).status).toBe(201);
    takeOver(dir);
    const theirs = files(dir);
    for (let i = 0; i < 500 && t.p.refusal() === null; i++) await new Promise((r) => setTimeout(r, 10));
    expect(t.p.refusal()).toBe(lostMessage(dir, 0.4));
    expect(t.said).toEqual([`lost: ${lostMessage(dir, 0.4)}`]);
    await expect(t.p.checkpoint()).rejects.toBeInstanceOf(StateDirLockLostError);
    await t.p.close();
    await t.lock.release();
    expect(files(dir)).toEqual(theirs);
    expect(t.failures).toHaveLength(1);
  });

  test("a record written and synced just as the lock is taken is not acknowledged, and the file is left as it is (not cut back)", async () => {
    const dir = tmp();
    let checks = 0;
    const lost = new StateDirLockLostError("taken", 1);
    // Held for the write, taken by the fsync's end.
    const confirm = async () => {
      if (++checks > 1) throw lost;
    };
    const w = new WalWriter(dir, 1, () => undefined, undefined, confirm);
    await expect(w.durable(w.append({ n: 1 }))).rejects.toBe(lost);
    expect(checks).toBe(2);
    expect(w.failed).toBe(lost);
    await w.close();
    expect((await readWal(dir, 1)).records).toEqual([{ n: 1 }]);
    expect(await listGenerations(dir)).toEqual([1]);
  });

  test("a threshold checkpoint whose directory is taken just after its file is renamed: the older logs stay, and the loss is said once (by the lock)", async () => {
    const dir = tmp();
    const said: string[] = [];
    const lock = await takeStateDirLock(dir, { heartbeatMs: 600_000, onLost: (m) => said.push(`lost: ${m}`) });
    onTestFinished(() => lock.release());
    const stateFile = path.join(dir, STATE_FILE);
    const inode = () => (existsSync(stateFile) ? statSync(stateFile).ino : null);
    let armed = false;
    // The check just before the checkpoint's rename still finds the lock this server's; the
    // new owner takes it right after, as the file is renamed in.
    const takenAtRename: Pick<StateDirLock, "confirmHeld" | "whenLost"> = {
      confirmHeld: async () => {
        await lock.confirmHeld();
        if (armed && existsSync(`${stateFile}.${process.pid}.tmp`)) {
          armed = false;
          takeLockOver(dir);
        }
      },
      whenLost: (listener) => lock.whenLost(listener),
    };
    // Every record is over the size threshold: the change itself starts the checkpoint.
    const { p, app } = toyPersistedApp({ dir, generation: 0, dirLock: takenAtRename, thresholds: { bytes: 1 }, onError: (what) => said.push(`error: ${what}`) });
    await p.recover([], null as never, async () => undefined);
    const logsBefore = await listGenerations(dir);
    const checkpointBefore = inode();
    armed = true;
    expect((await request(app).post("/api/v1/add?n=1").send({})).status).toBe(201);
    await p.idle();
    expect([armed, inode() === checkpointBefore, readFileSync(path.join(dir, LOCK_FILE), "utf8")]).toEqual([false, false, "1"]);
    // The logs the new owner's replay may still need are not removed under it.
    expect(await listGenerations(dir)).toEqual([...logsBefore, logsBefore.at(-1)! + 1]);
    expect(said).toEqual([`lost: ${lostMessage(dir, 5)}`]);
  });

  test("a checkpoint whose directory is taken while its file is written is not renamed over the new owner's; its temporary file goes", async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, STATE_FILE), "the new owner's checkpoint\n");
    const lost = new StateDirLockLostError("taken", 1);
    const state = { ...capturedBase, savedAtMs: 0, walGeneration: 1, layersJson: encodeLossless({ engine: { orders: [], log: { datas: [] } } }) };
    await expect(writeStateFile(dir, state, undefined, async () => Promise.reject(lost))).rejects.toBe(lost);
    expect(readdirSync(dir)).toEqual([STATE_FILE]);
    expect(readFileSync(path.join(dir, STATE_FILE), "utf8")).toBe("the new owner's checkpoint\n");
  });

  test("createFakeExchange({ stateDir }): /__fakex/mine after the takeover is refused and mines nothing; close() leaves the new owner's files and says so", async () => {
    const dir = tmp();
    const said: string[] = [];
    const ex = await createFakeExchange({ liquidity: false, users: 2, clock: "virtual", stateDir: dir, logger: { error: (m) => said.push(m) } });
    onTestFinished(() => ex.close().catch(() => undefined));
    const control = `${new URL(ex.baseUrl).origin}/__fakex`;
    const mine = () => fetch(`${control}/mine`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    const height = async () => Number(((await (await fetch(ex.parts.anvil.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }) })).json()) as { result: string }).result);
    expect((await mine()).status).toBe(200);
    const before = await height();
    takeOver(dir);
    const theirs = files(dir);
    const refused = await mine();
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({ detail: lostMessage(dir, 5) });
    expect(refused.headers.get("retry-after")).toBeNull();
    expect(await height()).toBe(before);
    const health = await fetch(`${ex.baseUrl}/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ detail: lostMessage(dir, 5) });
    // In-process too (not only the refusal every request meets): the exchange is unavailable.
    expect(ex.control.health()).toMatchObject({ status: "unavailable", unavailable: true });
    await ex.close();
    expect(files(dir)).toEqual(theirs);
    expect(said).toEqual([`--state-dir: ${lostMessage(dir, 5)}`, `--state-dir: ${leftMessage(dir)}`]);
  }, 120_000);
});

describe("a lock taken over that no check has seen yet", () => {
  test("its release removes nothing (the new owner's lock stays) and says the directory was lost and left", async () => {
    const dir = tmp();
    const said: string[] = [];
    const lock = await takeStateDirLock(dir, { heartbeatMs: 600_000, onLost: (m) => said.push(`lost: ${m}`), onLeft: (m) => said.push(`left: ${m}`) });
    takeLockOver(dir);
    const theirs = files(dir);
    await lock.release();
    expect(files(dir)).toEqual(theirs);
    expect(readFileSync(path.join(dir, LOCK_FILE), "utf8")).toBe("1");
    expect(said).toEqual([`lost: ${lostMessage(dir, 5)}`, `left: ${leftMessage(dir)}`]);
  });

  test("a listener registered after the loss was seen is told at once", async () => {
    const dir = tmp();
    const lock = await takeStateDirLock(dir, { heartbeatMs: 600_000 });
    onTestFinished(() => lock.release());
    takeLockOver(dir);
    const refused = await lock.confirmHeld().then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(StateDirLockLostError);
    const told: unknown[] = [];
    lock.whenLost((e) => told.push(e));
    expect(told).toEqual([refused]);
  });
});

describe("a lock removed with this server's owner name", () => {
  test("is taken as lost, and the reason says it was removed (no pid 0, no pause it did not have)", async () => {
    const dir = tmp();
    const said: string[] = [];
    const lock = await takeStateDirLock(dir, { heartbeatMs: 600_000, onLost: (m) => said.push(m) });
    onTestFinished(() => lock.release());
    for (const name of readdirSync(dir)) rmSync(path.join(dir, name));
    const refused = await lock.confirmHeld().then(
      () => null,
      (e: unknown) => e,
    );
    const message = `${dir}'s lock and this server's owner name were removed (by hand, or by another fakex taking the lock over); this server takes no more changes: stop it`;
    expect(refused).toBeInstanceOf(StateDirLockLostError);
    expect((refused as Error).message).toBe(message);
    expect(said).toEqual([message]);
  });
});
