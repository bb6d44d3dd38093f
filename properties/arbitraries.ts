// fast-check arbitraries for the exchange's wire values, for downstream property
// suites. Each one generates what the live service accepts (or, where the name
// says so, what it must reject).
import fc from "fast-check";
import { bigIntToUuid, encodeUuidInt, groupIdOf, standaloneUuidInt, MAX_EXECUTOR_ID, MAX_LEG_ID, GROUP_ID_LIMIT } from "../sim/core/uuid-int.ts";
import { formatUnits, pow10 } from "../sim/core/amounts.ts";
import { floorLots, nonZeroQuoteLots, specFloorLots } from "../sim/core/vl.ts";
import type { Side } from "../sim/core/order-terms.ts";
import type { MarketInfo, Registry, RegistryConfig, TokenInfo } from "../sim/core/registry.ts";
import type { Address } from "../sim/core/typed-data.ts";
import { EXPIRATION_MAX_AHEAD_SEC } from "../sim/core/expiration.ts";

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

// ---------------------------------------------------------------------------
// Markets, orders, VL batches and quote requests, drawn from a registry so the
// values fit whatever tokens and markets the deployment under test lists.

/** Any market of the registry (active ones only unless told otherwise). */
export const market = (registry: Registry, o: { includeInactive?: boolean } = {}): fc.Arbitrary<MarketInfo> => {
  const ms = registry.markets().filter((m) => o.includeInactive || m.active);
  if (ms.length === 0) throw new Error("market(): the registry lists no market");
  return fc.constantFrom(...ms);
};

/** A limit order's economic content, on the market grid (lots of the quantity step, ticks of the price step). */
export interface OrderSpec {
  market: MarketInfo;
  side: Side;
  /** amount = lots / 10^quantity_precision */
  lots: bigint;
  /** price = ticks / 10^tick_precision */
  ticks: bigint;
  amount: string;
  price: string;
}

// The floor arithmetic lives with the VL budget in sim/core (the market agents size by it too).
export { floorLots, nonZeroQuoteLots, specFloorLots };

/** The spec for `lots` and `ticks` on `m` (amount and price in canonical form). */
export function orderSpec(m: MarketInfo, side: Side, lots: bigint, ticks: bigint): OrderSpec {
  return { market: m, side, lots, ticks, amount: formatUnits(lots, m.quantityPrecision), price: formatUnits(ticks, m.tickPrecision) };
}

export interface OrderSpecOptions {
  side?: Side;
  /** Price range in ticks (default 1 .. 10^(tick_precision + 3)). */
  ticks?: { min: bigint; max: bigint };
  /** Lots above the floor: floor .. floor + extraLots (default 10^(quantity_precision + 3)). */
  extraLots?: bigint;
}

/** An order the market accepts: amount and price on the grid, at or above the floor. */
export const validOrderSpec = (m: MarketInfo, o: OrderSpecOptions = {}): fc.Arbitrary<OrderSpec> =>
  fc
    .record({
      side: o.side ? fc.constant(o.side) : fc.constantFrom<Side>("bid", "ask"),
      ticks: fc.bigInt(o.ticks ?? { min: 1n, max: pow10(m.tickPrecision + 3) }),
      extra: fc.bigInt({ min: 0n, max: o.extraLots ?? pow10(m.quantityPrecision + 3) }),
    })
    .map(({ side, ticks, extra }) => {
      const lots = floorLots(m, side, ticks);
      return orderSpec(m, side, (lots === 0n ? 1n : lots) + extra, ticks);
    });

/** Who signs and when: what turns an OrderSpec into a POST /orders body. */
export interface OrderContext {
  owner: Address;
  executorId: number;
  nowSec: number;
}

/** The POST /orders body (without signature) for a spec; a standalone uuid_int unless `uuidInt` is given. */
export function orderBodyOf(spec: OrderSpec, orderId: string, ctx: OrderContext, o: { uuidInt?: bigint; expiration?: number } = {}): Record<string, unknown> {
  return {
    owner_address: ctx.owner,
    side: spec.side,
    amount: spec.amount,
    price: spec.price,
    order_type: "limit",
    from_address: spec.market.base,
    to_address: spec.market.quote,
    order_id: orderId,
    uuid_int: (o.uuidInt ?? standaloneUuidInt(orderId, ctx.executorId)).toString(),
    expiration: o.expiration ?? ctx.nowSec + 3600,
  };
}

/** The signed Order's token mapping (spec "Order mapping"): a bid spends quote, an ask spends base. */
export function spentToken(spec: Pick<OrderSpec, "market" | "side">): Address {
  return spec.side === "bid" ? spec.market.quote : spec.market.base;
}

/** Longest order lifetime the expiration rule allows (365 days − 300 s): the engine's own bound. */
export const MAX_EXPIRATION_WINDOW_SEC = EXPIRATION_MAX_AHEAD_SEC;

/**
 * A valid POST /orders body (unsigned) for a market of the registry. Its expiration is
 * an hour ahead, or at either end of the rule's window (now + 1 s, now + 365 days − 300 s).
 */
export const validOrderBody = (registry: Registry, ctx: OrderContext, o: OrderSpecOptions = {}): fc.Arbitrary<{ spec: OrderSpec; body: Record<string, unknown> }> =>
  market(registry)
    .chain((m) => fc.tuple(validOrderSpec(m, o), uuid4(), fc.constantFrom(3600, 1, MAX_EXPIRATION_WINDOW_SEC)))
    .map(([spec, id, ahead]) => ({ spec, body: orderBodyOf(spec, id, ctx, { expiration: ctx.nowSec + ahead }) }));

/**
 * The order-entry rules a mutation breaks, each with the status and the error_code
 * the wire shows (the spec's vocabulary; TRANSIENT_SETTLEMENT_FAILURE is its catch-all
 * where no listed code fits: README "Error codes on the wire").
 */
export const ORDER_RULES = {
  amount_format: { status: 400, code: "INVALID_DECIMAL_FORMAT" },
  price_format: { status: 400, code: "INVALID_DECIMAL_FORMAT" },
  amount_precision: { status: 400, code: "INVALID_PRECISION" },
  price_precision: { status: 400, code: "INVALID_PRECISION" },
  below_floor: { status: 400, code: "AMOUNT_BELOW_MIN" },
  inactive_pair: { status: 400, code: "PAIR_INACTIVE" },
  reversed_pair: { status: 400, code: "PAIR_INACTIVE" },
  expiration_past: { status: 400, code: "QUOTE_STALE" },
  expiration_far: { status: 400, code: "TRANSIENT_SETTLEMENT_FAILURE" },
  /** uuid_int built with another executor id (a rotation since): build a fresh order. */
  uuid_int_executor: { status: 400, code: "QUOTE_STALE" },
  /** uuid_int with the wrong order id, group or leg. */
  uuid_int_mismatch: { status: 400, code: "TRANSIENT_SETTLEMENT_FAILURE" },
  same_tokens: { status: 400, code: "TRANSIENT_SETTLEMENT_FAILURE" },
  bad_side: { status: 400, code: "TRANSIENT_SETTLEMENT_FAILURE" },
  bad_order_type: { status: 400, code: "TRANSIENT_SETTLEMENT_FAILURE" },
  client_id: { status: 400, code: "TRANSIENT_SETTLEMENT_FAILURE" },
  fee_bps: { status: 400, code: "TRANSIENT_SETTLEMENT_FAILURE" },
} as const;
export type OrderRule = keyof typeof ORDER_RULES;

export interface InvalidOrder {
  rule: OrderRule;
  body: Record<string, unknown>;
  expect: { status: number; code: string };
}

/**
 * A body that breaks exactly one order-entry rule (the rest of it is valid), with
 * the rule's expected status and code. Needs an inactive market in the registry
 * only for `inactive_pair` (left out otherwise).
 */
export const invalidOrderBody = (registry: Registry, ctx: OrderContext): fc.Arbitrary<InvalidOrder> => {
  const inactive = registry.markets().filter((m) => !m.active);
  const withFloor = registry.markets().filter((m) => m.active && (m.minAskAmountRaw > 1n || m.minBidQuoteAmountRaw > 1n));
  const mutate = (rule: OrderRule, f: (b: Record<string, unknown>, spec: OrderSpec) => Record<string, unknown>) =>
    validOrderBody(registry, ctx).map(({ spec, body }) => ({ rule, body: f({ ...body }, spec), expect: { ...ORDER_RULES[rule] } }));
  const arbs: fc.Arbitrary<InvalidOrder>[] = [
    fc.tuple(validOrderBody(registry, ctx), nonCanonicalDecimal()).map(([{ body }, s]) => ({ rule: "amount_format" as const, body: { ...body, amount: s }, expect: { ...ORDER_RULES.amount_format } })),
    fc.tuple(validOrderBody(registry, ctx), nonCanonicalDecimal()).map(([{ body }, s]) => ({ rule: "price_format" as const, body: { ...body, price: s }, expect: { ...ORDER_RULES.price_format } })),
    fc.tuple(validOrderBody(registry, ctx), fc.integer({ min: 1, max: 9 })).map(([{ body, spec }, d]) => ({
      rule: "amount_precision" as const,
      body: { ...body, amount: withExtraDigit(spec.lots, spec.market.quantityPrecision, d) },
      expect: { ...ORDER_RULES.amount_precision },
    })),
    fc.tuple(validOrderBody(registry, ctx), fc.integer({ min: 1, max: 9 })).map(([{ body, spec }, d]) => ({
      rule: "price_precision" as const,
      body: { ...body, price: withExtraDigit(spec.ticks, spec.market.tickPrecision, d) },
      expect: { ...ORDER_RULES.price_precision },
    })),
    mutate("reversed_pair", (b, s) => ({ ...b, from_address: s.market.quote, to_address: s.market.base })),
    mutate("same_tokens", (b) => ({ ...b, to_address: b.from_address })),
    // The window's edges from outside: now itself (the rule is now < t), and one second past its end.
    fc.tuple(validOrderBody(registry, ctx), fc.constantFrom(0, 1, 3600)).map(([{ body }, back]) => ({
      rule: "expiration_past" as const,
      body: { ...body, expiration: ctx.nowSec - back },
      expect: { ...ORDER_RULES.expiration_past },
    })),
    fc.tuple(validOrderBody(registry, ctx), fc.constantFrom(1, 2, 86_400)).map(([{ body }, past]) => ({
      rule: "expiration_far" as const,
      body: { ...body, expiration: ctx.nowSec + MAX_EXPIRATION_WINDOW_SEC + past },
      expect: { ...ORDER_RULES.expiration_far },
    })),
    fc.tuple(validOrderBody(registry, ctx), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 4095 })).map(([{ body }, field, delta]) => {
      const rule = field === 0 ? ("uuid_int_executor" as const) : ("uuid_int_mismatch" as const);
      return { rule, body: { ...body, uuid_int: mutateUuidIntField(BigInt(body.uuid_int as string), field, delta).toString() }, expect: { ...ORDER_RULES[rule] } };
    }),
    mutate("bad_side", (b) => ({ ...b, side: "buy" })),
    mutate("bad_order_type", (b) => ({ ...b, order_type: "market" })),
    mutate("client_id", (b) => ({ ...b, client_id: "x" })),
    mutate("fee_bps", (b) => ({ ...b, fee_bps: 0 })),
  ];
  if (inactive.length > 0) {
    arbs.push(
      fc.tuple(fc.constantFrom(...inactive), uuid4(), fc.constantFrom<Side>("bid", "ask")).map(([m, id, side]) => {
        const spec = orderSpec(m, side, floorLots(m, side, pow10(m.tickPrecision)) + 1n, pow10(m.tickPrecision));
        return { rule: "inactive_pair" as const, body: orderBodyOf(spec, id, ctx), expect: { ...ORDER_RULES.inactive_pair } };
      }),
    );
  }
  if (withFloor.length > 0) {
    arbs.push(
      fc
        .tuple(fc.constantFrom(...withFloor), uuid4(), fc.constantFrom<Side>("bid", "ask"), fc.bigInt({ min: 1n, max: 10n ** 6n }))
        // Below the spec's floor only: its quote leg stays at one raw unit or more.
        .filter(([m, , side, ticks]) => specFloorLots(m, side, ticks) > 1n && specFloorLots(m, side, ticks) - 1n >= nonZeroQuoteLots(m, ticks))
        .map(([m, id, side, ticks]) => {
          const spec = orderSpec(m, side, specFloorLots(m, side, ticks) - 1n, ticks);
          return { rule: "below_floor" as const, body: orderBodyOf(spec, id, ctx), expect: { ...ORDER_RULES.below_floor } };
        }),
    );
  }
  return fc.oneof(...arbs);
};

/** `units / 10^scale` written with one more non-zero digit than the grid allows. */
function withExtraDigit(units: bigint, scale: number, digit: number): string {
  return formatUnits(units * 10n + BigInt(digit), scale + 1);
}

/** Change one field of a composite id: 0 executor_id, 1 uuid128, 2 group_id, 3 leg_id (never a no-op). */
export function mutateUuidIntField(x: bigint, field: number, delta: number): bigint {
  const d = BigInt(delta);
  const spans: [bigint, bigint][] = [
    [252n, 4n],
    [124n, 128n],
    [12n, 112n],
    [0n, 12n],
  ];
  const [shift, width] = spans[((field % 4) + 4) % 4]!;
  const mask = (1n << width) - 1n;
  const cur = (x >> shift) & mask;
  // A step that is a multiple of 2^width would wrap back to the same value.
  const step = d % (mask + 1n) === 0n ? 1n : d;
  const next = (cur + step) & mask;
  return (x & ~(mask << shift)) | (next << shift);
}

/** A VL batch's legs: one spent token, distinct markets (none the inverse of another), 2+ legs. */
export interface VlBatchSpec {
  spentToken: Address;
  legs: OrderSpec[];
}

/** Active markets grouped by the token a side of them spends. */
function spendingLegs(registry: Registry): Map<Address, { market: MarketInfo; side: Side }[]> {
  const by = new Map<Address, { market: MarketInfo; side: Side }[]>();
  for (const m of registry.markets().filter((x) => x.active)) {
    for (const side of ["bid", "ask"] as const) {
      const t = side === "bid" ? m.quote : m.base;
      by.set(t, [...(by.get(t) ?? []), { market: m, side }]);
    }
  }
  return by;
}

/** A VL batch the registry allows (needs a token spent by at least two active markets). */
export const vlBatchSpec = (registry: Registry, o: OrderSpecOptions = {}): fc.Arbitrary<VlBatchSpec> => {
  const groups = [...spendingLegs(registry).entries()].filter(([, legs]) => legs.length >= 2);
  if (groups.length === 0) throw new Error("vlBatchSpec(): no token is spent by two active markets");
  return fc
    .constantFrom(...groups)
    .chain(([token, legs]) =>
      fc.subarray(legs, { minLength: 2 }).chain((picked) =>
        fc.tuple(...picked.map((l) => validOrderSpec(l.market, { ...o, side: l.side }))).map((specs) => ({ spentToken: token, legs: specs })),
      ),
    );
};

/** POST /orders/vl/batch bodies (unsigned): leg 0's order id fixes the group, leg ids in array order. */
export function vlBatchBodies(spec: VlBatchSpec, orderIds: readonly string[], ctx: OrderContext): Record<string, unknown>[] {
  const group = groupIdOf(orderIds[0]!);
  return spec.legs.map((leg, i) =>
    orderBodyOf(leg, orderIds[i]!, ctx, { uuidInt: encodeUuidInt({ executorId: ctx.executorId, orderId: orderIds[i]!, groupId: group, legId: i }) }),
  );
}

/** A POST /swap/quote body between two tokens joined by a market path, at or above the input floor. */
export const quoteRequest = (
  registry: Registry,
  ctx: OrderContext,
  o: { recipient?: Address; maxWholeUnits?: bigint } = {},
): fc.Arbitrary<Record<string, unknown>> => {
  const pairs: [TokenInfo, TokenInfo][] = [];
  for (const m of registry.markets().filter((x) => x.active)) {
    const b = registry.token(m.base)!;
    const q = registry.token(m.quote)!;
    pairs.push([b, q], [q, b]);
  }
  return fc
    .record({
      pair: fc.constantFrom(...pairs),
      whole: fc.bigInt({ min: 1n, max: o.maxWholeUnits ?? 1000n }),
      gasMode: fc.constantFrom("receive_less", "pay_more"),
    })
    .map(({ pair: [from, to], whole, gasMode }) => {
      const raw = whole * pow10(from.decimals);
      return {
        from_token: from.address,
        to_token: to.address,
        from_amount: (raw < from.minTradeAmountRaw ? from.minTradeAmountRaw : raw).toString(),
        owner_address: ctx.owner,
        recipient: o.recipient ?? ctx.owner,
        expiration: ctx.nowSec + 600,
        gas_mode: gasMode,
      };
    });
};

/**
 * A one-market registry config with arbitrary token decimals, precisions and
 * floors: the "many decimal pairs" that floor and grid rules must hold for.
 */
export const registryConfig = (): fc.Arbitrary<RegistryConfig> =>
  fc
    .record({
      bd: fc.integer({ min: 0, max: 24 }),
      qd: fc.integer({ min: 0, max: 24 }),
      tp: fc.integer({ min: 0, max: 12 }),
      qpPick: fc.nat(),
      askFloor: fc.bigInt({ min: 0n, max: 10n ** 30n }),
      bidFloor: fc.bigInt({ min: 0n, max: 10n ** 30n }),
    })
    .map(({ bd, qd, tp, qpPick, askFloor, bidFloor }) => ({
      tokens: [
        { symbol: "BASE", currency: "EUR", decimals: bd, min_trade_amount_raw: "0" },
        { symbol: "QUOTE", currency: "USD", decimals: qd, min_trade_amount_raw: "0" },
      ],
      markets: [
        {
          base: "BASE",
          quote: "QUOTE",
          tick_precision: tp,
          quantity_precision: qpPick % (Math.min(bd, qd) + 1),
          min_ask_amount_raw: (askFloor % 10n ** BigInt(bd + 3)).toString(),
          min_bid_quote_amount_raw: (bidFloor % 10n ** BigInt(qd + 3)).toString(),
        },
      ],
    }));
