// Signature mutations shared by the signature-attack suites: each takes a valid
// 65-byte signature and returns one the live contracts (OpenZeppelin ECDSA: low-s only,
// v 27/28, 64-byte EIP-2098) would not accept for the same signer. Not a test file.

import { hexToBigInt, numberToHex, parseSignature, serializeSignature, type TypedDataDomain } from "viem";
import type { Hex } from "../../sim/core/typed-data.ts";

export const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

// ---------------------------------------------------------------------------
// Signature mutations

/** A 65-byte signature with the bit `bit` of byte `byte` flipped. */
export function flipBit(sig: Hex, byte: number, bit = 0): Hex {
  const b = Buffer.from(sig.slice(2), "hex");
  b[byte] = b[byte]! ^ (1 << bit);
  return `0x${b.toString("hex")}`;
}

/** The malleable twin (r, n - s, other parity): valid for plain ecrecover, refused by OpenZeppelin ECDSA. */
export function highS(sig: Hex): Hex {
  const p = parseSignature(sig);
  const s = N - hexToBigInt(p.s);
  return serializeSignature({ r: p.r, s: numberToHex(s, { size: 32 }), yParity: p.yParity === 0 ? 1 : 0 });
}

export function withV(sig: Hex, v: number): Hex {
  return `${sig.slice(0, 130)}${v.toString(16).padStart(2, "0")}` as Hex;
}

/** EIP-2098 compact form: r ‖ (yParity << 255 | s). */
export function compact(sig: Hex): Hex {
  const p = parseSignature(sig);
  const yParity = BigInt(p.yParity ?? 0);
  const ys = (yParity << 255n) | hexToBigInt(p.s);
  return `${p.r}${ys.toString(16).padStart(64, "0")}` as Hex;
}

export const MUTATIONS: readonly [string, (s: Hex) => Hex][] = [
  ["bit flip in r", (s) => flipBit(s, 5)],
  ["bit flip in s", (s) => flipBit(s, 40, 3)],
  ["v flipped (27 <-> 28)", (s) => withV(s, s.endsWith("1b") ? 28 : 27)],
  ["v = 29", (s) => withV(s, 29)],
  ["v = 0x80", (s) => withV(s, 0x80)],
  ["high-s malleable twin", highS],
  ["r = 0", (s) => `0x${"0".repeat(64)}${s.slice(66)}` as Hex],
  ["s = 0", (s) => `0x${s.slice(2, 66)}${"0".repeat(64)}${s.slice(130)}` as Hex],
  ["s = n", (s) => `0x${s.slice(2, 66)}${N.toString(16)}${s.slice(130)}` as Hex],
  ["truncated to 63 bytes", (s) => s.slice(0, 2 + 126) as Hex],
  ["extended to 66 bytes", (s) => `${s}00` as Hex],
  ["compact form with the parity bit flipped", (s) => flipBit(compact(s), 32, 7)],
  ["empty", () => "0x" as Hex],
];

/** `domain` with one member changed at a time. */
export function otherDomains(domain: TypedDataDomain): readonly [string, TypedDataDomain][] {
  return [
    ["wrong chain id", { ...domain, chainId: 11155111 }],
    ["wrong verifying contract", { ...domain, verifyingContract: "0x000000000000000000000000000000000000dead" }],
    ["wrong domain name", { ...domain, name: "fakex-but-not" }],
    ["wrong version", { ...domain, version: "2" }],
  ];
}

