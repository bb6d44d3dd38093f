// The real time, for what fakex measures against the world outside its simulator: the
// chain node's clock, a server's downtime, a snapshot's age, a wall-clock run, files'
// times, the journal's arrival times. Read through node:perf_hooks rather than Date: a test
// suite that fakes Date for its own code (vi.useFakeTimers, vi.setSystemTime) runs the
// exchange in the same worker, and must not move it.
import { performance } from "node:perf_hooks";

/** Whole milliseconds since the Unix epoch, now (as Date.now() gives them). */
export function realNowMs(): number {
  return Math.floor(performance.timeOrigin + performance.now());
}
