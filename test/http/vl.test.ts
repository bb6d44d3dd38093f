import { describe, expect, it } from "vitest";
import request from "supertest";
import { encodeUuidInt, groupIdOf } from "../../sim/core/uuid-int.ts";
import { ALICE, BOB, EXECUTOR, UUID, alice, bob, carol, exchange, orderBody, place, signViaPreview, signVlCancel, vlLegs, type Ex } from "./exchange-harness.ts";

const batch = (ex: Ex, orders: unknown) => request(ex.app).post("/api/v1/orders/vl/batch").send({ orders } as object);
const vlCancel = (ex: Ex, body: unknown) => request(ex.app).post("/api/v1/orders/vl/cancel").send(body as object);

/** Two asks spending EURC on two markets. */
const twoAsks = [
  { symbol: "EURC/USDC", side: "ask" as const, amount: "10", price: "1.08" },
  { symbol: "EURC/GBPT", side: "ask" as const, amount: "10", price: "0.85" },
];

describe("POST /orders/vl/batch", () => {
  it("201 with order_ids, amendments, cancelled, fills and vl_group; every leg is a pending order of the batch", async () => {
    const ex = exchange();
    const legs = await vlLegs(ex, alice, twoAsks);
    const r = await batch(ex, legs);
    expect(r.status).toBe(201);
    const ids = legs.map((l) => l["order_id"]);
    expect(r.body).toEqual({
      order_ids: ids,
      amendments: [],
      cancelled: [],
      fills: [],
      vl_group: { primary_id: ids[0], max_budget: "1000000", budget_consumed: "20", spent_token: "EURC" },
    });
    for (const id of ids) {
      const o = ex.engine.getOrder(String(id));
      expect(o.vl_batch_id).toBe(ids[0]);
      expect(o.status).toBe("pending");
    }
  });

  it("reports immediate fills and budget clips", async () => {
    const ex = exchange();
    ex.fund(carol.address.toLowerCase(), "EURC", 15_000_000n);
    await place(ex, bob, { side: "bid", amount: "6", price: "1.09" });
    await place(ex, bob, { side: "bid", amount: "5", price: "1.09" });
    const legs = await vlLegs(ex, carol, twoAsks);
    const r = await batch(ex, legs);
    expect(r.status).toBe(201);
    expect(r.body.fills).toEqual([
      {
        order_id: legs[0]!["order_id"],
        trades: [
          { quantity: "6", price: "1.09", counterparty_order_id: expect.stringMatching(UUID), ts: expect.any(String) },
          { quantity: "4", price: "1.09", counterparty_order_id: expect.stringMatching(UUID), ts: expect.any(String) },
        ],
        remaining: "0",
      },
    ]);
    expect(r.body.amendments).toEqual([{ order_id: legs[1]!["order_id"], original_amount: "10", actual_amount: "5", reason: "budget_clip" }]);
    expect(r.body.vl_group).toEqual({ primary_id: legs[0]!["order_id"], max_budget: "15", budget_consumed: "15", spent_token: "EURC" });
  });

  it("400 typed for a bad leg signature, before anything is placed", async () => {
    const ex = exchange();
    const legs = await vlLegs(ex, alice, twoAsks);
    const byBob = await vlLegs(ex, bob, twoAsks);
    const r = await batch(ex, [legs[0], { ...legs[1], signature: byBob[1]!["signature"] }]);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ detail: { detail: "Invalid signature: orders[1] must be signed by its owner_address", error_code: "TRANSIENT_SETTLEMENT_FAILURE" } });
    expect(ex.engine.listOrders(ALICE)).toEqual([]);
  });

  it("400 typed for a leg without a signature or with one that is not a string, naming the leg", async () => {
    const ex = exchange();
    const legs = await vlLegs(ex, alice, twoAsks);
    const { signature: _dropped, ...unsigned } = legs[1]!;
    for (const [leg, detail] of [[unsigned, "orders[1].signature is required"], [{ ...legs[1], signature: 7 }, "orders[1].signature must be a hex string"]] as const) {
      const r = await batch(ex, [legs[0], leg]);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ detail: { detail, error_code: "TRANSIENT_SETTLEMENT_FAILURE" } });
    }
    expect(ex.engine.listOrders(ALICE)).toEqual([]);
  });

  it("field rules per leg come before signatures: INVALID_DECIMAL_FORMAT, a uuid_int mismatch (leg id out of order)", async () => {
    const ex = exchange();
    const legs = await vlLegs(ex, alice, twoAsks);
    const badDecimal = await batch(ex, [legs[0], { ...legs[1], amount: "1e1", signature: "0x00" }]);
    expect(badDecimal.status).toBe(400);
    expect(badDecimal.body.detail.error_code).toBe("INVALID_DECIMAL_FORMAT");
    const swapped = await batch(ex, [legs[1], legs[0]]);
    expect(swapped.status).toBe(400);
    expect(swapped.body.detail.error_code).toBe("TRANSIENT_SETTLEMENT_FAILURE");
    expect(swapped.body.detail.detail).toContain("uuid_int");
  });

  it("400 typed for batch shape: not an array, 1 leg, 51 legs, two owners, duplicate market", async () => {
    const ex = exchange();
    const legs = await vlLegs(ex, alice, twoAsks);
    const cases: unknown[] = ["x", [legs[0]], Array.from({ length: 51 }, () => legs[0])];
    for (const orders of cases) {
      const r = await batch(ex, orders);
      expect(r.status).toBe(400);
      expect(r.body.detail.error_code).toBe("TRANSIENT_SETTLEMENT_FAILURE");
    }
    const dup = await vlLegs(ex, alice, [twoAsks[0]!, { ...twoAsks[0]!, price: "1.1" }]);
    const r = await batch(ex, dup);
    expect(r.status).toBe(400);
    expect(r.body.detail.error_code).toBe("TRANSIENT_SETTLEMENT_FAILURE");
    const malformed = await request(ex.app).post("/api/v1/orders/vl/batch").set("Content-Type", "application/json").send("[");
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail.error_code).toBe("TRANSIENT_SETTLEMENT_FAILURE");    // A leg that is not an object is named by its position.
    const nullLeg = await batch(ex, [legs[0], null]);
    expect(nullLeg.status).toBe(400);
    expect(nullLeg.body.detail.detail).toBe("orders[1] must be a JSON object");
  });

  it("the batch size is checked before any leg: one badly signed leg is refused for the size, naming the limits", async () => {
    const ex = exchange();
    const legs = await vlLegs(ex, alice, twoAsks);
    const byBob = await vlLegs(ex, bob, twoAsks);
    const r = await batch(ex, [{ ...legs[0], signature: byBob[0]!["signature"] }]);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ detail: { detail: "orders must hold 2 to 50 legs, got 1", error_code: "TRANSIENT_SETTLEMENT_FAILURE" } });
    expect(ex.engine.listOrders(ALICE)).toEqual([]);
  });

  it("409 typed when two legs carry the same order_id (each uuid_int correct for its leg); nothing placed, nothing frozen", async () => {
    const ex = exchange();
    const id0 = ex.newId();
    const leg1UuidInt = encodeUuidInt({ executorId: EXECUTOR, orderId: id0, groupId: groupIdOf(id0), legId: 1 }).toString();
    const legs = await vlLegs(ex, alice, [
      { ...twoAsks[0]!, orderId: id0 },
      { ...twoAsks[1]!, orderId: id0, uuidInt: leg1UuidInt },
    ]);
    expect(legs.map((l) => l["order_id"])).toEqual([id0, id0]);
    const eurc = async () => (await ex.engine.balances(ALICE)).balances.find((r) => r.symbol === "EURC")!;
    const before = await eurc();
    const r = await batch(ex, legs);
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ detail: { detail: `order_id ${id0} appears twice in the batch`, error_code: "TRANSIENT_SETTLEMENT_FAILURE" } });
    expect(ex.engine.listOrders(ALICE)).toEqual([]);
    expect(await eurc()).toEqual(before);
    expect(before.vault_frozen).toBe("0");
  });

  it("400 INSUFFICIENT_EQUITY when the budget covers no leg", async () => {
    const ex = exchange();
    const r = await batch(ex, await vlLegs(ex, carol, twoAsks));
    expect(r.status).toBe(400);
    expect(r.body.detail.error_code).toBe("INSUFFICIENT_EQUITY");
  });
});

describe("POST /orders/preview of a VL leg", () => {
  const preview = (ex: Ex, body: unknown) => request(ex.app).post("/api/v1/orders/preview").send(body as object);
  const legBody = (ex: Ex, leg0: string, legId: number, over: { orderId?: string; executorId?: number } = {}) => {
    const orderId = over.orderId ?? ex.newId();
    const uuidInt = encodeUuidInt({ executorId: over.executorId ?? EXECUTOR, orderId, groupId: groupIdOf(leg0), legId }).toString();
    return orderBody(ex, alice, { ...twoAsks[1]!, orderId, uuidInt });
  };

  it("accepts the leg's own uuid_int (leg >= 1, group from leg 0) and echoes it in eip712_order.uuid", async () => {
    const ex = exchange();
    const leg0 = ex.newId();
    for (const legId of [1, 2, 49, 4095]) {
      const body = legBody(ex, leg0, legId);
      const r = await preview(ex, body);
      expect(r.status, `leg ${legId}`).toBe(200);
      expect(r.body.ok).toBe(true);
      expect(r.body.eip712_order.uuid).toBe(body["uuid_int"]);
    }
  });

  it("the legs, each signed from its own preview, form a batch the server accepts", async () => {
    const ex = exchange();
    // vlLegs previews every leg with its own uuid_int and signs the returned Order
    const legs = await vlLegs(ex, alice, twoAsks);
    const second = await preview(ex, { ...legs[1], signature: undefined });
    expect(second.body.eip712_order.uuid).toBe(legs[1]!["uuid_int"]);
    expect((await batch(ex, legs)).status).toBe(201);
  });

  it("still refuses a leg encoding for another executor or another order_id, and standalone POST /orders keeps refusing leg encodings", async () => {
    const ex = exchange();
    const leg0 = ex.newId();
    const stale = await preview(ex, legBody(ex, leg0, 1, { executorId: EXECUTOR + 1 }));
    expect(stale.status).toBe(400);
    expect(stale.body).toMatchObject({ ok: false, detail: expect.stringContaining("executor_id") });
    const foreign = { ...legBody(ex, leg0, 1), order_id: ex.newId() };
    const r = await preview(ex, foreign);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ ok: false, detail: "uuid_int does not embed order_id" });
    // POST /orders is a standalone order: leg_id must be 0 there
    const body = legBody(ex, leg0, 1);
    const placed = await request(ex.app).post("/api/v1/orders").send({ ...body, signature: await signViaPreview(ex, alice, body) });
    expect(placed.status).toBe(400);
    expect(placed.body.detail.detail).toContain("group_id");
    expect(ex.engine.listOrders(ALICE)).toEqual([]);
  });
});

describe("POST /orders/vl/cancel", () => {
  async function placed() {
    const ex = exchange();
    const legs = await vlLegs(ex, alice, twoAsks);
    expect((await batch(ex, legs)).status).toBe(201);
    const id = String(legs[0]!["order_id"]);
    return { ex, id, ids: legs.map((l) => String(l["order_id"])) };
  }

  it("429 CANCEL_COOLDOWN (typed) at first, then 200 {status: ok} cancelling every leg; a replay changes nothing", async () => {
    const { ex, id, ids } = await placed();
    const body = { owner_address: ALICE, vl_batch_id: id, signature: await signVlCancel(alice, id) };
    const early = await vlCancel(ex, body);
    expect(early.status).toBe(429);
    expect(early.body.detail.error_code).toBe("CANCEL_COOLDOWN");
    ex.clock.advanceSec(300);
    const ok = await vlCancel(ex, body);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ status: "ok" });
    for (const leg of ids) expect(ex.engine.getOrder(leg).status).toBe("cancelled");
    const replay = await vlCancel(ex, body);
    expect(replay.status).toBe(200);
    for (const leg of ids) expect(ex.engine.getOrder(leg).status).toBe("cancelled");
  });

  it("accepts an EIP-55 owner_address (signed payloads accept checksum addresses): 200 and every leg cancelled", async () => {
    const { ex, id, ids } = await placed();
    ex.clock.advanceSec(300);
    expect(alice.address).not.toBe(ALICE);
    const r = await vlCancel(ex, { owner_address: alice.address, vl_batch_id: id, signature: await signVlCancel(alice, id) });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: "ok" });
    for (const leg of ids) expect(ex.engine.getOrder(leg).status).toBe("cancelled");
  });

  it("400 bad signature, 404 unknown batch, 403 another owner's batch, 422 shape", async () => {
    const { ex, id } = await placed();
    ex.clock.advanceSec(300);
    const bad = await vlCancel(ex, { owner_address: ALICE, vl_batch_id: id, signature: await signVlCancel(bob, id) });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ detail: "Invalid signature: CancelVLBatch must be signed by owner_address" });
    const unknown = ex.newId();
    const r404 = await vlCancel(ex, { owner_address: ALICE, vl_batch_id: unknown, signature: await signVlCancel(alice, unknown) });
    expect(r404.status).toBe(404);
    const r403 = await vlCancel(ex, { owner_address: BOB, vl_batch_id: id, signature: await signVlCancel(bob, id) });
    expect(r403.status).toBe(403);
    for (const b of [{ owner_address: ALICE, vl_batch_id: id }, { owner_address: ALICE, vl_batch_id: 5, signature: "0x00" }]) {
      expect((await vlCancel(ex, b)).status).toBe(422);
    }
    expect(ex.engine.getOrder(id).status).toBe("pending");
  });
});
