// The data of the Exchange's two settlement events, BatchSettled(uint256 count, uint256
// failedMask) and MatchFailed(bytes32, bytes32, string reason, uint256 batchIndex), none of
// their fields indexed. A receipt poll reads one BatchSettled per batch and one MatchFailed
// per failed match: viem's generic decoder (hex to bytes, a cursor, a TextDecoder) was the
// largest part of applying a big backlog. Both events have a fixed layout, so the encoding
// the contract emits is read straight from the hex text. Anything else (another length,
// another string offset, upper-case hex, a reason that is not ASCII) goes to viem, which
// decodes it or refuses it exactly as before: the values and the refusals stay viem's.
import { decodeAbiParameters } from "viem";
import type { Hex } from "../core/typed-data.ts";

/** Hex characters in one 32-byte ABI word. */
const WORD = 64;
const BATCH_SETTLED_DATA = [{ type: "uint256" }, { type: "uint256" }] as const;
const MATCH_FAILED_DATA = [{ type: "bytes32" }, { type: "bytes32" }, { type: "string" }, { type: "uint256" }] as const;
/** The contract's encoding puts MatchFailed's reason right after the four head words: offset 0x80. */
const REASON_OFFSET = `${"0".repeat(WORD - 2)}80`;
/** A reason length word whose value fits the 8 hex digits read by hand. */
const SMALL_LENGTH_HIGH = "0".repeat(WORD - 8);
const LOWER_HEX = /^0x[0-9a-f]*$/;
/** Bytes below 0x80: the same characters read as ASCII or as UTF-8 (TextDecoder, as viem). */
const ASCII_BYTES = /^(?:[0-7][0-9a-f])*$/;

/** A decoded MatchFailed: its reason and its index in the batch. */
export interface MatchFailedData {
  reason: string;
  index: bigint;
}

/** BatchSettled's failed mask (bit i: match i of the batch failed). */
export function decodeBatchSettledMask(data: string): bigint {
  if (data.length === 2 + 2 * WORD && LOWER_HEX.test(data)) return BigInt(`0x${data.slice(2 + WORD)}`);
  return decodeAbiParameters(BATCH_SETTLED_DATA, data as Hex)[1];
}

/** MatchFailed's reason and batch index (the two order hashes are not needed). */
export function decodeMatchFailed(data: string): MatchFailedData {
  const fast = canonicalMatchFailed(data);
  if (fast !== null) return fast;
  const [, , reason, index] = decodeAbiParameters(MATCH_FAILED_DATA, data as Hex);
  return { reason, index };
}

/** The contract's own encoding of an ASCII reason, read by hand; null for anything else (left to viem). */
export function canonicalMatchFailed(data: string): MatchFailedData | null {
  const word = (i: number) => data.slice(2 + i * WORD, 2 + (i + 1) * WORD);
  if (data.length < 2 + 5 * WORD || !LOWER_HEX.test(data) || word(2) !== REASON_OFFSET) return null;
  const lengthWord = word(4);
  if (!lengthWord.startsWith(SMALL_LENGTH_HIGH)) return null;
  const length = parseInt(lengthWord.slice(WORD - 8), 16);
  // Exactly the words the reason needs: any other size is not the contract's encoding.
  if (data.length !== 2 + (5 + Math.ceil(length / 32)) * WORD) return null;
  const reasonHex = data.slice(2 + 5 * WORD, 2 + 5 * WORD + 2 * length);
  if (!ASCII_BYTES.test(reasonHex)) return null;
  return { reason: Buffer.from(reasonHex, "hex").toString("latin1"), index: BigInt(`0x${word(3)}`) };
}
