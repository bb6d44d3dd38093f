// The columnar fill store: amounts exact at any size, per-order lists in
// execution order, status and broadcast updates, and snapshots that are copies.
import { describe, expect, test } from "vitest";
import { FillStore, type FillOrder } from "../../sim/core/fill-store.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry } from "../../sim/core/registry.ts";
import { decodeLossless, encodeLossless } from "../../fixtures/lossless-json.ts";

const market = new Registry(DEFAULT_REGISTRY_CONFIG).marketBySymbol("EURC/USDC")!;

let nextSeq = 1;
function order(id: string, side: "bid" | "ask", priceTicks = 110_000n): FillOrder {
  return { seq: nextSeq++, id, owner: `0x${id}`, side, priceTicks, market, lastFill: 0 };
}

interface FillAmounts {
  lots: bigint;
  baseRaw: bigint;
  quoteRaw: bigint;
  makerGive: bigint;
  takerGive: bigint;
  spreadRaw: bigint;
}

function amounts(lots: bigint, extra: Partial<FillAmounts> = {}): Partial<FillAmounts> & { lots: bigint } {
  return { lots, baseRaw: lots * 10_000n, quoteRaw: lots * 11_000n, spreadRaw: 0n, ...extra };
}

/** Append with the maker's give derived as the engine does (its from-token's leg) unless given. */
function add(s: FillStore, maker: FillOrder, taker: FillOrder, a: Partial<FillAmounts> & { lots: bigint }, atMs: number): number {
  const baseRaw = a.baseRaw!;
  const quoteRaw = a.quoteRaw!;
  const makerGive = a.makerGive ?? (maker.side === "ask" ? baseRaw : quoteRaw);
  const takerGive = a.takerGive ?? (maker.side === "ask" ? quoteRaw : baseRaw);
  return s.append(maker, taker, a.lots, baseRaw, quoteRaw, makerGive, takerGive, a.spreadRaw ?? 0n, atMs);
}

function storeOf(...orders: FillOrder[]): FillStore {
  const bySeq = new Map(orders.map((o) => [o.seq, o]));
  return new FillStore((seq) => bySeq.get(seq)!);
}

describe("fill store", () => {
  test("records carry the amounts given and the fields of both orders; ids run from 1", () => {
    const maker = order("m", "ask", 109_990n);
    const taker = order("t", "bid");
    const s = storeOf(maker, taker);
    const id = add(s, maker, taker, amounts(7n, { spreadRaw: 3n, takerGive: 77_003n }), 1_000);
    expect(id).toBe(1);
    expect(s.count).toBe(1);
    expect(s.get(1)).toEqual({
      id: 1,
      symbol: "EURC/USDC",
      makerOrderId: "m",
      takerOrderId: "t",
      makerOwner: "0xm",
      takerOwner: "0xt",
      makerSide: "ask",
      priceTicks: 109_990n,
      lots: 7n,
      baseRaw: 70_000n,
      quoteRaw: 77_000n,
      makerGive: 70_000n,
      takerGive: 77_003n,
      spreadRaw: 3n,
      at: { ms: 1_000 },
      status: "pending",
      txHash: null,
      settlementId: null,
      revertReason: null,
      updatedAt: { ms: 1_000 },
    });
    expect(() => s.get(2)).toThrow(RangeError);
    expect(() => s.get(0)).toThrow(RangeError);
  });

  test("amounts of 2^64 and above (18-decimal tokens) come back exact, next to ordinary fills", () => {
    const maker = order("m", "ask");
    const taker = order("t", "bid");
    const s = storeOf(maker, taker);
    const big = 10n ** 30n + 12_345n;
    add(s, maker, taker, amounts(1n), 0);
    add(s, maker, taker, amounts(2n, { quoteRaw: big, takerGive: big }), 0);
    add(s, maker, taker, amounts(3n, { baseRaw: (1n << 64n) - 1n }), 0);
    expect(s.get(2).quoteRaw).toBe(big);
    expect(s.get(2).takerGive).toBe(big);
    expect(s.get(2).lots).toBe(2n);
    expect(s.get(3).baseRaw).toBe((1n << 64n) - 1n);
    expect(s.get(1).quoteRaw).toBe(11_000n);
    // Not yet final: both give columns count, wide or not.
    expect(s.inflightGive(taker)).toBe(11_000n + big + 33_000n);
    // An ask maker gives the base leg, the word-sized maximum included.
    expect(s.inflightGive(maker)).toBe(10_000n + 20_000n + (1n << 64n) - 1n);
  });

  test("each order's list is its fills in execution order, whichever side it was on", () => {
    const a = order("a", "ask");
    const b = order("b", "bid");
    const c = order("c", "ask");
    const s = storeOf(a, b, c);
    add(s, a, b, amounts(1n), 0); // 1: a maker, b taker
    add(s, c, b, amounts(1n), 0); // 2: c maker, b taker
    add(s, b, a, amounts(1n), 0); // 3: b maker, a taker
    add(s, a, c, amounts(1n), 0); // 4: a maker, c taker
    expect(s.idsOf(a)).toEqual([1, 3, 4]);
    expect(s.idsOf(b)).toEqual([1, 2, 3]);
    expect(s.idsOf(c)).toEqual([2, 4]);
    expect(s.countOf(a)).toBe(3);
    expect([a.lastFill, b.lastFill, c.lastFill]).toEqual([4, 3, 4]);
    expect([s.firstOf(a), s.firstOf(b), s.firstOf(c)]).toEqual([1, 1, 2]);
    const none = order("none", "bid");
    expect([s.idsOf(none), s.firstOf(none), s.countOf(none)]).toEqual([[], 0, 0]);
  });

  test("status, broadcast and revert reason are kept per fill; allFinal and inflightGive follow the status", () => {
    const maker = order("m", "ask");
    const taker = order("t", "bid");
    const s = storeOf(maker, taker);
    add(s, maker, taker, amounts(1n), 0);
    add(s, maker, taker, amounts(2n), 0);
    expect(s.allFinal(maker)).toBe(false);
    s.setStatus(1, "confirming", 5);
    s.setBroadcast(1, "0xabc", 4);
    s.setStatus(1, "reverted", 9);
    s.setRevertReason(1, "ORDER_EXPIRED");
    expect(s.get(1)).toMatchObject({ status: "reverted", txHash: "0xabc", settlementId: 4, revertReason: "ORDER_EXPIRED", at: { ms: 0 }, updatedAt: { ms: 9 } });
    expect(s.statusOf(2)).toBe("pending");
    expect(s.inflightGive(maker)).toBe(20_000n);
    expect(s.allFinal(maker)).toBe(false);
    // Broadcast is not final: the order still waits, and the fill's give stays in flight on both sides.
    s.setStatus(2, "confirming", 9);
    expect(s.allFinal(maker)).toBe(false);
    expect(s.allFinal(taker)).toBe(false);
    expect([s.inflightGive(maker), s.inflightGive(taker)]).toEqual([20_000n, 22_000n]);
    s.setStatus(2, "settled", 10);
    expect(s.allFinal(maker)).toBe(true);
    expect(s.inflightGive(maker)).toBe(0n);
    s.setRevertReason(1, null);
    expect(s.get(1).revertReason).toBeNull();
  });

  test("many fills (past several column growths) read back unchanged", () => {
    const orders = Array.from({ length: 50 }, (_, i) => order(`o${i}`, i % 2 === 0 ? "ask" : "bid"));
    const s = storeOf(...orders);
    for (let i = 1; i <= 5_000; i++) add(s, orders[i % 50]!, orders[(i * 7 + 1) % 50]!, amounts(BigInt(i)), i);
    expect(s.count).toBe(5_000);
    const r = s.get(4_321);
    expect([r.lots, r.makerOrderId, r.takerOrderId, r.at.ms]).toEqual([4_321n, `o${4_321 % 50}`, `o${(4_321 * 7 + 1) % 50}`, 4_321]);
    const total = orders.reduce((n, o) => n + s.countOf(o), 0);
    expect(total).toBe(2 * 5_000);
  });

  test("a snapshot is a copy: later fills and updates do not show in it, and restore brings it back", () => {
    const maker = order("m", "ask");
    const taker = order("t", "bid");
    const s = storeOf(maker, taker);
    add(s, maker, taker, amounts(1n), 0);
    add(s, maker, taker, amounts(2n, { quoteRaw: 1n << 70n }), 0);
    const snap = s.snapshot();
    const before = s.records();
    // The list ends live on the orders, which the engine snapshots alongside the store.
    const links = [maker.lastFill, taker.lastFill];
    s.setStatus(1, "confirming", 3);
    s.setBroadcast(1, "0x1", 1);
    add(s, maker, taker, amounts(3n), 4);
    expect(snap.count).toBe(2);
    s.restore(snap);
    [maker.lastFill, taker.lastFill] = links as [number, number];
    expect(s.count).toBe(2);
    expect(s.records()).toEqual(before);
    // The restored store keeps working (and grows) on its own columns.
    add(s, maker, taker, amounts(9n), 5);
    expect(s.get(3).lots).toBe(9n);
    expect(s.idsOf(maker)).toEqual([1, 2, 3]);
    expect(snap.count).toBe(2);
  });

  test("a fill appended after a restore starts clean where a discarded fill was broadcast (the columns are reused)", () => {
    const maker = order("m2", "ask");
    const taker = order("t2", "bid");
    const s = storeOf(maker, taker);
    add(s, maker, taker, amounts(1n), 0);
    const snap = s.snapshot();
    const links = [maker.lastFill, taker.lastFill];
    add(s, maker, taker, amounts(2n), 1);
    add(s, maker, taker, amounts(3n), 2);
    s.setStatus(2, "confirming", 3);
    s.setBroadcast(2, "0x2", 7);
    s.setBroadcast(3, "0x3", 8);
    s.restore(snap);
    [maker.lastFill, taker.lastFill] = links as [number, number];
    add(s, maker, taker, amounts(5n), 9);
    const fresh = storeOf(maker, taker);
    [maker.lastFill, taker.lastFill] = [0, 0];
    add(fresh, maker, taker, amounts(1n), 0);
    add(fresh, maker, taker, amounts(5n), 9);
    expect(s.records()).toEqual(fresh.records());
    expect(s.get(2)).toMatchObject({ lots: 5n, status: "pending", settlementId: null, txHash: null });
    expect(() => s.get(3)).toThrow(RangeError);
    // Restoring a larger state than the columns hold still reads back whole.
    const big = storeOf(maker, taker);
    for (let i = 1; i <= 300; i++) add(big, maker, taker, amounts(BigInt(i)), i);
    const bigSnap = big.snapshot();
    s.restore(bigSnap);
    expect(s.records()).toEqual(big.records());
    s.restore(snap);
    expect(s.count).toBe(1);
  });

  test("a maker's give must be its from-token's leg, and a spread cannot be negative", () => {
    const maker = order("m", "ask");
    const taker = order("t", "bid");
    const s = storeOf(maker, taker);
    expect(() => add(s, maker, taker, amounts(1n, { makerGive: 11_000n }), 0)).toThrow(/ask maker gives its base amount/);
    expect(() => add(s, maker, taker, amounts(1n, { spreadRaw: -1n }), 0)).toThrow(/negative spread/);
    expect(s.count).toBe(0);
  });

  test("a snapshot survives the state file's encoding: every column, wide amounts, spreads, hashes and reasons", () => {
    const orders = Array.from({ length: 10 }, (_, i) => order(`p${i}`, i % 2 === 0 ? "ask" : "bid"));
    const s = storeOf(...orders);
    for (let i = 1; i <= 150; i++) {
      const wide = i % 37 === 0 ? { quoteRaw: 10n ** 24n + BigInt(i), takerGive: 10n ** 24n + BigInt(i) } : {};
      add(s, orders[i % 10]!, orders[(i + 3) % 10]!, amounts(BigInt(i), { spreadRaw: i % 11 === 0 ? BigInt(i) : 0n, ...wide }), 1_000 * i);
    }
    for (let id = 1; id <= 40; id++) {
      s.setStatus(id, "confirming", 5);
      s.setBroadcast(id, `0x${id.toString(16).padStart(64, "0")}`, 1 + (id >> 4));
      s.setStatus(id, id % 9 === 0 ? "reverted" : "settled", 9);
      if (id % 9 === 0) s.setRevertReason(id, "ORDER_EXPIRED");
    }
    const before = s.records();
    const decoded = decodeLossless(encodeLossless(s.snapshot())) as ReturnType<FillStore["snapshot"]>;
    const back = storeOf(...orders);
    back.restore(decoded);
    expect(back.records()).toEqual(before);
    expect(orders.map((o) => back.idsOf(o))).toEqual(orders.map((o) => s.idsOf(o)));
  });

  test("a state whose columns do not match its count is refused", () => {
    const s = storeOf();
    const bad = { ...s.snapshot(), count: 1 };
    expect(() => s.restore(bad)).toThrow(/does not hold 1 fills/);
  });
});
