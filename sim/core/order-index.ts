// Order id → record index: the Map subset the engine uses (has / get / set /
// values, insertion order), without a 200k-entry Map. A Map of string keys
// costs the hot path ~0.9 µs per order (its table lives in the GC'd heap and
// points at young records, and every probe reads key strings); here the probe
// table is two off-heap Int32Arrays (slot → record handle, slot → 32-bit tag)
// and a key string is read only when the tags already agree.
//
// Hash: order ids are uuid4 strings whose hex digits are (for clients that use
// random uuids) uniformly random, so 16 of them are a hash without scanning
// the rest. The first 8 and the last 8 hex digits are mixed, so hand-made ids
// that differ only in the tail (…000000000001, …000000000002) still spread.
// Anything not 36 characters long is hashed over all its characters.

/** 32-bit hash of an order id (any string; cheap for 36-character uuids). */
export function orderIdHash(id: string): number {
  let h: number;
  if (id.length === 36) {
    let a = 0;
    let b = 0;
    // Hex digit → its 4-bit value ('0'-'9' → 0-9, 'a'-'f' / 'A'-'F' → 10-15), so
    // the 8 digits fill 32 bits exactly and distinct digits give distinct words.
    for (let i = 0; i < 8; i++) {
      const c = id.charCodeAt(i);
      const d = id.charCodeAt(28 + i);
      a = (a << 4) | ((c & 15) + (c >> 6) * 9);
      b = (b << 4) | ((d & 15) + (d >> 6) * 9);
    }
    h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b ^ (b >>> 15), 0x85ebca77);
  } else {
    h = 0x811c9dc5;
    for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return h | 0;
}

const INITIAL_CAPACITY = 1024; // slots; always a power of two, kept at most half full

export class OrderIndex<T extends { readonly id: string }> {
  /** Records in insertion order; a record's handle is its position here. */
  private records: T[] = [];
  /** Slot → handle + 1 (0 = empty). */
  private slots = new Int32Array(INITIAL_CAPACITY);
  /** Slot → orderIdHash of the record there (compared before any string). */
  private tags = new Int32Array(INITIAL_CAPACITY);
  private mask = INITIAL_CAPACITY - 1;

  get size(): number {
    return this.records.length;
  }

  /** The slot holding `id`, or the empty slot where it would go (as −slot − 1). */
  private find(id: string, tag: number): number {
    const slots = this.slots;
    const tags = this.tags;
    const mask = this.mask;
    for (let s = tag & mask; ; s = (s + 1) & mask) {
      const h = slots[s]!;
      if (h === 0) return -s - 1;
      if (tags[s] === tag && this.records[h - 1]!.id === id) return s;
    }
  }

  has(id: string): boolean {
    return this.find(id, orderIdHash(id)) >= 0;
  }

  get(id: string): T | undefined {
    const s = this.find(id, orderIdHash(id));
    return s >= 0 ? this.records[this.slots[s]! - 1] : undefined;
  }

  /** Map.set semantics: a known id keeps its position and takes the new record. */
  set(id: string, record: T): this {
    if (record.id !== id) throw new Error(`order index: key ${id} is not the record's id ${record.id}`);
    const tag = orderIdHash(id);
    const s = this.find(id, tag);
    if (s >= 0) {
      this.records[this.slots[s]! - 1] = record;
      return this;
    }
    this.records.push(record);
    this.slots[-s - 1] = this.records.length;
    this.tags[-s - 1] = tag;
    if (this.records.length * 2 > this.slots.length) this.grow();
    return this;
  }

  values(): IterableIterator<T> {
    return this.records.values();
  }

  private grow(): void {
    const capacity = this.slots.length * 2;
    const slots = new Int32Array(capacity);
    const tags = new Int32Array(capacity);
    const mask = capacity - 1;
    for (let s = 0; s < this.slots.length; s++) {
      const h = this.slots[s]!;
      if (h === 0) continue;
      const tag = this.tags[s]!;
      let t = tag & mask;
      while (slots[t] !== 0) t = (t + 1) & mask;
      slots[t] = h;
      tags[t] = tag;
    }
    this.slots = slots;
    this.tags = tags;
    this.mask = mask;
  }
}
