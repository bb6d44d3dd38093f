// Typed arrays of another realm (vitest's jsdom environment puts jsdom's on the global
// object): recognised by kind, handed to libraries as the global realm's, and written to
// snapshots like our own.
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { globalRealmBytes, isBytes, typedArrayKind } from "../../sim/platform/typed-array-realm.ts";
import { decodeLossless, encodeLossless } from "../../fixtures/lossless-json.ts";

const foreign = <T>(code: string): T => runInNewContext(code) as T;

describe("typed arrays of another realm", () => {
  it("are named by kind; a Buffer is a Uint8Array; a DataView and look-alikes are not typed arrays", () => {
    const ints = foreign<Int32Array>("new Int32Array([1, -2])");
    expect(ints instanceof Int32Array).toBe(false);
    expect(typedArrayKind(ints)).toBe("Int32Array");
    expect(typedArrayKind(Buffer.from("ab", "hex"))).toBe("Uint8Array");
    expect(typedArrayKind(new DataView(new ArrayBuffer(4)))).toBeNull();
    expect(typedArrayKind({ [Symbol.toStringTag]: "Uint8Array", length: 1 })).toBeNull();
    expect(isBytes(foreign("new Uint8Array(2)"))).toBe(true);
    expect(isBytes(foreign("new Uint16Array(2)"))).toBe(false);
    expect(isBytes("0xab")).toBe(false);
  });

  it("globalRealmBytes gives the global's own kind over the same memory, and the array itself when it is one", () => {
    const mine = new Uint8Array([1, 2, 3]);
    expect(globalRealmBytes(mine)).toBe(mine);
    const theirs = foreign<Uint8Array>("new Uint8Array([9, 8, 7, 6]).subarray(1, 3)");
    const view = globalRealmBytes(theirs);
    expect(view instanceof Uint8Array).toBe(true);
    expect([...view]).toEqual([8, 7]);
    view[0] = 5;
    expect(theirs[0]).toBe(5);
  });

  it("snapshots write them as the same tagged values and read them back as the global's", () => {
    const value = { bytes: foreign<Uint8Array>("new Uint8Array([1, 255])"), ints: foreign<Int32Array>("new Int32Array([7, -7])"), floats: foreign<Float64Array>("new Float64Array([0.5])") };
    const text = encodeLossless(value);
    expect(text).toBe(encodeLossless({ bytes: new Uint8Array([1, 255]), ints: new Int32Array([7, -7]), floats: new Float64Array([0.5]) }));
    const back = decodeLossless(text) as typeof value;
    expect(back.bytes).toEqual(new Uint8Array([1, 255]));
    expect(back.ints).toEqual(new Int32Array([7, -7]));
    expect(back.floats).toEqual(new Float64Array([0.5]));
  });
});
