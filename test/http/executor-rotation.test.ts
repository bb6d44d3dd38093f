// One executor id for the whole memory exchange: the engine owns it and Health reads
// it, so a rotation through either handle is seen at once by GET /health, preview,
// verify-signature, POST /orders and swaps, and identifiers of the old id stop working.
import { describe, expect, it } from "vitest";
import request from "supertest";
import { INTENT_TYPE } from "../../sim/core/typed-data.ts";
import { decodeUuidInt, standaloneUuidInt } from "../../sim/core/uuid-int.ts";
import type { QuoteWire } from "../../sim/core/quotes.ts";
import { ALICE, DOMAIN, EXECUTOR, alice, bob, exchange, orderBody, place, postOrder, signViaPreview, type Ex } from "./exchange-harness.ts";
import { intentMessageOf } from "../../fixtures/signing.ts";

const NEXT = EXECUTOR + 1;

async function healthId(ex: Ex): Promise<unknown> {
  const res = await request(ex.app).get("/api/v1/health");
  expect(res.status).toBe(200);
  expect(res.body.status).toBe("healthy");
  expect(res.body.relayer_executor_id).toBe(res.body.executor_id);
  return res.body.executor_id;
}

async function quote(ex: Ex): Promise<QuoteWire> {
  const res = await request(ex.app)
    .post("/api/v1/swap/quote")
    .send({
      from_token: ex.registry.tokenBySymbol("USDC")!.address,
      to_token: ex.registry.tokenBySymbol("EURC")!.address,
      from_amount: "5400000",
      owner_address: ALICE,
      recipient: ALICE,
      expiration: ex.clock.nowSec() + 3600,
    });
  expect(res.status).toBe(200);
  return res.body as QuoteWire;
}

async function swapBody(q: QuoteWire): Promise<Record<string, unknown>> {
  const rp = q.route_params;
  const signature = await alice.signTypedData({
    domain: DOMAIN,
    types: { Intent: INTENT_TYPE },
    primaryType: "Intent",
    message: intentMessageOf(rp),
  });
  return { uuid: q.uuid, signature };
}

const rotations: [string, (ex: Ex, id: number) => void][] = [
  ["health.setExecutorId", (ex, id) => ex.health.setExecutorId(id)],
  ["engine.setExecutorId", (ex, id) => ex.engine.setExecutorId(id)],
];

describe("executor rotation: one source of truth", () => {
  for (const [name, rotate] of rotations) {
    it(`${name}: health, preview, verify-signature, POST /orders and swaps all move together`, async () => {
      const ex = exchange();
      await place(ex, bob, { side: "ask", amount: "10", price: "1.08" });
      expect(await healthId(ex)).toBe(EXECUTOR);

      // Signed before the rotation: an order, a verify-signature request and a swap quote.
      const oldOrder = orderBody(ex, alice, { side: "ask", price: "1.2" });
      const oldSig = await signViaPreview(ex, alice, oldOrder);
      const oldQuote = await quote(ex);
      expect(decodeUuidInt(BigInt(oldQuote.route_params.uuid)).executorId).toBe(EXECUTOR);
      const oldSwap = await swapBody(oldQuote);

      rotate(ex, NEXT);
      expect(ex.engine.executorId).toBe(NEXT);
      expect(ex.health.executorId).toBe(NEXT);
      expect(await healthId(ex)).toBe(NEXT);

      // Outstanding identifiers of the old executor are refused everywhere.
      const pre = await request(ex.app).post("/api/v1/orders/preview").send(oldOrder);
      expect(pre.status).toBe(400);
      expect(pre.body.error_code).toBe("QUOTE_STALE");
      const ver = await request(ex.app).post("/api/v1/verify-signature").send({ ...oldOrder, signature: oldSig });
      expect(ver.status).toBe(400);
      expect(JSON.stringify(ver.body)).toContain("executor_id");
      const post = await postOrder(ex, { ...oldOrder, signature: oldSig });
      expect(post.status).toBe(400);
      expect(post.body.detail.error_code).toBe("QUOTE_STALE");
      const swap = await request(ex.app).post("/api/v1/swap").send(oldSwap);
      expect(swap.status).toBe(409);
      expect(swap.body.detail.error_code).toBe("QUOTE_STALE");

      // Identifiers built with the new id work everywhere.
      const fresh = orderBody(ex, alice, { side: "ask", price: "1.2" });
      fresh["uuid_int"] = standaloneUuidInt(String(fresh["order_id"]), NEXT).toString();
      const freshSig = await signViaPreview(ex, alice, fresh);
      const ok = await request(ex.app).post("/api/v1/verify-signature").send({ ...fresh, signature: freshSig });
      expect(ok.status).toBe(200);
      expect(ok.body.valid).toBe(true);
      expect((await postOrder(ex, { ...fresh, signature: freshSig })).status).toBe(201);
      ex.clock.advanceSec(1);
      const newQuote = await quote(ex);
      expect(decodeUuidInt(BigInt(newQuote.route_params.uuid)).executorId).toBe(NEXT);
      const swapped = await request(ex.app).post("/api/v1/swap").send(await swapBody(newQuote));
      expect(swapped.status).toBe(200);
      expect(swapped.body.status).toBe("pending");
    });
  }

  it("a lagging relayer still degrades health after a rotation through Health", async () => {
    const ex = exchange();
    ex.health.setExecutorId(NEXT, false);
    expect(ex.engine.executorId).toBe(NEXT);
    const res = await request(ex.app).get("/api/v1/health");
    expect(res.body).toMatchObject({ status: "degraded", executor_id: NEXT, relayer_executor_id: EXECUTOR });
  });
});
