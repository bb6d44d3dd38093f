// A state directory as kill -9 would leave it at this moment (its checkpoint and its
// write-ahead log), copied so a test can resume it while the original server runs on.
import { copyFileSync, cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { STATE_FILE } from "../../fixtures/state-dir.ts";
import { walDir } from "../../fixtures/wal.ts";

export function crashCopy(dir: string): string {
  const copy = mkdtempSync(path.join(tmpdir(), "fakex-crash-"));
  copyFileSync(path.join(dir, STATE_FILE), path.join(copy, STATE_FILE));
  cpSync(walDir(dir), walDir(copy), { recursive: true });
  return copy;
}
