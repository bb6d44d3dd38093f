// Order-entry rules as properties: uuid_int round trip and single-field
// mutations, the floor boundary on both sides for many decimal pairs, canonical
// decimals, and every invalid-order mutation with its status and code — at the
// engine and through HTTP (preview's top-level envelope, POST /orders' nested one).
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import request from "supertest";
import { VirtualClock } from "../../sim/core/clock.ts";
import { Engine } from "../../sim/core/engine.ts";
import { ExchangeError } from "../../sim/core/errors.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry } from "../../sim/core/registry.ts";
import { checkStandaloneUuidInt, checkVlLegUuidInt, decodeUuidInt, encodeUuidInt, groupIdOf } from "../../sim/core/uuid-int.ts";
import type { Address } from "../../sim/core/typed-data.ts";
import { MemoryChain } from "../../sim/chain/memory.ts";
import { createMemoryExchange } from "../../sim/http/exchange-app.ts";
import { requiredWireCode } from "../../sim/http/wire-codes.ts";
import {
  canonicalDecimal,
  floorLots,
  invalidOrderBody,
  market,
  mutateUuidIntField,
  nonCanonicalDecimal,
  orderBodyOf,
  orderSpec,
  registryConfig,
  uuid4,
  uuidInt,
  validOrderBody,
  ORDER_RULES,
} from "../../properties/index.ts";

const OWNER = "0x1111111111111111111111111111111111111111" as Address;

function engineOn(registry: Registry): Engine {
  const clock = new VirtualClock(Date.UTC(2026, 2, 14));
  return new Engine({ seed: 1, clock, registry, executorId: 3, chain: new MemoryChain({ clock }) });
}

/** The ExchangeError a thunk throws, or undefined when it returns. */
function rejection(f: () => unknown): ExchangeError | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    if (e instanceof ExchangeError) return e;
    throw e;
  }
}

describe("uuid_int", () => {
  it("encode / decode round trip", () => {
    fc.assert(
      fc.property(uuidInt(), ({ parts, value }) => {
        expect(value >= 0n && value < 1n << 256n).toBe(true);
        const d = decodeUuidInt(value);
        expect([d.executorId, d.orderId, d.groupId, d.legId]).toEqual([parts.executorId, parts.orderId, parts.groupId, parts.legId]);
        expect(encodeUuidInt(d)).toBe(value);
      }),
      { numRuns: 300 },
    );
  });

  it("every single-field mutation of a valid standalone or VL-leg id is rejected with UUID_INT_MISMATCH", () => {
    fc.assert(
      fc.property(
        uuid4(),
        fc.integer({ min: 0, max: 15 }),
        fc.integer({ min: 0, max: 4095 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 1, max: 1 << 20 }),
        (orderId, executorId, legId, field, delta) => {
          const group = groupIdOf(orderId);
          const standalone = encodeUuidInt({ executorId, orderId, groupId: group, legId: 0 });
          const leg = encodeUuidInt({ executorId, orderId, groupId: group, legId });
          expect(rejection(() => checkStandaloneUuidInt(orderId, standalone, executorId))).toBeUndefined();
          expect(rejection(() => checkVlLegUuidInt(orderId, leg, executorId, group, legId))).toBeUndefined();
          const a = rejection(() => checkStandaloneUuidInt(orderId, mutateUuidIntField(standalone, field, delta), executorId));
          const b = rejection(() => checkVlLegUuidInt(orderId, mutateUuidIntField(leg, field, delta), executorId, group, legId));
          for (const e of [a, b]) expect([e?.status, e?.code]).toEqual([400, "UUID_INT_MISMATCH"]);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("floor rules at, just below and just above the boundary", () => {
  it("both sides, many decimal pairs: the engine agrees with the exact formula", () => {
    fc.assert(
      fc.property(
        registryConfig(),
        fc.constantFrom("bid" as const, "ask" as const),
        fc.bigInt({ min: 1n, max: 10n ** 15n }),
        uuid4(),
        (cfg, side, ticks, id) => {
          const registry = new Registry(cfg);
          const engine = engineOn(registry);
          const m = registry.markets()[0]!;
          const boundary = floorLots(m, side, ticks);
          const verdict = (lots: bigint) =>
            rejection(() => engine.validateOrder(orderBodyOf(orderSpec(m, side, lots, ticks), id, { owner: OWNER, executorId: 3, nowSec: engine.clock.nowSec() }) as never));
          // Independent statement of the spec's rule, in exact integers, and of the quote leg
          // of at least one raw unit that the contract needs (fakex refuses a zero leg).
          const specPasses = (lots: bigint) =>
            side === "ask"
              ? lots * 10n ** BigInt(m.baseDecimals) >= m.minAskAmountRaw * 10n ** BigInt(m.quantityPrecision)
              : lots * ticks * 10n ** BigInt(m.quoteDecimals) >= m.minBidQuoteAmountRaw * 10n ** BigInt(m.quantityPrecision + m.tickPrecision);
          const quotePasses = (lots: bigint) => lots * ticks * 10n ** BigInt(m.quoteDecimals) >= 10n ** BigInt(m.quantityPrecision + m.tickPrecision);
          const passes = (lots: bigint) => specPasses(lots) && quotePasses(lots);
          const at = boundary === 0n ? 1n : boundary;
          expect(passes(at)).toBe(true);
          expect(verdict(at)).toBeUndefined();
          expect(verdict(at + 1n)).toBeUndefined();
          if (at > 1n) {
            expect(passes(at - 1n)).toBe(false);
            const e = verdict(at - 1n);
            expect([e?.status, e?.code]).toEqual([400, "AMOUNT_BELOW_MIN"]);
            const floorRaw = side === "ask" ? m.minAskAmountRaw : m.minBidQuoteAmountRaw;
            // The zero leg is checked first and names one raw unit as its minimum.
            expect(e?.extra).toMatchObject({ min_amount_raw: quotePasses(at - 1n) ? floorRaw.toString() : "1" });
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("canonical decimals and every invalid-order mutation", () => {
  const registry = new Registry(DEFAULT_REGISTRY_CONFIG);
  const engine = engineOn(registry);
  const ctx = { owner: OWNER, executorId: 3, nowSec: engine.clock.nowSec() };

  it("canonical amounts on the grid are accepted; non-canonical ones are INVALID_DECIMAL_FORMAT", () => {
    fc.assert(
      fc.property(validOrderBody(registry, ctx), canonicalDecimal(6), nonCanonicalDecimal(), ({ body }, good, bad) => {
        expect(rejection(() => engine.validateOrder(body as never))).toBeUndefined();
        const e = rejection(() => engine.validateOrder({ ...body, amount: bad } as never));
        expect([e?.status, e?.code]).toEqual([400, "INVALID_DECIMAL_FORMAT"]);
        // A canonical string is never a format error (it may be off-grid or below the floor).
        expect(rejection(() => engine.validateOrder({ ...body, price: good } as never))?.code).not.toBe("INVALID_DECIMAL_FORMAT");
      }),
      { numRuns: 300 },
    );
  });

  it("each mutation is refused by the engine with its rule's status and code; all rules occur", () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(invalidOrderBody(registry, ctx), (inv) => {
        seen.add(inv.rule);
        const e = rejection(() => engine.validateOrder(inv.body as never));
        // the engine's own code, as the typed envelopes show it on the wire
        expect([inv.rule, e?.status, e && requiredWireCode(e)]).toEqual([inv.rule, inv.expect.status, inv.expect.code]);
      }),
      { numRuns: 600 },
    );
    expect([...seen].sort()).toEqual(Object.keys(ORDER_RULES).sort());
  });

  it("through HTTP: preview answers the code at the top level, POST /orders nested under detail", async () => {
    const ex = createMemoryExchange({ logger: { error: () => undefined }, rateLimits: false });
    const hctx = { owner: OWNER, executorId: ex.engine.executorId, nowSec: ex.clock.nowSec() };
    await fc.assert(
      fc.asyncProperty(invalidOrderBody(ex.registry, hctx), async (inv) => {
        const p = await request(ex.app).post("/api/v1/orders/preview").send(inv.body);
        // Preview takes a VL leg's own uuid_int (leg_id >= 1) as well; POST /orders does not.
        const vlLeg = inv.rule === "uuid_int_mismatch" && decodeUuidInt(BigInt(inv.body.uuid_int as string)).legId > 0 && decodeUuidInt(BigInt(inv.body.uuid_int as string)).orderId === inv.body.order_id;
        if (vlLeg) expect([inv.rule, p.status, p.body.eip712_order?.uuid]).toEqual([inv.rule, 200, inv.body.uuid_int]);
        else expect([inv.rule, p.status, p.body.error_code, typeof p.body.detail]).toEqual([inv.rule, inv.expect.status, inv.expect.code, "string"]);
        const o = await request(ex.app)
          .post("/api/v1/orders")
          .send({ ...inv.body, signature: `0x${"11".repeat(65)}` });
        expect([inv.rule, o.status, o.body.detail?.error_code]).toEqual([inv.rule, inv.expect.status, inv.expect.code]);
      }),
      { numRuns: 60 },
    );
  });

  it("market() draws only active markets unless asked", () => {
    fc.assert(fc.property(market(registry), (m) => m.active));
    const all = new Set<string>();
    fc.assert(fc.property(market(registry, { includeInactive: true }), (m) => void all.add(m.symbol)), { numRuns: 200 });
    expect(all.has("EURC/JPYS")).toBe(true);
  });
});
