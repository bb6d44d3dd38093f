// The real time, for what fakex measures against the world outside its simulator: the
// chain node's clock, a server's downtime, a snapshot's age, a wall-clock run, files'
// times, the journal's arrival times. A test suite that fakes Date for its own code
// (vi.useFakeTimers, vi.setSystemTime) runs the exchange in the same worker and must not
// move it, so the system clock is read through the Date of a realm of fakex's own, which no
// fake of this realm's globals reaches. (Not performance.now(): that clock stops while the
// machine sleeps and ignores clock steps, and other processes read the system clock.)
import { runInNewContext } from "node:vm";

const systemDateNow = runInNewContext("Date.now") as () => number;

/** Where real time is read; tests replace `nowMs` to move it without waiting. */
export const realTime = {
  nowMs(): number {
    return systemDateNow();
  },
};

/** Milliseconds since the Unix epoch, now, by the system clock. */
export function realNowMs(): number {
  return realTime.nowMs();
}
