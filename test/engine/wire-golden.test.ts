// Golden wire views: one seeded mixed command stream (limit orders on two
// markets with partial fills, cancels, cancel-all, VL batches, swaps, clock
// moves, settlement with reverts and positive spread) replayed on a fresh
// engine, and every client-visible view recorded: command results and
// rejections, OrderWire (incl. economics and settlement_summary), FillWire per
// order and per owner, balances. The recording was made on the engine before
// its storage layout changed; a layout change must keep it byte-identical.
import { describe, expect, it } from "vitest";
import { ExchangeError } from "../../sim/core/errors.ts";
import { Rng } from "../../sim/core/rng.ts";
import type { Address } from "../../sim/core/typed-data.ts";
import { encodeUuidInt, groupIdOf, standaloneUuidInt } from "../../sim/core/uuid-int.ts";
import type { OrderBody } from "../../sim/core/engine.ts";
import { deposit, quoteBody, setupSwapEngine, submission, TAKER, type SwapEnv } from "../swaps/engine-helpers.ts";

const EXEC = 3;
const TRADERS = [
  "0x1111111111111111111111111111111111111111",
  "0x2222222222222222222222222222222222222222",
  "0x3333333333333333333333333333333333333333",
  "0x4444444444444444444444444444444444444444",
] as Address[];
const MARKETS = [
  { symbol: "EURC/USDC", mid: 108_000 },
  { symbol: "GBPT/USDC", mid: 127_000 },
];

function limitBody(env: SwapEnv, rng: Rng, owner: Address, symbol: string, side: "bid" | "ask", lots: number, ticks: number, orderId = rng.uuid4()): OrderBody {
  const m = env.registry.marketBySymbol(symbol)!;
  return {
    owner_address: owner,
    side,
    amount: (lots / 100).toFixed(2),
    price: (ticks / 100_000).toFixed(5),
    order_type: "limit",
    from_address: m.base,
    to_address: m.quote,
    order_id: orderId,
    uuid_int: standaloneUuidInt(orderId, EXEC).toString(),
    expiration: env.clock.nowSec() + (rng.chance(0.1) ? 30 : 86_400),
    signature: "0x1234",
  };
}

async function fresh(): Promise<SwapEnv> {
  const env = setupSwapEngine(11, {
    faults: { revertFraction: { fraction: 0.25, reason: "BAD_SIGNATURE" }, spreadFills: { rate: 0.3, sizeBps: 40 } },
    settlementBatchSize: 7,
  });
  for (const t of TRADERS) {
    for (const s of ["EURC", "GBPT", "USDC"]) await deposit(env, t, s, 2_000_000_000n);
  }
  await deposit(env, TAKER, "USDC", 500_000_000n);
  return env;
}

/** Runs the stream; returns every command's outcome as it would reach a client. */
async function runStream(env: SwapEnv, steps: number): Promise<unknown[]> {
  const rng = new Rng("wire-golden-stream");
  const out: unknown[] = [];
  const placed: { id: string; owner: Address; uuid: string }[] = [];
  for (let i = 0; i < steps; i++) {
    const roll = rng.int(100);
    try {
      if (roll < 62) {
        const mk = MARKETS[rng.int(MARKETS.length)]!;
        const owner = TRADERS[rng.int(TRADERS.length)]!;
        const side = rng.chance(0.5) ? "bid" : "ask";
        const off = rng.int(300) - 120;
        const ticks = side === "bid" ? mk.mid + off : mk.mid - off;
        const b = limitBody(env, rng, owner, mk.symbol, side, 100 + rng.int(3000), ticks);
        if (rng.chance(0.03) && placed.length > 0) b.order_id = placed[rng.int(placed.length)]!.id; // duplicate → 409
        out.push(env.engine.placeOrder(b));
        placed.push({ id: b.order_id as string, owner, uuid: b.uuid_int as string });
      } else if (roll < 72) {
        const p = placed[rng.int(Math.max(1, placed.length))];
        if (p) out.push(env.engine.cancelOrder({ owner: p.owner, orderId: p.id, uuidInt: p.uuid }));
      } else if (roll < 75) {
        out.push(env.engine.cancelAll(TRADERS[rng.int(TRADERS.length)]!));
      } else if (roll < 80) {
        const owner = TRADERS[rng.int(TRADERS.length)]!;
        const ids = [rng.uuid4(), rng.uuid4()];
        const group = groupIdOf(ids[0]!);
        const bodies = MARKETS.map((mk, k) => ({
          ...limitBody(env, rng, owner, mk.symbol, "bid", 100 + rng.int(2000), mk.mid + rng.int(200) - 100, ids[k]!),
          uuid_int: encodeUuidInt({ executorId: EXEC, orderId: ids[k]!, groupId: group, legId: k }).toString(),
        }));
        out.push(env.engine.placeVlBatch(bodies));
        for (const b of bodies) placed.push({ id: b.order_id as string, owner, uuid: b.uuid_int });
      } else if (roll < 85) {
        const q = await env.engine.quoteSwap(quoteBody(env, "USDC", rng.chance(0.5) ? "EURC" : "GBPT", BigInt(1_000_000 + rng.int(5_000_000)), { recipient: "0x0000000000000000000000000000000000000000" }));
        out.push(q);
        out.push(env.engine.swap(submission(q)));
      } else if (roll < 93) {
        env.clock.advanceSec(1 + rng.int(60));
      } else {
        out.push(await env.engine.settle());
      }
    } catch (e) {
      if (!(e instanceof ExchangeError)) throw e;
      out.push({ status: e.status, code: e.code, detail: e.detail });
    }
  }
  out.push(await env.engine.settle());
  return out;
}

async function wireViews(env: SwapEnv, results: unknown[]): Promise<string> {
  const owners = [...TRADERS, TAKER];
  const views: Record<string, unknown> = { results };
  for (const o of owners) {
    const orders = env.engine.listOrders(o);
    views[`orders:${o}`] = orders;
    // GET /orders/{id} shows the same view as the list row.
    for (const w of orders) expect(env.engine.getOrder(w.trade_id)).toEqual(w);
    views[`fillsByOrder:${o}`] = orders.map((w) => env.engine.fillsOfOrder(w.trade_id));
    views[`fills:${o}`] = env.engine.fillsOfOwner(o);
    views[`balances:${o}`] = await env.engine.balances(o, true);
  }
  return JSON.stringify(views, (_k, v) => (typeof v === "bigint" ? `${v}n` : v), 1);
}

describe("golden wire views of a seeded mixed stream", () => {
  it("orders, fills, economics, settlement_summary and balances are unchanged", async () => {
    const env = await fresh();
    const results = await runStream(env, 900);
    const json = await wireViews(env, results);
    // The stream must exercise what it claims to.
    expect(json).toContain('"settlement_status": "reverted"');
    expect(json).toContain('"settlement_status": "settled"');
    expect(json).toContain('"status": "failed"');
    expect(json).toContain('"order_type": "swap"');
    expect(json).toContain('"vl_group"');
    expect(json).toContain('"code": "CONFLICT"');
    expect(json).toContain('"status": "cancelled"');
    await expect(json).toMatchFileSnapshot("__golden__/wire-views.json");
  });

  it("a second run agrees (views and event hash), and snapshot/restore mid-stream round-trips", async () => {
    const a = await fresh();
    const b = await fresh();
    const ra = await runStream(a, 400);
    const rb = await runStream(b, 400);
    expect(await wireViews(b, rb)).toBe(await wireViews(a, ra));
    expect(b.engine.eventHash()).toBe(a.engine.eventHash());
    const snap = a.engine.snapshot();
    const hash = a.engine.eventHash();
    const before = await wireViews(a, []);
    await runStream(a, 100);
    expect(a.engine.eventHash()).not.toBe(hash);
    a.engine.restore(snap);
    expect(a.engine.eventHash()).toBe(hash);
    expect(await wireViews(a, [])).toBe(before);
  });
});
