import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  bigIntToUuid,
  checkStandaloneUuidInt,
  checkVlLegUuidInt,
  checkPreviewUuidInt,
  decodeUuidInt,
  encodeUuidInt,
  groupIdOf,
  isUuid4,
  parseUint256,
  standaloneUuidInt,
  uuidToBigInt,
} from "../../sim/core/uuid-int.ts";
import { ExchangeError } from "../../sim/core/errors.ts";

function caught(f: () => unknown): ExchangeError {
  try {
    f();
  } catch (e) {
    if (e instanceof ExchangeError) return e;
    throw e;
  }
  throw new Error("expected an ExchangeError");
}

const ID = "0f8fad5b-d9cb-469f-a165-70867728950e";
const ID128 = 0x0f8fad5bd9cb469fa16570867728950en;

describe("uuid conversion", () => {
  it("round-trips and lowercases", () => {
    expect(uuidToBigInt(ID)).toBe(ID128);
    expect(uuidToBigInt(ID.toUpperCase())).toBe(ID128);
    expect(bigIntToUuid(ID128)).toBe(ID);
    expect(bigIntToUuid(0n)).toBe("00000000-0000-0000-0000-000000000000");
  });

  it("rejects malformed UUIDs with VALIDATION 400", () => {
    for (const s of ["", "0f8fad5bd9cb469fa16570867728950e", `${ID}0`, ID.replace("-", "_")]) {
      const e = caught(() => uuidToBigInt(s));
      expect(e.code).toBe("VALIDATION");
      expect(e.status).toBe(400);
    }
    expect(() => bigIntToUuid(1n << 128n)).toThrow(RangeError);
    expect(() => bigIntToUuid(-1n)).toThrow(RangeError);
  });

  it("isUuid4 checks version and variant, case-insensitively", () => {
    expect(isUuid4(ID)).toBe(true);
    expect(isUuid4(ID.toUpperCase())).toBe(true);
    expect(isUuid4("0f8fad5b-d9cb-169f-a165-70867728950e")).toBe(false); // version 1
    expect(isUuid4("0f8fad5b-d9cb-469f-c165-70867728950e")).toBe(false); // variant 110x
    expect(isUuid4("0f8fad5bd9cb469fa16570867728950e")).toBe(false);
    expect(isUuid4(42)).toBe(false);
    expect(isUuid4(undefined)).toBe(false);
  });
});

describe("composite encoding", () => {
  it("matches the spec's bit layout for a standalone order", () => {
    const x = standaloneUuidInt(ID, 5);
    const expected = (5n << 252n) | (ID128 << 124n) | ((ID128 >> 16n) << 12n) | 0n;
    expect(x).toBe(expected);
    expect(groupIdOf(ID)).toBe(ID128 >> 16n);
    expect(decodeUuidInt(x)).toEqual({ executorId: 5, uuid128: ID128, orderId: ID, groupId: ID128 >> 16n, legId: 0 });
  });

  it("places the leg id in the low 12 bits", () => {
    const x = encodeUuidInt({ executorId: 15, orderId: ID, groupId: 7n, legId: 4095 });
    expect(x & 0xfffn).toBe(4095n);
    expect(x >> 252n).toBe(15n);
    expect(x < 1n << 256n).toBe(true);
  });

  it("range-checks executor, leg and group", () => {
    const base = { executorId: 0, orderId: ID, groupId: 0n, legId: 0 };
    for (const bad of [
      { ...base, executorId: 16 },
      { ...base, executorId: -1 },
      { ...base, executorId: 1.5 },
      { ...base, legId: 4096 },
      { ...base, legId: -1 },
      { ...base, groupId: 1n << 112n },
      { ...base, groupId: -1n },
    ]) {
      const e = caught(() => encodeUuidInt(bad));
      expect(e.code).toBe("VALIDATION");
      expect(e.status).toBe(400);
    }
    expect(caught(() => decodeUuidInt(1n << 256n)).code).toBe("VALIDATION");
    expect(caught(() => decodeUuidInt(-1n)).code).toBe("VALIDATION");
  });

  it("encode/decode round-trip for any fields (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 15 }),
        fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }),
        fc.bigInt({ min: 0n, max: (1n << 112n) - 1n }),
        fc.integer({ min: 0, max: 4095 }),
        (executorId, u, groupId, legId) => {
          const orderId = bigIntToUuid(u);
          const x = encodeUuidInt({ executorId, orderId, groupId, legId });
          expect(decodeUuidInt(x)).toEqual({ executorId, uuid128: u, orderId, groupId, legId });
        },
      ),
    );
  });
});

describe("checks against the current executor id", () => {
  it("accepts the right standalone id and rejects a stale executor id", () => {
    const x = standaloneUuidInt(ID, 3);
    expect(() => checkStandaloneUuidInt(ID, x, 3)).not.toThrow();
    const e = caught(() => checkStandaloneUuidInt(ID, x, 4));
    expect(e.code).toBe("UUID_INT_MISMATCH");
    expect(e.status).toBe(400);
    expect(e.detail).toContain("executor_id");
  });

  it("rejects another order's id, a wrong group and a non-zero leg", () => {
    const other = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
    expect(caught(() => checkStandaloneUuidInt(ID, standaloneUuidInt(other, 0), 0)).code).toBe("UUID_INT_MISMATCH");
    const wrongGroup = encodeUuidInt({ executorId: 0, orderId: ID, groupId: 1n, legId: 0 });
    expect(caught(() => checkStandaloneUuidInt(ID, wrongGroup, 0)).detail).toContain("group_id");
    const leg1 = encodeUuidInt({ executorId: 0, orderId: ID, groupId: groupIdOf(ID), legId: 1 });
    expect(caught(() => checkStandaloneUuidInt(ID, leg1, 0)).detail).toContain("leg_id");
    expect(caught(() => checkStandaloneUuidInt(ID, 1n << 256n, 0)).code).toBe("UUID_INT_MISMATCH");
  });

  it("preview accepts the standalone id or a VL leg >= 1 of this order_id, whatever its group", () => {
    const leg0 = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
    const leg3 = encodeUuidInt({ executorId: 2, orderId: ID, groupId: groupIdOf(leg0), legId: 3 });
    expect(() => checkPreviewUuidInt(ID, standaloneUuidInt(ID, 2), 2)).not.toThrow();
    expect(() => checkPreviewUuidInt(ID, leg3, 2)).not.toThrow();
    // leg 1, the first sibling after leg 0, is a VL leg too
    expect(() => checkPreviewUuidInt(ID, encodeUuidInt({ executorId: 2, orderId: ID, groupId: groupIdOf(leg0), legId: 1 }), 2)).not.toThrow();
    expect(() => checkPreviewUuidInt(ID, encodeUuidInt({ executorId: 2, orderId: ID, groupId: 0n, legId: 4095 }), 2)).not.toThrow();
    // the executor id and the embedded order_id are still checked
    expect(caught(() => checkPreviewUuidInt(ID, leg3, 3)).detail).toContain("executor_id");
    expect(caught(() => checkPreviewUuidInt(leg0, leg3, 2)).detail).toContain("order_id");
    // leg 0 is the standalone encoding: a foreign group is refused there
    const foreignLeg0 = encodeUuidInt({ executorId: 2, orderId: ID, groupId: groupIdOf(leg0), legId: 0 });
    expect(caught(() => checkPreviewUuidInt(ID, foreignLeg0, 2)).detail).toContain("group_id");
    expect(caught(() => checkPreviewUuidInt(ID, 1n << 256n, 2)).code).toBe("UUID_INT_MISMATCH");
  });

  it("checks VL legs against the shared group and their position", () => {
    const leg0 = ID;
    const leg2 = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
    const group = groupIdOf(leg0);
    const x = encodeUuidInt({ executorId: 2, orderId: leg2, groupId: group, legId: 2 });
    expect(() => checkVlLegUuidInt(leg2, x, 2, group, 2)).not.toThrow();
    expect(caught(() => checkVlLegUuidInt(leg2, x, 2, group, 1)).code).toBe("UUID_INT_MISMATCH");
    expect(caught(() => checkVlLegUuidInt(leg2, x, 2, groupIdOf(leg2), 2)).code).toBe("UUID_INT_MISMATCH");
    expect(caught(() => checkVlLegUuidInt(leg2, x, 9, group, 2)).code).toBe("UUID_INT_MISMATCH");
  });
});

describe("parseUint256", () => {
  it("accepts canonical decimal strings below 2^256 and bigints", () => {
    expect(parseUint256("0", "f")).toBe(0n);
    expect(parseUint256("123", "f")).toBe(123n);
    expect(parseUint256(((1n << 256n) - 1n).toString(), "f")).toBe((1n << 256n) - 1n);
    expect(parseUint256(5n, "f")).toBe(5n);
  });

  it.each(["", "-1", "+1", " 1", "1 ", "0x10", "1e3", "1.0", "007", (1n << 256n).toString(), "9".repeat(79)])(
    "rejects %j with VALIDATION 400",
    (s) => {
      const e = caught(() => parseUint256(s, "uuid_int"));
      expect(e.code).toBe("VALIDATION");
      expect(e.status).toBe(400);
      expect(e.detail).toContain("uuid_int");
    },
  );

  it("rejects numbers and out-of-range bigints", () => {
    expect(caught(() => parseUint256(12, "uuid")).code).toBe("VALIDATION");
    expect(caught(() => parseUint256(-1n, "uuid")).code).toBe("VALIDATION");
    expect(caught(() => parseUint256(1n << 256n, "uuid")).code).toBe("VALIDATION");
  });
});
