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
  readonly events: readonly EngineEvent[];
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

export class EventLog {
  private events: EngineEvent[] = [];
  // Hashing is lazy: appends stay cheap on the hot path, hash() catches up.
  private hashedUpTo = 0;
  private chainHash = GENESIS_HASH;

  append(type: string, at: number, data: { [k: string]: EventValue }): EngineEvent {
    const event: EngineEvent = { seq: this.events.length + 1, at, type, data };
    this.events.push(event);
    return event;
  }

  get length(): number {
    return this.events.length;
  }

  /** Events with seq > afterSeq (all when omitted). Returned objects must not be mutated. */
  since(afterSeq = 0): readonly EngineEvent[] {
    return this.events.slice(Math.max(0, afterSeq));
  }

  /** sha256 chain: h_n = sha256(h_{n-1} || canonical(event_n)). */
  hash(): string {
    for (; this.hashedUpTo < this.events.length; this.hashedUpTo++) {
      const e = this.events[this.hashedUpTo]!;
      const body = canonicalJson({ seq: e.seq, at: e.at, type: e.type, data: e.data as { [k: string]: EventValue } });
      this.chainHash = createHash("sha256").update(this.chainHash).update(body).digest("hex");
    }
    return this.chainHash;
  }

  /** Events are immutable, so a snapshot only copies the array of references. */
  snapshot(): EventLogState {
    return { events: this.events.slice(), hashedUpTo: this.hashedUpTo, hash: this.chainHash };
  }

  restore(state: EventLogState): void {
    this.events = state.events.slice();
    this.hashedUpTo = state.hashedUpTo;
    this.chainHash = state.hash;
  }
}
