// A checkpoint's layers encoded in two steps (lossless-json-later.ts): all but the long
// lists at capture, the lists a slice at a time afterwards. The text must be exactly
// encodeLossless's, and what encodeLossless refuses must be refused in the same words.
import { describe, expect, test } from "vitest";
import { LosslessJsonError, decodeLossless, encodeLossless } from "../../fixtures/lossless-json.ts";
import { EncodeLater, LATER_SLICE, encodeAllButLater, piecesOf } from "../../fixtures/lossless-json-later.ts";
import { encodeLayers, encodeLayersAtCapture } from "../../fixtures/state-dir.ts";
import { CHARS_PER_TURN, bytesInTurns, slicesOf } from "../../fixtures/text-in-turns.ts";

/** The whole text of a value encoded in two steps. */
function twoStepText(value: unknown): string {
  return [...piecesOf(encodeAllButLater(value))].join("");
}

/** The message encodeLossless refuses `value` with. */
function refusalOf(value: unknown): string {
  try {
    encodeLossless(value);
  } catch (e) {
    expect(e).toBeInstanceOf(LosslessJsonError);
    return (e as Error).message;
  }
  throw new Error("encodeLossless took the value");
}

/** Every kind of value encodeLossless handles, nested. */
function everyKind(i: number): Record<string, unknown> {
  return {
    i,
    amount: 2n ** 200n + BigInt(i),
    negative: -7n,
    byOwner: new Map<string, unknown>([["0xab", { frozen: 5n, ids: new Set([1, 2, i]) }]]),
    keys: new Map([[1n, "one"]]),
    bytes: new Uint8Array([0, 1, 254, 255]),
    ints: new Int32Array([0, -1, 2_147_483_647, -2_147_483_648]),
    floats: new Float64Array([0, 1.5, -0.25]),
    words: new BigUint64Array([0n, (1n << 64n) - 1n]),
    holes: [1, undefined, 3],
    absent: undefined,
    nested: [[{ a: null, b: "x \u2028 \"q\" \ud83d\ude00", c: true, d: 1.25, e: 1e-7 }]],
    bare: Object.assign(Object.create(null) as object, { k: 1n }),
  };
}

describe("encoding the long lists after the capture", () => {
  test("the text is encodeLossless's, for every kind of value, in plain members and in lists of several slices", () => {
    const list = Array.from({ length: 2 * LATER_SLICE + 3 }, (_, i) => everyKind(i));
    const mixed = [1n, undefined, new Map([[undefined, new Set([undefined])]]), "s", null, [undefined]];
    const plain = { top: everyKind(-1), deep: { lists: { many: list, mixed, empty: [] } }, after: 1n };
    const split = { top: everyKind(-1), deep: { lists: { many: new EncodeLater(list), mixed: new EncodeLater(mixed), empty: new EncodeLater([]) } }, after: 1n };
    const text = twoStepText(split);
    expect(text).toBe(encodeLossless(plain));
    const back = decodeLossless(text) as typeof plain;
    expect(back).toEqual(plain);
    expect(back.deep.lists.many[LATER_SLICE + 1]!.byOwner).toBeInstanceOf(Map);
    expect(back.deep.lists.many[2 * LATER_SLICE]!.words).toBeInstanceOf(BigUint64Array);
    expect(back.deep.lists.mixed[1]).toBeUndefined();
    expect(back.deep.lists.mixed).toHaveLength(6);
  });

  test("only lists in plain members wait: the parts encoded at capture are text already", () => {
    const parts = encodeAllButLater({ a: 1n, long: new EncodeLater([2n]), b: { c: undefined, d: new EncodeLater([]) } });
    expect(parts.filter((p) => p instanceof EncodeLater)).toHaveLength(2);
    expect(parts.filter((p) => typeof p === "string").join("|")).toBe('{|"a":|{"$t":"big","v":"1"}|,"long":|,"b":|{|"d":|}|}');
    // An object that holds no list is one piece.
    expect(encodeAllButLater({ x: { y: { z: 1n } }, l: new EncodeLater([]) }).filter((p) => typeof p === "string")).toEqual(["{", '"x":', '{"y":{"z":{"$t":"big","v":"1"}}}', ',"l":', "}"]);
    // Inside an array or a Map a wrapper is a class instance, refused as encodeLossless refuses one.
    expect(() => encodeAllButLater({ list: [new EncodeLater([])] })).toThrow("cannot encode an instance of EncodeLater at \"0\"");
  });

  test("what encodeLossless refuses is refused in the same words, in members and in a list's later slices", () => {
    class Thing {
      x = 1;
    }
    const refused: Record<string, unknown>[] = [{ t: new Thing() }, { d: new Date(0) }, { n: Number.NaN }, { n: -Infinity }, { f: () => 1 }, { $t: "mine" }, { s: Symbol("s") }];
    for (const bad of refused) {
      // A member of a walked object.
      expect(() => encodeAllButLater({ layer: { part: bad } })).toThrow(refusalOf({ layer: { part: bad } }));
      // A member of an element in a later slice.
      const list = Array.from({ length: LATER_SLICE + 5 }, (_, i) => (i === LATER_SLICE + 2 ? { ok: 1, ...bad } : { ok: 1 }));
      const parts = encodeAllButLater({ long: new EncodeLater(list) });
      expect(() => [...piecesOf(parts)]).toThrow(refusalOf({ long: list }));
    }
    // An element itself is named by its place in the whole list, as encodeLossless names it.
    const list = Array.from({ length: LATER_SLICE + 5 }, (_, i) => (i === LATER_SLICE + 2 ? new Thing() : i));
    const message = refusalOf(list);
    expect(message).toBe(`cannot encode an instance of Thing at "${LATER_SLICE + 2}"`);
    expect(() => [...piecesOf(encodeAllButLater({ long: new EncodeLater(list) }))]).toThrow(message);
    expect(() => encodeAllButLater(undefined)).toThrow(LosslessJsonError);
  });

  test("an object holding a later list that encodeLossless would refuse whole (a \"$t\" key, a toJSON) is refused in the same words, not walked", () => {
    const tagged = { $t: "mine", list: new EncodeLater([1]) };
    expect(() => encodeAllButLater({ layer: tagged })).toThrow(refusalOf({ layer: { $t: "mine", list: [1] } }));
    const withToJson = { toJSON: () => "x", list: new EncodeLater([1]) };
    expect(() => encodeAllButLater({ layer: withToJson })).toThrow(refusalOf({ layer: { toJSON: () => "x", list: [1] } }));
  });

  test("a checkpoint's layers at capture, finished later, are encodeLayers' text", () => {
    const market = { symbol: "USDT/USDC", base: "0xb", quote: "0xq", minAskAmountRaw: 10n };
    const liveOrder = { id: "o-1", market, lastFill: 1, priceTicks: 100n, createdAt: { ms: 5 } };
    const layers = {
      blockMode: { kind: "automine" },
      engine: {
        orders: [{ ...liveOrder }, { ...liveOrder, id: "o-2", priceTicks: 7n }],
        fills: { count: 0, price: new Float64Array([1.5]) },
        log: { types: ["order_placed", "fill", "x"], ats: [1, 2, 3], datas: [liveOrder, 1, { note: "plain", amount: 3n }], hashedUpTo: 0, hash: "" },
        ledger: new Map([["0xab", 1n]]),
      },
      journal: { seq: 2, entries: [{ id: "r1", status: 200 }] },
    } as never;
    const live = { order: (id: string) => (id === "o-1" ? liveOrder : undefined) };
    const parts = encodeLayersAtCapture(layers, live);
    expect(parts.filter((p) => p instanceof EncodeLater)).toHaveLength(5);
    expect([...piecesOf(parts)].join("")).toBe(encodeLayers(layers, live));
  });
});

describe("a large text as bytes, a piece per turn", () => {
  test("slices are never cut inside a surrogate pair; the bytes and their sha256 are the whole text's", async () => {
    // A pair whose first half is the last character of a full slice.
    const text = "x".repeat(CHARS_PER_TURN - 1) + "\ud83d\ude00" + "é".repeat(CHARS_PER_TURN) + "end";
    const slices = [...slicesOf(text)];
    expect(slices.join("")).toBe(text);
    expect(slices[0]!.endsWith("\ud83d\ude00")).toBe(true);
    expect(slices.map((s) => s.length)).toEqual([CHARS_PER_TURN + 1, CHARS_PER_TURN, 3]);
    const got = await bytesInTurns(["{", text, "}"]);
    const whole = Buffer.from(`{${text}}`);
    expect(Buffer.concat(got.chunks).equals(whole)).toBe(true);
    expect(got.bytes).toBe(whole.length);
    const { createHash } = await import("node:crypto");
    expect(got.sha256).toBe(createHash("sha256").update(whole).digest("hex"));
    expect(await bytesInTurns([])).toEqual({ chunks: [], bytes: 0, sha256: createHash("sha256").digest("hex") });
  });
});
