// Every fill the engine made, kept in columns instead of one object per fill.
// Fills live for good (queries and settlement read them), and on the matching
// hot path a retained object per fill — plus its bigints and each order's list
// of fill ids — was most of what the garbage collector had to copy. Here the
// amounts sit in one BigUint64Array (storing a bigint there allocates
// nothing; the maker's give is derived and a spread is kept only when there is
// one), and the two orders (by placement sequence number), statuses, links
// and times in typed arrays; FillRecord objects are built only when something
// reads them.
//
// Each order's fills form a list through the columns, linked backwards from
// its last fill (the one id the order record keeps); idsOf gives them in
// execution order.
import { FILL_STATUSES, isFinalFill, type FillRecord, type FillStatus } from "./fills.ts";
import type { Side } from "./order-terms.ts";
import type { MarketInfo } from "./registry.ts";

/** What the store reads from an order record (the fill's derived fields come from its two orders). */
export interface FillOrder {
  /** Placement sequence number: how a fill names its orders. */
  readonly seq: number;
  readonly id: string;
  readonly owner: string;
  readonly side: Side;
  readonly priceTicks: bigint;
  readonly market: MarketInfo;
  /** The order's latest fill (0 = none); maintained by FillStore.append. */
  lastFill: number;
}

/** Column words per fill: lots, base, quote, taker's give. */
const AMOUNTS = 4;
const LOTS = 0;
const BASE = 1;
const QUOTE = 2;
const TAKER_GIVE = 3;
/** Amounts at or above this do not fit a column word; such a fill keeps its amounts in `wide`. */
const WORD_LIMIT = 1n << 64n;
const INITIAL_CAPACITY = 64;
/** A restore keeps columns up to this many fills (or four times what it restores) rather than allocating. */
const REUSE_CAPACITY = 4096;

const STATUS_CODE: Readonly<Record<FillStatus, number>> = Object.fromEntries(FILL_STATUSES.map((s, i) => [s, i])) as Record<FillStatus, number>;
const PENDING = STATUS_CODE.pending;
/** Codes at or above this are final (settled, failed, reverted: FILL_STATUSES order). */
const FIRST_FINAL = STATUS_CODE.settled;
if (!FILL_STATUSES.every((st, code) => isFinalFill(st) === code >= FIRST_FINAL)) throw new Error("fill store: FILL_STATUSES must list the final statuses last");

/** Each typed column: its array type and how many elements one fill takes. */
const COLUMNS = {
  /** lots, base, quote, the taker's give. */
  amounts: { make: (n: number) => new BigUint64Array(n), width: AMOUNTS },
  /** FILL_STATUSES index. */
  status: { make: (n: number) => new Uint8Array(n), width: 1 },
  /** 0 = not broadcast. */
  settlementIds: { make: (n: number) => new Int32Array(n), width: 1 },
  /** The previous fill of the fill's maker and of its taker (0 = none). */
  makerPrev: { make: (n: number) => new Int32Array(n), width: 1 },
  takerPrev: { make: (n: number) => new Int32Array(n), width: 1 },
  /** at, updatedAt (virtual ms). */
  times: { make: (n: number) => new Float64Array(n), width: 2 },
  /** The orders' placement sequence numbers. */
  makerSeq: { make: (n: number) => new Int32Array(n), width: 1 },
  takerSeq: { make: (n: number) => new Int32Array(n), width: 1 },
} as const;

type ColumnName = keyof typeof COLUMNS;
type Columns = { readonly [K in ColumnName]: ReturnType<(typeof COLUMNS)[K]["make"]> };
const COLUMN_NAMES = Object.keys(COLUMNS) as ColumnName[];

/** Every column sized for `capacity` fills, starting with `from`'s contents. */
function allocColumns(capacity: number, from?: Columns): Columns {
  const out: Partial<Record<ColumnName, Columns[ColumnName]>> = {};
  for (const name of COLUMN_NAMES) {
    const column = COLUMNS[name].make(COLUMNS[name].width * capacity);
    if (from) (column as BigUint64Array).set(from[name] as BigUint64Array);
    out[name] = column;
  }
  return out as Columns;
}

/** A copy of the store (snapshots, the state file): the columns trimmed to `count` fills. */
export type FillStoreState = Columns & {
  readonly count: number;
  readonly txHashes: readonly (string | null)[];
  readonly revertReasons: readonly [number, string][];
  readonly wide: readonly [number, readonly bigint[]][];
  readonly spreads: readonly [number, bigint][];
};

export class FillStore {
  private n = 0;
  private capacity = INITIAL_CAPACITY;
  private cols = allocColumns(INITIAL_CAPACITY);
  /** Set at broadcast; absent = null. */
  private txHashes: (string | null)[] = [];
  private revertReasons = new Map<number, string>();
  /** Fills with an amount of 2^64 or more (18-decimal tokens in large sizes): their four column amounts. */
  private wide = new Map<number, bigint[]>();
  /** Non-zero spreads (fault-plan spread fills, two-hop swap top-ups). */
  private spreads = new Map<number, bigint>();

  /** `orderOf` resolves the sequence numbers a fill names (they must stay resolvable for the store's lifetime). */
  constructor(private readonly orderOf: (seq: number) => FillOrder) {}

  /** Number of fills; ids run 1..count. */
  get count(): number {
    return this.n;
  }

  /**
   * Record a pending fill executed at `atMs` and link it into both orders' lists;
   * returns its id. The maker gives its from-token's leg (an ask the base amount, a bid
   * the quote amount); the taker's give includes any spread. Amounts are positional
   * arguments, so the hot path builds no object per fill.
   */
  append(maker: FillOrder, taker: FillOrder, lots: bigint, baseRaw: bigint, quoteRaw: bigint, makerGive: bigint, takerGive: bigint, spreadRaw: bigint, atMs: number): number {
    if (makerGive !== (maker.side === "ask" ? baseRaw : quoteRaw)) {
      throw new Error(`a ${maker.side} maker gives its ${maker.side === "ask" ? "base" : "quote"} amount, not ${makerGive}`);
    }
    if (spreadRaw < 0n) throw new RangeError(`negative spread ${spreadRaw}`);
    if (this.n === this.capacity) this.grow();
    const c = this.cols;
    const id = ++this.n;
    const i = id - 1;
    if (fits(lots) && fits(baseRaw) && fits(quoteRaw) && fits(takerGive)) {
      const amounts = c.amounts;
      const k = AMOUNTS * i;
      amounts[k + LOTS] = lots;
      amounts[k + BASE] = baseRaw;
      amounts[k + QUOTE] = quoteRaw;
      amounts[k + TAKER_GIVE] = takerGive;
    } else {
      this.wide.set(id, [lots, baseRaw, quoteRaw, takerGive]);
    }
    if (spreadRaw !== 0n) this.spreads.set(id, spreadRaw);
    c.status[i] = PENDING;
    c.times[2 * i] = atMs;
    c.times[2 * i + 1] = atMs;
    c.makerSeq[i] = maker.seq;
    c.takerSeq[i] = taker.seq;
    c.makerPrev[i] = maker.lastFill;
    c.takerPrev[i] = taker.lastFill;
    maker.lastFill = id;
    taker.lastFill = id;
    return id;
  }

  /** The fill before `id` in the list of the order placed `seq`-th (0 at its first fill). */
  private prevOf(id: number, seq: number): number {
    return this.cols.makerSeq[id - 1] === seq ? this.cols.makerPrev[id - 1]! : this.cols.takerPrev[id - 1]!;
  }

  /** Fill ids of an order in execution order. */
  idsOf(o: { readonly seq: number; readonly lastFill: number }): number[] {
    const out: number[] = [];
    for (let id = o.lastFill; id !== 0; id = this.prevOf(id, o.seq)) out.push(id);
    out.reverse();
    return out;
  }

  /** The order's first fill (0 = none). */
  firstOf(o: { readonly seq: number; readonly lastFill: number }): number {
    let first = 0;
    for (let id = o.lastFill; id !== 0; id = this.prevOf(id, o.seq)) first = id;
    return first;
  }

  countOf(o: { readonly seq: number; readonly lastFill: number }): number {
    let k = 0;
    for (let id = o.lastFill; id !== 0; id = this.prevOf(id, o.seq)) k++;
    return k;
  }

  /** True when every fill of the order has a final status (vacuously for none). */
  allFinal(o: { readonly seq: number; readonly lastFill: number }): boolean {
    for (let id = o.lastFill; id !== 0; id = this.prevOf(id, o.seq)) if (this.cols.status[id - 1]! < FIRST_FINAL) return false;
    return true;
  }

  /**
   * The order's from-token given in its fills that are not final yet (maker
   * side: makerGive; taker side: takerGive), without building fill records.
   */
  inflightGive(o: { readonly seq: number; readonly side: Side; readonly lastFill: number }): bigint {
    let sum = 0n;
    for (let id = o.lastFill; id !== 0; id = this.prevOf(id, o.seq)) {
      if (this.cols.status[id - 1]! >= FIRST_FINAL) continue;
      // A maker gives its from-token's leg: an ask the base amount, a bid the quote amount.
      const give = this.amount(id, this.cols.makerSeq[id - 1] !== o.seq ? TAKER_GIVE : o.side === "ask" ? BASE : QUOTE);
      sum = sum === 0n ? give : sum + give;
    }
    return sum;
  }

  private amount(id: number, column: number): bigint {
    const w = this.wide.size === 0 ? undefined : this.wide.get(id);
    return w !== undefined ? w[column]! : this.cols.amounts[AMOUNTS * (id - 1) + column]!;
  }

  statusOf(id: number): FillStatus {
    return FILL_STATUSES[this.cols.status[this.checked(id) - 1]!]!;
  }

  setStatus(id: number, to: FillStatus, atMs: number): void {
    const i = this.checked(id) - 1;
    this.cols.status[i] = STATUS_CODE[to];
    this.cols.times[2 * i + 1] = atMs;
  }

  setBroadcast(id: number, txHash: string, settlementId: number): void {
    const i = this.checked(id) - 1;
    this.txHashes[i] = txHash;
    this.cols.settlementIds[i] = settlementId;
  }

  setRevertReason(id: number, reason: string | null): void {
    this.checked(id);
    if (reason === null) this.revertReasons.delete(id);
    else this.revertReasons.set(id, reason);
  }

  /** Placement sequence numbers of fill `id`'s maker and taker (settlement reads these instead of a record). */
  makerSeqOf(id: number): number {
    return this.cols.makerSeq[this.checked(id) - 1]!;
  }

  takerSeqOf(id: number): number {
    return this.cols.takerSeq[this.checked(id) - 1]!;
  }

  /** The from-token fill `id`'s maker gives: an ask maker the base amount, a bid maker the quote amount. */
  makerGiveOf(id: number, makerSide: Side): bigint {
    return this.amount(this.checked(id), makerSide === "ask" ? BASE : QUOTE);
  }

  /** The from-token fill `id`'s taker gives, spread included. */
  takerGiveOf(id: number): bigint {
    return this.amount(this.checked(id), TAKER_GIVE);
  }

  lotsOf(id: number): bigint {
    return this.amount(this.checked(id), LOTS);
  }

  /** The market of fill `id` (its maker's), without building its record. */
  symbolOf(id: number): string {
    return this.orderOf(this.cols.makerSeq[this.checked(id) - 1]!).market.symbol;
  }

  /** Whether the order with placement number `seq` is fill `id`'s maker. */
  isMakerOf(id: number, seq: number): boolean {
    return this.cols.makerSeq[this.checked(id) - 1] === seq;
  }

  /** A read-only record of fill `id` as it is now (a fresh object: later changes do not show in it). */
  get(id: number): FillRecord {
    const i = this.checked(id) - 1;
    const maker = this.orderOf(this.cols.makerSeq[i]!);
    const taker = this.orderOf(this.cols.takerSeq[i]!);
    const sid = this.cols.settlementIds[i]!;
    return {
      id,
      symbol: maker.market.symbol,
      makerOrderId: maker.id,
      takerOrderId: taker.id,
      makerOwner: maker.owner,
      takerOwner: taker.owner,
      makerSide: maker.side,
      priceTicks: maker.priceTicks,
      lots: this.amount(id, LOTS),
      baseRaw: this.amount(id, BASE),
      quoteRaw: this.amount(id, QUOTE),
      makerGive: this.amount(id, maker.side === "ask" ? BASE : QUOTE),
      takerGive: this.amount(id, TAKER_GIVE),
      spreadRaw: this.spreads.get(id) ?? 0n,
      at: { ms: this.cols.times[2 * i]! },
      status: FILL_STATUSES[this.cols.status[i]!]!,
      txHash: this.txHashes[i] ?? null,
      settlementId: sid === 0 ? null : sid,
      revertReason: this.revertReasons.get(id) ?? null,
      updatedAt: { ms: this.cols.times[2 * i + 1]! },
    };
  }

  /** Records of fills [from, to] (all by default). */
  records(from = 1, to = this.n): FillRecord[] {
    const out: FillRecord[] = [];
    for (let id = from; id <= to; id++) out.push(this.get(id));
    return out;
  }

  snapshot(): FillStoreState {
    const n = this.n;
    const trimmed: Partial<Record<ColumnName, Columns[ColumnName]>> = {};
    for (const name of COLUMN_NAMES) trimmed[name] = this.cols[name].slice(0, COLUMNS[name].width * n);
    return {
      ...(trimmed as Columns),
      count: n,
      txHashes: this.txHashes.slice(),
      revertReasons: [...this.revertReasons],
      wide: [...this.wide].map(([id, v]) => [id, v.slice()]),
      spreads: [...this.spreads],
    };
  }

  restore(s: FillStoreState): void {
    checkFillStoreState(s);
    const old = this.n;
    this.n = s.count;
    if (s.count <= this.capacity && this.capacity <= Math.max(REUSE_CAPACITY, 4 * s.count)) {
      // The columns have room for the restored fills (and are not much larger): copy them
      // in and zero what lay past them, since a new fill writes every column but its
      // settlement id, which must read 0. In a small restore, fresh typed arrays cost more.
      for (const name of COLUMN_NAMES) {
        const width = COLUMNS[name].width;
        const column = this.cols[name];
        if (column instanceof BigUint64Array) {
          column.set(s[name] as BigUint64Array);
          if (old > s.count) column.fill(0n, width * s.count, width * old);
        } else {
          (column as Int32Array).set(s[name] as Int32Array);
          if (old > s.count) column.fill(0, width * s.count, width * old);
        }
      }
    } else {
      this.capacity = Math.max(INITIAL_CAPACITY, s.count);
      this.cols = allocColumns(this.capacity, s);
    }
    this.txHashes = s.txHashes.slice();
    this.revertReasons = new Map(s.revertReasons);
    this.wide = new Map(s.wide.map(([id, v]) => [id, v.slice()]));
    this.spreads = new Map(s.spreads);
  }

  private grow(): void {
    this.capacity *= 2;
    this.cols = allocColumns(this.capacity, this.cols);
  }

  private checked(id: number): number {
    if (!Number.isInteger(id) || id < 1 || id > this.n) throw new RangeError(`no fill ${id} (the store holds 1..${this.n})`);
    return id;
  }
}

function fits(x: bigint): boolean {
  return x >= 0n && x < WORD_LIMIT;
}

/** A state whose columns disagree with its count would corrupt every later read (a damaged or foreign snapshot). */
export function checkFillStoreState(s: FillStoreState): void {
  const n = s.count;
  const ok = Number.isInteger(n) && n >= 0 && COLUMN_NAMES.every((name) => s[name]?.length === COLUMNS[name].width * n);
  if (!ok || s.txHashes.length > n) throw new RangeError(`fill store state does not hold ${n} fills in every column`);
}
