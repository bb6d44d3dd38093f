// keccak-256 for the hot paths: EIP-712 verification of every signed request and
// signing settlement transactions (~21 kB of calldata each). viem's pure-JS keccak
// costs ~75 µs per Order encoding; the native binding of the `keccak` package (it
// ships prebuilt N-API binaries) a fraction of that. When the binding cannot load,
// viem's implementation is the fallback.
import { keccak256 as viemKeccak256 } from "viem";
import { nodeRequire } from "../platform/module-format.ts";

type KeccakFactory = (algorithm: "keccak256") => { update(data: Buffer): { digest(): Buffer } };

function loadNative(): KeccakFactory | null {
  if (process.env["FAKEX_KECCAK"] === "js") return null;
  try {
    // "keccak/bindings" is the native addon only; the package main silently falls back
    // to its own JS, which would hide a broken prebuild.
    const factory = nodeRequire("keccak/bindings") as KeccakFactory;
    return typeof factory === "function" ? factory : null;
  } catch {
    return null;
  }
}

const native = loadNative();

/** Which keccak implementation is in use. */
export function keccakBackend(): "native" | "js" {
  return native ? "native" : "js";
}

/** keccak-256 of `data` as 32 bytes. */
export function keccakBytes(data: Uint8Array): Uint8Array {
  if (native) {
    // The binding accepts only Buffers; a view over the same memory costs no copy.
    const buf = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    return native("keccak256").update(buf).digest();
  }
  return viemKeccak256(data, "bytes");
}

/** keccak-256 of `data`, as lowercase hex without the 0x prefix. */
export function keccakHexOf(data: Uint8Array): string {
  return Buffer.from(keccakBytes(data)).toString("hex");
}
