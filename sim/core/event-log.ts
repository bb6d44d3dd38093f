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
  // Parallel arrays rather than one wrapper object per event: the log grows with
  // every order, and fewer retained objects means less GC on the hot path.
  private types: string[] = [];
  private ats: number[] = [];
  private datas: unknown[] = [];
  // Hashing is lazy: appends stay cheap, hash() catches up.
  private hashedUpTo = 0;
  private chainHash = GENESIS_HASH;

  constructor(views: Record<RefType, EventView> = {} as Record<RefType, EventView>) {
    this.views = views;
  }

  append(type: string, at: number, data: { [k: string]: EventValue }): void {
    this.types.push(type);
    this.ats.push(at);
    this.datas.push(data);
  }

  /** Log a record by reference (or by an id its view resolves); the type's view reads only immutable fields. */
  appendRef(type: RefType, at: number, record: unknown): void {
    this.types.push(type);
    this.ats.push(at);
    this.datas.push(record);
  }

  get length(): number {
    return this.types.length;
  }

  at(index: number): EngineEvent {
    const type = this.types[index]!;
    const raw = this.datas[index];
    const view = this.views[type];
    const data = view ? (view as (d: unknown) => { [k: string]: EventValue })(raw) : (raw as { [k: string]: EventValue });
    return { seq: index + 1, at: this.ats[index]!, type, data };
  }

  /** Events with seq > afterSeq (all when omitted). */
  since(afterSeq = 0): EngineEvent[] {
    const out: EngineEvent[] = [];
    for (let i = Math.max(0, afterSeq); i < this.types.length; i++) out.push(this.at(i));
    return out;
  }

  /** sha256 chain: h_n = sha256(h_{n-1} || canonical(event_n)). */
  hash(): string {
    for (; this.hashedUpTo < this.types.length; this.hashedUpTo++) {
      const e = this.at(this.hashedUpTo);
      const body = canonicalJson({ seq: e.seq, at: e.at, type: e.type, data: e.data as { [k: string]: EventValue } });
      this.chainHash = createHash("sha256").update(this.chainHash).update(body).digest("hex");
    }
    return this.chainHash;
  }

  /** Event data is immutable, so a snapshot only copies arrays of references. */
  snapshot(): EventLogState {
    return { types: this.types.slice(), ats: this.ats.slice(), datas: this.datas.slice(), hashedUpTo: this.hashedUpTo, hash: this.chainHash };
  }

  restore(state: EventLogState): void {
    this.types = state.types.slice();
    this.ats = state.ats.slice();
    this.datas = state.datas.slice();
    this.hashedUpTo = state.hashedUpTo;
    this.chainHash = state.hash;
  }
}
