// The settlement hot path, done by hand: ABI-encode matchOrdersBatch(orders, signatures, fills),
// RLP-serialise and sign an EIP-1559 transaction, and hash it. A batch of 20
// matches is ~21 kB of calldata, and the generic route (viem's encoder, pure-JS
// keccak over hex, pure-JS ECDSA) cost ~13 ms per transaction here, more than
// Anvil needs to execute it. This module writes the fixed layout directly,
// signs with the native libsecp256k1 binding and hashes with native keccak
// (sim/crypto); a test proves every output byte-equal to viem's.
import { toFunctionSelector } from "viem";
import { keccakBytes } from "../crypto/keccak.ts";
import { nativeSecp256k1 } from "../crypto/secp256k1.ts";
import { secp256k1 as nobleSecp256k1 } from "@noble/curves/secp256k1";
import type { Hex, OrderMessage } from "../core/typed-data.ts";
import type { ChainMatch } from "./port.ts";

// ---------------------------------------------------------------- ECDSA

const nativeSign = nativeSecp256k1;

/** RFC 6979 deterministic, low-s: the same (r, s, recid) viem produces. */
function signDigest(digest: Uint8Array, key: Uint8Array): { r: Uint8Array; s: Uint8Array; yParity: number } {
  if (nativeSign) {
    const { signature, recid } = nativeSign.ecdsaSign(digest, key);
    return { r: signature.subarray(0, 32), s: signature.subarray(32, 64), yParity: recid };
  }
  const sig = nobleSecp256k1.sign(digest, key, { lowS: true });
  const compact = sig.toCompactRawBytes();
  return { r: compact.subarray(0, 32), s: compact.subarray(32, 64), yParity: sig.recovery! };
}

// ---------------------------------------------------------------- RLP

function rlpLength(len: number, offset: number): Buffer {
  if (len < 56) return Buffer.from([offset + len]);
  const hex = len.toString(16);
  const lenBytes = Buffer.from(hex.length % 2 ? `0${hex}` : hex, "hex");
  return Buffer.concat([Buffer.from([offset + 55 + lenBytes.length]), lenBytes]);
}

function rlpBytes(b: Uint8Array): Buffer {
  if (b.length === 1 && b[0]! < 0x80) return Buffer.from(b);
  return Buffer.concat([rlpLength(b.length, 0x80), b]);
}

/** Minimal big-endian bytes of a non-negative integer (0 → empty). */
function intBytes(n: bigint): Buffer {
  if (n === 0n) return Buffer.alloc(0);
  const hex = n.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, "hex");
}

function stripZeros(b: Uint8Array): Uint8Array {
  let i = 0;
  while (i < b.length && b[i] === 0) i++;
  return b.subarray(i);
}

function rlpList(items: Buffer[]): Buffer {
  const body = Buffer.concat(items);
  return Buffer.concat([rlpLength(body.length, 0xc0), body]);
}

export interface Eip1559Tx {
  chainId: number;
  nonce: number;
  maxPriorityFeePerGas: bigint;
  maxFeePerGas: bigint;
  gas: bigint;
  to: Hex;
  value: bigint;
  /** Calldata as raw bytes. */
  data: Uint8Array;
}

/** Sign a type-2 transaction; returns the raw transaction and its hash. */
export function signEip1559(tx: Eip1559Tx, privateKey: Uint8Array): { raw: Hex; hash: Hex } {
  const fields = [
    rlpBytes(intBytes(BigInt(tx.chainId))),
    rlpBytes(intBytes(BigInt(tx.nonce))),
    rlpBytes(intBytes(tx.maxPriorityFeePerGas)),
    rlpBytes(intBytes(tx.maxFeePerGas)),
    rlpBytes(intBytes(tx.gas)),
    rlpBytes(Buffer.from(tx.to.slice(2), "hex")),
    rlpBytes(intBytes(tx.value)),
    rlpBytes(tx.data),
    rlpList([]), // access list
  ];
  const unsigned = Buffer.concat([Buffer.from([2]), rlpList(fields)]);
  const sig = signDigest(keccakBytes(unsigned), privateKey);
  const signed = Buffer.concat([
    Buffer.from([2]),
    rlpList([...fields, rlpBytes(intBytes(BigInt(sig.yParity))), rlpBytes(stripZeros(sig.r)), rlpBytes(stripZeros(sig.s))]),
  ]);
  return { raw: `0x${signed.toString("hex")}`, hash: `0x${Buffer.from(keccakBytes(signed)).toString("hex")}` };
}

// ---------------------------------------------------------------- ABI: matchOrdersBatch(Order[], bytes[], Fill[])

const ORDER_TUPLE = "(address,uint48,uint48,address,address,address,uint256,uint256,uint256,uint256)";
const FILL_TUPLE = "(uint256,uint256,uint256,uint256)";
const BATCH_ARGS = `(${ORDER_TUPLE}[],bytes[],${FILL_TUPLE}[])`;
export const SELECTOR_MATCH_BATCH = toFunctionSelector(`matchOrdersBatch${BATCH_ARGS}`).slice(2);
export const SELECTOR_MATCH_BATCH_ATOMIC = toFunctionSelector(`matchOrdersBatchAtomic${BATCH_ARGS}`).slice(2);

const WORD = 32;
const TWO_64 = 1n << 64n;
const TWO_256 = 1n << 256n;
const LIMB = 0xffffffffffffffffn;

/** A uint256 ABI word at `at` (the buffer is zero-filled, so only the value's bytes are written). */
function putUint(buf: Buffer, at: number, n: bigint | number): void {
  if (n < 0) throw new RangeError("ABI: negative integer");
  if (typeof n === "number") {
    if (!Number.isSafeInteger(n)) throw new RangeError(`ABI: ${n} is not a safe integer`);
    n = BigInt(n);
  }
  if (n < TWO_64) {
    buf.writeBigUInt64BE(n, at + 24);
    return;
  }
  if (n >= TWO_256) throw new RangeError("ABI: integer above uint256");
  for (let limb = 3; limb >= 0 && n > 0n; limb--) {
    buf.writeBigUInt64BE(n & LIMB, at + limb * 8);
    n >>= 64n;
  }
}

/** An address word at `at`: 12 zero bytes, then the 20 address bytes. */
function putAddress(buf: Buffer, at: number, a: string): void {
  if (a.length !== 42 || buf.write(a.slice(2), at + 12, 20, "hex") !== 20) throw new TypeError(`ABI: bad address ${a.slice(0, 44)}`);
}

/** The contract's Order tuple: ten words. */
function putOrder(buf: Buffer, at: number, o: OrderMessage): void {
  putAddress(buf, at, o.user);
  putUint(buf, at + 32, o.expiration);
  putUint(buf, at + 64, o.feeBps);
  putAddress(buf, at + 96, o.recipient);
  putAddress(buf, at + 128, o.fromToken);
  putAddress(buf, at + 160, o.toToken);
  putUint(buf, at + 192, o.fromAmount);
  putUint(buf, at + 224, o.toAmount);
  putUint(buf, at + 256, o.initialDepositAmount);
  putUint(buf, at + 288, o.uuid);
}
const ORDER_WORDS = 10;
const FILL_WORDS = 4;

/** Bytes of a 0x-hex `bytes` value; throws on odd length or a non-hex digit. */
function hexBytes(hex: string): Buffer {
  const body = hex.slice(2);
  const out = Buffer.from(body, "hex");
  // Buffer.from stops at the first pair that is not hex, so a short result means a bad digit.
  if (!hex.startsWith("0x") || out.length * 2 !== body.length) throw new TypeError(`ABI: bad bytes ${hex.slice(0, 20)}`);
  return out;
}

/** Whole words a `bytes` tail takes: its length word and its data right-padded to 32 bytes. */
function tailWords(bytes: number): number {
  return 1 + Math.ceil(bytes / WORD);
}

/** Two orders that encode to the same ten words (addresses in any case, integers as bigint or number). */
function sameInt(x: bigint | number, y: bigint | number): boolean {
  return x === y || BigInt(x) === BigInt(y);
}
function sameAddress(x: string, y: string): boolean {
  return x === y || x.toLowerCase() === y.toLowerCase();
}
function sameOrder(a: OrderMessage, b: OrderMessage): boolean {
  if (a === b) return true;
  return (
    sameAddress(a.user, b.user) &&
    sameInt(a.expiration, b.expiration) &&
    sameInt(a.feeBps, b.feeBps) &&
    sameAddress(a.recipient, b.recipient) &&
    sameAddress(a.fromToken, b.fromToken) &&
    sameAddress(a.toToken, b.toToken) &&
    sameInt(a.fromAmount, b.fromAmount) &&
    sameInt(a.toAmount, b.toAmount) &&
    sameInt(a.initialDepositAmount, b.initialDepositAmount) &&
    sameInt(a.uuid, b.uuid)
  );
}

/** The contract's compact batch: distinct (order, signature) pairs and fills that index them. */
export interface CompactBatch {
  orders: OrderMessage[];
  signatures: Hex[];
  fills: { maker: bigint; taker: bigint; makerAmount: bigint; takerAmount: bigint }[];
}

/**
 * Matches → the compact batch: each distinct (order, signature) once, in first-seen
 * order, so a taker sweeping 20 makers is sent (and hashed on chain) once.
 */
export function compactBatch(matches: readonly ChainMatch[]): CompactBatch {
  const out: CompactBatch = { orders: [], signatures: [], fills: [] };
  // Candidates by signature (lowercase): an order's words are compared only against
  // orders sent with the same signature, and a sweeping taker is found at once.
  const bySignature = new Map<string, number[]>();
  for (const m of matches) {
    const maker = indexIn(out, bySignature, m.maker, m.makerSignature);
    const taker = indexIn(out, bySignature, m.taker, m.takerSignature);
    out.fills.push({ maker: BigInt(maker), taker: BigInt(taker), makerAmount: m.makerAmount, takerAmount: m.takerAmount });
  }
  return out;
}

/** The (order, signature) pair's index in `out`, added when new. (Module-level: no closure per call on the hot path.) */
function indexIn(out: CompactBatch, bySignature: Map<string, number[]>, o: OrderMessage, sig: Hex): number {
  const key = sig.toLowerCase();
  let candidates = bySignature.get(key);
  if (candidates === undefined) {
    candidates = [];
    bySignature.set(key, candidates);
  }
  for (const k of candidates) if (sameOrder(out.orders[k]!, o)) return k;
  const k = out.orders.length;
  candidates.push(k);
  out.orders.push(o);
  out.signatures.push(sig);
  return k;
}

/**
 * Calldata of matchOrdersBatch / matchOrdersBatchAtomic(orders, signatures, fills),
 * signatures exactly as given, written straight into one buffer: head (three
 * offsets), the orders, the signatures' offsets then their tails, the fills.
 */
export function encodeCompactBatchBytes(batch: CompactBatch, atomic: boolean): Buffer {
  const sigs: Buffer[] = [];
  for (const sig of batch.signatures) sigs.push(hexBytes(sig));
  const ordersAt = 3 * WORD;
  const signaturesAt = ordersAt + WORD * (1 + ORDER_WORDS * batch.orders.length);
  let sigWords = 1 + sigs.length;
  for (const b of sigs) sigWords += tailWords(b.length);
  const fillsAt = signaturesAt + WORD * sigWords;
  const end = fillsAt + WORD * (1 + FILL_WORDS * batch.fills.length);
  const buf = Buffer.alloc(4 + end);
  buf.write(atomic ? SELECTOR_MATCH_BATCH_ATOMIC : SELECTOR_MATCH_BATCH, 0, 4, "hex");
  // Offsets count from the start of the arguments, after the 4-byte selector.
  const args = 4;
  putUint(buf, args, ordersAt);
  putUint(buf, args + WORD, signaturesAt);
  putUint(buf, args + 2 * WORD, fillsAt);
  putUint(buf, args + ordersAt, batch.orders.length);
  for (let i = 0; i < batch.orders.length; i++) putOrder(buf, args + ordersAt + WORD * (1 + ORDER_WORDS * i), batch.orders[i]!);
  putUint(buf, args + signaturesAt, sigs.length);
  // Each tail's offset counts from the first offset word.
  let tail = WORD * sigs.length;
  for (let i = 0; i < sigs.length; i++) {
    const b = sigs[i]!;
    putUint(buf, args + signaturesAt + WORD * (1 + i), tail);
    const at = args + signaturesAt + WORD + tail;
    putUint(buf, at, b.length);
    b.copy(buf, at + WORD);
    tail += WORD * tailWords(b.length);
  }
  putUint(buf, args + fillsAt, batch.fills.length);
  for (let i = 0; i < batch.fills.length; i++) {
    const f = batch.fills[i]!;
    const at = args + fillsAt + WORD * (1 + FILL_WORDS * i);
    putUint(buf, at, f.maker);
    putUint(buf, at + WORD, f.taker);
    putUint(buf, at + 2 * WORD, f.makerAmount);
    putUint(buf, at + 3 * WORD, f.takerAmount);
  }
  return buf;
}

/** encodeCompactBatchBytes as 0x-hex. */
export function encodeCompactBatch(batch: CompactBatch, atomic: boolean): string {
  return `0x${encodeCompactBatchBytes(batch, atomic).toString("hex")}`;
}

/** Calldata bytes of a settlement batch for these matches (compactBatch, then encodeCompactBatchBytes). */
export function encodeMatchBatchBytes(matches: readonly ChainMatch[], atomic: boolean): Buffer {
  return encodeCompactBatchBytes(compactBatch(matches), atomic);
}

/** encodeMatchBatchBytes as 0x-hex. */
export function encodeMatchBatch(matches: readonly ChainMatch[], atomic: boolean): string {
  return `0x${encodeMatchBatchBytes(matches, atomic).toString("hex")}`;
}
