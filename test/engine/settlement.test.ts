import { describe, expect, it } from "vitest";
import { DEFAULT_REGISTRY_CONFIG, Registry } from "../../sim/core/registry.ts";
import type { FaultPlan } from "../../sim/core/faults.ts";
import { ALICE, BOB, CAROL, body, fund, setup, vaultMismatches, type Env } from "./helpers.ts";

function trade(faults?: FaultPlan, extra: Parameters<typeof setup>[0] = {}, chainOpts: Parameters<typeof setup>[1] = {}) {
  const env = setup({ ...(faults ? { faults } : {}), ...extra }, chainOpts);
  for (const who of [ALICE, BOB, CAROL]) {
    fund(env, who, "EURC", 1_000_000000n);
    fund(env, who, "USDC", 1_000_000000n);
  }
  return env;
}

/** Alice asks 10 @ 1.1, Bob bids `amount` @ `price`. */
function cross(env: Env, amount = "10", price = "1.1") {
  const ask = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" })).orderId;
  const bid = env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount, price })).orderId;
  return { ask, bid };
}

describe("settlement", () => {
  it("fill statuses go pending → confirming → settled; orders matched → settled; balances move", async () => {
    const env = trade({ confirmationDelayBlocks: 2 });
    const { ask, bid } = cross(env);
    const [f0] = env.engine.fillsOfOrder(ask);
    expect([f0!.settlement_status, f0!.tx_hash]).toEqual(["pending", null]);
    expect(env.engine.getOrder(ask).status).toBe("matched");

    const r1 = await env.engine.settle();
    expect(r1).toEqual({ broadcast: 1, confirmed: 0, failed: 0 });
    const f1 = env.engine.fillsOfOrder(ask)[0]!;
    expect(f1.settlement_status).toBe("confirming");
    expect(f1.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(env.engine.getOrder(ask).settlement_summary).toMatchObject({ status: "pending", latest_parent_status: "pending", latest_settlement_id: 1 });

    await env.chain.mine(1);
    expect((await env.engine.settle()).confirmed).toBe(0); // one block short of the delay
    await env.chain.mine(1);
    expect((await env.engine.settle()).confirmed).toBe(1);

    const a = env.engine.getOrder(ask);
    const b = env.engine.getOrder(bid);
    expect([a.status, b.status]).toEqual(["settled", "settled"]);
    expect(a.settlement_summary).toEqual({
      status: "settled",
      total_fill_count: 1,
      pending_fill_count: 0,
      settled_fill_count: 1,
      failed_fill_count: 0,
      reverted_fill_count: 0,
      latest_settlement_id: 1,
      latest_tx_hash: f1.tx_hash,
      latest_parent_status: "confirmed",
      latest_fill_settlement_status: "settled",
      latest_failed_fill_failure_reason: null,
    });
    const balA = await env.engine.balances(ALICE);
    const eurc = balA.balances.find((x) => x.symbol === "EURC")!;
    const usdc = balA.balances.find((x) => x.symbol === "USDC")!;
    expect([eurc.vault_total, eurc.vault_frozen, usdc.vault_available]).toEqual(["990000000", "0", "1011000000"]);
    expect(vaultMismatches(env)).toEqual([]);
    expect(await env.chain.vaultBalance(ALICE, eurc.token as `0x${string}`)).toBe(990_000000n);
  });

  it("a reverted leg inside a successful batch: fill reverted with an allowlisted reason, matched orders failed, funds released", async () => {
    const env = trade({ revertFills: [{ fill: 1, reason: "ORDER_EXPIRED" }] });
    const { ask, bid } = cross(env);
    await env.engine.settleAll();
    const f = env.engine.fillsOfOrder(bid)[0]!;
    expect([f.settlement_status, f.failure_reason]).toEqual(["reverted", "ORDER_EXPIRED"]);
    for (const id of [ask, bid]) {
      const o = env.engine.getOrder(id);
      expect(o.status).toBe("failed");
      expect(o.error).toBe("ORDER_EXPIRED");
      // Neither order had expired (the plan injected the reason): the maker takes the code, as a
      // live revert names one party; the taker gets the catch-all for a counterparty change.
      expect(o.error_code).toBe(id === ask ? "INTENT_DEADLINE_EXPIRED" : "TRANSIENT_SETTLEMENT_FAILURE");
      expect(o.settlement_summary).toMatchObject({ status: "failed", reverted_fill_count: 1, latest_failed_fill_failure_reason: "ORDER_EXPIRED", latest_parent_status: "confirmed" });
      expect(o.settlement_economics.balance_debits).toEqual([]);
    }
    const bal = (await env.engine.balances(BOB)).balances.find((x) => x.symbol === "USDC")!;
    expect([bal.vault_available, bal.vault_frozen]).toEqual(["1000000000", "0"]);
    expect(vaultMismatches(env)).toEqual([]);
  });

  it("an order settles only once every one of its fills is final: one leg settled and the other reverted leaves the taker failed", async () => {
    const env = trade({ revertFills: [{ fill: 2, reason: "OVERFILL" }] });
    const a = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" })).orderId;
    const c = env.engine.placeOrder(body(env, { owner: CAROL, side: "ask", amount: "10", price: "1.1" })).orderId;
    const bid = env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "20", price: "1.1" })).orderId;
    await env.engine.settleAll();
    expect(env.engine.fillsOfOrder(bid).map((f) => f.settlement_status)).toEqual(["settled", "reverted"]);
    expect([a, c, bid].map((id) => env.engine.getOrder(id).status)).toEqual(["settled", "failed", "failed"]);
    expect(env.engine.getOrder(bid).settlement_summary).toMatchObject({ settled_fill_count: 1, reverted_fill_count: 1 });
    // Bob paid 11 USDC for the settled leg; the reverted leg's 11 USDC are free again.
    const bal = (await env.engine.balances(BOB)).balances.find((x) => x.symbol === "USDC")!;
    expect([bal.vault_available, bal.vault_frozen]).toEqual(["989000000", "0"]);
    expect(vaultMismatches(env)).toEqual([]);
  });

  it("an unknown revert reason shows as failure_reason null and error_code TRANSIENT_SETTLEMENT_FAILURE", async () => {
    const env = trade({ revertFills: [{ fill: 1, reason: "CHAOS_MONKEY" }] });
    const { bid } = cross(env);
    await env.engine.settleAll();
    const o = env.engine.getOrder(bid);
    expect(env.engine.fillsOfOrder(bid)[0]!.failure_reason).toBeNull();
    expect(o.settlement_summary.latest_failed_fill_failure_reason).toBeNull();
    expect(o.error_code).toBe("TRANSIENT_SETTLEMENT_FAILURE");
    expect(o.error).toBe("CHAOS_MONKEY");
  });

  it("a batch-mode revert names one pair: the other pairs of the failed batch get the catch-all on both sides", async () => {
    const env = trade({ revertSettlements: [{ nth: 1, reason: "INSUFFICIENT_VAULT_BALANCE", mode: "batch" }] });
    // Two makers, one taker: two pairs in one batch; the plan faults the first.
    const first = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "5", price: "1.1" })).orderId;
    const second = env.engine.placeOrder(body(env, { owner: CAROL, side: "ask", amount: "5", price: "1.1" })).orderId;
    const bid = env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "10", price: "1.1" })).orderId;
    await env.engine.settleAll();
    expect(env.engine.settlementBatches()[0]!.status).toBe("failed");
    expect([first, second, bid].map((id) => [env.engine.getOrder(id).status, env.engine.getOrder(id).error_code])).toEqual([
      ["failed", "INSUFFICIENT_EQUITY"],
      ["failed", "TRANSIENT_SETTLEMENT_FAILURE"],
      ["failed", "TRANSIENT_SETTLEMENT_FAILURE"],
    ]);
    expect(vaultMismatches(env)).toEqual([]);
  });

  it("a failed batch (the transaction reverts): every fill failed, orders failed", async () => {
    const env = trade({ revertSettlements: [{ nth: 1, reason: "INSUFFICIENT_VAULT_BALANCE", mode: "batch" }] });
    const { ask, bid } = cross(env, "5", "1.1");
    const bid2 = env.engine.placeOrder(body(env, { owner: CAROL, side: "bid", amount: "5", price: "1.1" })).orderId;
    await env.engine.settleAll();
    const fills = env.engine.fillsOfOrder(ask);
    expect(fills.map((f) => f.settlement_status)).toEqual(["failed", "failed"]);
    expect(env.engine.settlementBatches()[0]!.status).toBe("failed");
    for (const id of [ask, bid, bid2]) {
      const o = env.engine.getOrder(id);
      expect(o.status).toBe("failed");
      // No owner owes the vault (injected): the maker's shortfall, the takers' catch-all.
      expect(o.error_code).toBe(id === ask ? "INSUFFICIENT_EQUITY" : "TRANSIENT_SETTLEMENT_FAILURE");
      expect(o.settlement_summary).toMatchObject({ failed_fill_count: o.trade_id === ask ? 2 : 1, latest_parent_status: "failed" });
    }
    expect(vaultMismatches(env)).toEqual([]);
  });

  it("legs mode reverts every match of the nth settlement only", async () => {
    const env = trade({ revertSettlements: [{ nth: 2, reason: "PRICE_MISMATCH" }] });
    const first = cross(env, "5");
    await env.engine.settle();
    const bid2 = env.engine.placeOrder(body(env, { owner: CAROL, side: "bid", amount: "5", price: "1.1" })).orderId;
    await env.engine.settleAll();
    expect(env.engine.getOrder(first.bid).status).toBe("settled");
    expect(env.engine.getOrder(bid2).status).toBe("failed");
    expect(env.engine.fillsOfOrder(bid2)[0]!.failure_reason).toBe("PRICE_MISMATCH");
    // The maker was fully filled (matched) by then, so it fails too.
    expect(env.engine.getOrder(first.ask).status).toBe("failed");
  });

  it("overlapping fault rules on one fill: revertSettlements wins over revertFills, which wins over revertFraction", async () => {
    const S = { revertSettlements: [{ nth: 1, reason: "PRICE_MISMATCH" }] };
    const F = { revertFills: [{ fill: 1, reason: "ORDER_EXPIRED" }] };
    const R = { revertFraction: { fraction: 1, reason: "BAD_SIGNATURE" } };
    const cases: [FaultPlan, string][] = [
      [{ ...S, ...F }, "PRICE_MISMATCH"],
      [{ ...S, ...R }, "PRICE_MISMATCH"],
      [{ ...S, ...F, ...R }, "PRICE_MISMATCH"],
      [{ ...F, ...R }, "ORDER_EXPIRED"],
    ];
    for (const [plan, winner] of cases) {
      const env = trade(plan);
      const { ask, bid } = cross(env);
      await env.engine.settleAll();
      const [f] = env.engine.fillsOfOrder(bid);
      expect([f!.settlement_status, f!.failure_reason]).toEqual(["reverted", winner]);
      for (const id of [ask, bid]) {
        const o = env.engine.getOrder(id);
        expect([o.status, o.error, o.settlement_summary.latest_failed_fill_failure_reason]).toEqual(["failed", winner, winner]);
      }
      expect(vaultMismatches(env)).toEqual([]);
    }
  });

  it("a reverted fill of a still-pending order: it stays pending with error set and gets its quantity back", async () => {
    const env = trade({ revertFills: [{ fill: 1, reason: "OVERFILL" }] });
    const { ask, bid } = cross(env, "6");
    await env.engine.settleAll();
    const a = env.engine.getOrder(ask);
    expect(a.status).toBe("pending");
    expect(a.error).toBe("OVERFILL");
    expect(a.error_code).toBe("TRANSIENT_SETTLEMENT_FAILURE");
    expect(a.remaining_amount).toBe("10");
    expect(a.filled_base_amount).toBe("0");
    expect(env.engine.getOrder(bid).status).toBe("failed");
    expect(a.settlement_summary).toMatchObject({ status: "failed", reverted_fill_count: 1, settled_fill_count: 0 });
    // The restored quantity can trade again, and settle.
    const again = env.engine.placeOrder(body(env, { owner: CAROL, side: "bid", amount: "10", price: "1.1" })).orderId;
    await env.engine.settleAll();
    const settled = env.engine.getOrder(ask);
    expect(settled.status).toBe("settled");
    // A settled order carries no terminal failure code; `error` still names the latest reverted fill.
    expect(settled.error_code).toBeNull();
    expect(settled.error).toBe("OVERFILL");
    expect(settled.settlement_summary).toMatchObject({ status: "settled", reverted_fill_count: 1, settled_fill_count: 1, pending_fill_count: 0 });
    expect(env.engine.getOrder(again).status).toBe("settled");
    expect(vaultMismatches(env)).toEqual([]);
  });

  it("a maker that expires before its fill settles: its own error_code says so, the taker's is the counterparty catch-all", async () => {
    const env = trade();
    const ask = env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1", expiration: env.clock.nowSec() + 60 })).orderId;
    const bid = env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "6", price: "1.1" })).orderId;
    env.clock.advanceSec(120);
    await env.engine.settleAll();
    const [fill] = env.engine.fillsOfOrder(bid);
    expect(fill).toMatchObject({ settlement_status: "reverted", failure_reason: "ORDER_EXPIRED" });
    const a = env.engine.getOrder(ask);
    const b = env.engine.getOrder(bid);
    expect([a.status, a.error, a.error_code]).toEqual(["pending", "ORDER_EXPIRED", "INTENT_DEADLINE_EXPIRED"]);
    // Bob's own deadline is an hour away: re-signing with a fresh one would not help him.
    expect([b.status, b.error, b.error_code]).toEqual(["failed", "ORDER_EXPIRED", "TRANSIENT_SETTLEMENT_FAILURE"]);
    expect(vaultMismatches(env)).toEqual([]);
  });

  it("batches never exceed the cap of 20 matches", async () => {
    const env = trade();
    for (let i = 0; i < 45; i++) env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "5", price: "1.1" }));
    env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "225", price: "1.1" }));
    await env.engine.settleAll();
    expect(env.engine.settlementBatches().map((b) => b.fillIds.length)).toEqual([20, 20, 5]);
    expect(env.engine.fillRecords().every((f) => f.status === "settled")).toBe(true);
  });

  it("revertFraction draws under the seed: same seed, same reverted fills", async () => {
    const run = async () => {
      const env = trade({ revertFraction: { fraction: 0.5, reason: "BAD_SIGNATURE" } });
      for (let i = 0; i < 20; i++) env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "5", price: "1.1" }));
      env.engine.placeOrder(body(env, { owner: BOB, side: "bid", amount: "100", price: "1.1" }));
      await env.engine.settleAll();
      expect(vaultMismatches(env)).toEqual([]);
      return env.engine.fillRecords().map((f) => f.status);
    };
    const a = await run();
    expect(a).toEqual(await run());
    expect(a).toContain("reverted");
    expect(a).toContain("settled");
  });

  it("fees: charged on what each side receives, credited to the fee recipient, listed in fees_paid", async () => {
    const registry = new Registry({ ...DEFAULT_REGISTRY_CONFIG, fee_bps: 30 });
    const env = trade(undefined, { registry });
    const { ask, bid } = cross(env);
    // A fee is paid when its fill settles: none is listed while the fill is pending.
    const [pending] = env.engine.fillsOfOrder(ask);
    expect(pending!.settlement_status).toBe("pending");
    expect(pending!.settlement_economics.fees_paid).toEqual([]);
    await env.engine.settleAll();
    const [settled] = env.engine.fillsOfOrder(ask);
    expect(settled!.settlement_status).toBe("settled");
    expect(settled!.settlement_economics.fees_paid.map((l) => l.amount_raw)).toEqual(["33000"]);
    const a = env.engine.getOrder(ask).settlement_economics;
    // Alice receives 11 USDC gross, pays 0.3% = 0.033 USDC.
    expect(a.gross_credits[0]!.amount_raw).toBe("11000000");
    expect(a.balance_credits[0]!.amount_raw).toBe("10967000");
    expect(a.fees_paid).toEqual([{ token: "USDC", token_address: a.gross_credits[0]!.token_address, amount: "0.033", amount_raw: "33000", type: "fee" }]);
    const b = env.engine.getOrder(bid).settlement_economics;
    expect(b.balance_credits[0]!.amount_raw).toBe("9970000");
    expect(b.fees_paid[0]!.amount_raw).toBe("30000");
    const protocol = env.engine.protocolOwner;
    expect(env.engine.ledger.peek(protocol, a.gross_credits[0]!.token_address).available).toBe(33000n);
    expect(vaultMismatches(env)).toEqual([]);
  });

  it("positive-spread fills: split 25/25/50, filled amounts differ from the taker's balance debit", async () => {
    const env = trade({ spreadFills: { rate: 1, sizeBps: 400 } });
    const { ask, bid } = cross(env, "10", "1.2");
    const f = env.engine.fillRecords()[0]!;
    // quote at the maker's price 11 USDC; spread 4% of it = 0.44 USDC, within the bid's 1.2 limit.
    expect([f.quoteRaw, f.spreadRaw, f.takerGive]).toEqual([11_000000n, 440000n, 11_440000n]);
    await env.engine.settleAll();
    const b = env.engine.getOrder(bid);
    expect(b.filled_amount).toBe("11000000");
    expect(b.filled_quote_amount).toBe("11");
    expect(b.settlement_economics.gross_debits[0]!.amount_raw).toBe("11000000");
    // Bob gives 11.44, gets 25% of the 0.44 back: balance debit 11.33.
    expect(b.settlement_economics.balance_debits[0]!.amount_raw).toBe("11330000");
    const a = env.engine.getOrder(ask);
    // Alice gets 11 + 25% of 0.44 = 11.11.
    expect(a.settlement_economics.balance_credits[0]!.amount_raw).toBe("11110000");
    expect(env.engine.ledger.peek(env.engine.protocolOwner, a.to_token).available).toBe(220000n);
    const bal = (await env.engine.balances(BOB)).balances.find((x) => x.symbol === "USDC")!;
    expect(bal.vault_total).toBe(String(1_000_000000n - 11_330000n));
    expect(vaultMismatches(env)).toEqual([]);
  });

  it("the memory chain only includes a tx when mined (automine off)", async () => {
    const env = trade(undefined, {}, { automine: false });
    const { ask } = cross(env);
    await env.engine.settle();
    expect(env.engine.fillsOfOrder(ask)[0]!.settlement_status).toBe("confirming");
    await env.engine.settle();
    expect(env.engine.fillsOfOrder(ask)[0]!.settlement_status).toBe("confirming");
    await env.chain.mine(1);
    await env.engine.settle();
    expect(env.engine.fillsOfOrder(ask)[0]!.settlement_status).toBe("settled");
  });

  it("fills per owner carry the owner's perspective and order status", async () => {
    const env = trade();
    const { ask, bid } = cross(env);
    await env.engine.settleAll();
    const rows = env.engine.fillsOfOwner(ALICE);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.order_id).toBe(ask);
    expect(rows[0]!.order_status).toBe("settled");
    expect(rows[0]!.settlement_economics.perspective_order_id).toBe(ask);
    expect(rows[0]!.settlement_economics.gross_debits[0]!.token).toBe("EURC");
    expect(env.engine.fillsOfOwner(BOB)[0]!.settlement_economics.perspective_order_id).toBe(bid);
    expect(Object.keys(rows[0]!.settlement_economics).sort()).toEqual(["fees_paid", "gross_credits", "gross_debits", "perspective_order_id"]);
  });
});

describe("settlementCounts (the settle summary)", () => {
  /** What the summary counted before it read the columns: every fill record, and each order of them once. */
  function fromRecords(env: Env) {
    const fills: Record<string, number> = {};
    const orders: Record<string, number> = {};
    const seen = new Set<string>();
    for (const f of env.engine.fillRecords()) {
      fills[f.status] = (fills[f.status] ?? 0) + 1;
      for (const id of [f.makerOrderId, f.takerOrderId]) {
        if (seen.has(id)) continue;
        seen.add(id);
        const s = env.engine.orderRecord(id).status;
        orders[s] = (orders[s] ?? 0) + 1;
      }
    }
    return { fills, orders };
  }

  it("counts fills and their orders by status as the records say, keys in the order each status first shows", async () => {
    const env = trade({ revertFills: [{ fill: 2, reason: "ORDER_EXPIRED" }] });
    expect(env.engine.settlementCounts()).toEqual({ fills: {}, orders: {} });
    cross(env);
    cross(env, "5", "1.2");
    // Carol's bid takes what is left of the second ask and rests: four orders matched, hers pending with a fill.
    env.engine.placeOrder(body(env, { owner: CAROL, side: "bid", amount: "8", price: "1.1" }));
    const before = env.engine.settlementCounts();
    expect(before).toEqual({ fills: { pending: 3 }, orders: { matched: 4, pending: 1 } });
    expect(before).toEqual(fromRecords(env));
    await env.engine.settleAll();
    const after = env.engine.settlementCounts();
    expect(after).toEqual(fromRecords(env));
    expect(Object.keys(after.fills)).toEqual(Object.keys(fromRecords(env).fills));
    expect(Object.keys(after.orders)).toEqual(Object.keys(fromRecords(env).orders));
    expect(after.fills).toEqual({ settled: 2, reverted: 1 });
  });
});
