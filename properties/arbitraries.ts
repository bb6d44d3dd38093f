// fast-check arbitraries for the exchange's wire values, for downstream property
// suites. Each one generates what the live service accepts (or, where the name
// says so, what it must reject).
import fc from "fast-check";
import { bigIntToUuid, encodeUuidInt, MAX_EXECUTOR_ID, MAX_LEG_ID, GROUP_ID_LIMIT } from "../sim/core/uuid-int.ts";
import type { Address } from "../sim/core/typed-data.ts";

const HEX = "0123456789abcdef".split("");

/** A lowercase 20-byte hex address. */
export const address = (): fc.Arbitrary<Address> =>
  fc.array(fc.constantFrom(...HEX), { minLength: 40, maxLength: 40 }).map((d) => `0x${d.join("")}` as Address);

/** An RFC 4122 version-4 UUID, lowercase. */
export const uuid4 = (): fc.Arbitrary<string> =>
  fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }).map((x) => {
    // Force the version nibble to 4 and the variant bits to 10.
    const v4 = (x & ~(0xfn << 76n)) | (0x4n << 76n);
    const withVariant = (v4 & ~(0x3n << 62n)) | (0x2n << 62n);
    return bigIntToUuid(withVariant);
  });

/**
 * A canonical positive decimal string with at most `maxScale` fractional digits:
 * no sign, exponent, separators, leading zeros or whitespace.
 */
export const canonicalDecimal = (maxScale = 8, maxInt = 10n ** 12n): fc.Arbitrary<string> =>
  fc
    .tuple(fc.bigInt({ min: 0n, max: maxInt }), fc.integer({ min: 0, max: maxScale }), fc.bigInt({ min: 0n, max: 10n ** 18n }))
    .map(([int, scale, frac]) => {
      const fracDigits = scale === 0 ? "" : (frac % 10n ** BigInt(scale)).toString().padStart(scale, "0");
      return scale === 0 ? int.toString() : `${int}.${fracDigits}`;
    })
    .filter((s) => /[1-9]/.test(s));

/** Strings the spec's canonical decimal rule rejects (signs, exponents, separators, spaces, junk). */
export const nonCanonicalDecimal = (): fc.Arbitrary<string> =>
  fc.oneof(
    canonicalDecimal().map((s) => `-${s}`),
    canonicalDecimal().map((s) => `+${s}`),
    canonicalDecimal().map((s) => ` ${s}`),
    canonicalDecimal().map((s) => `${s} `),
    canonicalDecimal().map((s) => `${s}e1`),
    canonicalDecimal().map((s) => `0${s}`),
    canonicalDecimal(0).map((s) => `${s}.`),
    canonicalDecimal(0).map((s) => `.${s}`),
    canonicalDecimal(0).map((s) => `1_${s}`),
    canonicalDecimal(0).map((s) => `1,${s}`),
    fc.constantFrom("", "0", "0.0", "00", ".", "NaN", "Infinity", "0x10", "1..2"),
  );

export interface UuidIntParts {
  executorId: number;
  orderId: string;
  groupId: bigint;
  legId: number;
}

/** Any valid combination of the composite id's four fields. */
export const uuidIntParts = (): fc.Arbitrary<UuidIntParts> =>
  fc.record({
    executorId: fc.integer({ min: 0, max: MAX_EXECUTOR_ID }),
    orderId: uuid4(),
    groupId: fc.bigInt({ min: 0n, max: GROUP_ID_LIMIT - 1n }),
    legId: fc.integer({ min: 0, max: MAX_LEG_ID }),
  });

/** A composite uuid_int together with the parts it encodes. */
export const uuidInt = (): fc.Arbitrary<{ parts: UuidIntParts; value: bigint }> =>
  uuidIntParts().map((parts) => ({ parts, value: encodeUuidInt(parts) }));
