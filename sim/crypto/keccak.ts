// keccak-256 for the hot paths: EIP-712 verification of every signed request and
// signing settlement transactions (~21 kB of calldata each). viem's pure-JS keccak
// costs ~75 µs per Order encoding; the native sponge of the `keccak` package (it
// ships prebuilt N-API binaries) a fraction of that. When the binding cannot load,
// viem's implementation is the fallback.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { keccak256 as viemKeccak256 } from "viem";
import { nodeRequire } from "../platform/module-format.ts";
import { globalRealmBytes } from "../platform/typed-array-realm.ts";

/** The package's native sponge (what its stream wrapper drives). */
interface KeccakSponge {
  initialize(rate: number, capacity: number): void;
  absorb(data: Buffer): void;
  squeeze(length: number): Buffer;
}

function loadNative(): KeccakSponge | null {
  if (process.env["FAKEX_KECCAK"] === "js") return null;
  try {
    // The addon itself, as "keccak/bindings" loads it, but without the package's
    // wrapper: that builds a Transform stream per hash, which costs more than
    // hashing an Order. The package main would silently fall back to its own JS,
    // hiding a broken prebuild.
    const dir = dirname(nodeRequire.resolve("keccak/bindings"));
    const Sponge = createRequire(join(dir, "bindings.js"))("node-gyp-build")(dir) as unknown;
    if (typeof Sponge !== "function") return null;
    const sponge = new (Sponge as new () => KeccakSponge)();
    return typeof sponge.absorb === "function" && typeof sponge.squeeze === "function" ? sponge : null;
  } catch {
    return null;
  }
}

// One sponge, re-initialised per hash: hashing is synchronous, so calls never interleave.
const native = loadNative();
// keccak-256: rate 1088 bits, capacity 512, original Keccak padding (no SHA-3 suffix).
const RATE = 1088;
const CAPACITY = 512;

/** Which keccak implementation is in use. */
export function keccakBackend(): "native" | "js" {
  return native ? "native" : "js";
}

/** keccak-256 of `data` as 32 bytes. */
export function keccakBytes(data: Uint8Array): Uint8Array {
  if (native) {
    // The binding accepts only Buffers; a view over the same memory costs no copy.
    const buf = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    native.initialize(RATE, CAPACITY);
    native.absorb(buf);
    return native.squeeze(32);
  }
  return viemKeccak256(globalRealmBytes(data), "bytes");
}

/** keccak-256 of `data`, as lowercase hex without the 0x prefix. */
export function keccakHexOf(data: Uint8Array): string {
  return Buffer.from(keccakBytes(data)).toString("hex");
}
