// Zod pieces shared by the funds routes (balances, permit metadata, builders,
// withdraw, broadcasts), built on the common field schemas of ../fields.ts. Shape
// failures are 422 (validate.ts default); business rules (listed token, spender,
// owner) are checked by the routes after parsing.

import { z } from "zod";
import type { Hex } from "../../core/typed-data.ts";
import { stringTypeError, zAddress, zAddressLower, zHex, zUint256, zUnixSeconds } from "../fields.ts";

/** A 0x-prefixed 20-byte hex address, any letter case; parsed to lowercase. */
export const address = zAddressLower;

/** The address exactly as sent (read endpoints compare owner_address case-sensitively). */
export const addressAsSent = zAddress;

const RAW_ERROR = "must be a raw amount: a decimal string of a uint256";
/** A raw amount: decimal digits of a uint256, as a string (spec Conventions). */
export const rawAmount = zUint256(RAW_ERROR).transform((s) => BigInt(s));

/** 65-byte or 64-byte (EIP-2098) hex signature. */
export const compactOrFullSignature = z
  .string({ error: stringTypeError })
  .regex(/^0x([0-9a-fA-F]{128}|[0-9a-fA-F]{130})$/, "must be a 65-byte or 64-byte (EIP-2098) hex signature")
  .transform((s) => s as Hex);

/** Any 0x-hex signature (EIP-1271 wallets may use other layouts). */
export const hexSignature = zHex("must be a 0x-prefixed hex signature", { nonEmpty: true }).transform((s) => s as Hex);

/** uint256 Unix seconds as a JSON integer (or a digit string). */
export const unixSeconds = zUnixSeconds.transform((v) => BigInt(v));

/** A signed raw transaction as hex (the policy decodes it). */
export const rawTxBody = z.object({
  raw_tx: zHex("must be a 0x-prefixed hex string", { nonEmpty: true }),
});

/** FastAPI's boolean query spellings. */
const TRUE = new Set(["true", "1", "yes", "on"]);
const FALSE = new Set(["false", "0", "no", "off"]);
export const queryBoolean = z
  .string({ error: "must be a boolean" })
  .refine((s) => TRUE.has(s.toLowerCase()) || FALSE.has(s.toLowerCase()), "must be a boolean (true or false)")
  .transform((s) => TRUE.has(s.toLowerCase()));
