// GET /orders answers the common queries from the order records, building views for the
// page only (selectOrderRecords); every answer must equal the general selection over all
// the owner's wire Orders (selectOrders), and any other query must go to that one.
import { describe, expect, it } from "vitest";
import { ListOrdersQuery, selectOrderRecords, selectOrders } from "../../sim/http/routes/orders-list.ts";
import { ALICE, BOB, body, fund, setup } from "../engine/helpers.ts";

function run() {
  const env = setup({ cancelCooldownSec: 0 });
  fund(env, ALICE, "USDC", 10_000_000000n);
  fund(env, ALICE, "EURC", 10_000_000000n);
  fund(env, BOB, "EURC", 10_000_000000n);
  const ids: string[] = [];
  for (let i = 0; i < 40; i++) {
    // Several orders share a second (ties keep placement order), some match, some are cancelled.
    if (i % 3 === 0) env.clock.advanceMs(1_000);
    const side = i % 4 === 0 ? "ask" : "bid";
    const placed = env.engine.placeOrder(body(env, { owner: ALICE, side, amount: String(10 + i), price: side === "ask" ? "1.3" : "1.0" + (i % 5) }));
    ids.push(placed.orderId);
    if (i % 7 === 0) env.engine.placeOrder(body(env, { owner: BOB, side: "ask", amount: "5", price: "1.0" }));
    if (i % 6 === 1) env.engine.cancelOrder({ owner: ALICE, orderId: placed.orderId, uuidInt: env.engine.orderRecord(placed.orderId).uuidInt.toString() });
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
    ];
    for (const extra of queries) {
      const q = ListOrdersQuery.parse({ owner_address: ALICE.toLowerCase(), ...extra }) as Parameters<typeof selectOrders>[1];
      const fast = selectOrderRecords(env.engine.orderRecordsOf(ALICE), q, (o) => env.engine.viewOfOrder(o));
      expect(fast, JSON.stringify(extra)).not.toBeNull();
      expect(fast, JSON.stringify(extra)).toEqual(selectOrders(env.engine.listOrders(ALICE), q));
    }
  });

  it("leaves queries on view-only fields, other sorts and out-of-order creation times to the views", () => {
    const { env } = run();
    for (const extra of [{ symbol: "EURC" }, { sort_by: "price" }, { has_error: "false" }, { search: "a" }, { updated_after: "0" }, { min_price: "1" }]) {
      const q = ListOrdersQuery.parse({ owner_address: ALICE.toLowerCase(), ...extra }) as Parameters<typeof selectOrders>[1];
      expect(selectOrderRecords(env.engine.orderRecordsOf(ALICE), q, (o) => env.engine.viewOfOrder(o)), JSON.stringify(extra)).toBeNull();
    }
    const q = ListOrdersQuery.parse({ owner_address: ALICE.toLowerCase() }) as Parameters<typeof selectOrders>[1];
    const records = [...env.engine.orderRecordsOf(ALICE)];
    // A record created before the one placed ahead of it (a clock set back): placement order is not created_at order.
    const swapped = [records[1]!, records[0]!, ...records.slice(2)].map((o, i) => (i === 0 ? { ...o, createdAt: { ms: records[1]!.createdAt.ms + 1 } } : o));
    expect(selectOrderRecords(swapped, q, (o) => env.engine.viewOfOrder(o))).toBeNull();
  });
});
