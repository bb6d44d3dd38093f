import { describe, expect, test } from "vitest";
import fc from "fast-check";
import {
  address,
  canonicalDecimal,
  floorLots,
  market,
  nonCanonicalDecimal,
  quoteRequest,
  spentToken,
  uuid4,
  uuidInt,
  validOrderSpec,
  vlBatchBodies,
  vlBatchSpec,
} from "../../properties/index.ts";
import { VirtualClock } from "../../sim/core/clock.ts";
import { Engine } from "../../sim/core/engine.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry } from "../../sim/core/registry.ts";
import { MemoryChain } from "../../sim/chain/memory.ts";
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

describe("registry-driven arbitraries are accepted by the engine", () => {
  const registry = new Registry(DEFAULT_REGISTRY_CONFIG);
  const OWNER = "0x1111111111111111111111111111111111111111" as const;

  function funded(): Engine {
    const clock = new VirtualClock(Date.UTC(2026, 2, 14));
    const chain = new MemoryChain({ clock });
    const engine = new Engine({ seed: 1, clock, registry, executorId: 3, chain });
    for (const t of registry.tokens()) {
      const raw = 10n ** 12n * 10n ** BigInt(t.decimals);
      chain.mint(OWNER, t.address, raw);
      const ev = chain.deposit(OWNER, t.address, raw);
      engine.creditDeposit(ev.owner, ev.token, ev.amount);
    }
    return engine;
  }

  test("vlBatchSpec(): one spent token, distinct markets; the engine places the batch with every leg", () => {
    fc.assert(
      fc.property(vlBatchSpec(registry), fc.uniqueArray(uuid4(), { minLength: 50, maxLength: 50 }), (spec, ids) => {
        expect(new Set(spec.legs.map((l) => spentToken(l)))).toEqual(new Set([spec.spentToken]));
        expect(new Set(spec.legs.map((l) => l.market.symbol)).size).toBe(spec.legs.length);
        const engine = funded();
        const legIds = ids.slice(0, spec.legs.length);
        const bodies = vlBatchBodies(spec, legIds, { owner: OWNER, executorId: 3, nowSec: engine.clock.nowSec() }).map((b) => ({ ...b, signature: "0x00" }));
        const r = engine.placeVlBatch(bodies as never);
        expect(r.order_ids).toEqual(legIds);
        expect(r.vl_group.primary_id).toBe(legIds[0]);
      }),
      { numRuns: 100 },
    );
  });

  test("quoteRequest(): never a field-validation 422 (pricing may still find no liquidity)", async () => {
    const engine = funded();
    await fc.assert(
      fc.asyncProperty(quoteRequest(registry, { owner: OWNER, executorId: 3, nowSec: engine.clock.nowSec() }), async (body) => {
        try {
          await engine.quoteSwap(body);
        } catch (e) {
          expect(e).toBeInstanceOf(ExchangeError);
          expect((e as ExchangeError).status).not.toBe(422);
        }
      }),
      { numRuns: 100 },
    );
  });

  test("validOrderSpec(): on the grid and at or above the floor for both sides", () => {
    fc.assert(
      fc.property(market(registry).chain((m) => validOrderSpec(m)), (s) => {
        expect(s.lots >= floorLots(s.market, s.side, s.ticks)).toBe(true);
        expect(s.amount).toBe(formatDecimal({ units: s.lots, scale: s.market.quantityPrecision }));
        expect(spentToken(s)).toBe(s.side === "bid" ? s.market.quote : s.market.base);
      }),
    );
  });
});
