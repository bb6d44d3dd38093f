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
// hashed over all its characters. The order intake reads every digit of a new
// id anyway and hands both hashes over (HashedOrderId), so placing the order
// does not read the id string again (by then it is often out of the cache).

/** Hex digit at `i` → its 4-bit value ('0'-'9' → 0-9, 'a'-'f' / 'A'-'F' → 10-15). */
function hexAt(id: string, i: number): number {
  const c = id.charCodeAt(i);
  return (c & 15) + (c >> 6) * 9;
}

/** An 8-digit word of hex digits starting at `at` (each digit by its value, any case). */
function hexWord(id: string, at: number): number {
  let w = 0;
  for (let i = at; i < at + 8; i++) w = (w << 4) | hexAt(id, i);
  return w;
}

/**
 * 32-bit hash of an order id (any string). A 36-character id is read as four
 * 8-digit words (the uuid's 128 bits, dashes skipped) and hashed by
 * uuidWordsHash: its first and last words, and with `everyDigit` the two middle
 * ones too. Anything else is hashed over all its characters.
 */
export function orderIdHash(id: string, everyDigit = false): number {
  if (id.length === 36) {
    const first = hexWord(id, 0);
    const last = hexWord(id, 28);
    if (!everyDigit) return uuidWordsHash(first, 0, 0, last, false);
    const second = (hexWord(id, 9) & 0xffff0000) | (hexWord(id, 14) >>> 16);
    const third = (hexWord(id, 19) & 0xffff0000) | (hexWord(id, 24) >>> 16);
    return uuidWordsHash(first, second, third, last, true);
  }
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return finish(h);
}

/**
 * orderIdHash of a uuid given as its four 32-bit words, most significant first
 * (what the order intake has read already, so it hashes without reading the id
 * again). Each word's term is a bijection of it, so ids that differ in one hashed
 * word only never share a hash.
 */
export function uuidWordsHash(w0: number, w1: number, w2: number, w3: number, everyDigit: boolean): number {
  let h = Math.imul(w0, 0x9e3779b1) ^ Math.imul(w3 ^ (w3 >>> 15), 0x85ebca77);
  if (everyDigit) h ^= Math.imul(w1 ^ (w1 >>> 13), 0xc2b2ae3d) ^ Math.imul(w2 ^ (w2 >>> 16), 0x27d4eb2f);
  return finish(h);
}

function finish(x: number): number {
  let h = x ^ (x >>> 16);
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return h | 0;
}

/**
 * An order id with both its hashes made by whoever read its digits first (the
 * order intake), so the index need not read the id string again: by the time an
 * order is placed that string is often cold. `hashedId` is the id they were made
 * for; the index uses them only for that very id, and hashes any other itself.
 */
export interface HashedOrderId {
  readonly hashedId: string;
  readonly idHash: number;
  readonly idHashEveryDigit: number;
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

  /** The id's tag under the current hashing; from `hashed` when its hashes were made for this id. */
  private tagOf(id: string, hashed: HashedOrderId | undefined): number {
    if (hashed !== undefined && hashed.hashedId === id) return this.everyDigit ? hashed.idHashEveryDigit : hashed.idHash;
    return this.hash(id);
  }

  has(id: string, hashed?: HashedOrderId): boolean {
    return this.find(id, this.tagOf(id, hashed)) >= 0;
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
