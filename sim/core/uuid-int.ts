// The composite order identifier `uuid_int` (spec: "Composite order identifier"):
//   bits 255..252  executor_id (4)
//   bits 251..124  the full 128-bit UUID of order_id
//   bits 123..12   group_id (112)
//   bits  11..0    leg_id (12)
// Checks always use the CURRENT executor id, so rotating it invalidates every
// outstanding signed identifier, as on the live service.

import { ExchangeError } from "./errors.ts";

export const MAX_EXECUTOR_ID = 15;
export const MAX_LEG_ID = 4095;
export const GROUP_ID_LIMIT = 1n << 112n;
export const UINT256_LIMIT = 1n << 256n;

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UUID4_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** RFC 4122 version 4 (version nibble 4, variant 10xx), any letter case. */
export function isUuid4(s: unknown): s is string {
  return typeof s === "string" && UUID4_SHAPE.test(s);
}

/** The 128-bit integer of a hyphenated UUID string (any version). */
export function uuidToBigInt(uuid: string): bigint {
  if (!UUID_SHAPE.test(uuid)) throw new ExchangeError("VALIDATION", 400, `not a UUID: ${JSON.stringify(uuid)}`);
  return BigInt("0x" + uuid.replace(/-/g, ""));
}

/** Lowercase hyphenated UUID string of a 128-bit integer. */
export function bigIntToUuid(x: bigint): string {
  if (x < 0n || x >= 1n << 128n) throw new RangeError("UUID integer must fit in 128 bits");
  const h = x.toString(16).padStart(32, "0");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** group_id of a standalone order, and of a VL batch (from leg 0): the first 112 bits. */
export function groupIdOf(orderId: string): bigint {
  return uuidToBigInt(orderId) >> 16n;
}

/** An executor id fits uuid_int's 4-bit field: an integer 0-15. */
export function isExecutorId(v: unknown): v is number {
  return Number.isInteger(v) && (v as number) >= 0 && (v as number) <= MAX_EXECUTOR_ID;
}

function checkExecutorId(executorId: number): void {
  if (!isExecutorId(executorId)) {
    throw new ExchangeError("VALIDATION", 400, `executor_id must be an integer 0-${MAX_EXECUTOR_ID}, got ${executorId}`);
  }
}

export function encodeUuidInt(p: { executorId: number; orderId: string; groupId: bigint; legId: number }): bigint {
  checkExecutorId(p.executorId);
  if (!Number.isInteger(p.legId) || p.legId < 0 || p.legId > MAX_LEG_ID) {
    throw new ExchangeError("VALIDATION", 400, `leg_id must be an integer 0-${MAX_LEG_ID}, got ${p.legId}`);
  }
  if (p.groupId < 0n || p.groupId >= GROUP_ID_LIMIT) {
    throw new ExchangeError("VALIDATION", 400, "group_id must fit in 112 bits");
  }
  return (BigInt(p.executorId) << 252n) | (uuidToBigInt(p.orderId) << 124n) | (p.groupId << 12n) | BigInt(p.legId);
}

export function decodeUuidInt(x: bigint): {
  executorId: number;
  uuid128: bigint;
  orderId: string;
  groupId: bigint;
  legId: number;
} {
  if (x < 0n || x >= UINT256_LIMIT) throw new ExchangeError("VALIDATION", 400, "uuid_int must be a uint256");
  const uuid128 = (x >> 124n) & ((1n << 128n) - 1n);
  return {
    executorId: Number(x >> 252n),
    uuid128,
    orderId: bigIntToUuid(uuid128),
    groupId: (x >> 12n) & (GROUP_ID_LIMIT - 1n),
    legId: Number(x & BigInt(MAX_LEG_ID)),
  };
}

export function standaloneUuidInt(orderId: string, executorId: number): bigint {
  return encodeUuidInt({ executorId, orderId, groupId: groupIdOf(orderId), legId: 0 });
}

/**
 * A uint256 carried as a decimal string (uuid_int, withdraw uuid/deadline, raw
 * amounts). Digits only: no sign, spaces, "0x" or exponent; no leading zeros
 * (String(bigint) never makes them, and "007" is not the canonical spelling).
 * A bigint is accepted for internal callers. Anything else is VALIDATION 400.
 */
export function parseUint256(s: unknown, field: string): bigint {
  if (typeof s === "bigint") {
    if (s < 0n || s >= UINT256_LIMIT) throw new ExchangeError("VALIDATION", 400, `${field} must be a uint256`, { field });
    return s;
  }
  if (typeof s !== "string" || !/^(0|[1-9][0-9]{0,77})$/.test(s)) {
    throw new ExchangeError("VALIDATION", 400, `${field} must be a uint256 decimal string`, { field });
  }
  const v = BigInt(s);
  if (v >= UINT256_LIMIT) throw new ExchangeError("VALIDATION", 400, `${field} exceeds uint256`, { field });
  return v;
}

/** Which part of uuid_int is wrong; carried in `extra.reason` so the wire mapping can tell a rotated executor id apart. */
export type UuidIntProblem = "range" | "executor_id" | "order_id" | "group_id" | "leg_id";

function mismatch(reason: UuidIntProblem, detail: string): ExchangeError {
  return new ExchangeError("UUID_INT_MISMATCH", 400, detail, { reason });
}

/** Shared part of both checks; names the first field that disagrees so a client can fix it. */
function checkParts(
  orderId: string,
  uuidInt: bigint,
  executorId: number,
  groupId: bigint,
  legId: number,
): void {
  checkExecutorId(executorId);
  if (uuidInt < 0n || uuidInt >= UINT256_LIMIT) throw mismatch("range", "uuid_int must be a uint256");
  const d = decodeUuidInt(uuidInt);
  // order_id first: only an id built for this order with an older executor id reads as a rotation.
  if (d.uuid128 !== uuidToBigInt(orderId)) throw mismatch("order_id", "uuid_int does not embed order_id");
  if (d.executorId !== executorId) {
    throw mismatch("executor_id", `uuid_int carries executor_id ${d.executorId} but the current executor_id is ${executorId} (see GET /health)`);
  }
  if (d.groupId !== groupId) throw mismatch("group_id", "uuid_int carries the wrong group_id");
  if (d.legId !== legId) throw mismatch("leg_id", `uuid_int carries leg_id ${d.legId}, expected ${legId}`);
}

/** A standalone order: group_id from its own order_id, leg_id 0. UUID_INT_MISMATCH (400) otherwise. */
export function checkStandaloneUuidInt(orderId: string, uuidInt: bigint, executorId: number): void {
  checkParts(orderId, uuidInt, executorId, groupIdOf(orderId), 0);
}

/**
 * POST /orders/preview: the body is one order, so a VL sibling's group_id (derived
 * from leg 0's order_id, which the body does not carry) cannot be checked. Accepted:
 * the standalone encoding (which is also leg 0's), or a VL leg encoding with
 * leg_id >= 1 whose executor_id is the current one and whose uuid128 is this
 * order_id; its group_id is taken as given. UUID_INT_MISMATCH (400) otherwise.
 */
export function checkPreviewUuidInt(orderId: string, uuidInt: bigint, executorId: number): void {
  const legId = uuidInt >= 0n && uuidInt < UINT256_LIMIT ? decodeUuidInt(uuidInt).legId : 0;
  if (legId === 0) {
    checkStandaloneUuidInt(orderId, uuidInt, executorId);
    return;
  }
  checkParts(orderId, uuidInt, executorId, decodeUuidInt(uuidInt).groupId, legId);
}

/** A VL leg: the batch's shared group_id and this leg's position. UUID_INT_MISMATCH (400) otherwise. */
export function checkVlLegUuidInt(
  orderId: string,
  uuidInt: bigint,
  executorId: number,
  groupId: bigint,
  legId: number,
): void {
  checkParts(orderId, uuidInt, executorId, groupId, legId);
}
