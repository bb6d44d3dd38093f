// The mid price a seeded market agent quotes around: a random walk of the log
// deviation from the FX anchor (fixtures/activity.ts). Per step of dt seconds the
// deviation reverts towards 0 (2 % a minute, compounded over the step) and takes a normal
// shock of standard deviation volatility * sqrt(dt / 60) (volatility is per minute), the
// shock cut at ±4 standard deviations; the deviation itself stays within
// ±walkBand(volatility). Both per minute, so how far the mid spreads does not depend on
// the step length.
import { standardNormal } from "./distributions.ts";
import { portableExp, portableLog, portableSqrt } from "./portable-math.ts";
import type { Rng } from "./rng.ts";

/** Share of the deviation given back per minute (keeps the walk near the anchor). */
export const WALK_REVERSION = 0.02;
const LOG_KEPT_PER_MINUTE = portableLog(1 - WALK_REVERSION);

/** Share of the deviation given back over a step of dtSec: 1 − 0.98^(dt/60). */
export function reversionOver(dtSec: number): number {
  return 1 - portableExp((LOG_KEPT_PER_MINUTE * dtSec) / 60);
}
/** Shocks are cut at this many standard deviations. */
export const WALK_SHOCK_CAP = 4;
/** The band is this many per-minute volatilities wide each side, at most MAX_WALK_BAND. */
export const WALK_BAND_FACTOR = 20;
export const MAX_WALK_BAND = 0.25;

/** Largest |log(mid / anchor)| the walk reaches. */
export function walkBand(volatility: number): number {
  return Math.min(MAX_WALK_BAND, WALK_BAND_FACTOR * volatility);
}

/** Largest |change of log deviation| one step of dtSec can make (shock cap plus reversion). */
export function maxStepMove(volatility: number, dtSec: number): number {
  return WALK_SHOCK_CAP * volatility * portableSqrt(dtSec / 60) + reversionOver(dtSec) * walkBand(volatility);
}

/** The next log deviation after dtSec. */
export function stepWalk(logDev: number, volatility: number, dtSec: number, rng: Rng): number {
  const z = Math.max(-WALK_SHOCK_CAP, Math.min(WALK_SHOCK_CAP, standardNormal(rng)));
  const next = logDev * (1 - reversionOver(dtSec)) + volatility * portableSqrt(dtSec / 60) * z;
  const band = walkBand(volatility);
  return Math.max(-band, Math.min(band, next));
}

/** The anchor (ticks) moved by a log deviation, at least one tick. */
export function midOf(anchorTicks: bigint, logDev: number): bigint {
  const mid = BigInt(Math.round(Number(anchorTicks) * portableExp(logDev)));
  return mid > 0n ? mid : 1n;
}
