// Seeded randomness for everything the simulator invents: ids, secrets, fault
// choices, maker behaviour. sfc32 is small, fast and has a 128-bit state that
// snapshots as four numbers.

export type RngState = readonly [number, number, number, number];

/** A seed as the simulator reads it (as text): a finite number or non-empty text. Two objects, or NaN and "NaN", would read as one seed. */
export function isSeedValue(v: unknown): v is number | string {
  return typeof v === "string" ? v.trim() !== "" : typeof v === "number" && Number.isFinite(v);
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number | string = 1) {
    // splitmix32 spreads any seed over the four state words.
    let s = typeof seed === "number" ? seed >>> 0 : hashString(seed);
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.u32();
  }

  /** Uniform 32-bit unsigned integer. */
  u32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** Uniform float in [0, 1). */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [0, n), n <= 2^32, without modulo bias. */
  int(n: number): number {
    if (!Number.isInteger(n) || n <= 0 || n > 4294967296) throw new RangeError(`bad bound ${n}`);
    const limit = 4294967296 - (4294967296 % n);
    for (;;) {
      const x = this.u32();
      if (x < limit) return x % n;
    }
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 4) {
      const x = this.u32();
      for (let j = 0; j < 4 && i + j < n; j++) out[i + j] = (x >>> (8 * j)) & 0xff;
    }
    return out;
  }

  hex(nBytes: number): string {
    let s = "";
    for (const byte of this.bytes(nBytes)) s += byte.toString(16).padStart(2, "0");
    return s;
  }

  /** RFC 4122 version-4 UUID string, lowercase. */
  uuid4(): string {
    const b = this.bytes(16);
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    let h = "";
    for (const byte of b) h += byte.toString(16).padStart(2, "0");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  snapshot(): RngState {
    return [this.a, this.b, this.c, this.d];
  }

  restore(state: RngState): void {
    [this.a, this.b, this.c, this.d] = state;
  }
}

/** FNV-1a over UTF-16 code units: turns a string seed into 32 bits. */
function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
