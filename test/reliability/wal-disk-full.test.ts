// A disk that fills up under the write-ahead log: the log must end at its last
// acknowledged record, take nothing after it, start no new file, and a start must read it
// whole. The file system's `write` is wrapped so a test can give the disk a few bytes of
// room: a write takes what fits and says so (a short write, no error), as a nearly full
// disk does, and the next one fails with ENOSPC.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, test, vi } from "vitest";

/** Bytes the disk has left; null: as much as it likes. */
const disk = vi.hoisted(() => ({ room: null as number | null, chunk: null as number | null }));

vi.mock("node:fs/promises", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs/promises")>();
  const open: typeof fs.open = async (...args: Parameters<typeof fs.open>) => {
    const fh = await fs.open(...args);
    const write = fh.write.bind(fh) as (b: Buffer, offset?: number, length?: number) => Promise<{ bytesWritten: number }>;
    (fh as { write: unknown }).write = async (b: Buffer, offset = 0, length = b.length - offset) => {
      // A file system that takes a few bytes per call (as a pipe or a slow device may).
      if (disk.chunk !== null) length = Math.min(disk.chunk, length);
      if (disk.room === null) return write(b, offset, length);
      if (disk.room === 0) throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
      const taken = Math.min(disk.room, length);
      disk.room -= taken;
      return write(b, offset, taken);
    };
    const writeFile = fh.writeFile.bind(fh) as (data: string) => Promise<void>;
    (fh as { writeFile: unknown }).writeFile = async (data: string) => {
      if (disk.room === null || Buffer.byteLength(data) <= disk.room) return writeFile(data);
      await writeFile(data.slice(0, disk.room));
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    };
    return fh;
  };
  return { ...fs, open, default: { ...fs, open } };
});

const { WalWriter, encodeFrame, listGenerations, readWal, segmentPath, walDir } = await import("../../fixtures/wal.ts");
const { writeStateFile } = await import("../../fixtures/state-dir.ts");
const { WalPersistence } = await import("../../fixtures/wal-persistence.ts");
const { encodeLossless } = await import("../../fixtures/lossless-json.ts");
const { capturedBase } = await import("./captured-base.ts");

function tmp(): string {
  return mkdtempSync(path.join(tmpdir(), "fakex-wal-full-"));
}

describe("write-ahead log on a full disk", () => {
  test("a write cut short is cut off the file; nothing after it is written, no new file begins, and the log reads whole", async () => {
    const dir = tmp();
    const failures: unknown[] = [];
    const w = new WalWriter(dir, 1, (e) => failures.push(e));
    await w.durable(w.append({ n: 1 }));
    const acknowledged = readFileSync(segmentPath(dir, 1)).length;
    // Room for part of the next record only: a short write, then ENOSPC on the rest.
    disk.room = 20;
    try {
      await expect(w.durable(w.append({ n: 2, pad: "x".repeat(64) }))).rejects.toThrow(/ENOSPC/);
    } finally {
      disk.room = null;
    }
    expect(failures).toHaveLength(1);
    expect(w.failed).toBe(failures[0]);
    // The part that reached the file is gone again.
    expect(readFileSync(segmentPath(dir, 1)).length).toBe(acknowledged);
    // With room again, a later record is still refused (a replay would run it without the lost one).
    await expect(w.durable(w.append({ n: 3 }))).rejects.toThrow(/ENOSPC/);
    // A checkpoint's rotation refuses instead of starting generation 2 after the failed one.
    expect(() => w.rotate()).toThrow(/ENOSPC/);
    await w.close();
    expect(await listGenerations(dir)).toEqual([1]);
    expect(failures).toHaveLength(1);
    expect(await readWal(dir, 1)).toEqual({ records: [{ n: 1 }], tornBytes: 0, tornGeneration: null, generations: [1] });
  });

  test("a write the file system takes in pieces is written on until whole, then acknowledged", async () => {
    const dir = tmp();
    const w = new WalWriter(dir, 1);
    disk.chunk = 7;
    try {
      await w.durable([w.append({ n: 1, pad: "y".repeat(40) }), w.append({ n: 2 })].at(-1)!);
    } finally {
      disk.chunk = null;
    }
    await w.close();
    expect((await readWal(dir, 1)).records).toEqual([{ n: 1, pad: "y".repeat(40) }, { n: 2 }]);
  });

  test("a write that takes no bytes at all fails as a full disk (ENOSPC), not a loop that never answers; the log reads whole", async () => {
    const dir = tmp();
    const failures: unknown[] = [];
    const w = new WalWriter(dir, 1, (e) => failures.push(e));
    await w.durable(w.append({ n: 1 }));
    disk.chunk = 0;
    try {
      await expect(w.durable(w.append({ n: 2 }))).rejects.toThrow("ENOSPC: the write-ahead log write made no progress");
    } finally {
      disk.chunk = null;
    }
    expect(failures).toHaveLength(1);
    expect((failures[0] as { code?: unknown }).code).toBe("ENOSPC");
    await w.close();
    expect(await readWal(dir, 1)).toEqual({ records: [{ n: 1 }], tornBytes: 0, tornGeneration: null, generations: [1] });
  });

  test("an auto-settle round that changed something resolves only once its record is on disk: on a full disk it fails with ENOSPC", async () => {
    const dir = tmp();
    const p = new WalPersistence({
      dir,
      generation: 0,
      clockMs: () => 1_000,
      stateVersion: () => 0,
      capture: async () => ({ ...capturedBase, savedAtMs: 1_000, layersJson: encodeLossless({ engine: { orders: [], log: { datas: [] } } }) }),
    });
    await p.recover([], null as never, async () => undefined);
    await p.settleRound(async () => true);
    expect((await readWal(dir, 1)).records).toEqual([{ k: "settle", t: 1_000, w: expect.any(Number) }]);
    disk.room = 0;
    try {
      await expect(p.settleRound(async () => true)).rejects.toThrow(/ENOSPC/);
    } finally {
      disk.room = null;
    }
    await p.close().catch(() => undefined);
  });

  test("a checkpoint the disk cannot take leaves no part-written state file holding the log's space", async () => {
    const dir = tmp();
    disk.room = 100;
    try {
      await expect(writeStateFile(dir, { layersJson: JSON.stringify({ pad: "z".repeat(500) }) } as never)).rejects.toThrow(/ENOSPC/);
    } finally {
      disk.room = null;
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  test("a checkpoint write that takes no bytes at all fails as a full disk (ENOSPC), not a loop that never ends; no temporary file stays", async () => {
    const dir = tmp();
    disk.chunk = 0;
    try {
      await expect(writeStateFile(dir, { layersJson: JSON.stringify({ pad: "z".repeat(50) }) } as never)).rejects.toThrow("ENOSPC: the state file write made no progress");
    } finally {
      disk.chunk = null;
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  test("a directory an older fakex left this way (a cut record, then an empty newer log file) reads as a torn tail, not damage", async () => {
    const dir = tmp();
    mkdirSync(walDir(dir), { recursive: true });
    const cut = encodeFrame({ n: 2 }).subarray(0, 9);
    writeFileSync(segmentPath(dir, 1), Buffer.concat([encodeFrame({ n: 1 }), cut]));
    writeFileSync(segmentPath(dir, 2), "");
    expect(await readWal(dir, 1)).toEqual({ records: [{ n: 1 }], tornBytes: cut.length, tornGeneration: 1, generations: [1, 2] });
    // With a record in the newer file the cut is damage, as before.
    writeFileSync(segmentPath(dir, 2), encodeFrame({ n: 3 }));
    await expect(readWal(dir, 1)).rejects.toThrow(/not the newest log file/);
    expect(readdirSync(walDir(dir)).sort()).toEqual(["0000000001.log", "0000000002.log"]);
  });
});
