// Every test run gets a temporary directory of its own (TMPDIR, which os.tmpdir() and the
// servers the tests spawn read), removed when the run ends: the state directories, crash
// copies and chain dumps the tests make are not left in the system's /tmp.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export default function setup(): () => void {
  const dir = mkdtempSync(path.join(tmpdir(), "fakex-test-tmp-"));
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
