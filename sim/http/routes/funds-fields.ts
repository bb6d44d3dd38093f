// Zod pieces shared by the funds routes (balances, permit metadata, builders,
// withdraw, broadcasts). Shape failures are 422 (validate.ts default); business
// rules (listed token, spender, owner) are checked by the routes after parsing.

import { z } from "zod";
import type { Address, Hex } from "../../core/typed-data.ts";

const UINT256_LIMIT = 1n << 256n;

/** A 0x-prefixed 20-byte hex address, any letter case; parsed to lowercase. */
export const address = z
  .string({ error: "must be a string" })
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address")
  .transform((a) => a.toLowerCase() as Address);

/** The address exactly as sent (read endpoints compare owner_address case-sensitively). */
export const addressAsSent = z
  .string({ error: "must be a string" })
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address");

const RAW_ERROR = "must be a raw amount: a decimal string of a uint256";
/** A raw amount: decimal digits of a uint256, as a string (spec Conventions). */
export const rawAmount = z
  .string({ error: RAW_ERROR })
  .refine((s) => /^[0-9]{1,78}$/.test(s) && BigInt(s) < UINT256_LIMIT, RAW_ERROR)
  .transform((s) => BigInt(s));

/** 65-byte or 64-byte (EIP-2098) hex signature. */
export const compactOrFullSignature = z
  .string({ error: "must be a string" })
  .regex(/^0x([0-9a-fA-F]{128}|[0-9a-fA-F]{130})$/, "must be a 65-byte or 64-byte (EIP-2098) hex signature")
  .transform((s) => s as Hex);

/** Any 0x-hex signature (EIP-1271 wallets may use other layouts). */
export const hexSignature = z
  .string({ error: "must be a string" })
  .regex(/^0x([0-9a-fA-F]{2})+$/, "must be a 0x-prefixed hex signature")
  .transform((s) => s as Hex);

const DEADLINE_ERROR = "must be a non-negative integer (Unix seconds)";
/** uint256 Unix seconds as a JSON integer (or a digit string). */
export const unixSeconds = z
  .union([
    z.int({ error: DEADLINE_ERROR }).nonnegative({ error: DEADLINE_ERROR }),
    z.string().refine((s) => /^[0-9]{1,78}$/.test(s) && BigInt(s) < UINT256_LIMIT, DEADLINE_ERROR),
  ], { error: DEADLINE_ERROR })
  .transform((v) => BigInt(v));

/** A signed raw transaction as hex (the policy decodes it). */
export const rawTxBody = z.object({
  raw_tx: z.string({ error: "must be a string" }).regex(/^0x([0-9a-fA-F]{2})+$/, "must be a 0x-prefixed hex string"),
});

/** FastAPI's boolean query spellings. */
const TRUE = new Set(["true", "1", "yes", "on"]);
const FALSE = new Set(["false", "0", "no", "off"]);
export const queryBoolean = z
  .string({ error: "must be a boolean" })
  .refine((s) => TRUE.has(s.toLowerCase()) || FALSE.has(s.toLowerCase()), "must be a boolean (true or false)")
  .transform((s) => TRUE.has(s.toLowerCase()));
