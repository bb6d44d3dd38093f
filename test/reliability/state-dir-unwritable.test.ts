// A --state-dir fakex may not write to (a read-only file system, no permission): the lock's
// first write fails, and the start is refused with a StateFileError saying so (the CLI's
// exit 2), never a raw errno. Running as root, a chmod does not stop a write, so the file
// system's writeFile is wrapped to fail as such a directory makes it fail.
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, test, vi } from "vitest";

/** The errno the next writes fail with; null: they succeed. */
const refuse = vi.hoisted(() => ({ code: null as string | null }));

vi.mock("node:fs/promises", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs/promises")>();
  const writeFile = (async (...args: Parameters<typeof fs.writeFile>) => {
    if (refuse.code !== null) throw Object.assign(new Error(`${refuse.code}: refused, open '${String(args[0])}'`), { code: refuse.code });
    return fs.writeFile(...args);
  }) as typeof fs.writeFile;
  return { ...fs, writeFile, default: { ...fs, writeFile } };
});

const { StateDirUnwritableError, lockStateDir } = await import("../../fixtures/state-dir-lock.ts");
const { StateFileError } = await import("../../fixtures/state-dir.ts");

describe("a state directory fakex cannot write to", () => {
  test("a read-only file system or a missing permission is refused as unwritable, naming the cause; the directory is left empty", async () => {
    for (const code of ["EROFS", "EACCES", "EPERM"]) {
      const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-unwritable-"));
      refuse.code = code;
      try {
        const refused = lockStateDir(dir);
        await expect(refused).rejects.toBeInstanceOf(StateDirUnwritableError);
        await expect(refused).rejects.toBeInstanceOf(StateFileError);
        await expect(refused).rejects.toThrow(new RegExp(`^${dir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} cannot be written \\(${code}: refused, open '.+'\\); use a writable --state-dir$`));
      } finally {
        refuse.code = null;
      }
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  test("another failure of that write is not taken for an unwritable directory: it is thrown as it is", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fakex-sd-unwritable-"));
    refuse.code = "EIO";
    try {
      const refused = lockStateDir(dir);
      await expect(refused).rejects.toMatchObject({ code: "EIO" });
      await expect(refused).rejects.not.toBeInstanceOf(StateFileError);
    } finally {
      refuse.code = null;
    }
  });
});
