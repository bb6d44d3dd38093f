// The native libsecp256k1 binding, loaded once for everything that signs or recovers
// (request signatures, settlement transactions). "secp256k1/bindings" is the native
// addon only: the package main silently falls back to elliptic.js, which would hide a
// broken prebuild behind a slow path. Callers fall back to @noble/curves when this is
// null; FAKEX_SIGNATURES=js forces that path.
import { nodeRequire } from "../platform/module-format.ts";
import { globalRealmBytes } from "../platform/typed-array-realm.ts";

/** The part of the `secp256k1` package's native wrapper we use. */
export interface NativeSecp256k1 {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed?: boolean): Uint8Array;
  ecdsaSign(msg32: Uint8Array, seckey: Uint8Array): { signature: Uint8Array; recid: number };
}

function load(): NativeSecp256k1 | null {
  if (process.env["FAKEX_SIGNATURES"] === "js") return null;
  try {
    const mod = nodeRequire("secp256k1/bindings") as NativeSecp256k1;
    if (typeof mod.ecdsaRecover !== "function" || typeof mod.ecdsaSign !== "function") return null;
    // The wrapper checks `instanceof Uint8Array` against the global, which may be another realm's (typed-array-realm.ts).
    return {
      ecdsaRecover: (sig, recid, msg32, compressed) => mod.ecdsaRecover(globalRealmBytes(sig), recid, globalRealmBytes(msg32), compressed),
      ecdsaSign: (msg32, seckey) => mod.ecdsaSign(globalRealmBytes(msg32), globalRealmBytes(seckey)),
    };
  } catch {
    return null;
  }
}

export const nativeSecp256k1: NativeSecp256k1 | null = load();
