import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { address, canonicalDecimal, nonCanonicalDecimal, uuid4, uuidInt } from "../../properties/index.ts";
import { compareDecimal, parseCanonicalDecimal, formatDecimal } from "../../sim/core/amounts.ts";
import { decodeUuidInt, isUuid4 } from "../../sim/core/uuid-int.ts";
import { ExchangeError } from "../../sim/core/errors.ts";

describe("fakex/properties arbitraries agree with the simulator", () => {
  test("address() is a lowercase 20-byte hex address", () => {
    fc.assert(fc.property(address(), (a) => /^0x[0-9a-f]{40}$/.test(a)));
  });

  test("uuid4() is a version-4 UUID", () => {
    fc.assert(fc.property(uuid4(), (u) => isUuid4(u)));
  });

  test("canonicalDecimal() is accepted, and its formatted form parses to the same value", () => {
    fc.assert(
      fc.property(canonicalDecimal(), (s) => {
        const d = parseCanonicalDecimal(s, "amount");
        return compareDecimal(parseCanonicalDecimal(formatDecimal(d), "amount"), d) === 0;
      }),
    );
  });

  test("nonCanonicalDecimal() is rejected with INVALID_DECIMAL_FORMAT", () => {
    fc.assert(
      fc.property(nonCanonicalDecimal(), (s) => {
        try {
          parseCanonicalDecimal(s, "amount");
          return false;
        } catch (e) {
          return e instanceof ExchangeError && e.code === "INVALID_DECIMAL_FORMAT" && e.status === 400;
        }
      }),
    );
  });

  test("uuidInt() decodes back to its parts", () => {
    fc.assert(
      fc.property(uuidInt(), ({ parts, value }) => {
        const d = decodeUuidInt(value);
        return d.executorId === parts.executorId && d.orderId === parts.orderId && d.groupId === parts.groupId && d.legId === parts.legId;
      }),
    );
  });
});
