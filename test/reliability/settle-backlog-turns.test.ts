// POST /__fakex/settle with a backlog of thousands of fills: other work of the process gets
// turns while the receipts are applied (it used to wait for the whole backlog, over a
// second for 64,000 fills), the answer still comes once every fill is final, and a restore
// sent meanwhile waits for the round and then leaves nothing of it.
import { setImmediate } from "node:timers";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createFakeExchange, type FakeExchange } from "../../fixtures/fake-exchange.ts";
import { limitOrderBody } from "../../sim/core/order-body.ts";
import type { Hex } from "../../sim/core/typed-data.ts";

/** Takers, each crossing PER_TAKER resting asks: 4,000 fills in 200 settlement batches. */
const TAKERS = 200;
const PER_TAKER = 20;
const FILLS = TAKERS * PER_TAKER;

let ex: FakeExchange;
let clean: string;
let nextId = 0;

beforeAll(async () => {
  ex = await createFakeExchange({ rateLimits: false, liquidity: false, users: 2 });
  const [maker, taker] = ex.accounts;
  await ex.control.fund({ address: maker!.address, token: "USDT", amount: 10n ** 24n, vault: true });
  await ex.control.fund({ address: taker!.address, token: "USDC", amount: 10n ** 24n, vault: true });
  clean = await ex.snapshot();
}, 60_000);
afterAll(() => ex?.close());

/**
 * Matched fills straight through the engine: unsigned orders, so every match fails on chain
 * (BAD_SIGNATURE, a MatchFailed log each), which settles as fast as it gets.
 */
function crossBacklog(): void {
  const engine = ex.parts.engine;
  const market = ex.registry.markets().find((m) => m.baseSymbol === "USDT")!;
  const expiration = ex.parts.clock.nowSec() + 30 * 86400;
  const [maker, taker] = ex.accounts.map((a) => a.address.toLowerCase());
  const orderId = () => `00000000-0000-4000-8000-${(nextId++).toString(16).padStart(12, "0")}`;
  const place = (owner: string, side: "bid" | "ask", amount: string) =>
    engine.placeOrder(limitOrderBody({ owner, side, amount, price: "1.0000", market, orderId: orderId(), executorId: engine.executorId, expiration }) as never);
  for (let t = 0; t < TAKERS; t++) {
    for (let i = 0; i < PER_TAKER; i++) place(maker!, "ask", "10");
    place(taker!, "bid", String(10 * PER_TAKER));
  }
  expect(engine.fillCount()).toBe(FILLS);
}

async function postSettle(): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${ex.controlUrl}/settle`, { method: "POST" });
  return { status: res.status, body: await res.json() };
}

/** Some of the round's batches have their receipts applied, not all. */
function partlyApplied(): boolean {
  const batches = ex.parts.engine.settlementBatches();
  return batches.length === TAKERS && batches[0]!.status !== "pending" && batches[TAKERS - 1]!.status === "pending";
}

describe("POST /__fakex/settle with a backlog of thousands of fills", () => {
  test("other work gets turns while the receipts are applied; the answer comes when all are final", { timeout: 120_000 }, async () => {
    await ex.restore(clean);
    crossBacklog();
    let turnsWhileApplying = 0;
    let done = false;
    // A node:timers callback that takes every turn the event loop gives (a request being
    // served would get the same turns): none came while a round applied its receipts.
    const probe = () => {
      if (done) return;
      if (partlyApplied()) turnsWhileApplying++;
      setImmediate(probe);
    };
    setImmediate(probe);
    const settled = await postSettle();
    done = true;
    expect(settled).toEqual({ status: 200, body: { fills: { reverted: FILLS }, orders: { failed: FILLS + TAKERS } } });
    expect(turnsWhileApplying).toBeGreaterThanOrEqual(2);
    expect(ex.parts.engine.settlementBatches().every((b) => b.status === "confirmed")).toBe(true);
  });

  test("a restore sent while the receipts are applied waits for the round, then leaves nothing of it", { timeout: 120_000 }, async () => {
    await ex.restore(clean);
    crossBacklog();
    const order: string[] = [];
    let restoring: Promise<void> | null = null;
    let roundTxs: Hex[] = [];
    const probe = () => {
      if (restoring !== null) return;
      if (partlyApplied()) {
        roundTxs = ex.parts.engine.settlementBatches().map((b) => b.txHash as Hex);
        restoring = ex.restore(clean).then(() => void order.push("restored"));
      }
      setImmediate(probe);
    };
    setImmediate(probe);
    const settled = await postSettle().then((s) => (order.push("settled"), s));
    expect(restoring).not.toBeNull();
    await restoring;
    expect(order).toEqual(["settled", "restored"]);
    expect(settled).toEqual({ status: 200, body: { fills: { reverted: FILLS }, orders: { failed: FILLS + TAKERS } } });
    // The restored state: no fills, no batches, and the round's transactions gone from the chain.
    const engine = ex.parts.engine;
    expect(engine.fillCount()).toBe(0);
    expect(engine.settlementBatches()).toEqual([]);
    expect(await postSettle()).toEqual({ status: 200, body: { fills: {}, orders: {} } });
    expect(roundTxs.length).toBe(TAKERS);
    for (const h of [roundTxs[0]!, roundTxs[TAKERS - 1]!]) expect(await ex.parts.port.getReceipt(h)).toBeNull();
  });
});
