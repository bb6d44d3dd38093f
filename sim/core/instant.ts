// One clock reading, shared by every record stamped at it.
//
// Epoch milliseconds are above the small-integer range, so a plain number field
// costs one heap box per record field (three or four per order). Records point at
// an Instant instead: one small object per distinct clock reading, however many
// records are stamped while the clock stands still. Instants are immutable plain
// data, so snapshots may share them and JSON carries them as {"ms": n}.

export interface Instant {
  readonly ms: number;
}

export function instantAt(ms: number): Instant {
  return { ms };
}

/** Hands out the same Instant while the clock reads the same millisecond. */
export class InstantSource {
  private last: Instant = { ms: Number.NaN };

  constructor(private readonly clock: { nowMs(): number }) {}

  now(): Instant {
    const ms = this.clock.nowMs();
    if (ms !== this.last.ms) this.last = { ms };
    return this.last;
  }
}
