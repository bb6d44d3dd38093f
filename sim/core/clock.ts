// The simulator's only source of time. Nothing in sim/core reads the wall clock:
// tests and the control API move this clock explicitly.

export interface Clock {
  /** Milliseconds since the Unix epoch, virtual. */
  nowMs(): number;
  /** Whole Unix seconds, virtual (what signed expirations compare against). */
  nowSec(): number;
}

export interface ClockState {
  ms: number;
}

/** 2026-01-01T00:00:00Z: a fixed, recognisable default start. */
export const DEFAULT_EPOCH_MS = Date.UTC(2026, 0, 1);

/** The latest reading a clock may take: 9999-12-31T23:59:59.999Z, past which timestamps stop being plain ISO 8601 (and past 275,760 JavaScript has no date at all). */
export const MAX_CLOCK_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export class VirtualClock implements Clock {
  private ms: number;

  constructor(startMs: number = DEFAULT_EPOCH_MS) {
    if (!Number.isSafeInteger(startMs) || startMs < 0 || startMs > MAX_CLOCK_MS) throw new RangeError(`bad clock start ${startMs}`);
    this.ms = startMs;
  }

  nowMs(): number {
    return this.ms;
  }

  nowSec(): number {
    return Math.floor(this.ms / 1000);
  }

  /** ISO 8601 of the current virtual instant (created_at / updated_at style). */
  iso(): string {
    return isoOf(this.ms);
  }

  advanceMs(ms: number): void {
    if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError(`clock can only move forward by whole ms, got ${ms}`);
    if (this.ms + ms > MAX_CLOCK_MS) throw new RangeError(`the clock cannot pass ${new Date(MAX_CLOCK_MS).toISOString()} (the last time ISO 8601 writes with four year digits); it reads ${new Date(this.ms).toISOString()}`);
    this.ms += ms;
  }

  advanceSec(seconds: number): void {
    this.advanceMs(Math.round(seconds * 1000));
  }

  /** Jump to an absolute instant; never backwards (time-ordered state relies on it). */
  setMs(ms: number): void {
    if (!Number.isSafeInteger(ms) || ms < this.ms) throw new RangeError(`clock cannot move back from ${this.ms} to ${ms}`);
    if (ms > MAX_CLOCK_MS) throw new RangeError(`the clock cannot pass ${new Date(MAX_CLOCK_MS).toISOString()}`);
    this.ms = ms;
  }

  snapshot(): ClockState {
    return { ms: this.ms };
  }

  restore(state: ClockState): void {
    this.ms = state.ms;
  }
}

export function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}
