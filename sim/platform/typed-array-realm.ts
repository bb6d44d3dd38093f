// Typed arrays of either realm. vitest's jsdom environment puts jsdom's own typed
// arrays on the global object, while Node's Buffers (what the native keccak and
// secp256k1 bindings, node:crypto and Buffer.from give) keep Node's: a Buffer is then
// not `instanceof Uint8Array`, and the libraries that check that way (secp256k1's
// wrapper, @noble) refuse it. fakex runs its exchange in the test's worker, so its
// bytes must pass in both realms.

/** "Uint8Array", "Int32Array", ... for a typed array of any realm (a Buffer is a "Uint8Array"); else null. */
export function typedArrayKind(x: unknown): string | null {
  if (!ArrayBuffer.isView(x)) return null;
  // %TypedArray%.prototype's toStringTag getter names the array's kind in its own realm.
  const tag = Object.prototype.toString.call(x);
  return tag === "[object DataView]" ? null : tag.slice(8, -1);
}

/** Whether `x` is a Uint8Array (a Buffer included) of any realm. */
export function isBytes(x: unknown): x is Uint8Array {
  return x instanceof Uint8Array || typedArrayKind(x) === "Uint8Array";
}

/**
 * `bytes` as an array of the global Uint8Array (itself when it is one already, as
 * always outside such an environment): what a library checking `instanceof Uint8Array`
 * takes. A view over the same memory, no copy.
 */
export function globalRealmBytes(bytes: Uint8Array): Uint8Array {
  const b: unknown = bytes;
  return b instanceof Uint8Array ? b : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
