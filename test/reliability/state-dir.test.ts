// The parts of --state-dir below the CLI: the lossless encoding, the state file's
// checks, the RPC classification and the identity check. No chain needed (the
// write-ahead log's own parts: wal.test.ts).
import { describe, expect, test } from "vitest";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, linkSync, mkdirSync, renameSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { LosslessJsonError, decodeLossless, encodeLossless } from "../../fixtures/lossless-json.ts";
import { isStateChangingRpc } from "../../fixtures/rpc-proxy.ts";
import { capturedBase } from "./captured-base.ts";
import { LOCK_FILE, lockStateDir, ownerFileName, pidSpace, refuseIfInUse } from "../../fixtures/state-dir-lock.ts";
import {
  STATE_FILE,
  StateFileError,
  buildStamp,
  encodeLayers,
  identityConflicts,
  readStateFile,
  removeStaleTempFiles,
  writeStateFile,
  type CapturedState,
  type StateIdentity,
} from "../../fixtures/state-dir.ts";

describe("lossless JSON", () => {
  test("bigints, Maps, Sets, byte arrays, undefined in arrays and nesting come back equal", () => {
    const v = {
      amount: 2n ** 200n + 1n,
      negative: -7n,
      byOwner: new Map<string, unknown>([["0xab", { frozen: 5n, ids: new Set([1, 2, 3]) }]]),
      keys: new Map([[1n, "one"]]),
      bytes: new Uint8Array([0, 1, 254, 255]),
      holes: [1, undefined, 3],
      nested: [[{ a: null, b: "x", c: true, d: 1.5 }]],
    };
    const back = decodeLossless(encodeLossless(v)) as typeof v;
    expect(back).toEqual(v);
    expect(typeof back.amount).toBe("bigint");
    expect(back.byOwner).toBeInstanceOf(Map);
    expect((back.byOwner.get("0xab") as { ids: Set<number> }).ids).toBeInstanceOf(Set);
    expect(back.bytes).toBeInstanceOf(Uint8Array);
    expect(back.holes[1]).toBeUndefined();
    expect(back.holes).toHaveLength(3);
    // A decimal string stays a string: the tags keep 1n and "1" apart.
    expect(decodeLossless(encodeLossless({ s: "1", b: 1n }))).toEqual({ s: "1", b: 1n });
  });

  test("what would not come back equal is refused at encode time", () => {
    class Thing {
      x = 1;
    }
    expect(() => encodeLossless({ t: new Thing() })).toThrow(LosslessJsonError);
    expect(() => encodeLossless({ d: new Date(0) })).toThrow(/Date/);
    expect(() => encodeLossless({ n: Number.NaN })).toThrow(/non-finite/);
    expect(() => encodeLossless({ n: Infinity })).toThrow(/non-finite/);
    expect(() => encodeLossless({ f: () => 1 })).toThrow(/function/);
    expect(() => encodeLossless({ $t: "mine" })).toThrow(/would be read back as a tag/);
    // Shaped like a tag of our own but for an extra key: read back as undefined, its data gone.
    expect(() => encodeLossless({ $t: "undef", v: 1 })).toThrow('a plain object with a "$t" key at "" would be read back as a tag');
    expect(() => encodeLossless({ $t: "big", v: "1", note: "x" })).toThrow('a plain object with a "$t" key at "" would be read back as a tag');
    expect(() => decodeLossless('{"$t":"nope","v":1}')).toThrow(/unknown tag/);
  });
});

const identity: StateIdentity = { seed: 1, chainId: 31337, users: 3, liquidity: true, configHash: "a".repeat(64), scenarioHash: null };

function captured(n: number): CapturedState {
  return {
    ...capturedBase,
    identity,
    deployment: { chainId: 31337, blockNumber: 12n } as never,
    httpPort: 1234,
    savedAtMs: n,
    layersJson: encodeLossless({ engine: { n: BigInt(n), orders: [], fills: [], log: { datas: [] } }, blockMode: { kind: "automine" } }),
    walGeneration: 1,
  };
}

describe("the state file", () => {
  test("round trip; a missing file is a fresh start; the directory is created; no temp file is left", async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), "fakex-sd-")), "nested", "state");
    expect(await readStateFile(dir)).toBeNull();
    await writeStateFile(dir, captured(7));
    const back = await readStateFile(dir);
    expect(back?.savedAtMs).toBe(7);
    expect(back?.deployment.blockNumber).toBe(12n);
    expect((back?.layers.engine as unknown as { n: bigint }).n).toBe(7n);
    expect(readdirSync(dir)).toEqual([STATE_FILE]);
  });

  test("a changed byte, a cut file, a foreign header or a wrong format version are StateFileErrors", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-"));
    await writeStateFile(dir, captured(1));
    const file = path.join(dir, STATE_FILE);
    const good = readFileSync(file);
    const flipped = Buffer.from(good);
    flipped[flipped.length - 3] = flipped[flipped.length - 3]! ^ 1;
    writeFileSync(file, flipped);
    await expect(readStateFile(dir)).rejects.toThrow(StateFileError);
    await expect(readStateFile(dir)).rejects.toThrow(/is damaged/);
    writeFileSync(file, good.subarray(0, good.length - 100));
    await expect(readStateFile(dir)).rejects.toThrow(/is damaged/);
    // Cut right before the header's newline: the header alone, read as a damaged file (no body), not a foreign one.
    writeFileSync(file, good.subarray(0, good.indexOf(10)));
    await expect(readStateFile(dir)).rejects.toThrow(/is damaged \(body 0 bytes, sha256 e3b0c44298fc…; header says \d+ bytes/);
    writeFileSync(file, "{not json\n{}");
    await expect(readStateFile(dir)).rejects.toThrow(/not a fakex state file/);
    const text = good.toString("utf8");
    writeFileSync(file, text.replace("fakex-state/1", "fakex-state/0"));
    await expect(readStateFile(dir)).rejects.toThrow(/has format "fakex-state\/0"/);
    writeFileSync(file, text.replace('"format":"fakex-state/1"', '"version":99'));
    await expect(readStateFile(dir)).rejects.toThrow(/has no "format" field \(not a fakex state file\)/);
    writeFileSync(file, good);
    expect((await readStateFile(dir))?.savedAtMs).toBe(1);
  });

  test("a state file that cannot be read (here a directory in its place) is a StateFileError naming it, never a fresh start", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-"));
    mkdirSync(path.join(dir, STATE_FILE));
    await expect(readStateFile(dir)).rejects.toThrow(new StateFileError(`cannot read ${path.join(dir, STATE_FILE)}: EISDIR: illegal operation on a directory, read`));
  });

  test("a file written by another fakex build is refused, naming both builds", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-"));
    await writeStateFile(dir, captured(1));
    const file = path.join(dir, STATE_FILE);
    const good = readFileSync(file, "utf8");
    const build = await buildStamp();
    expect(good.slice(0, good.indexOf("\n"))).toContain(build);
    writeFileSync(file, good.replace(build, "0.0.1+0000"));
    await expect(readStateFile(dir)).rejects.toThrow(StateFileError);
    await expect(readStateFile(dir)).rejects.toThrow(/written by another fakex build \(0\.0\.1\+0000/);
    writeFileSync(file, good);
    expect((await readStateFile(dir))?.savedAtMs).toBe(1);
  });

  test("a start removes the temporary state files of writers that died mid-write, and nothing else of the directory's", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-"));
    await writeStateFile(dir, captured(1));
    for (const name of [`${STATE_FILE}.4242.tmp`, `${STATE_FILE}.77.tmp`, "notes.tmp", "fakex-state.json.bak", "build.1.tmp"]) writeFileSync(path.join(dir, name), "x");
    await removeStaleTempFiles(dir);
    expect(readdirSync(dir).sort()).toEqual(["build.1.tmp", "fakex-state.json.bak", STATE_FILE, "notes.tmp"].sort());
    expect((await readStateFile(dir))?.savedAtMs).toBe(1);
  });

  test("a body whose checksum holds but whose chain dump is not hex is a StateFileError, never a start on it", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-"));
    await writeStateFile(dir, { ...captured(1), chain: "c0ffee" as never });
    await expect(readStateFile(dir)).rejects.toThrow(new StateFileError(`${path.join(dir, STATE_FILE)}: body lacks the chain dump, the layers or the identity`));
  });
});

describe("layer encoding", () => {
  test("log entries that are live order records are written once, as references, and read back as those records; fill entries stay ids", async () => {
    const market = { symbol: "USDT/USDC", base: "0xb", quote: "0xq", minAskAmountRaw: 10n };
    const liveOrder = { id: "o-1", market, lastFill: 1, priceTicks: 100n };
    const plain = { note: "not a record", id: "o-1" };
    const layers = {
      blockMode: { kind: "automine" },
      engine: { orders: [{ ...liveOrder }], fills: { count: 0 }, log: { types: ["order_placed", "fill", "x"], datas: [liveOrder, 1, plain] } },
    } as never;
    const json = encodeLayers(layers, { order: (id) => (id === "o-1" ? liveOrder : undefined) });
    expect(json).toContain('{"$order":"o-1"}');
    // The market is written as its symbol only.
    expect(json).not.toContain('"0xq"');
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-"));
    await writeStateFile(dir, { ...captured(3), layersJson: json });
    const back = (await readStateFile(dir))!.layers.engine as unknown as { orders: object[]; log: { datas: unknown[] } };
    expect(back.log.datas[0]).toBe(back.orders[0]);
    expect(back.log.datas[1]).toBe(1);
    expect(back.log.datas[2]).toEqual(plain);
    expect(back.orders[0]).toEqual({ ...liveOrder, market: { symbol: "USDT/USDC" } });
  });

  test("the fill store's typed columns round-trip exactly, little-endian, including values a double cannot hold", () => {
    const columns = {
      u64: new BigUint64Array([0n, 1n, (1n << 64n) - 1n, 12_345_678_901_234_567_890n]),
      i32: new Int32Array([0, -1, 2_147_483_647, -2_147_483_648]),
      f64: new Float64Array([0, 1.5, 1_795_256_769_440, -0.25]),
      bytes: new Uint8Array([0, 255]),
    };
    const json = encodeLossless(columns);
    // Little-endian on every platform: 1 as a u64 is 01 followed by seven zero bytes.
    expect(json).toContain("0000000000000000" + "0100000000000000");
    const back = decodeLossless(json) as typeof columns;
    expect(back.u64).toBeInstanceOf(BigUint64Array);
    expect(back.i32).toBeInstanceOf(Int32Array);
    expect(back.f64).toBeInstanceOf(Float64Array);
    expect([...back.u64]).toEqual([...columns.u64]);
    expect([...back.i32]).toEqual([...columns.i32]);
    expect([...back.f64]).toEqual([...columns.f64]);
    expect([...back.bytes]).toEqual([0, 255]);
    expect(() => decodeLossless('{"$t":"u64","v":"0102"}')).toThrow(/not whole elements/);
  });

  test("a reference to a record the file does not hold is a StateFileError", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-"));
    const layersJson = encodeLossless({ blockMode: { kind: "automine" }, engine: { orders: [], fills: [], log: { datas: [{ $order: "gone" }] } } });
    await writeStateFile(dir, { ...captured(4), layersJson });
    await expect(readStateFile(dir)).rejects.toThrow(/refers to order gone/);
  });
});

describe("one server per directory", () => {
  test("a lock held by a live process is refused; one left by a dead process is taken over; release removes it", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-lock-"));
    // pid 1 always exists.
    writeFileSync(path.join(dir, LOCK_FILE), "1");
    await expect(lockStateDir(dir)).rejects.toThrow(/in use by another fakex \(pid 1\)/);
    // A pid far above any the kernel hands out: the process is gone.
    writeFileSync(path.join(dir, LOCK_FILE), "4194303999");
    const release = await lockStateDir(dir);
    expect(readFileSync(path.join(dir, LOCK_FILE), "utf8")).toBe(String(process.pid));
    await release();
    expect(readdirSync(dir)).toEqual([]);
  });

  test("a lock naming this process's own pid (a restarted container's server given the same pid) is no other owner: it is taken over, never refused as in use", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-ownpid-"));
    writeFileSync(path.join(dir, LOCK_FILE), String(process.pid));
    await refuseIfInUse(dir);
    const release = await lockStateDir(dir);
    expect(readFileSync(path.join(dir, LOCK_FILE), "utf8")).toBe(String(process.pid));
    expect(statSync(path.join(dir, LOCK_FILE)).nlink).toBe(2);
    await release();
    expect(readdirSync(dir)).toEqual([]);
  });

  test("refuseIfInUse names a live owner without taking the lock, and passes a directory whose lock is stale or absent", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-inuse-"));
    await refuseIfInUse(dir);
    writeFileSync(path.join(dir, LOCK_FILE), "1");
    await expect(refuseIfInUse(dir)).rejects.toThrow(/in use by another fakex \(pid 1\); stop it or use another --state-dir/);
    expect(readFileSync(path.join(dir, LOCK_FILE), "utf8")).toBe("1");
    writeFileSync(path.join(dir, LOCK_FILE), "4194303999");
    await refuseIfInUse(dir);
    // Left where it was: taking it over is the lock's own business.
    expect(readFileSync(path.join(dir, LOCK_FILE), "utf8")).toBe("4194303999");
  });

  test("a lock that is not a file is a StateFileError naming it (never taken for stale, never a raw errno)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-lockdir-"));
    mkdirSync(path.join(dir, LOCK_FILE));
    for (const check of [() => refuseIfInUse(dir), () => lockStateDir(dir)]) {
      const refused = check();
      await expect(refused).rejects.toBeInstanceOf(StateFileError);
      await expect(refused).rejects.toThrow(`${path.join(dir, LOCK_FILE)} is not a file; remove it if no fakex uses ${dir}, or use another --state-dir`);
    }
  });

  test("a directory fakex cannot write to is a StateFileError (the CLI's exit 2, like every refused directory), not a raw errno", async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "fakex-sd-notdir-")), "a-file");
    writeFileSync(file, "x");
    const refused = lockStateDir(path.join(file, "state"));
    await expect(refused).rejects.toThrow(StateFileError);
    await expect(refused).rejects.toThrow(/cannot be written \(ENOTDIR.*use a writable --state-dir/);
  });

  test("a lock whose pid now belongs to a process started after the lock was written (a reused pid) is taken over", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-reused-"));
    const other = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      await once(other, "spawn");
      const lock = path.join(dir, LOCK_FILE);
      writeFileSync(lock, String(other.pid));
      // Written after the process started: its owner, alive, so refused.
      await expect(lockStateDir(dir)).rejects.toThrow(new RegExp(`in use by another fakex \\(pid ${other.pid}\\)`));
      // Written an hour before the process started: the pid was handed out again since.
      const hourAgo = new Date(Date.now() - 3_600_000);
      utimesSync(lock, hourAgo, hourAgo);
      const release = await lockStateDir(dir);
      expect(readFileSync(lock, "utf8")).toBe(String(process.pid));
      await release();
    } finally {
      other.kill("SIGKILL");
    }
  });

  test("a lock whose server was killed but not yet reaped (a zombie) is taken over", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-zombie-"));
    // `sh` starts a background sleep, prints its pid, then becomes a long sleep that never
    // reaps it: SIGKILL turns the background one into a zombie, as a killed server is
    // until its supervisor calls wait().
    const parent = spawn("sh", ["-c", "sleep 30 & echo $!; exec sleep 60"], { stdio: ["ignore", "pipe", "ignore"] });
    try {
      const pid = Number((await once(parent.stdout!, "data"))[0].toString().trim());
      expect(Number.isInteger(pid) && pid > 0).toBe(true);
      process.kill(pid, "SIGKILL");
      await waitFor(() => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.startsWith("Z"));
      writeFileSync(path.join(dir, LOCK_FILE), String(pid));
      const release = await lockStateDir(dir);
      expect(readFileSync(path.join(dir, LOCK_FILE), "utf8")).toBe(String(process.pid));
      await release();
    } finally {
      parent.kill("SIGKILL");
    }
  });
});

describe("one server per directory, across pid spaces (containers sharing a volume, a lock a container left)", () => {
  // Short times for the test; the defaults are a touch a second and stale after five.
  const timing = { heartbeatMs: 40, staleAfterMs: 400 };
  const otherSpace = "00000000-0000-4000-8000-000000000000/4026531999";

  /** A lock as a fakex of `space` writes it: the pid, and a second name of the same file naming the space. */
  function writeLock(dir: string, pid: number, space: string): string {
    const lock = path.join(dir, LOCK_FILE);
    const owner = path.join(dir, ownerFileName(pid, space));
    writeFileSync(owner, String(pid));
    linkSync(owner, lock);
    return lock;
  }

  test("the lock holds the pid alone, as earlier builds read it; its owner name, the same file, names the pid space", async () => {
    expect(pidSpace()).toMatch(/^[0-9a-f-]{36}\/\d+$/);
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-space-"));
    const release = await lockStateDir(dir, timing);
    const owner = ownerFileName(process.pid, pidSpace());
    expect(owner).toBe(`${LOCK_FILE}.${process.pid}.${pidSpace()!.replace("/", ".")}.owner`);
    expect(readdirSync(dir).sort()).toEqual([LOCK_FILE, owner]);
    expect(readFileSync(path.join(dir, LOCK_FILE), "utf8")).toBe(String(process.pid));
    expect(statSync(path.join(dir, owner)).ino).toBe(statSync(path.join(dir, LOCK_FILE)).ino);
    await release();
    expect(readdirSync(dir)).toEqual([]);
  });

  test("a lock of another pid space that its owner keeps touching is refused, whatever its pid is here; refuseIfInUse says the same", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-foreign-live-"));
    // pid 1 of another container, and our own pid: neither means anything here.
    for (const pid of [1, process.pid]) {
      const lock = writeLock(dir, pid, otherSpace);
      const touching = setInterval(() => utimesSync(lock, new Date(), new Date()), timing.heartbeatMs);
      const waits: string[] = [];
      try {
        const expected = `${dir} is in use by another fakex (pid ${pid} in another container, machine or boot, still touching its lock); stop it or use another --state-dir`;
        await expect(lockStateDir(dir, { ...timing, onWait: (m) => waits.push(m) })).rejects.toThrow(expected);
        await expect(refuseIfInUse(dir, timing)).rejects.toThrow(expected);
      } finally {
        clearInterval(touching);
      }
      expect(waits).toEqual([`${dir}'s lock names pid ${pid} of another container, machine or boot, touched 0 s ago: waiting up to 1 s for it to be touched again`]);
      expect(readFileSync(lock, "utf8")).toBe(String(pid));
      rmSync(dir, { recursive: true });
      mkdirSync(dir);
    }
  });

  test("a lock of another pid space left untouched is taken over: at once when old, after watching it when just touched or dated ahead", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-foreign-stale-"));
    // A container killed a minute ago, its lock naming pid 1.
    let lock = writeLock(dir, 1, otherSpace);
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(lock, minuteAgo, minuteAgo);
    const waits: string[] = [];
    let release = await lockStateDir(dir, { heartbeatMs: 1000, staleAfterMs: 59_000, onWait: (m) => void waits.push(m) });
    expect(readFileSync(lock, "utf8")).toBe(String(process.pid));
    // Old enough to tell at once: no "waiting" line on stderr.
    expect(waits).toEqual([]);
    // The stale lock's owner name went with it.
    expect(readdirSync(dir).sort()).toEqual([LOCK_FILE, ownerFileName(process.pid, pidSpace())]);
    await release();
    // One killed just now (a quick container restart), and one whose time is ahead of this
    // clock (another machine's): taken over once they stay untouched while watched.
    for (const touched of [new Date(), new Date(Date.now() + 600_000)]) {
      lock = writeLock(dir, 1, otherSpace);
      utimesSync(lock, touched, touched);
      const taking = lockStateDir(dir, { heartbeatMs: 40, staleAfterMs: 1500 });
      await new Promise((r) => setTimeout(r, 100));
      expect(readFileSync(lock, "utf8")).toBe("1"); // still watching
      release = await taking;
      expect(readFileSync(lock, "utf8")).toBe(String(process.pid));
      await release();
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  test("a lock of another pid space released while it is watched is no owner's: the start takes it", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-foreign-released-"));
    const lock = writeLock(dir, 1, otherSpace);
    const waits: string[] = [];
    // Touched just now: watched, and released (both its names removed) while watched.
    const taking = lockStateDir(dir, { heartbeatMs: 40, staleAfterMs: 30_000, onWait: (m) => void waits.push(m) });
    await waitFor(() => waits.length > 0);
    rmSync(lock);
    rmSync(path.join(dir, ownerFileName(1, otherSpace)));
    const release = await taking;
    expect(readFileSync(lock, "utf8")).toBe(String(process.pid));
    await release();
    expect(readdirSync(dir)).toEqual([]);
  });

  test("a takeover left by a process that died doing it is cleared by its age, even when its pid is alive here (pid 1 of a container)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-takeover-"));
    const hourAgo = new Date(Date.now() - 3_600_000);
    const lock = writeLock(dir, 1, otherSpace);
    utimesSync(lock, hourAgo, hourAgo);
    linkSync(path.join(dir, ownerFileName(1, otherSpace)), `${lock}.takeover`);
    utimesSync(`${lock}.takeover`, hourAgo, hourAgo);
    const release = await lockStateDir(dir, timing);
    expect(readFileSync(lock, "utf8")).toBe(String(process.pid));
    await release();
    expect(readdirSync(dir)).toEqual([]);
  });

  test("owner names no lock links, left by starts killed before linking theirs, are removed once old; a fresh one (a start about to link it) stays", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-orphans-"));
    const hourAgo = new Date(Date.now() - 3_600_000);
    const orphans = [ownerFileName(4242, otherSpace), ownerFileName(process.pid + 1, pidSpace())];
    for (const name of orphans) {
      writeFileSync(path.join(dir, name), "4242");
      utimesSync(path.join(dir, name), hourAgo, hourAgo);
    }
    const starting = ownerFileName(4343, otherSpace);
    writeFileSync(path.join(dir, starting), "4343");
    const release = await lockStateDir(dir, timing);
    expect(readdirSync(dir).sort()).toEqual([LOCK_FILE, ownerFileName(process.pid, pidSpace()), starting].sort());
    await release();
    expect(readdirSync(dir)).toEqual([starting]);
  });

  test("the owner touches its lock while it holds it, puts it back when it is removed, and says so once when another took it", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-heartbeat-"));
    const lock = path.join(dir, LOCK_FILE);
    const lost: string[] = [];
    const release = await lockStateDir(dir, { ...timing, onLost: (m) => lost.push(m) });
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    await waitFor(() => statSync(lock).mtimeMs > old.getTime() + 1000);
    // Removed by hand (or by an earlier build that took it for stale): put back.
    rmSync(lock);
    await waitFor(() => existsSync(lock));
    expect(readFileSync(lock, "utf8")).toBe(String(process.pid));
    // Taken by another server (in one step, as a rename over it): not ours to remove, and said once.
    const theirs = path.join(dir, ownerFileName(4242, otherSpace));
    writeFileSync(theirs, "4242");
    linkSync(theirs, `${lock}.new`);
    renameSync(`${lock}.new`, lock);
    await waitFor(() => lost.length > 0);
    await new Promise((r) => setTimeout(r, 3 * timing.heartbeatMs));
    expect(lost).toEqual([`${dir}'s lock was taken over by another fakex (pid 4242) while this one was paused or unresponsive for over 0.4 s; this server takes no more changes: stop it`]);
    await release();
    expect(readFileSync(lock, "utf8")).toBe("4242");
    // Left as the new owner has it: its lock and owner name, and this one's owner name (a later start sweeps it).
    expect(readdirSync(dir).sort()).toEqual([LOCK_FILE, ownerFileName(process.pid, pidSpace()), path.basename(theirs)].sort());
  });
});

async function waitFor(check: () => boolean, tries = 200): Promise<void> {
  for (let i = 0; i < tries && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

describe("one server per directory, under a race", () => {
  /**
   * Six processes ask for the lock of `dir` at once and report; a winner holds it until
   * every answer is in. A barrier rather than a fixed instant: six fresh Node processes on
   * two cores can start seconds apart, and a late one then took a lock the first had let go.
   */
  async function race(dir: string): Promise<string[]> {
    const go = path.join(dir, "..", `${path.basename(dir)}.go`);
    const done = path.join(dir, "..", `${path.basename(dir)}.done`);
    const script = `
      import { existsSync } from "node:fs";
      import { lockStateDir } from ${JSON.stringify(path.resolve("fixtures/state-dir-lock.ts"))};
      console.log("ready");
      while (!existsSync(${JSON.stringify(go)})) await new Promise((r) => setTimeout(r, 1));
      try {
        const release = await lockStateDir(${JSON.stringify(dir)});
        console.log("locked");
        while (!existsSync(${JSON.stringify(done)})) await new Promise((r) => setTimeout(r, 5));
        await release();
      } catch (e) {
        console.log(/in use by another fakex/.test(e.message) ? "refused" : "error " + e.message);
      }
    `;
    const children = Array.from({ length: 6 }, () => {
      const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
      const lines: string[] = [];
      let buf = "";
      child.stdout!.on("data", (d) => {
        buf += d;
        const parts = buf.split("\n");
        buf = parts.pop()!;
        lines.push(...parts);
      });
      return { child, lines, exited: once(child, "exit") };
    });
    try {
      await waitFor(() => children.every((c) => c.lines.includes("ready")), 3000);
      writeFileSync(go, "");
      await waitFor(() => children.every((c) => c.lines.length >= 2), 3000);
      return children.map((c) => c.lines[1]!);
    } finally {
      writeFileSync(done, "");
      await Promise.all(children.map((c) => c.exited));
    }
  }

  test("six processes asking for a free lock at the same instant: exactly one gets it", async () => {
    const outcomes = await race(mkdtempSync(path.join(tmpdir(), "fakex-sd-lockrace-")));
    expect(outcomes.filter((o) => o === "locked")).toHaveLength(1);
    expect(outcomes.filter((o) => o === "refused")).toHaveLength(5);
  }, 60_000);

  test("a takeover left half-done by a process that died in it does not hold up the next start", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-takeover-"));
    const gone = spawn(process.execPath, ["-e", ""]);
    await once(gone, "exit");
    writeFileSync(path.join(dir, LOCK_FILE), String(gone.pid));
    writeFileSync(path.join(dir, `${LOCK_FILE}.takeover`), String(gone.pid));
    const release = await lockStateDir(dir);
    expect(readFileSync(path.join(dir, LOCK_FILE), "utf8")).toBe(String(process.pid));
    expect(existsSync(path.join(dir, `${LOCK_FILE}.takeover`))).toBe(false);
    await release();
  });

  test("six processes taking over a dead server's lock at the same instant: exactly one gets it", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-stalerace-"));
    // The pid of a process that has exited (and been reaped): the lock it left is stale.
    const gone = spawn(process.execPath, ["-e", ""]);
    await once(gone, "exit");
    writeFileSync(path.join(dir, LOCK_FILE), String(gone.pid));
    const outcomes = await race(dir);
    // Two servers each removing "the stale lock" (the second removing the first's fresh one) both ran.
    expect(outcomes.filter((o) => o === "locked")).toHaveLength(1);
    expect(outcomes.filter((o) => o === "refused")).toHaveLength(5);
  }, 60_000);
});

describe("identity check", () => {
  test("only flags that were given and differ are conflicts, each named", () => {
    expect(identityConflicts(identity, {})).toEqual([]);
    expect(identityConflicts(identity, { seed: 1, chainId: 31337, users: 3, configHash: "a".repeat(64) })).toEqual([]);
    // "1" on the command line is the number 1 once parsed; compared as text either way.
    expect(identityConflicts(identity, { seed: "1" })).toEqual([]);
    const c = identityConflicts(identity, { seed: 2, liquidity: false, scenarioHash: "b".repeat(64) });
    expect(c).toHaveLength(3);
    expect(c[0]).toMatch(/^--seed: .*with 1.*asks for 2/);
    expect(c[1]).toMatch(/^--no-liquidity: .*with liquidity.*without liquidity/);
    expect(c[2]).toMatch(/^--scenario: .*none.*sha256 bbbbbbbbbbbb/);
  });

  test("the profile is part of the identity; a state saved without one is the local profile's", () => {
    expect(identityConflicts(identity, { profile: "local" })).toEqual([]);
    expect(identityConflicts(identity, { profile: "testnet" })).toEqual(['--profile: the saved state was made with "local", this start asks for "testnet"']);
    expect(identityConflicts({ ...identity, profile: "mainnet" }, { profile: "mainnet" })).toEqual([]);
    expect(identityConflicts({ ...identity, profile: "mainnet" }, { profile: "local" })).toHaveLength(1);
  });

  test("a state saved before the VL batch limits could be chosen was made with the default 2-50: that flag resumes it, any other is a conflict", () => {
    expect(identity.vlBatch).toBeUndefined();
    expect(identityConflicts(identity, { vlBatch: "2-50" })).toEqual([]);
    expect(identityConflicts(identity, { vlBatch: "3-50" })).toEqual(['--vl-batch: the saved state was made with "2-50", this start asks for "3-50"']);
  });
});

describe("which JSON-RPC calls are state-changing", () => {
  test("sends and test-node mutators are; reads and the read-only test methods are not", () => {
    for (const m of ["eth_sendRawTransaction", "eth_sendTransaction", "eth_sendRawTransactionSync", "anvil_setBalance", "anvil_mine", "evm_mine", "evm_revert", "evm_increaseTime", "hardhat_setCode", "anvil_loadState"]) {
      expect(isStateChangingRpc(m), m).toBe(true);
    }
    for (const m of ["eth_call", "eth_getBalance", "eth_blockNumber", "eth_chainId", "eth_getTransactionReceipt", "eth_estimateGas", "net_version", "anvil_nodeInfo", "anvil_dumpState", "hardhat_getAutomine", undefined, 42]) {
      expect(isStateChangingRpc(m), String(m)).toBe(false);
    }
  });
});
