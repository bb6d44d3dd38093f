// EIP-712 hashing and signer recovery for every signed route.
//
// Why not just viem: viem's hashTypedData re-derives the type string, validates and
// ABI-encodes on every call, and its recovery is pure-JS secp256k1 (~570 recoveries/s
// per core). Order entry must not be capped by that, so this module hashes with cached
// type hashes and recovers with the native libsecp256k1 binding, falling back to
// @noble/curves when the binding cannot load. A test proves both paths equal viem.

import { secp256k1 as nobleSecp256k1 } from "@noble/curves/secp256k1";
import { hashTypedData } from "viem";
import { keccakBytes, keccakHexOf } from "../crypto/keccak.ts";
import { nativeSecp256k1 } from "../crypto/secp256k1.ts";
import type { Address, Hex } from "../core/typed-data.ts";
import { globalRealmBytes, isBytes } from "../platform/typed-array-realm.ts";

// ---------------------------------------------------------------------------
// Backends

export type SignatureBackend = "native" | "js";

const native = nativeSecp256k1;
let active: SignatureBackend = native ? "native" : "js";

/** Which recovery backend is in use right now. */
export function signatureBackend(): SignatureBackend {
  return active;
}

/** True when the native binding loaded (regardless of which backend is active). */
export function nativeSignaturesAvailable(): boolean {
  return native !== null;
}

/**
 * Switch the recovery backend (tests and benchmarks). Asking for "native" when the
 * binding did not load throws rather than silently measuring the JS path.
 */
export function useSignatureBackend(backend: SignatureBackend): void {
  if (backend === "native" && !native) throw new Error("native secp256k1 binding is not available");
  active = backend;
}

// ---------------------------------------------------------------------------
// EIP-712 hashing with cached type hashes

export interface TypedField {
  readonly name: string;
  readonly type: string;
}
export type TypedFields = Readonly<Record<string, readonly TypedField[]>>;

/** The EIP-712 domain members we understand (the order fixed by the standard). */
export interface TypedDomain {
  name?: string;
  version?: string;
  chainId?: number | bigint;
  verifyingContract?: string;
  salt?: string;
}

const enc = new TextEncoder();
const ATOMIC_TYPE = /^(address|bool|string|bytes|bytes([1-9]|[12][0-9]|3[0-2])|u?int(8|16|24|32|40|48|56|64|72|80|88|96|104|112|120|128|136|144|152|160|168|176|184|192|200|208|216|224|232|240|248|256)?)$/;
const ARRAY_SUFFIX = /\[(\d*)\]$/;
const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX_ANY = /^0x([0-9a-fA-F]{2})*$/;

function keccakHex(hexNoPrefix: string): string {
  return keccakHexOf(Buffer.from(hexNoPrefix, "hex"));
}

const flatCache = new WeakMap<readonly TypedField[], boolean>();

/** Whether every member of the primary type is something we encode ourselves (no nested structs); cached per type list. */
function isFlat(fields: readonly TypedField[]): boolean {
  let flat = flatCache.get(fields);
  if (flat === undefined) {
    flat = fields.every((f) => ATOMIC_TYPE.test(f.type.replace(/(\[\d*\])+$/, "")));
    flatCache.set(fields, flat);
  }
  return flat;
}

// Keyed by the fields array itself: the exchange's type lists are module constants,
// so identity is a perfect cache key and costs no string building per request.
const typeHashCache = new WeakMap<readonly TypedField[], string>();

function typeHashOf(primaryType: string, fields: readonly TypedField[]): string {
  let h = typeHashCache.get(fields);
  if (h === undefined) {
    const typeString = `${primaryType}(${fields.map((f) => `${f.type} ${f.name}`).join(",")})`;
    h = keccakHex(Buffer.from(enc.encode(typeString)).toString("hex"));
    typeHashCache.set(fields, h);
  }
  return h;
}

function toBigInt(value: unknown, type: string): bigint {
  if (typeof value === "bigint") return value;
  if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === "string" && /^-?\d+$/.test(value)) return BigInt(value);
  if (typeof value === "string" && /^0x[0-9a-fA-F]+$/.test(value)) return BigInt(value);
  throw new TypeError(`EIP-712: ${type} value ${String(value)} is not an integer`);
}

// The bounds of each intN / uintN type seen, so a request builds no bigints for them.
const intRanges = new Map<string, { min: bigint; max: bigint }>();

function intRange(type: string): { min: bigint; max: bigint } {
  let r = intRanges.get(type);
  if (r === undefined) {
    const signed = type.startsWith("int");
    const bits = BigInt(type.slice(signed ? 3 : 4) || "256");
    r = signed ? { min: -(1n << (bits - 1n)), max: (1n << (bits - 1n)) - 1n } : { min: 0n, max: (1n << bits) - 1n };
    intRanges.set(type, r); // bounded: encodeValue only gets here for ATOMIC_TYPE-shaped names
  }
  return r;
}

/** One 32-byte word (64 hex chars, no prefix) per EIP-712 encodeData rules. */
function encodeValue(type: string, value: unknown): string {
  const arr = ARRAY_SUFFIX.exec(type);
  if (arr) {
    // Arrays hash the concatenation of their elements' encodings.
    if (!Array.isArray(value)) throw new TypeError(`EIP-712: ${type} value is not an array`);
    if (arr[1] !== "" && value.length !== Number(arr[1])) throw new TypeError(`EIP-712: ${type} length ${value.length}`);
    const inner = type.slice(0, arr.index);
    let words = "";
    for (const v of value) words += encodeValue(inner, v);
    return keccakHex(words);
  }
  if (type === "address") {
    if (typeof value !== "string" || !HEX_ADDRESS.test(value)) throw new TypeError(`EIP-712: bad address ${String(value)}`);
    return "000000000000000000000000" + value.slice(2).toLowerCase();
  }
  if (type === "string") {
    if (typeof value !== "string") throw new TypeError("EIP-712: string value expected");
    return keccakHex(Buffer.from(enc.encode(value)).toString("hex"));
  }
  if (type === "bytes") {
    if (typeof value !== "string" || !HEX_ANY.test(value)) throw new TypeError("EIP-712: bytes value must be hex");
    return keccakHex(value.slice(2));
  }
  if (type === "bool") {
    if (typeof value !== "boolean") throw new TypeError("EIP-712: bool value expected");
    return value ? "0".repeat(63) + "1" : "0".repeat(64);
  }
  if (type.startsWith("bytes")) {
    const n = Number(type.slice(5));
    if (typeof value !== "string" || !HEX_ANY.test(value) || value.length !== 2 + 2 * n) {
      throw new TypeError(`EIP-712: ${type} value must be ${n} bytes of hex`);
    }
    return value.slice(2).toLowerCase().padEnd(64, "0");
  }
  // uintN / intN
  const v = toBigInt(value, type);
  const { min, max } = intRange(type);
  if (v < min || v > max) throw new RangeError(`EIP-712: ${v} out of range for ${type}`);
  return (v < 0n ? (1n << 256n) + v : v).toString(16).padStart(64, "0");
}

function structHash(primaryType: string, fields: readonly TypedField[], message: Readonly<Record<string, unknown>>): string {
  let words = typeHashOf(primaryType, fields);
  for (const f of fields) words += encodeValue(f.type, message[f.name]);
  return keccakHex(words);
}

function domainFields(domain: TypedDomain): TypedField[] {
  const fields: TypedField[] = [];
  if (domain.name !== undefined) fields.push({ name: "name", type: "string" });
  if (domain.version !== undefined) fields.push({ name: "version", type: "string" });
  if (domain.chainId !== undefined) fields.push({ name: "chainId", type: "uint256" });
  if (domain.verifyingContract !== undefined) fields.push({ name: "verifyingContract", type: "address" });
  if (domain.salt !== undefined) fields.push({ name: "salt", type: "bytes32" });
  return fields;
}

// A deployment has one or two domains; cap the cache so hostile input cannot grow it.
const domainCache = new Map<string, string>();
const DOMAIN_CACHE_MAX = 64;

/** keccak256 of the encoded EIP712Domain (the contract's DOMAIN_SEPARATOR), hex without prefix. */
function domainSeparatorHex(domain: TypedDomain): string {
  const key = `${domain.name}\u0000${domain.version}\u0000${domain.chainId}\u0000${domain.verifyingContract?.toLowerCase()}\u0000${domain.salt}`;
  let sep = domainCache.get(key);
  if (sep === undefined) {
    const fields = domainFields(domain);
    // A fresh array per domain shape would defeat the WeakMap; hash the type string directly.
    const typeString = `EIP712Domain(${fields.map((f) => `${f.type} ${f.name}`).join(",")})`;
    let words = keccakHex(Buffer.from(enc.encode(typeString)).toString("hex"));
    const d = domain as Record<string, unknown>;
    for (const f of fields) words += encodeValue(f.type, d[f.name]);
    sep = keccakHex(words);
    if (domainCache.size >= DOMAIN_CACHE_MAX) domainCache.clear();
    domainCache.set(key, sep);
  }
  return sep;
}

// The separator as bytes, next to the hex cache (same key), for the digest preimage.
const domainBytesCache = new Map<string, Buffer>();

function domainSeparatorBytes(domain: TypedDomain): Buffer {
  const hex = domainSeparatorHex(domain);
  let bytes = domainBytesCache.get(hex);
  if (bytes === undefined) {
    bytes = Buffer.from(hex, "hex");
    if (domainBytesCache.size >= DOMAIN_CACHE_MAX) domainBytesCache.clear();
    domainBytesCache.set(hex, bytes);
  }
  return bytes;
}

/** The domain separator as the contract exposes it (GET /config `domain_separator`). */
export function domainSeparator(domain: TypedDomain): Hex {
  return `0x${domainSeparatorHex(domain)}`;
}

/**
 * The EIP-712 digest (`\x19\x01 ‖ domainSeparator ‖ hashStruct(message)`), equal to
 * viem's hashTypedData. Throws TypeError/RangeError when a member does not fit its type
 * (routes validate first, so a throw here is a programming error, not user input).
 */
export function hashTyped(
  domain: TypedDomain,
  types: TypedFields,
  primaryType: string,
  message: Readonly<Record<string, unknown>>,
): Hex {
  const fields = types[primaryType];
  if (!fields) throw new TypeError(`EIP-712: unknown primary type ${primaryType}`);
  if (!isFlat(fields)) {
    // Nested structs are not used by the exchange; let viem do the general case.
    return hashTypedData({ domain, types, primaryType, message } as Parameters<typeof hashTypedData>[0]);
  }
  return `0x${Buffer.from(digestOfFlat(domain, primaryType, fields, message)).toString("hex")}`;
}

/** keccak256("\x19\x01" ‖ domainSeparator ‖ hashStruct) for a flat primary type, as bytes. */
function digestOfFlat(domain: TypedDomain, primaryType: string, fields: readonly TypedField[], message: Readonly<Record<string, unknown>>): Uint8Array {
  const preimage = Buffer.allocUnsafe(66);
  preimage[0] = 0x19;
  preimage[1] = 0x01;
  domainSeparatorBytes(domain).copy(preimage, 2);
  preimage.write(structHash(primaryType, fields, message), 34, "hex");
  return keccakBytes(preimage);
}

/** hashTyped as 32 bytes (what recovery takes), without the hex round trip. */
function hashTypedBytes(domain: TypedDomain, types: TypedFields, primaryType: string, message: Readonly<Record<string, unknown>>): Uint8Array {
  const fields = types[primaryType];
  if (fields && isFlat(fields)) return digestOfFlat(domain, primaryType, fields, message);
  return Buffer.from(hashTyped(domain, types, primaryType, message).slice(2), "hex");
}

// ---------------------------------------------------------------------------
// ECDSA recovery

// secp256k1 group order n and n/2, as fixed-width lowercase hex so a string compare is
// a numeric compare (no bigint per request).
const N_HEX = "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141";
const HALF_N_HEX = "7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0";
const ZERO_WORD = "0".repeat(64);
const DIGEST_HEX = /^0x[0-9a-fA-F]{64}$/;
// 64 or 65 bytes of hex: the length is checked first, so the pattern needs no alternation.
const HEX_BODY = /^0x[0-9a-fA-F]*$/;

interface SplitSignature {
  r: string; // 64 lowercase hex
  s: string; // 64 lowercase hex, top bit already cleared for EIP-2098
  recid: 0 | 1;
}

/**
 * Which `v` a 65-byte signature may carry. "contract": 27/28 only, as ecrecover and so
 * OpenZeppelin's ECDSA.tryRecover(digest, v, r, s) in contracts/Signatures.sol take it;
 * a v of 0/1 recovers nobody there, so an order or withdrawal signed that way would be
 * accepted here and fail on chain. "lenient": also 0/1, for payloads no contract ever
 * checks (ManageApiKey, CancelOrder, CancelVLBatch), where wallets' 0/1 output is common
 * and nothing downstream refuses it.
 */
export type VForm = "contract" | "lenient";

/**
 * The primary types whose signatures the exchange contracts verify (Exchange first
 * fill, Router.executeIntent, executeInstantWithdrawDualSig): verified in the "contract"
 * form, so the server accepts nothing those contracts would reject.
 */
export const CONTRACT_CHECKED_TYPES: ReadonlySet<string> = new Set(["Order", "Intent", "WithdrawIntent"]);

/**
 * Split a 65-byte (r,s,v) or 64-byte EIP-2098 (r, yParityAndS) signature. Returns null
 * for anything OpenZeppelin's ECDSA would refuse: zero or out-of-range r, zero s, high s
 * (malleable twin), or a v outside 27/28 (0/1 too in the "lenient" form).
 */
function splitSignature(signature: string, vForm: VForm): SplitSignature | null {
  const hex = signature.slice(2).toLowerCase();
  const r = hex.slice(0, 64);
  let s = hex.slice(64, 128);
  let recid: 0 | 1;
  if (hex.length === 130) {
    const v = parseInt(hex.slice(128, 130), 16);
    if (v === 27 || (v === 0 && vForm === "lenient")) recid = 0;
    else if (v === 28 || (v === 1 && vForm === "lenient")) recid = 1;
    else return null;
  } else {
    const top = parseInt(s[0]!, 16);
    recid = top >= 8 ? 1 : 0;
    s = (top & 7).toString(16) + s.slice(1);
  }
  if (r === ZERO_WORD || r >= N_HEX) return null;
  if (s === ZERO_WORD || s > HALF_N_HEX) return null;
  return { r, s, recid };
}

function addressFromUncompressed(pub: Uint8Array): Address {
  // The address is the last 20 bytes of keccak256 over X‖Y (without the 0x04 prefix).
  return `0x${Buffer.from(keccakBytes(pub.subarray(1))).toString("hex", 12)}`;
}

function recoverNative(digest: Uint8Array, sig: SplitSignature): Address | null {
  try {
    const pub = native!.ecdsaRecover(Buffer.from(sig.r + sig.s, "hex"), sig.recid, digest, false);
    return addressFromUncompressed(pub);
  } catch {
    return null; // no point on the curve for this r, or a parse failure
  }
}

function recoverJs(digest: Uint8Array, sig: SplitSignature): Address | null {
  try {
    // Signature#recoverPublicKey takes the digest as-is (no pre-hashing), which is
    // what ecrecover does; @noble/curves 1.9 marks it deprecated but keeps it.
    const point = new nobleSecp256k1.Signature(BigInt(`0x${sig.r}`), BigInt(`0x${sig.s}`), sig.recid).recoverPublicKey(globalRealmBytes(digest));
    return addressFromUncompressed(point.toBytes(false));
  } catch {
    return null;
  }
}

/**
 * The lowercase address that signed `digest`, or null for any signature OpenZeppelin's
 * ECDSA.tryRecover would reject (and for junk: wrong length, non-hex, not a string).
 * `vForm` "lenient" also takes v 0/1 (see VForm). Never throws.
 */
export function recoverDigestSigner(digest: unknown, signature: unknown, vForm: VForm = "contract"): Address | null {
  let digestBytes: Uint8Array;
  if (typeof digest === "string" && DIGEST_HEX.test(digest)) digestBytes = Buffer.from(digest.slice(2), "hex");
  else if (isBytes(digest) && digest.length === 32) digestBytes = digest;
  else return null;
  if (typeof signature !== "string" || (signature.length !== 130 && signature.length !== 132) || !HEX_BODY.test(signature)) return null;
  const sig = splitSignature(signature, vForm);
  if (!sig) return null;
  return active === "native" ? recoverNative(digestBytes, sig) : recoverJs(digestBytes, sig);
}

/**
 * The bytes to hand the contracts for a signature the server accepted: exactly what
 * the client signed, lowercased. Nothing is rewritten: Order, Intent and WithdrawIntent
 * signatures are verified in the contract form (v 27/28) already, and rewriting would
 * change what an EIP-1271 wallet is asked on chain (a Safe reads v 0/1 as its own
 * signature kinds) or turn a permit the token would refuse into one it takes.
 */
export function toContractSignature(signature: Hex): Hex {
  return signature.toLowerCase() as Hex;
}

// ---------------------------------------------------------------------------
// Verification (ECDSA, then EIP-1271)

export interface VerifyTypedSignatureArgs {
  domain: TypedDomain;
  types: TypedFields;
  primaryType: string;
  message: Readonly<Record<string, unknown>>;
  signature: unknown;
  /** The address that should have signed (any case). */
  expected: unknown;
  /** Whether `addr` has code on chain (the chain port supplies it). */
  isContract?: (addr: Address) => boolean | Promise<boolean>;
  /** EIP-1271 `isValidSignature(digest, signature) == 0x1626ba7e` on `addr`; false on revert. */
  isValidSignature?: (addr: Address, digest: Hex, signature: Hex) => boolean | Promise<boolean>;
}

export interface VerifyTypedSignatureResult {
  valid: boolean;
  /** The ECDSA-recovered signer (lowercase), or null when the bytes recover nobody. */
  recovered: Address | null;
  /** Which check accepted the signature; null when invalid. */
  via: "ecdsa" | "eip1271" | null;
}

/**
 * Verify a typed-data signature the way the exchange contracts do: ECDSA recovery
 * first (v 27/28 only for CONTRACT_CHECKED_TYPES, also 0/1 otherwise); when that does
 * not yield the expected signer and the expected signer is a contract, ask it through
 * EIP-1271 with the signature bytes unchanged. Errors from the callbacks (an unreachable chain)
 * propagate: they are service trouble, not a bad signature.
 */
export async function verifyTypedSignature(args: VerifyTypedSignatureArgs): Promise<VerifyTypedSignatureResult> {
  const { expected, signature } = args;
  if (typeof expected !== "string" || !HEX_ADDRESS.test(expected)) return { valid: false, recovered: null, via: null };
  const want = expected.toLowerCase() as Address;
  const digest = hashTypedBytes(args.domain, args.types, args.primaryType, args.message);
  const vForm: VForm = CONTRACT_CHECKED_TYPES.has(args.primaryType) ? "contract" : "lenient";
  const recovered = recoverDigestSigner(digest, signature, vForm);
  if (recovered === want) return { valid: true, recovered, via: "ecdsa" };
  // Contract wallets may use any signature layout (e.g. concatenated multisig
  // signatures), so only require well-formed hex before asking the wallet.
  if (args.isContract && args.isValidSignature && typeof signature === "string" && HEX_ANY.test(signature)) {
    if (await args.isContract(want)) {
      if (await args.isValidSignature(want, `0x${Buffer.from(digest).toString("hex")}`, signature as Hex)) return { valid: true, recovered, via: "eip1271" };
    }
  }
  return { valid: false, recovered, via: null };
}
