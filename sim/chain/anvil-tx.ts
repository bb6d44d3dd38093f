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
import { globalRealmBytes } from "../platform/typed-array-realm.ts";

// ---------------------------------------------------------------- ECDSA

const nativeSign = nativeSecp256k1;

/** RFC 6979 deterministic, low-s: the same (r, s, recid) viem produces. */
function signDigest(digest: Uint8Array, key: Uint8Array): { r: Uint8Array; s: Uint8Array; yParity: number } {
  if (nativeSign) {
    const { signature, recid } = nativeSign.ecdsaSign(digest, key);
    return { r: signature.subarray(0, 32), s: signature.subarray(32, 64), yParity: recid };
  }
  const sig = nobleSecp256k1.sign(globalRealmBytes(digest), globalRealmBytes(key), { lowS: true });
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

const word = (n: bigint | number): string => {
  if (n < 0) throw new RangeError("ABI: negative integer");
  return n.toString(16).padStart(64, "0");
};
const addressWord = (a: string): string => a.slice(2).toLowerCase().padStart(64, "0");

function orderWords(o: OrderMessage): string {
  return (
    addressWord(o.user) +
    word(o.expiration) +
    word(o.feeBps) +
    addressWord(o.recipient) +
    addressWord(o.fromToken) +
    addressWord(o.toToken) +
    word(o.fromAmount) +
    word(o.toAmount) +
    word(o.initialDepositAmount) +
    word(o.uuid)
  );
}

/** `bytes` tail: length word + data right-padded to 32 bytes. */
function bytesTail(hex: string): { text: string; words: number } {
  const body = hex.slice(2);
  if (body.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(body)) throw new TypeError(`ABI: bad bytes ${hex.slice(0, 20)}`);
  const padded = body.length % 64 === 0 ? body : body + "0".repeat(64 - (body.length % 64));
  return { text: word(body.length / 2) + padded, words: 1 + padded.length / 64 };
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
  const index = new Map<string, number>();
  const indexOf = (o: OrderMessage, sig: Hex): number => {
    const key = `${orderWords(o)}|${sig.toLowerCase()}`;
    let k = index.get(key);
    if (k === undefined) {
      k = out.orders.length;
      index.set(key, k);
      out.orders.push(o);
      out.signatures.push(sig);
    }
    return k;
  };
  for (const m of matches) {
    const maker = indexOf(m.maker, m.makerSignature);
    const taker = indexOf(m.taker, m.takerSignature);
    out.fills.push({ maker: BigInt(maker), taker: BigInt(taker), makerAmount: m.makerAmount, takerAmount: m.takerAmount });
  }
  return out;
}

/** Calldata of matchOrdersBatch / matchOrdersBatchAtomic(orders, signatures, fills), signatures exactly as given. */
export function encodeCompactBatch(batch: CompactBatch, atomic: boolean): string {
  const orders = word(batch.orders.length) + batch.orders.map(orderWords).join("");
  const tails = batch.signatures.map(bytesTail);
  let sigOffset = tails.length * 32;
  const sigHeads: string[] = [];
  for (const t of tails) {
    sigHeads.push(word(sigOffset));
    sigOffset += t.words * 32;
  }
  const signatures = word(tails.length) + sigHeads.join("") + tails.map((t) => t.text).join("");
  const fills = word(batch.fills.length) + batch.fills.map((f) => word(f.maker) + word(f.taker) + word(f.makerAmount) + word(f.takerAmount)).join("");
  const ordersAt = 3 * 32;
  const signaturesAt = ordersAt + orders.length / 2;
  const fillsAt = signaturesAt + signatures.length / 2;
  const selector = atomic ? SELECTOR_MATCH_BATCH_ATOMIC : SELECTOR_MATCH_BATCH;
  return `0x${selector}${word(ordersAt)}${word(signaturesAt)}${word(fillsAt)}${orders}${signatures}${fills}`;
}

/** Calldata of a settlement batch for these matches (compactBatch, then encodeCompactBatch). */
export function encodeMatchBatch(matches: readonly ChainMatch[], atomic: boolean): string {
  return encodeCompactBatch(compactBatch(matches), atomic);
}
