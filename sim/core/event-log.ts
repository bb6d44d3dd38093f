// Append-only log of everything the engine did. Events are plain data; the
// log's hash is a sha256 chain over a canonical serialisation, so two runs of
// one seed and one command list can be compared byte for byte.
import { createHash } from "node:crypto";

export type EventValue = string | number | boolean | bigint | null | EventValue[] | { [k: string]: EventValue };

export interface EngineEvent {
  /** 1-based position in the log. */
  readonly seq: number;
  /** Virtual time (ms) when the event was appended. */
  readonly at: number;
  readonly type: string;
  readonly data: { readonly [k: string]: EventValue };
}

export interface EventLogState {
  readonly types: readonly string[];
  readonly ats: readonly number[];
  readonly datas: readonly unknown[];
  readonly hashedUpTo: number;
  readonly hash: string;
}

/** Events per chunk (a power of two: index → chunk and offset by shift and mask). */
const CHUNK_BITS = 12;
const CHUNK = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK - 1;

/** Hash of the empty log. */
export const GENESIS_HASH = "0".repeat(64);

/**
 * Canonical JSON: object keys sorted, bigints as decimal strings tagged so that
 * 1n and "1" never serialise alike.
 */
export function canonicalJson(v: EventValue | undefined): string {
  if (v === null || v === undefined) return "null";
  switch (typeof v) {
    case "bigint":
      return `"${v.toString()}n"`;
    case "string":
      return JSON.stringify(v);
    case "number":
      if (!Number.isFinite(v)) throw new TypeError("event values must be finite numbers");
      return String(v);
    case "boolean":
      return v ? "true" : "false";
  }
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  const keys = Object.keys(v).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, EventValue>)[k])}`).join(",")}}`;
}

/**
 * How an event type stored by reference is shown and hashed. The engine logs
 * its order and fill records themselves (no copy on the hot path); the view
 * picks only their immutable fields, so the hash does not depend on when it
 * is computed.
 */
export type EventView = (data: never) => { [k: string]: EventValue };

/** `RefType`: the event types logged by reference, each with its view (checked when compiled, not per append). */
export class EventLog<RefType extends string = never> {
  private readonly views: Readonly<Record<string, EventView>>;
  // Events live in fixed-size chunks of parallel columns (type, time, data) rather
  // than one wrapper object per event or three ever-growing arrays: the log grows
  // with every order, and a chunk is never copied once allocated (a growing array
  // would copy itself, megabytes at a time, on the hot path).
  private typeChunks: string[][] = [];
  private atChunks: Float64Array[] = [];
  private dataChunks: unknown[][] = [];
  private n = 0;
  // Hashing is lazy: appends stay cheap, hash() catches up.
  private hashedUpTo = 0;
  private chainHash = GENESIS_HASH;
  private restoreCount = 0;

  constructor(views: Record<RefType, EventView> = {} as Record<RefType, EventView>) {
    this.views = views;
  }

  append(type: string, at: number, data: { [k: string]: EventValue }): void {
    this.push(type, at, data);
  }

  /** Log a record by reference (or by an id its view resolves); the type's view reads only immutable fields. */
  appendRef(type: RefType, at: number, record: unknown): void {
    this.push(type, at, record);
  }

  private push(type: string, at: number, data: unknown): void {
    const offset = this.n & CHUNK_MASK;
    // A new chunk unless a restore kept this one.
    if (offset === 0 && this.n >>> CHUNK_BITS === this.typeChunks.length) {
      this.typeChunks.push(new Array<string>(CHUNK));
      this.atChunks.push(new Float64Array(CHUNK));
      this.dataChunks.push(new Array<unknown>(CHUNK));
    }
    const c = this.n >>> CHUNK_BITS;
    this.typeChunks[c]![offset] = type;
    this.atChunks[c]![offset] = at;
    this.dataChunks[c]![offset] = data;
    this.n++;
  }

  get length(): number {
    return this.n;
  }

  /** How many times restore() replaced the log: a reader that scans as it grows must start over when it moves. */
  get restores(): number {
    return this.restoreCount;
  }

  at(index: number): EngineEvent {
    if (!Number.isInteger(index) || index < 0 || index >= this.n) throw new RangeError(`no event at ${index} (the log holds ${this.n})`);
    const c = index >>> CHUNK_BITS;
    const offset = index & CHUNK_MASK;
    const type = this.typeChunks[c]![offset]!;
    const raw = this.dataChunks[c]![offset];
    const view = this.views[type];
    const data = view ? (view as (d: unknown) => { [k: string]: EventValue })(raw) : (raw as { [k: string]: EventValue });
    return { seq: index + 1, at: this.atChunks[c]![offset]!, type, data };
  }

  /** Events with seq > afterSeq (all when omitted). */
  since(afterSeq = 0): EngineEvent[] {
    const out: EngineEvent[] = [];
    for (let i = Math.max(0, afterSeq); i < this.n; i++) out.push(this.at(i));
    return out;
  }

  /**
   * A page of events with after < seq < before (`before` absent: to the end), of `types`
   * only when given. Without `before`, the oldest `limit` of them and `nextAfter` to read
   * on from; with it, the newest `limit` (still in log order) and `nextBefore` to read
   * back from. Each is null when no further matching event lies that way.
   */
  page(q: { after: number; before?: number; limit: number; types?: ReadonlySet<string> }): { events: EngineEvent[]; nextAfter: number | null; nextBefore: number | null } {
    const types = q.types;
    // Indexes lo .. hi - 1 hold the seqs after+1 .. before-1.
    const lo = Math.min(Math.max(0, q.after), this.n);
    const hi = q.before === undefined ? this.n : Math.max(lo, Math.min(this.n, q.before - 1));
    const matches = (i: number) => types === undefined || types.has(this.typeChunks[i >>> CHUNK_BITS]![i & CHUNK_MASK]!);
    const picked: number[] = [];
    if (q.before === undefined) {
      let i = lo;
      for (; i < hi && picked.length < q.limit; i++) if (matches(i)) picked.push(i);
      while (i < hi && !matches(i)) i++;
      return { events: picked.map((k) => this.at(k)), nextAfter: i < hi ? picked[picked.length - 1]! + 1 : null, nextBefore: null };
    }
    let i = hi - 1;
    for (; i >= lo && picked.length < q.limit; i--) if (matches(i)) picked.push(i);
    while (i >= lo && !matches(i)) i--;
    picked.reverse();
    return { events: picked.map((k) => this.at(k)), nextAfter: null, nextBefore: i >= lo ? picked[0]! + 1 : null };
  }

  /** sha256 chain: h_n = sha256(h_{n-1} || canonical(event_n)). */
  hash(): string {
    for (; this.hashedUpTo < this.n; this.hashedUpTo++) {
      const e = this.at(this.hashedUpTo);
      const body = canonicalJson({ seq: e.seq, at: e.at, type: e.type, data: e.data as { [k: string]: EventValue } });
      this.chainHash = createHash("sha256").update(this.chainHash).update(body).digest("hex");
    }
    return this.chainHash;
  }

  /** Event data is immutable, so a snapshot only copies references (into flat arrays). */
  snapshot(): EventLogState {
    const types = new Array<string>(this.n);
    const ats = new Array<number>(this.n);
    const datas = new Array<unknown>(this.n);
    for (let i = 0; i < this.n; i++) {
      const c = i >>> CHUNK_BITS;
      const offset = i & CHUNK_MASK;
      types[i] = this.typeChunks[c]![offset]!;
      ats[i] = this.atChunks[c]![offset]!;
      datas[i] = this.dataChunks[c]![offset];
    }
    return { types, ats, datas, hashedUpTo: this.hashedUpTo, hash: this.chainHash };
  }

  /**
   * `relink` may swap an event's data for another object on the way in: a snapshot's log
   * refers to the records as they were taken, and the engine's restore puts its own copies
   * of them in their place (an event view reads only their immutable fields, so the hash
   * is the same).
   */
  restore(state: EventLogState, relink?: (type: string, data: unknown) => unknown): void {
    checkEventLogState(state);
    this.restoreCount++;
    // The chunks the restored events fill are reused (a fresh chunk is three 4,096-slot
    // arrays, most of a small restore's cost); the slots past the restored end are
    // cleared so the log holds no data it no longer shows, and spare chunks are dropped.
    const n = state.types.length;
    const keep = (n + CHUNK - 1) >>> CHUNK_BITS;
    const old = this.n;
    this.typeChunks.length = Math.min(this.typeChunks.length, keep);
    this.atChunks.length = Math.min(this.atChunks.length, keep);
    this.dataChunks.length = Math.min(this.dataChunks.length, keep);
    if (old > n && n & CHUNK_MASK) {
      const c = keep - 1;
      const end = Math.min(CHUNK, old - c * CHUNK);
      this.typeChunks[c]!.fill(undefined as unknown as string, n & CHUNK_MASK, end);
      this.atChunks[c]!.fill(0, n & CHUNK_MASK, end);
      this.dataChunks[c]!.fill(undefined, n & CHUNK_MASK, end);
    }
    this.n = 0;
    for (let i = 0; i < n; i++) this.push(state.types[i]!, state.ats[i]!, relink ? relink(state.types[i]!, state.datas[i]) : state.datas[i]);
    this.hashedUpTo = state.hashedUpTo;
    this.chainHash = state.hash;
  }
}

/** A state whose columns disagree in length would misplace every later event. */
export function checkEventLogState(state: EventLogState): void {
  if (state.ats.length !== state.types.length || state.datas.length !== state.types.length) throw new RangeError("event log state: columns of different lengths");
}
