import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OrderIndex, orderIdHash, type HashedOrderId } from "../../sim/core/order-index.ts";
import { Rng } from "../../sim/core/rng.ts";

const rec = (id: string, n = 0) => ({ id, n });

describe("OrderIndex (order id → record)", () => {
  it("agrees with a Map on has / get / set / size / insertion order over random uuids, through several growths", () => {
    const rng = new Rng("order-index");
    const idx = new OrderIndex<{ id: string; n: number }>();
    const ref = new Map<string, { id: string; n: number }>();
    const ids: string[] = [];
    for (let i = 0; i < 5000; i++) {
      const id = rng.uuid4();
      ids.push(id);
      expect(idx.has(id)).toBe(false);
      idx.set(id, rec(id, i));
      ref.set(id, rec(id, i));
    }
    expect(idx.size).toBe(5000);
    for (const id of ids) expect(idx.get(id)).toEqual(ref.get(id));
    expect([...idx.values()].map((r) => r.id)).toEqual([...ref.keys()]);
    expect(idx.get(rng.uuid4())).toBeUndefined();
    expect(idx.has("not-a-uuid")).toBe(false);
  });

  it("set on a known id replaces the record and keeps its position (Map semantics)", () => {
    const idx = new OrderIndex<{ id: string; n: number }>();
    idx.set("a", rec("a", 1)).set("b", rec("b", 2));
    idx.set("a", rec("a", 3));
    expect(idx.size).toBe(2);
    expect([...idx.values()]).toEqual([rec("a", 3), rec("b", 2)]);
  });

  it("refuses a key that is not the record's id", () => {
    const idx = new OrderIndex<{ id: string }>();
    expect(() => idx.set("x", { id: "y" })).toThrow(/not the record's id/);
  });

  it("hand-made ids that differ only in the tail spread over the table (and still resolve)", () => {
    const ids = Array.from({ length: 4096 }, (_, i) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`);
    const buckets = new Set(ids.map((id) => orderIdHash(id) & 4095));
    expect(buckets.size).toBeGreaterThan(2000);
    const idx = new OrderIndex<{ id: string }>();
    for (const id of ids) idx.set(id, { id });
    for (const id of ids) expect(idx.get(id)?.id).toBe(id);
  });

  it("ids that differ only in one middle group: every digit is hashed once probes run long, and all resolve", () => {
    const hex = (i: number, w: number) => i.toString(16).padStart(w, "0");
    const families = [
      (i: number) => `aaaaaaaa-${hex(i, 4)}-4aaa-8aaa-aaaaaaaaaaaa`,
      (i: number) => `aaaaaaaa-aaaa-4${hex(i, 3)}-8aaa-aaaaaaaaaaaa`,
      (i: number) => `aaaaaaaa-aaaa-4aaa-8${hex(i, 3)}-aaaaaaaaaaaa`,
      (i: number) => `aaaaaaaa-aaaa-4aaa-8aaa-${hex(i, 4)}aaaaaaaa`,
    ];
    for (const make of families) {
      const ids = Array.from({ length: 4096 }, (_, i) => make(i));
      // The sampled digits (first and last 8) are the same for the whole family.
      expect(new Set(ids.map((id) => orderIdHash(id))).size).toBe(1);
      // Every digit: only one word changes, and its term is a bijection, so every tag differs.
      expect(new Set(ids.map((id) => orderIdHash(id, true))).size).toBe(ids.length);
      expect(new Set(ids.map((id) => orderIdHash(id, true) & 4095)).size).toBeGreaterThan(2000);
      const idx = new OrderIndex<{ id: string }>();
      for (const id of ids) idx.set(id, { id });
      expect(idx.hashesEveryDigit).toBe(true);
      expect(idx.size).toBe(ids.length);
      for (const id of ids) expect(idx.get(id)?.id).toBe(id);
      expect(idx.has(make(5000))).toBe(false);
      expect([...idx.values()].map((r) => r.id)).toEqual(ids);
    }
  });

  it("random uuids keep the sampled hash (probes stay short)", () => {
    const idx = new OrderIndex<{ id: string }>();
    const rng = new Rng("order-index-random");
    for (let i = 0; i < 20_000; i++) {
      const id = rng.uuid4();
      idx.set(id, { id });
    }
    expect(idx.hashesEveryDigit).toBe(false);
  });

  it("colliding tags fall back to the id comparison", () => {
    // Hex digits are hashed by value, so ids that differ only in letter case share a tag.
    const a = "12345678-aaaa-4aaa-8aaa-aaaa87654321";
    const b = "12345678-AAAA-4aaa-8aaa-aaaa87654321";
    expect(orderIdHash(a)).toBe(orderIdHash(b));
    const idx = new OrderIndex<{ id: string }>();
    idx.set(a, { id: a });
    expect(idx.has(b)).toBe(false);
    idx.set(b, { id: b });
    expect(idx.get(a)?.id).toBe(a);
    expect(idx.get(b)?.id).toBe(b);
    expect(idx.size).toBe(2);
  });

  it("any string keys: property test against a Map", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ maxLength: 40 }), fc.nat()), { maxLength: 300 }), (ops) => {
        const idx = new OrderIndex<{ id: string; n: number }>();
        const ref = new Map<string, { id: string; n: number }>();
        for (const [id, n] of ops) {
          expect(idx.has(id)).toBe(ref.has(id));
          idx.set(id, rec(id, n));
          ref.set(id, rec(id, n));
        }
        expect(idx.size).toBe(ref.size);
        expect([...idx.values()]).toEqual([...ref.values()]);
      }),
    );
  });

  it("a miss remembered for set is dropped once anything is inserted (colliding keys take distinct slots)", () => {
    const a = "12345678-aaaa-4aaa-8aaa-aaaa87654321";
    const b = "12345678-bbbb-4bbb-9bbb-bbbb87654321";
    const idx = new OrderIndex<{ id: string }>();
    expect(idx.has(a)).toBe(false); // a's empty slot remembered…
    idx.set(b, { id: b }); // …then taken by b (same tag, same home slot)
    idx.set(a, { id: a });
    expect(idx.get(a)?.id).toBe(a);
    expect(idx.get(b)?.id).toBe(b);
    expect(idx.size).toBe(2);
    // A key inserted through its remembered miss is found, not inserted twice.
    const c = "12345678-cccc-4ccc-accc-cccc87654321";
    expect(idx.has(c)).toBe(false);
    idx.set(c, { id: c });
    idx.set(c, { id: c });
    expect(idx.size).toBe(3);
    expect([...idx.values()].map((r) => r.id)).toEqual([b, a, c]);
  });

  it("interleaved has / get / set on colliding and fresh keys, across growths: property test against a Map", () => {
    // Few distinct tags so most keys collide: sampled digits from a 2-value alphabet.
    const key = fc.tuple(fc.constantFrom("0", "f"), fc.constantFrom("0", "f"), fc.nat(9)).map(([x, y, n]) => `${x.repeat(8)}-0000-4000-8000-${String(n).padStart(4, "0")}${y.repeat(8)}`);
    const op = fc.tuple(fc.constantFrom("has", "get", "set"), key, fc.nat());
    fc.assert(
      fc.property(fc.array(op, { maxLength: 2500 }), (ops) => {
        const idx = new OrderIndex<{ id: string; n: number }>();
        const ref = new Map<string, { id: string; n: number }>();
        for (const [kind, id, n] of ops) {
          if (kind === "has") expect(idx.has(id)).toBe(ref.has(id));
          else if (kind === "get") expect(idx.get(id)).toEqual(ref.get(id));
          else {
            idx.set(id, rec(id, n));
            ref.set(id, rec(id, n));
          }
        }
        expect(idx.size).toBe(ref.size);
        expect([...idx.values()]).toEqual([...ref.values()]);
        for (const id of ref.keys()) expect(idx.get(id)).toEqual(ref.get(id));
      }),
      { numRuns: 60 },
    );
  });

  it("has(id, hashed) uses hashes made for that id in the index's current mode, and hashes any other id itself", () => {
    const hashed = (id: string): HashedOrderId => ({ hashedId: id, idHash: orderIdHash(id), idHashEveryDigit: orderIdHash(id, true) });
    const family = (i: number) => `aaaaaaaa-${i.toString(16).padStart(4, "0")}-4aaa-8aaa-aaaaaaaaaaaa`;
    const idx = new OrderIndex<{ id: string }>();
    for (let i = 0; i < 2000; i++) {
      expect(idx.has(family(i), hashed(family(i)))).toBe(false);
      idx.set(family(i), { id: family(i) });
    }
    // Past the switch, only the every-digit hashes find these ids.
    expect(idx.hashesEveryDigit).toBe(true);
    for (let i = 0; i < 2000; i += 97) expect(idx.has(family(i), hashed(family(i)))).toBe(true);
    expect(idx.has(family(5000), hashed(family(5000)))).toBe(false);
    // Hashes made for another id are not used: the id itself is found.
    expect(idx.has(family(7), hashed(family(5000)))).toBe(true);
    expect(idx.has(family(5000), hashed(family(7)))).toBe(false);
  });
});
