// Seeded market activity on the virtual clock: the mid walks within its band and
// each step's bound, books keep depth on both sides, takers' fills settle on chain
// with the agents' (and the fee recipient's) balances conserved, the same seed and
// clock steps give the same event-log hash, and snapshot / restore carries the
// agents' state.
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from "vitest";
import { createFakeExchange, type FakeExchange } from "../../fixtures/fake-exchange.ts";
import type { ActivityView } from "../../fixtures/activity.ts";
import { Vault } from "../../sim/chain/artifacts.ts";
import { realTime } from "../../sim/platform/real-time.ts";
import { maxStepMove, walkBand } from "../../sim/core/market-walk.ts";
import type { Address } from "../../sim/core/typed-data.ts";
import { fundPair, placeLimit } from "../fixtures/chain-client.ts";

let ex: FakeExchange;
let clean: string;
const SYMBOL = "USDT/USDC";
/** The EURC-USDC market, in whichever orientation the deployed addresses give it. */
const eurUsdc = () => ex.registry.markets().find((m) => [m.baseSymbol, m.quoteSymbol].sort().join("/") === "EURC/USDC")!.symbol;

async function ctl(method: string, path: string, body?: unknown) {
  const res = await fetch(`${ex.controlUrl}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const view = async () => (await ctl("GET", "/activity")).body as ActivityView;
const hash = () => ex.control.eventHash();

/** Start on one market, then `steps` clock advances of one step each; returns the mids seen. */
async function run(steps: number, input: Record<string, unknown> = { markets: [SYMBOL], takers_per_min: 12, volatility: 0.002, step_sec: 30 }) {
  const started = await ctl("POST", "/activity", input);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const mids: number[] = [Number(started.body.markets[SYMBOL].mid)];
  for (let i = 0; i < steps; i++) {
    await ctl("POST", "/clock/advance", { seconds: 30 });
    mids.push(Number((await view()).markets[SYMBOL]!.mid));
  }
  return mids;
}

function vaultOf(owner: Address, token: Address): Promise<bigint> {
  return ex.clients.public.readContract({ address: ex.contracts.vault, abi: Vault.abi, functionName: "balanceOf", args: [owner, token] });
}

beforeAll(async () => {
  ex = await createFakeExchange({ seed: 21, startTime: "2026-01-01T00:00:00Z" });
  clean = await ex.snapshot();
}, 120_000);
afterAll(async () => {
  await ex?.close();
});
beforeEach(async () => {
  await ex.restore(clean);
});

describe("market activity", () => {
  test("the mid walks around the FX anchor within its band and each step's bound; books keep depth on both sides", async () => {
    const m = ex.registry.marketBySymbol(SYMBOL)!;
    const tick = 10 ** -m.tickPrecision;
    const anchor = Number((await ctl("POST", "/activity", { markets: [SYMBOL], volatility: 0.002, step_sec: 30 })).body.markets[SYMBOL].anchor);
    await ctl("DELETE", "/activity");
    await ex.restore(clean);
    const mids = await run(40);
    const band = walkBand(0.002);
    for (const mid of mids) expect(Math.abs(Math.log(mid / anchor))).toBeLessThanOrEqual(band + tick / anchor);
    for (let i = 1; i < mids.length; i++) expect(Math.abs(Math.log(mids[i]! / mids[i - 1]!))).toBeLessThanOrEqual(maxStepMove(0.002, 30) + (2 * tick) / anchor);
    expect(new Set(mids).size).toBeGreaterThan(5); // it moves
    const bids = ex.parts.engine.depth(SYMBOL, "bid");
    const asks = ex.parts.engine.depth(SYMBOL, "ask");
    expect(bids.length).toBeGreaterThanOrEqual(3);
    expect(asks.length).toBeGreaterThanOrEqual(3);
    expect(Number(bids[0]!.price)).toBeLessThan(Number(asks[0]!.price));
    // The quotes straddle the current mid.
    const mid = mids.at(-1)!;
    expect(Number(bids[0]!.price)).toBeLessThan(mid);
    expect(Number(asks[0]!.price)).toBeGreaterThan(mid);
    // Other markets keep the seeded ladder untouched.
    expect(ex.parts.engine.depth(eurUsdc(), "bid")).toHaveLength(3);
  });

  test("takers cross: real fills between the agents settle on chain, the agents' balances (plus fees) are conserved", async () => {
    const m = ex.registry.marketBySymbol(SYMBOL)!;
    const owners = [...ex.makers.map((x) => x.address), ex.deployment.feeRecipient.toLowerCase() as Address];
    const total = async (token: Address) => (await Promise.all(owners.map((o) => vaultOf(o, token)))).reduce((a, b) => a + b, 0n);
    const before = { base: await total(m.base as Address), quote: await total(m.quote as Address) };
    const makerBase = await vaultOf(ex.makers[0]!.address, m.base as Address);
    const fillsBefore = ex.parts.engine.fillCount();
    await run(20);
    await ex.control.settle();
    const fills = ex.parts.engine.fillRecords().slice(fillsBefore);
    expect(fills.length).toBeGreaterThan(0);
    expect(fills.every((f) => f.status === "settled")).toBe(true);
    // Balances moved between the agents, and the totals did not change.
    expect(await vaultOf(ex.makers[0]!.address, m.base as Address)).not.toBe(makerBase);
    expect({ base: await total(m.base as Address), quote: await total(m.quote as Address) }).toEqual(before);
    // The engine's ledger agrees with the chain for both agents.
    for (const maker of ex.makers) {
      const b = await ex.parts.engine.balances(maker.address);
      for (const token of [m.base, m.quote]) {
        const row = b.balances.find((x) => x.token.toLowerCase() === token.toLowerCase())!;
        expect(BigInt(row.vault_total)).toBe(await vaultOf(maker.address, token as Address));
      }
    }
  });

  test("every taker fills at once and none rests, on every market, USDC/JPYS (floored quote amounts) included: no book is ever locked", async () => {
    await ctl("POST", "/activity", { markets: "*", step_sec: 30 });
    const engine = ex.parts.engine;
    const crossingUnfilled: string[] = [];
    const place = engine.placeOrder.bind(engine);
    // Watch each order the agents place: one that crosses the book must leave nothing resting.
    engine.placeOrder = (body) => {
      const m = ex.registry.markets().find((x) => x.base.toLowerCase() === String(body.from_address).toLowerCase() && x.quote.toLowerCase() === String(body.to_address).toLowerCase())!;
      const opposite = engine.depth(m.symbol, body.side === "bid" ? "ask" : "bid")[0];
      const crosses = opposite !== undefined && (body.side === "bid" ? Number(body.price) >= Number(opposite.price) : Number(body.price) <= Number(opposite.price));
      const r = place(body);
      if (crosses && r.status === "pending") crossingUnfilled.push(`${m.symbol} ${body.side} ${body.amount} @ ${body.price}`);
      return r;
    };
    try {
      const fills = engine.fillCount();
      for (let i = 0; i < 20; i++) {
        await ex.control.advanceClock(30);
        for (const m of ex.registry.activeMarkets()) {
          const [bid] = engine.depth(m.symbol, "bid");
          const [ask] = engine.depth(m.symbol, "ask");
          if (bid && ask) expect(Number(bid.price), `${m.symbol} after step ${i + 1}`).toBeLessThan(Number(ask.price));
        }
      }
      expect(crossingUnfilled).toEqual([]);
      expect(engine.fillCount()).toBeGreaterThan(fills);
    } finally {
      engine.placeOrder = place;
    }
  });

  test("a high takers_per_min is delivered: takers keep trading after the best level is nearly emptied (before: ~20 a minute whatever was asked)", async () => {
    const started = await ctl("POST", "/activity", { markets: [SYMBOL], takers_per_min: 60, volatility: 0.001, step_sec: 30 });
    expect(started.status).toBe(200);
    const fills = ex.parts.engine.fillCount();
    await ex.control.advanceClock(20 * 60);
    // 60 a minute is a Poisson mean of 30 per 30 s step, capped at 20 per step: 40 a minute.
    expect((ex.parts.engine.fillCount() - fills) / 20).toBeGreaterThan(32);
  });

  test("same seed and clock steps: the same event-log hash; a snapshot taken mid-run replays the rest identically", async () => {
    await run(10);
    const first = hash();
    await ex.restore(clean);
    await run(10);
    expect(hash()).toBe(first);

    await ex.restore(clean);
    await run(5);
    const mid = await ex.snapshot();
    const viewAtSnapshot = await view();
    for (let i = 0; i < 5; i++) await ctl("POST", "/clock/advance", { seconds: 30 });
    const after = hash();
    await ex.restore(mid);
    expect(await view()).toEqual(viewAtSnapshot);
    for (let i = 0; i < 5; i++) await ctl("POST", "/clock/advance", { seconds: 30 });
    expect(hash()).toBe(after);
    // One long advance stops at every step: the same log as step-by-step advances.
    await ex.restore(mid);
    await ctl("POST", "/clock/advance", { seconds: 150 });
    expect(hash()).toBe(after);
  });

  test("two clock advances sent at once take turns: the clock moves by their sum, and steps and log are those of the two sent one after the other", async () => {
    await run(0);
    const mid = await ex.snapshot();
    const at = ex.control.now().now;
    for (const [a, b] of [[25, 50], [70, 5]] as const) {
      await ctl("POST", "/clock/advance", { seconds: a });
      await ctl("POST", "/clock/advance", { seconds: b });
      const oneAfterTheOther = { hash: hash(), steps: (await view()).steps };
      await ex.restore(mid);
      // Called in this order from code (two HTTP requests could reach the server either way round).
      const [first, second] = await Promise.all([ex.control.advanceClock(a), ex.control.advanceClock(b)]);
      expect([first.now, second.now]).toEqual([at + a, at + a + b]);
      expect(ex.control.now().now).toBe(at + a + b);
      expect({ hash: hash(), steps: (await view()).steps }).toEqual(oneAfterTheOther);
      await ex.restore(mid);
    }
    // Over HTTP, in whichever order the two requests arrive: both answered, the sum moved, each step once.
    await ctl("POST", "/clock/advance", { seconds: 75 });
    const steps = (await view()).steps;
    await ex.restore(mid);
    const answers = await Promise.all([ctl("POST", "/clock/advance", { seconds: 25 }), ctl("POST", "/clock/advance", { seconds: 50 })]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers.map((a) => a.body.now as number).sort((x, y) => x - y)).toEqual(answers[0]!.body.now === at + 25 ? [at + 25, at + 75] : [at + 50, at + 75]);
    expect(ex.control.now().now).toBe(at + 75);
    expect((await view()).steps).toBe(steps);
  });

  test("a restore sent during a long clock advance waits for it and then wins: the rest of the advance does not move the restored clock and chain on", async () => {
    expect((await ctl("POST", "/activity", { markets: [SYMBOL], step_sec: 10 })).status).toBe(200);
    const snap = await ex.snapshot();
    const at = ex.control.now().now;
    const block = await ex.clients.public.getBlockNumber();
    const hashAt = hash();
    const advancing = ctl("POST", "/clock/advance", { seconds: 600 });
    // Sent once the advance is under way (its first step has moved the clock).
    await expect.poll(() => ex.control.now().now, { timeout: 15_000, interval: 2 }).toBeGreaterThan(at);
    const [advanced] = await Promise.all([advancing, ex.restore(snap)]);
    expect(advanced.status).toBe(200);
    expect(advanced.body.now).toBe(at + 600);
    expect(ex.control.now().now).toBe(at);
    expect(await ex.clients.public.getBlockNumber()).toBe(block);
    expect(hash()).toBe(hashAt);
  });

  test("control: every field optional, bad input 400 and nothing started, DELETE stops", async () => {
    for (const bad of [{ markets: ["NOPE/USDC"] }, { markets: [] }, { volatility: 1 }, { takers_per_min: -1 }, { step_sec: 0.5 }, { speed: 3 }]) {
      const r = await ctl("POST", "/activity", bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(typeof r.body.detail).toBe("string");
    }
    // A "__proto__" key (JSON text: an object literal would set the prototype) is refused like any unknown key, not dropped unsaid.
    const proto = await fetch(`${ex.controlUrl}/activity`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"__proto__":{"takers_per_min":1000}}' });
    expect(proto.status).toBe(400);
    expect(await proto.json()).toEqual({ detail: "activity: unknown key __proto__" });
    expect((await view()).running).toBe(false);
    const all = await ctl("POST", "/activity", {});
    expect(all.status).toBe(200);
    expect(Object.keys(all.body.markets).sort()).toEqual(ex.registry.activeMarkets().map((m) => m.symbol).sort());
    expect(all.body).toMatchObject({ running: true, step_sec: 30 });
    // Retune one market; the others keep their settings.
    const tuned = await ctl("POST", "/activity", { markets: [SYMBOL], takers_per_min: 30, volatility: 0.004 });
    expect(tuned.body.markets[SYMBOL]).toMatchObject({ takers_per_min: 30, volatility: 0.004 });
    expect(tuned.body.markets[eurUsdc()]).toMatchObject({ takers_per_min: 6, volatility: 0.001 });
    const partly = await ctl("DELETE", "/activity", { markets: [SYMBOL] });
    expect(Object.keys(partly.body.markets)).not.toContain(SYMBOL);
    // The others keep running.
    expect([partly.body.running, Object.keys(partly.body.markets).sort()]).toEqual([true, Object.keys(all.body.markets).filter((s) => s !== SYMBOL).sort()]);
    const stopped = await ctl("DELETE", "/activity");
    expect(stopped.body).toMatchObject({ running: false, next_step: null, markets: {} });
    const events = ex.parts.engine.log.length;
    await ctl("POST", "/clock/advance", { seconds: 300 });
    expect(ex.parts.engine.log.length).toBe(events);
    // A market named the other way round is the same market.
    const reversed = await ctl("POST", "/activity", { markets: ["USDC/USDT"] });
    expect(Object.keys(reversed.body.markets)).toEqual([SYMBOL]);
    await ctl("DELETE", "/activity");
    // ex.control carries the same operations.
    const v = await ex.control.startActivity({ markets: [SYMBOL] });
    expect(v.running).toBe(true);
    expect(ex.control.stopActivity().running).toBe(false);
  });
});

describe("market activity: its settings", () => {
  test("each field's range holds at both ends: one past it is a 400 naming the range, and nothing starts", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ takers_per_min: 601 }, "activity: takers_per_min must be a number 0-600 (per market)"],
      [{ volatility: 0.051 }, "activity: volatility must be a number 0-0.05 (standard deviation of the mid per minute, as a fraction)"],
      [{ step_sec: 3601 }, "activity: step_sec must be an integer 1-3600"],
    ];
    for (const [input, detail] of cases) expect(await ctl("POST", "/activity", { markets: [SYMBOL], ...input })).toEqual({ status: 400, body: { detail } });
    expect((await view()).running).toBe(false);
    const top = await ctl("POST", "/activity", { markets: [SYMBOL], takers_per_min: 600, volatility: 0.05, step_sec: 3600 });
    expect([top.status, top.body.step_sec, top.body.markets[SYMBOL].takers_per_min, top.body.markets[SYMBOL].volatility]).toEqual([200, 3600, 600, 0.05]);
    await ctl("DELETE", "/activity");
  });

  test("a new step_sec on a running activity counts the next step from now; a retune without one keeps the schedule", async () => {
    const start = ex.control.now().now;
    expect((await ctl("POST", "/activity", { markets: [SYMBOL], step_sec: 30 })).body.next_step).toBe(start + 30);
    await ctl("POST", "/clock/advance", { seconds: 5 });
    expect((await ctl("POST", "/activity", { markets: [SYMBOL], takers_per_min: 12 })).body.next_step).toBe(start + 30);
    expect((await ctl("POST", "/activity", { markets: [SYMBOL], step_sec: 10 })).body.next_step).toBe(start + 5 + 10);
    await ctl("DELETE", "/activity");
  });

  test("without the seeded makers (liquidity off) it refuses to start, saying why", async () => {
    const { MarketActivity } = await import("../../fixtures/activity.ts");
    const alone = new MarketActivity({ engine: ex.parts.engine, registry: ex.registry, fx: ex.parts.fx, domain: () => ex.domain, makers: [], seed: 21, settleRound: async () => {} });
    await expect(alone.start({ markets: [SYMBOL] })).rejects.toThrow("activity: needs the seeded makers (start with liquidity on, not --no-liquidity)");
    expect(alone.running).toBe(false);
  });
});

describe("market activity: the FX feed keeps its anchors", () => {
  test("the maker holding more of the base token asks: trades between the makers move base both ways, so neither runs dry", async () => {
    const m = ex.registry.marketBySymbol(SYMBOL)!;
    const engine = ex.parts.engine;
    const held = (i: number) => {
      const acc = engine.vaultAccount(ex.makers[i]!.address, m.base);
      return acc.available + acc.frozen;
    };
    const gapBefore = held(0) - held(1);
    const fillsBefore = engine.fillCount();
    await run(30, { markets: [SYMBOL], takers_per_min: 60, volatility: 0.002, step_sec: 30 });
    const makers = ex.makers.map((x) => x.address.toLowerCase());
    let traded = 0n;
    const askers = new Set<string>();
    for (const f of engine.fillRecords().slice(fillsBefore)) {
      const maker = engine.orderRecord(f.makerOrderId);
      const taker = engine.orderRecord(f.takerOrderId);
      if (!makers.includes(maker.owner) || !makers.includes(taker.owner)) continue;
      traded += f.baseRaw;
      askers.add(maker.side === "ask" ? maker.owner : taker.owner);
    }
    expect(traded).toBeGreaterThan(0n);
    // Both makers sold base in turn; always the same one would move the gap by twice what was traded.
    expect(askers.size).toBe(2);
    const moved = held(0) - held(1) - gapBefore;
    expect(moved < 0n ? -moved : moved).toBeLessThan(traded / 4n);
  });

  test("a market FX no longer anchors goes quiet: no quotes and no takers, so users' orders there are not traded at any price", async () => {
    const symbol = eurUsdc();
    const m = ex.registry.marketBySymbol(symbol)!;
    expect((await ctl("POST", "/activity", { markets: [symbol], takers_per_min: 60, step_sec: 30 })).status).toBe(200);
    const mid = Number((await view()).markets[symbol]!.mid);
    const [a, b] = [ex.accounts[0]!, ex.accounts[1]!];
    await fundPair(ex, m, a, b);
    const ask = await placeLimit(ex, a, symbol, "ask", (mid * 2).toFixed(m.tickPrecision));
    const bid = await placeLimit(ex, b, symbol, "bid", (mid / 2).toFixed(m.tickPrecision));
    // Quotes only from five hours ago: EUR/USD is stale, and nothing anchors the market.
    const now = ex.control.now().now;
    const quotes = ["p1", "p2", "p3"].map((provider) => ({ provider, base: "EUR", quote: "USD", rate: "1.08", ts: now - 5 * 3600 }));
    expect((await ctl("POST", "/fx/quotes", { quotes, replace: true })).status).toBe(200);
    const fillsBefore = ex.parts.engine.fillCount();
    for (let i = 0; i < 5; i++) await ex.control.advanceClock(30);
    expect((await view()).markets[symbol]!.anchor).toBeNull();
    expect(ex.parts.engine.fillRecords().slice(fillsBefore).map((f) => [f.makerOrderId, f.takerOrderId])).toEqual([]);
    expect(ex.parts.engine.orderRecord(ask).status).toBe("pending");
    expect(ex.parts.engine.orderRecord(bid).status).toBe("pending");
    // The users' orders are all that is left on the book.
    expect(ex.parts.engine.depth(symbol, "ask").map((l) => l.orders)).toEqual([1]);
    expect(ex.parts.engine.depth(symbol, "bid").map((l) => l.orders)).toEqual([1]);
  });

  test("quotes and a walking mid go on past 4 h of virtual time (the FX recency window), on every market", async () => {
    await ctl("POST", "/activity", { markets: "*", takers_per_min: 0, step_sec: 1800 });
    await ex.control.advanceClock(6 * 3600);
    const v = await view();
    expect(Object.keys(v.markets).length).toBeGreaterThan(1);
    for (const [symbol, m] of Object.entries(v.markets)) {
      expect(m.anchor, symbol).not.toBeNull();
      expect(m.mid, symbol).not.toBeNull();
      expect(ex.parts.engine.depth(symbol, "ask").length, symbol).toBeGreaterThan(0);
      expect(ex.parts.engine.depth(symbol, "bid").length, symbol).toBeGreaterThan(0);
    }
    const fx = await fetch(`${ex.baseUrl}/fx/rate?base=EUR&quote=USD`);
    expect(fx.status).toBe(200);
    // And a market can still be started then.
    expect((await ctl("POST", "/activity", { markets: [SYMBOL], step_sec: 1800 })).status).toBe(200);
  });
});

describe("market activity: bounded work per advance", () => {
  test("dueSteps stops at its cap and skipTo moves the schedule past the advance", async () => {
    const { MarketActivity, MAX_STEPS_PER_ADVANCE } = await import("../../fixtures/activity.ts");
    await ex.restore(clean);
    await ex.control.startActivity({ markets: [SYMBOL], step_sec: 10 });
    const now = ex.control.now().now;
    const next = ex.control.activity().next_step!;
    expect(next).toBe(now + 10);
    // A year ahead: at most the cap of step times, the first of them the next step.
    const probe = new MarketActivity({ engine: ex.parts.engine, registry: ex.registry, fx: ex.parts.fx, domain: () => ex.domain, makers: ex.makers, seed: 21, settleRound: async () => {} });
    await probe.start({ markets: [SYMBOL], step_sec: 10 });
    const due = probe.dueSteps(now, now + 365 * 86400);
    expect(due).toHaveLength(MAX_STEPS_PER_ADVANCE);
    expect(due[0]).toBe(now + 10);
    probe.skipTo(now + 365 * 86400);
    expect(probe.nextStep).toBe(now + 365 * 86400 + 10);
    probe.stop();
  });
});

describe("market activity on the wall clock: a pause", () => {
  test("steps missed while the process was paused (a debugger, a machine asleep) run as one step, not a burst; the next is due a step later", async () => {
    const wall = await createFakeExchange({ seed: 22, clock: "wall", activity: { markets: ["USDT/USDC"], step_sec: 1 } });
    try {
      const serverTime = async () => ((await (await fetch(`${wall.baseUrl}/system/time`)).json()) as { timestamp: number }).timestamp;
      await serverTime();
      const before = wall.control.activity();
      // Ten minutes of real time pass at once (fakex's real time mocked, no sleeping): the
      // next request moves the clock, and the activity catches up on the move.
      const real = realTime.nowMs();
      vi.spyOn(realTime, "nowMs").mockReturnValue(real + 600_000);
      const now = await serverTime();
      const after = wall.control.activity();
      expect(after.steps).toBe(before.steps + 1);
      expect(after.next_step).toBe(now + 1);
    } finally {
      vi.restoreAllMocks();
      await wall.close();
    }
  });
});
