// GET /orders answers the queries on fields an order record holds from the records, building
// views for the page only (selectOrderRecords); every answer must equal the general selection
// over all the owner's wire Orders (selectOrders), and any other query must go to that one.
import { describe, expect, it } from "vitest";
import { ListOrdersQuery, SORTABLE_FIELDS, selectOrderRecords, selectOrders } from "../../sim/http/routes/orders-list.ts";
import { ALICE, BOB, body, fund, setup } from "../engine/helpers.ts";

function run() {
  const env = setup({ cancelCooldownSec: 0 });
  fund(env, ALICE, "USDC", 10_000_000000n);
  fund(env, ALICE, "EURC", 10_000_000000n);
  fund(env, ALICE, "JPYS", 10_000_000_000000n);
  fund(env, BOB, "EURC", 10_000_000000n);
  fund(env, BOB, "USDC", 10_000_000000n);
  const ids: string[] = [];
  for (let i = 0; i < 40; i++) {
    // Several orders share a second (ties keep placement order), some match, some are cancelled.
    if (i % 3 === 0) env.clock.advanceMs(1_000);
    const side = i % 4 === 0 ? "ask" : "bid";
    const placed = env.engine.placeOrder(body(env, { owner: ALICE, side, amount: String(10 + i), price: side === "ask" ? "1.3" : "1.0" + (i % 5) }));
    ids.push(placed.orderId);
    if (i % 7 === 0) env.engine.placeOrder(body(env, { owner: BOB, side: "ask", amount: "5", price: "1.0" }));
    if (i % 6 === 1) env.engine.cancelOrder({ owner: ALICE, orderId: placed.orderId, uuidInt: env.engine.orderRecord(placed.orderId).uuidInt.toString() });
    // Markets of other price scales (USDC/JPYS prices have 6 places, EURC/USDC 5): decimals compare by value across them.
    if (i % 5 === 2) ids.push(env.engine.placeOrder(body(env, { owner: ALICE, symbol: "USDC/JPYS", side: "bid", amount: String(6 + (i % 4)), price: `15${i % 3}.${i}` })).orderId);
    // Partly filled, then touched later: updated_at leaves placement order.
    if (i % 8 === 3) {
      env.clock.advanceMs(500);
      env.engine.placeOrder(body(env, { owner: BOB, side: "ask", amount: "6", price: "1.0" }));
    }
  }
  return { env, ids };
}

describe("GET /orders from the records", () => {
  it("equals the selection over every view for status, type, side, ids, creation times, order and paging", () => {
    const { env, ids } = run();
    const t0 = Date.parse(env.engine.getOrder(ids[10]!).created_at);
    const queries: Record<string, string>[] = [
      {},
      { order: "asc" },
      { status: "pending" },
      { status: "cancelled", order: "asc", limit: "3", offset: "1" },
      { status: "matched" },
      { side: "ask" },
      { type: "limit", side: "bid", limit: "7", offset: "5" },
      { type: "swap" },
      { trade_ids: ` ${ids[3]!.toUpperCase()} ,${ids[17]},,nope` },
      { created_after: new Date(t0).toISOString() },
      { created_before: String(t0 / 1000), order: "asc" },
      { sort_by: "created_at", offset: "38" },
      { offset: "100" },
      { updated_after: new Date(t0).toISOString(), order: "asc" },
      { updated_before: String(t0 / 1000), status: "cancelled" },
      { min_price: "1.02", max_price: "1.3" },
      { min_amount: "20", max_remaining_amount: "30", sort_by: "amount" },
      { min_notional: "14", sort_by: "notional", order: "asc", limit: "5", offset: "3" },
      { max_price: "151", side: "bid" },
    ];
    for (const extra of queries) {
      const q = ListOrdersQuery.parse({ owner_address: ALICE.toLowerCase(), ...extra }) as Parameters<typeof selectOrders>[1];
      const fast = selectOrderRecords(env.engine.orderRecordsOf(ALICE), q, (o) => env.engine.viewOfOrder(o));
      expect(fast, JSON.stringify(extra)).not.toBeNull();
      expect(fast, JSON.stringify(extra)).toEqual(selectOrders(env.engine.listOrders(ALICE), q));
    }
  });

  it("sorts by every field a record holds as the views do, both ways, ties in placement order", () => {
    const { env } = run();
    const records = env.engine.orderRecordsOf(ALICE);
    // The list spans price scales, so decimals are compared by value, not by their digits.
    expect(new Set(records.map((o) => o.market.tickPrecision)).size).toBeGreaterThan(1);
    const viewOnly = new Set(["filled_base_amount", "filled_quote_amount", "filled_amount"]);
    for (const field of SORTABLE_FIELDS.filter((f) => !viewOnly.has(f))) {
      for (const extra of [{}, { order: "asc" }, { order: "asc", offset: "7", limit: "9" }, { status: "pending", limit: "4" }]) {
        const q = ListOrdersQuery.parse({ owner_address: ALICE.toLowerCase(), sort_by: field, ...extra }) as Parameters<typeof selectOrders>[1];
        const fast = selectOrderRecords(records, q, (o) => env.engine.viewOfOrder(o));
        expect(fast, `${field} ${JSON.stringify(extra)}`).not.toBeNull();
        expect(fast, `${field} ${JSON.stringify(extra)}`).toEqual(selectOrders(env.engine.listOrders(ALICE), q));
      }
    }
    // An order that left the book with lots unfilled (a record that says matched, lots kept) shows none remaining.
    const leftWithLots = records.map((o, i) => (i % 3 === 0 ? { ...o, status: "matched" as const, remainingLots: o.amountLots } : o));
    for (const extra of [{ sort_by: "remaining_amount" }, { sort_by: "remaining_notional", order: "asc" }, { max_remaining_amount: "0" }]) {
      const q = ListOrdersQuery.parse({ owner_address: ALICE.toLowerCase(), ...extra }) as Parameters<typeof selectOrders>[1];
      const views = selectOrders(leftWithLots.map((o) => env.engine.viewOfOrder(o)), q);
      expect(views.trades.some((o) => o.status === "matched" && o.remaining_amount === "0"), JSON.stringify(extra)).toBe(true);
      expect(selectOrderRecords(leftWithLots, q, (o) => env.engine.viewOfOrder(o)), JSON.stringify(extra)).toEqual(views);
    }
  });

  it("leaves queries on fields only the views hold to the views", () => {
    const { env } = run();
    const viewOnly = [
      { symbol: "EURC" }, { sort_by: "filled_amount" }, { sort_by: "filled_base_amount" }, { sort_by: "filled_quote_amount" },
      { has_error: "false" }, { search: "a" }, { min_filled_amount: "1" }, { base_currency: "EURC" }, { from_token: BOB },
    ];
    for (const extra of viewOnly) {
      const q = ListOrdersQuery.parse({ owner_address: ALICE.toLowerCase(), ...extra }) as Parameters<typeof selectOrders>[1];
      expect(selectOrderRecords(env.engine.orderRecordsOf(ALICE), q, (o) => env.engine.viewOfOrder(o)), JSON.stringify(extra)).toBeNull();
    }
    const q = ListOrdersQuery.parse({ owner_address: ALICE.toLowerCase() }) as Parameters<typeof selectOrders>[1];
    const records = [...env.engine.orderRecordsOf(ALICE)];
    // A record created after the one placed behind it: placement order is not created_at order, and the records are sorted.
    const swapped = [records[1]!, records[0]!, ...records.slice(2)].map((o, i) => (i === 0 ? { ...o, createdAt: { ms: records[1]!.createdAt.ms + 1 } } : o));
    for (const order of ["desc", "asc"]) {
      const q2 = { ...q, order } as typeof q;
      expect(selectOrderRecords(swapped, q2, (o) => env.engine.viewOfOrder(o))).toEqual(selectOrders(swapped.map((o) => env.engine.viewOfOrder(o)), q2));
    }
  });
});
