import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { keccak256 } from "viem";
import { keccakBackend, keccakHexOf } from "../../sim/http/keccak.ts";

describe("keccak for the signature path", () => {
  test("the native binding loads on this platform", () => {
    expect(keccakBackend()).toBe("native");
  });

  test("equals viem's keccak256 on any input", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => keccakHexOf(bytes) === keccak256(bytes).slice(2)),
    );
  });
});
