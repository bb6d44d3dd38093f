// Order id → record index: the Map subset the engine uses (has / get / set /
// values, insertion order), without a 200k-entry Map. A Map of string keys
// costs the hot path ~0.9 µs per order (its table lives in the GC'd heap and
// points at young records, and every probe reads key strings); here the probe
// table is one off-heap Int32Array of (record handle, 32-bit tag) pairs and a
// key string is read only when the tags already agree.
//
// Hash: order ids are uuid4 strings whose hex digits are (for clients that use
// random uuids) uniformly random, so 16 of them are a hash without reading the
// rest: the first 8 and the last 8, so hand-made ids with a counter at either end
// still spread. Ids that differ only in the middle groups would all share one
// hash (20,000 of them took 3 s to insert), so an index whose probes run long
// switches, once, to hashing every digit. Anything not 36 characters long is
// hashed over all its characters.

/** Hex digit at `i` → its 4-bit value ('0'-'9' → 0-9, 'a'-'f' / 'A'-'F' → 10-15). */
function hexAt(id: string, i: number): number {
  const c = id.charCodeAt(i);
  return (c & 15) + (c >> 6) * 9;
}

/**
 * 32-bit hash of an order id (any string). A 36-character id is read as 8-digit
 * words: the first and the last, and with `everyDigit` the two middle ones too
 * (digits 9-12 with 14-17, 19-22 with 24-27). Each word's term is a bijection of
 * it, so ids that differ in one hashed word only never share a hash.
 */
export function orderIdHash(id: string, everyDigit = false): number {
  let h: number;
  if (id.length === 36) {
    let a = 0;
    let b = 0;
    for (let i = 0; i < 8; i++) {
      a = (a << 4) | hexAt(id, i);
      b = (b << 4) | hexAt(id, 28 + i);
    }
    h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b ^ (b >>> 15), 0x85ebca77);
    if (everyDigit) {
      let m = 0;
      let n = 0;
      for (let i = 0; i < 4; i++) {
        m = (m << 8) | (hexAt(id, 9 + i) << 4) | hexAt(id, 14 + i);
        n = (n << 8) | (hexAt(id, 19 + i) << 4) | hexAt(id, 24 + i);
      }
      h ^= Math.imul(m ^ (m >>> 13), 0xc2b2ae3d) ^ Math.imul(n ^ (n >>> 16), 0x27d4eb2f);
    }
  } else {
    h = 0x811c9dc5;
    for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return h | 0;
}

/** Probes one insert may take before the index hashes every digit (random ids: ~1-2). */
const LONG_PROBE = 64;

const INITIAL_CAPACITY = 1024; // slots; always a power of two, kept at most half full

export class OrderIndex<T extends { readonly id: string }> {
  /** Records in insertion order; a record's handle is its position here. */
  private records: T[] = [];
  /**
   * Two Int32 words per slot, side by side so a probe touches one cache line:
   * [2s] = handle + 1 (0 = empty), [2s + 1] = orderIdHash of the record there
   * (compared before any string).
   */
  private table = new Int32Array(2 * INITIAL_CAPACITY);
  private mask = INITIAL_CAPACITY - 1;
  /**
   * The last miss (key, its hash, its empty slot) while no insert has happened
   * since: the engine asks has(id) and then set(id) for the same new id, and
   * the second call reuses the first one's probe.
   */
  private missKey: string | null = null;
  private missTag = 0;
  private missSlot = 0;
  /** Probes the last find() took. */
  private probes = 0;
  private everyDigit = false;

  /** True once long probes made the index hash every digit of an id (see orderIdHash). */
  get hashesEveryDigit(): boolean {
    return this.everyDigit;
  }

  get size(): number {
    return this.records.length;
  }

  /** The slot holding `id`, or the empty slot where it would go (as −slot − 1). */
  private find(id: string, tag: number): number {
    const table = this.table;
    const mask = this.mask;
    for (let s = tag & mask, probes = 1; ; s = (s + 1) & mask, probes++) {
      const h = table[2 * s]!;
      if (h === 0) {
        this.missKey = id;
        this.missTag = tag;
        this.missSlot = s;
        this.probes = probes;
        return -s - 1;
      }
      if (table[2 * s + 1] === tag && this.records[h - 1]!.id === id) return s;
    }
  }

  private hash(id: string): number {
    return orderIdHash(id, this.everyDigit);
  }

  has(id: string): boolean {
    return this.find(id, this.hash(id)) >= 0;
  }

  get(id: string): T | undefined {
    const s = this.find(id, this.hash(id));
    return s >= 0 ? this.records[this.table[2 * s]! - 1] : undefined;
  }

  /** Map.set semantics: a known id keeps its position and takes the new record. */
  set(id: string, record: T): this {
    if (record.id !== id) throw new Error(`order index: key ${id} is not the record's id ${record.id}`);
    let tag: number;
    let empty: number;
    if (id === this.missKey) {
      // Nothing was inserted since this key's miss (every insert clears it), so its slot is still free.
      tag = this.missTag;
      empty = this.missSlot;
    } else {
      tag = this.hash(id);
      const s = this.find(id, tag);
      if (s >= 0) {
        this.records[this.table[2 * s]! - 1] = record;
        return this;
      }
      empty = -s - 1;
    }
    this.missKey = null;
    this.records.push(record);
    this.table[2 * empty] = this.records.length;
    this.table[2 * empty + 1] = tag;
    if (this.records.length * 2 > this.mask + 1) this.grow();
    else if (this.probes > LONG_PROBE && !this.everyDigit) this.hashEveryDigit();
    return this;
  }

  /** The record inserted `position`-th (0-based), if any. */
  atPosition(position: number): T | undefined {
    return this.records[position];
  }

  values(): IterableIterator<T> {
    return this.records.values();
  }

  /** Twice the slots; every entry keeps its tag. */
  private grow(): void {
    const old = this.table;
    const capacity = (this.mask + 1) * 2;
    const table = new Int32Array(2 * capacity);
    const mask = capacity - 1;
    for (let s = 0; s < old.length; s += 2) {
      const h = old[s]!;
      if (h === 0) continue;
      const tag = old[s + 1]!;
      let t = tag & mask;
      while (table[2 * t] !== 0) t = (t + 1) & mask;
      table[2 * t] = h;
      table[2 * t + 1] = tag;
    }
    this.table = table;
    this.mask = mask;
    this.missKey = null;
  }

  /** From now on hash every digit: a new table of the same size, every tag recomputed. */
  private hashEveryDigit(): void {
    this.everyDigit = true;
    const table = new Int32Array(this.table.length);
    const mask = this.mask;
    for (let k = 0; k < this.records.length; k++) {
      const tag = this.hash(this.records[k]!.id);
      let t = tag & mask;
      while (table[2 * t] !== 0) t = (t + 1) & mask;
      table[2 * t] = k + 1;
      table[2 * t + 1] = tag;
    }
    this.table = table;
    this.missKey = null;
  }
}
