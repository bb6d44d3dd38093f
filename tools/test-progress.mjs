// A vitest reporter for tools/run-tests.mjs: one JSON line per event, appended to the
// file FAKEX_TEST_PROGRESS names, so the watchdog can tell progress from a stall and
// knows which files are done, which one was running and which are left.
import { appendFileSync } from "node:fs";
import path from "node:path";

const out = process.env.FAKEX_TEST_PROGRESS;

function note(event) {
  if (out) appendFileSync(out, `${JSON.stringify(event)}\n`);
}

const rel = (moduleId) => path.relative(process.cwd(), moduleId);

export default class TestProgress {
  onTestRunStart(specifications) {
    note({ e: "run", files: [...new Set(specifications.map((s) => rel(s.moduleId)))] });
  }

  onTestModuleQueued(m) {
    note({ e: "queued", file: rel(m.moduleId) });
  }

  onTestModuleStart(m) {
    note({ e: "start", file: rel(m.moduleId) });
  }

  onTestCaseResult(t) {
    note({ e: "test", file: rel(t.module.moduleId), name: t.fullName, state: t.result().state });
  }

  onTestModuleEnd(m) {
    note({ e: "end", file: rel(m.moduleId), state: m.state() });
  }
}
