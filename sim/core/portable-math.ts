// exp, log and sqrt from IEEE 754's basic operations (+ − × ÷, each correctly rounded
// everywhere) and bit copies only, so a seeded draw gives the same double on every Node
// version, platform and JavaScript engine. ECMAScript leaves Math.exp, Math.log (and, in
// its wording, Math.sqrt) "implementation-approximated": V8's results could change with
// a Node upgrade and move a seeded market's prices by a tick. Accurate to a few ulp,
// which is plenty for random draws; what matters here is that the bits never vary.

const BITS = new DataView(new ArrayBuffer(8));

/** 2^k for an integer k in −1022..1023, built from its bits (exact). */
function pow2(k: number): number {
  BITS.setUint32(0, (k + 1023) << 20);
  BITS.setUint32(4, 0);
  return BITS.getFloat64(0);
}

/** ln 2 split so that k·LN2_HI is exact for |k| < 2^11 (fdlibm's constants). */
const LN2_HI = 6.93147180369123816490e-1;
const LN2_LO = 1.90821492927058770002e-10;
const INV_LN2 = 1.44269504088896338700;
const SQRT_HALF = 0.7071067811865476;

/** e^x: x = k·ln 2 + r with |r| ≤ ln 2 / 2, e^r by its Taylor series, then × 2^k. */
export function portableExp(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x > 709.78) return Infinity;
  if (x < -745.2) return 0;
  const k = Math.round(x * INV_LN2);
  const r = x - k * LN2_HI - k * LN2_LO;
  // |r| ≤ 0.35: 16 terms leave an error far below an ulp.
  let term = 1;
  let sum = 1;
  for (let n = 1; n <= 16; n++) {
    term = (term * r) / n;
    sum += term;
  }
  // 2^k may not be a normal double on its own near the ends of the range: scale in two steps.
  if (k > 1023) return sum * pow2(1023) * pow2(k - 1023);
  if (k < -1022) return sum * pow2(-1022) * pow2(k + 1022);
  return sum * pow2(k);
}

/** ln x for x > 0: x = m · 2^e with m in [√½, √2), ln m = 2·atanh((m − 1)/(m + 1)) by its series. */
export function portableLog(x: number): number {
  if (Number.isNaN(x) || x < 0) return NaN;
  if (x === 0) return -Infinity;
  if (x === Infinity) return Infinity;
  let scaled = x;
  let e = 0;
  // Subnormals first into the normal range (exact: a power-of-two product).
  if (scaled < 2.2250738585072014e-308) {
    scaled *= pow2(54);
    e -= 54;
  }
  BITS.setFloat64(0, scaled);
  const hi = BITS.getUint32(0);
  e += ((hi >>> 20) & 0x7ff) - 1023;
  // The same mantissa with exponent 0: m in [1, 2).
  BITS.setUint32(0, (hi & 0x800fffff) | (1023 << 20));
  let m = BITS.getFloat64(0);
  if (m >= 2 * SQRT_HALF) {
    m /= 2;
    e += 1;
  }
  const s = (m - 1) / (m + 1);
  const s2 = s * s;
  // |s| ≤ 0.172: the series' terms fall by s² ≈ 0.03 each; 14 of them are past an ulp.
  let power = s;
  let sum = 0;
  for (let n = 1; n <= 27; n += 2) {
    sum += power / n;
    power *= s2;
  }
  return e * LN2_HI + (e * LN2_LO + 2 * sum);
}

/** √x for x ≥ 0: a start from the exponent halved, then Newton's steps (they double the digits each). */
export function portableSqrt(x: number): number {
  if (Number.isNaN(x) || x < 0) return NaN;
  if (x === 0 || x === Infinity) return x;
  let scaled = x;
  let half = 0;
  if (scaled < 2.2250738585072014e-308) {
    scaled *= pow2(54);
    half = -27;
  }
  BITS.setFloat64(0, scaled);
  const e = ((BITS.getUint32(0) >>> 20) & 0x7ff) - 1023;
  // Within a factor of √2 of the root: six steps reach full precision from there.
  let y = pow2(Math.floor(e / 2));
  for (let i = 0; i < 6; i++) y = 0.5 * (y + scaled / y);
  return half === 0 ? y : y * pow2(half);
}
