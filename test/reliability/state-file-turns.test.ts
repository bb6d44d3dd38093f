// A checkpoint's file is written with the event loop free between pieces: requests are
// answered while a large body is encoded, converted and hashed, not after. The file system
// is made instant here (its calls resolve at once, never waiting for the loop), so every
// turn the event loop gets during the write is one the writer gave it.
import { setImmediate } from "node:timers";
import { createHash } from "node:crypto";
import { describe, expect, test, vi } from "vitest";
import { capturedBase } from "./captured-base.ts";

/** What the instant file system was given: the bytes written to each file, and the renames. */
const disk = vi.hoisted(() => ({ files: new Map<string, Buffer[]>(), renamed: [] as [string, string][] }));

vi.mock("node:fs/promises", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs/promises")>();
  const open = (async (file: string) => {
    const written: Buffer[] = [];
    disk.files.set(String(file), written);
    return {
      // Takes at most ~1 MB a call, as a write may: the writer must go on from where it stopped.
      write: async (b: Buffer, offset = 0) => {
        const part = b.subarray(offset, offset + 1_000_003);
        written.push(Buffer.from(part));
        return { bytesWritten: part.length, buffer: b };
      },
      writeFile: async (data: string | Buffer) => void written.push(Buffer.from(data)),
      sync: async () => undefined,
      close: async () => undefined,
    };
  }) as unknown as typeof fs.open;
  const instant = { open, mkdir: async () => undefined, rename: async (from: string, to: string) => void disk.renamed.push([from, to]), rm: async () => undefined };
  // readFile and readdir stay real: buildStamp reads the sources (once, before the write).
  return { ...fs, ...instant, default: { ...fs, ...instant } };
});

const { buildStamp, statePath, writeStateFile, STATE_FORMAT } = await import("../../fixtures/state-dir.ts");
const { encodeLossless } = await import("../../fixtures/lossless-json.ts");
const { CHARS_PER_TURN } = await import("../../fixtures/text-in-turns.ts");

describe("writing a checkpoint file", () => {
  test("the event loop turns while a large body is converted and hashed; the file is byte for byte the format it always was", async () => {
    await buildStamp();
    const orders = Array.from({ length: 40_000 }, (_, i) => ({ id: `o-${i}`, priceTicks: BigInt(i), note: "é😀" }));
    const layersJson = encodeLossless({ engine: { orders, log: { datas: [] } }, blockMode: { kind: "automine" } });
    expect(layersJson.length).toBeGreaterThan(8 * CHARS_PER_TURN);
    const state = { ...capturedBase, savedAtMs: 1, walGeneration: 2, layersJson };
    let turns = 0;
    let counting = true;
    const tick = (): void => {
      if (!counting) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const written = await writeStateFile("/state", state);
    counting = false;
    // Before the body was done in pieces, the write ran to its end without giving up the loop once.
    expect(turns).toBeGreaterThanOrEqual(8);
    const { layersJson: _, ...rest } = state;
    const body = `{"layers":${layersJson},${encodeLossless(rest).slice(1)}`;
    const header = JSON.stringify({ format: STATE_FORMAT, build: await buildStamp(), sha256: createHash("sha256").update(body).digest("hex"), bytes: Buffer.byteLength(body) });
    const expected = Buffer.from(`${header}\n${body}`);
    const tmp = `${statePath("/state")}.${process.pid}.tmp`;
    expect(Buffer.concat(disk.files.get(tmp)!).equals(expected)).toBe(true);
    expect(written).toBe(expected.length);
    expect(disk.renamed).toEqual([[tmp, statePath("/state")]]);
  });
});
