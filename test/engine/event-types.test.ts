// The list of event types (sim/core/event-types.ts) is what the sources append, no more and
// no less: the control API refuses a type that is not on it (and the run viewer offers the
// list GET /__fakex/run gives), so a new event type must be added there to be found.
import { describe, expect, test } from "vitest";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { EVENT_TYPES } from "../../sim/core/event-types.ts";
import * as sim from "../../sim/index.ts";
import { EventLog } from "../../sim/core/event-log.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await sources(rel)));
    else if (e.name.endsWith(".ts")) out.push(rel);
  }
  return out;
}

describe("event types", () => {
  test("every type the sources append is listed, and every listed type is appended somewhere", async () => {
    const appended = new Set<string>();
    for (const file of [...(await sources("sim")), ...(await sources("fixtures"))]) {
      const text = await readFile(path.join(ROOT, file), "utf8");
      for (const m of text.matchAll(/\.append(?:Ref)?\(\s*"([a-z_]+)"/g)) appended.add(m[1]!);
      // An append whose type is not a literal would escape this check.
      expect(text.match(/log\.append(?:Ref)?\(\s*[^"\s]/g) ?? [], file).toEqual([]);
    }
    expect([...appended].sort()).toEqual([...EVENT_TYPES].sort());
  });

  test("the package exports the list (fakex/sim), for code that filters control.events by type", () => {
    expect(sim.EVENT_TYPES).toEqual(EVENT_TYPES);
    expect(sim.isEventType("fill")).toBe(true);
  });
});

describe("EventLog.page", () => {
  const log = new EventLog();
  // seq 1..10: a, b, a, c, a, b, a, c, a, b
  "abacabacab".split("").forEach((t, i) => log.append(t, i, { i }));
  const seqs = (p: { events: { seq: number }[] }) => p.events.map((e) => e.seq);

  test("forward: the oldest `limit` after `after`, next_after while more match", () => {
    expect(seqs(log.page({ after: 0, limit: 3 }))).toEqual([1, 2, 3]);
    expect(log.page({ after: 0, limit: 3 }).nextAfter).toBe(3);
    expect(log.page({ after: 7, limit: 3 })).toMatchObject({ nextAfter: null, nextBefore: null });
    const a = log.page({ after: 0, limit: 2, types: new Set(["a"]) });
    expect([seqs(a), a.nextAfter]).toEqual([[1, 3], 3]);
    // The last matching events: nothing further matches, so no next page even though events follow.
    const lastC = log.page({ after: 4, limit: 1, types: new Set(["c"]) });
    expect([seqs(lastC), lastC.nextAfter]).toEqual([[8], null]);
    expect(seqs(log.page({ after: 0, limit: 10, types: new Set(["z"]) }))).toEqual([]);
  });

  test("backward: the newest `limit` below `before`, in log order, next_before while older ones match", () => {
    const newest = log.page({ after: 0, before: 11, limit: 3 });
    expect([seqs(newest), newest.nextBefore, newest.nextAfter]).toEqual([[8, 9, 10], 8, null]);
    const b = log.page({ after: 0, before: 11, limit: 2, types: new Set(["b"]) });
    expect([seqs(b), b.nextBefore]).toEqual([[6, 10], 6]);
    const older = log.page({ after: 0, before: 6, limit: 2, types: new Set(["b"]) });
    expect([seqs(older), older.nextBefore]).toEqual([[2], null]);
    // Both bounds: after < seq < before; a before past the end is the end.
    expect(seqs(log.page({ after: 2, before: 6, limit: 10 }))).toEqual([3, 4, 5]);
    expect(seqs(log.page({ after: 0, before: 99, limit: 1 }))).toEqual([10]);
    expect(seqs(log.page({ after: 5, before: 3, limit: 10 }))).toEqual([]);
  });
});
