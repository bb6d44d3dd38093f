import fc from "fast-check";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { ExchangeError } from "../../sim/core/errors.ts";
import { canonicalJson, EventLog, GENESIS_HASH } from "../../sim/core/event-log.ts";
import { ALICE, BOB, CAROL, body, fund, setup, vaultMismatches, type Env } from "./helpers.ts";

const OWNERS = [ALICE, BOB, CAROL];

type Cmd =
  | { kind: "place"; owner: number; side: "bid" | "ask"; lots: number; ticks: number }
  | { kind: "cancel"; owner: number; pick: number }
  | { kind: "cancelAll"; owner: number }
  | { kind: "advance"; sec: number }
  | { kind: "settle" };

const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant("place" as const),
      owner: fc.integer({ min: 0, max: 2 }),
      side: fc.constantFrom("bid" as const, "ask" as const),
      lots: fc.integer({ min: 500, max: 5000 }),
      ticks: fc.integer({ min: 105000, max: 115000 }),
    }),
    weight: 6,
  },
  { arbitrary: fc.record({ kind: fc.constant("cancel" as const), owner: fc.integer({ min: 0, max: 2 }), pick: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("cancelAll" as const), owner: fc.integer({ min: 0, max: 2 }) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("advance" as const), sec: fc.integer({ min: 1, max: 400 }) }), weight: 1 },
  { arbitrary: fc.constant({ kind: "settle" as const }), weight: 1 },
);

function fresh(seed: number | string, faults = true): Env {
  const env = setup({
    seed,
    faults: faults ? { revertFraction: { fraction: 0.2, reason: "BAD_SIGNATURE" }, spreadFills: { rate: 0.3, sizeBps: 50 } } : {},
  });
  for (const o of OWNERS) {
    fund(env, o, "EURC", 5_000_000000n);
    fund(env, o, "USDC", 5_000_000000n);
  }
  return env;
}

/** Apply commands; rejections are part of the run (they must leave no trace). */
async function run(env: Env, cmds: Cmd[]): Promise<void> {
  for (const c of cmds) {
    try {
      if (c.kind === "place") {
        env.engine.placeOrder(
          body(env, { owner: OWNERS[c.owner]!, side: c.side, amount: (c.lots / 100).toFixed(2), price: (c.ticks / 100000).toFixed(5) }),
        );
      } else if (c.kind === "cancel") {
        const open = env.engine.listOrders(OWNERS[c.owner]!).filter((o) => o.status === "pending");
        const o = open[c.pick % Math.max(1, open.length)];
        if (o) env.engine.cancelOrder({ owner: OWNERS[c.owner]!, orderId: o.trade_id, uuidInt: o.uuid_int });
      } else if (c.kind === "cancelAll") env.engine.cancelAll(OWNERS[c.owner]!);
      else if (c.kind === "advance") env.clock.advanceSec(c.sec);
      else await env.engine.settle();
    } catch (e) {
      if (!(e instanceof ExchangeError)) throw e;
    }
  }
}

function checkInvariants(env: Env): void {
  const frozenNeed = new Map<string, bigint>();
  for (const owner of OWNERS) {
    for (const o of env.engine.listOrders(owner)) {
      const r = env.engine.orderRecord(o.trade_id);
      const inflight = env.engine.inflightOf(r);
      expect(r.reserved >= inflight && inflight >= 0n).toBe(true);
      if (r.status !== "pending") expect(r.reserved).toBe(inflight);
      const k = `${r.owner}|${r.fromToken}`;
      frozenNeed.set(k, (frozenNeed.get(k) ?? 0n) + r.reserved);
    }
  }
  for (const row of env.engine.ledger.rows()) {
    expect(row.available >= 0n && row.frozen >= 0n).toBe(true);
    // frozen = the needs of open orders plus what is in flight to settlement
    expect(row.frozen).toBe(frozenNeed.get(`${row.owner}|${row.token}`) ?? 0n);
  }
}

describe("determinism, invariants, snapshots", () => {
  it("the event-log hash is a sha256 chain over canonical JSON", () => {
    expect(canonicalJson({ b: 1n, a: ["x", null, true] })).toBe('{"a":["x",null,true],"b":"1n"}');
    const log = new EventLog();
    expect(log.hash()).toBe(GENESIS_HASH);
    log.append("t", 5, { v: 1n });
    const h1 = log.hash();
    const other = new EventLog();
    other.append("t", 5, { v: "1" });
    expect(other.hash()).not.toBe(h1);
    const snap = log.snapshot();
    log.append("u", 6, {});
    expect(log.hash()).not.toBe(h1);
    log.restore(snap);
    expect(log.hash()).toBe(h1);
    expect(log.since()).toEqual([{ seq: 1, at: 5, type: "t", data: { v: 1n } }]);
    expect(() => log.at(1)).toThrow(RangeError);
    expect(() => log.at(-1)).toThrow(RangeError);
    expect(() => log.restore({ ...snap, ats: [] })).toThrow(/columns of different lengths/);
    expect(log.hash()).toBe(h1);
  });

  it("the log keeps every event across its 4,096-entry chunks, in snapshots too", () => {
    const log = new EventLog();
    for (let i = 0; i < 10_000; i++) log.append(i % 2 === 0 ? "even" : "odd", i, { i });
    const snap = log.snapshot();
    expect(snap.types).toHaveLength(10_000);
    for (const i of [0, 4095, 4096, 8191, 8192, 9999]) expect(log.at(i)).toEqual({ seq: i + 1, at: i, type: i % 2 === 0 ? "even" : "odd", data: { i } });
    const back = new EventLog();
    back.restore(snap);
    expect(back.hash()).toBe(log.hash());
    expect(back.since(9999)).toEqual([{ seq: 10_000, at: 9999, type: "odd", data: { i: 9999 } }]);
  });

  it("a restore reuses the log's chunks: shorter, longer and chunk-aligned states all read back whole", () => {
    const log = new EventLog();
    const fill = (from: number, to: number) => {
      for (let i = from; i < to; i++) log.append("e", i, { i });
    };
    const reference = (n: number) => {
      const fresh = new EventLog();
      for (let i = 0; i < n; i++) fresh.append("e", i, { i });
      return fresh;
    };
    fill(0, 10);
    const at10 = log.snapshot();
    fill(10, 5_000);
    const at5000 = log.snapshot();
    fill(5_000, 8_192);
    const at8192 = log.snapshot();
    for (const [snap, n] of [[at10, 10], [at5000, 5_000], [at10, 10], [at8192, 8_192], [at5000, 5_000], [at8192, 8_192]] as const) {
      log.restore(snap);
      expect(log.length).toBe(n);
      expect(log.hash()).toBe(reference(n).hash());
      expect(() => log.at(n)).toThrow(RangeError);
      // Appends after the restore land where a log that never went further puts them.
      log.append("after", -1, { n });
      expect(log.at(n)).toEqual({ seq: n + 1, at: -1, type: "after", data: { n } });
      expect(log.since(n - 1)).toHaveLength(2);
      log.restore(snap);
    }
    log.restore(log.snapshot());
    expect(log.since()).toEqual(reference(8_192).since());
    log.restore(new EventLog().snapshot());
    expect(log.length).toBe(0);
    expect(log.hash()).toBe(GENESIS_HASH);
    fill(0, 3);
    expect(log.since()).toEqual(reference(3).since());
  });

  it("a restored log lets go of the events it no longer holds", async () => {
    setFlagsFromString("--expose-gc");
    const collect = runInNewContext("gc") as () => void;
    const log = new EventLog();
    log.append("kept", 1, { k: 1 });
    const snap = log.snapshot();
    let dropped: { [k: string]: string } | null = { big: "x".repeat(1_000) };
    const ref = new WeakRef(dropped);
    log.append("dropped", 2, dropped);
    dropped = null;
    log.restore(snap);
    // A WeakRef is only cleared after the job that last read it, and then by a collection.
    await new Promise((r) => setTimeout(r, 0));
    collect();
    expect(ref.deref()).toBeUndefined();
    expect(log.since()).toEqual([{ seq: 1, at: 1, type: "kept", data: { k: 1 } }]);
  });

  it("same seed + same commands → same event-log hash; invariants hold throughout", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(cmd, { minLength: 5, maxLength: 60 }), async (cmds) => {
        const a = fresh(11);
        const b = fresh(11);
        await run(a, cmds);
        await run(b, cmds);
        expect(a.engine.eventHash()).toBe(b.engine.eventHash());
        checkInvariants(a);
        await a.engine.settleAll();
        checkInvariants(a);
        expect(vaultMismatches(a)).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });

  it("without faults every fill the engine plans settles on the chain (amounts satisfy the contract's rules)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(cmd, { minLength: 5, maxLength: 60 }), async (cmds) => {
        const env = fresh(13, false);
        await run(env, cmds);
        await env.engine.settleAll();
        const bad = env.engine.fillRecords().filter((f) => f.status !== "settled");
        expect(bad.map((f) => f.revertReason)).toEqual([]);
        checkInvariants(env);
        expect(vaultMismatches(env)).toEqual([]);
      }),
      { numRuns: 30 },
    );
  });

  it("a different seed changes the hash when the seed matters (fault draws)", async () => {
    const cmds: Cmd[] = [];
    for (let i = 0; i < 30; i++) cmds.push({ kind: "place", owner: i % 2, side: i % 2 ? "bid" : "ask", lots: 1000, ticks: 110000 });
    cmds.push({ kind: "settle" });
    const a = fresh(1);
    const b = fresh(2);
    await run(a, cmds);
    await run(b, cmds);
    expect(a.engine.eventHash()).not.toBe(b.engine.eventHash());
  });

  it("a seed is read by its text: 7 and \"7\" draw alike; 2^32 + 7 and 7.5 draw apart from 7", async () => {
    const cmds: Cmd[] = [];
    for (let i = 0; i < 30; i++) cmds.push({ kind: "place", owner: i % 2, side: i % 2 ? "bid" : "ask", lots: 1000, ticks: 110000 });
    cmds.push({ kind: "settle" });
    const hashOf = async (seed: number | string) => {
      const env = fresh(seed);
      await run(env, cmds);
      return env.engine.eventHash();
    };
    const seven = await hashOf(7);
    expect(await hashOf("7")).toBe(seven);
    expect(await hashOf(2 ** 32 + 7)).not.toBe(seven);
    expect(await hashOf(7.5)).not.toBe(seven);
    expect(await hashOf("07")).not.toBe(seven);
  });

  it("a snapshot whose orders are not numbered 1..n is refused (fills name orders by seq), leaving the engine as it was", () => {
    const env = setup();
    fund(env, ALICE, "EURC", 100_000000n);
    fund(env, BOB, "USDC", 100_000000n);
    env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" }));
    env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "10", price: "1.1" }));
    const snap = env.engine.snapshot();
    const hash = env.engine.eventHash();
    const gap = { ...snap, orders: snap.orders.map((o, i) => (i === 1 ? { ...o, seq: 3 } : o)) };
    env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "5", price: "1.2" }));
    const later = env.engine.eventHash();
    expect(() => env.engine.restore(gap)).toThrow(/not numbered 1\.\.2: position 1 has seq 3/);
    expect(() => env.engine.restore({ ...snap, fills: { ...snap.fills, count: 2 } })).toThrow(/does not hold 2 fills/);
    expect(env.engine.eventHash()).toBe(later);
    expect(env.engine.listOrders(ALICE)).toHaveLength(2);
    env.engine.restore(snap);
    expect(env.engine.eventHash()).toBe(hash);
    expect(env.engine.fillRecords().map((f) => f.lots)).toEqual([1000n]);
  });

  it("snapshot/restore of the whole engine with 10k resting orders", async () => {
    const env = fresh(3, false);
    for (const o of OWNERS) fund(env, o, "EURC", 10n ** 15n);
    for (let i = 0; i < 10_000; i++) {
      env.engine.placeOrder(body(env, { owner: OWNERS[i % 3]!, side: "ask", amount: "5", price: (1 + (i % 500) / 100000).toFixed(5) }));
    }
    const hash = env.engine.eventHash();
    const t0 = performance.now();
    const snap = env.engine.snapshot();
    const t1 = performance.now();
    // Mutate: a sweep, cancels, settlement, time.
    const dave = "0x4444444444444444444444444444444444444444" as const;
    fund(env, dave, "USDC", 1_000_000000n);
    env.engine.placeOrder(body(env, { owner: dave, side: "bid", amount: "100", price: "1.01", expiration: env.clock.nowSec() + 7200 }));
    env.clock.advanceSec(600);
    env.engine.cancelAll(ALICE);
    await env.engine.settleAll();
    expect(env.engine.eventHash()).not.toBe(hash);
    const t2 = performance.now();
    env.engine.restore(snap);
    const t3 = performance.now();
    expect(env.engine.eventHash()).toBe(hash);
    expect(env.engine.fillRecords()).toHaveLength(0);
    expect(env.engine.listOrders(ALICE).filter((o) => o.status === "pending")).toHaveLength(3334);
    expect(env.engine.depth("EURC/USDC", "ask").reduce((n, l) => n + l.orders, 0)).toBe(10_000);
    // Replaying the same commands after restore gives the same result as the first time (chain restored too).
    console.log(`[measure] snapshot ${(t1 - t0).toFixed(1)} ms, restore ${(t3 - t2).toFixed(1)} ms, 10k resting orders`);
  });

  it("restore then replay reproduces the same hash", async () => {
    const env = fresh(5);
    const chainSnap = env.chain.snapshot();
    const snap = env.engine.snapshot();
    const idsSnap = env.ids.snapshot();
    const cmds: Cmd[] = [];
    for (let i = 0; i < 40; i++) cmds.push({ kind: "place", owner: i % 3, side: i % 2 ? "bid" : "ask", lots: 700 + i, ticks: 109990 + (i % 7) * 5 });
    cmds.push({ kind: "settle" }, { kind: "advance", sec: 301 }, { kind: "cancelAll", owner: 0 }, { kind: "settle" });
    await run(env, cmds);
    const first = env.engine.eventHash();
    env.engine.restore(snap);
    env.chain.restore(chainSnap);
    env.ids.restore(idsSnap);
    await run(env, cmds);
    expect(env.engine.eventHash()).toBe(first);
  });
});
