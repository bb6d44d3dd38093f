import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { keccak256 } from "viem";
import { keccakBackend, keccakBytes, keccakHexOf } from "../../sim/crypto/keccak.ts";

describe("keccak for the signature path", () => {
  test("the native binding loads on this platform", () => {
    expect(keccakBackend()).toBe("native");
  });

  test("equals viem's keccak256 on any input, as hex and as bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        const expected = keccak256(bytes).slice(2);
        return keccakHexOf(bytes) === expected && Buffer.from(keccakBytes(bytes)).toString("hex") === expected;
      }),
    );
  });
});
