// Bugs the fuzzers found, each pinned at the HTTP surface where it showed.

import request from "supertest";
import { describe, expect, it } from "vitest";
import { alice, exchange, orderBody } from "../http/exchange-harness.ts";
import { stateOf } from "./state.ts";

const HUGE_AMOUNT = "1281323478615352098428600341856287888408075851895565188594752009758866082069404836224342280";
const HUGE_PRICE = "9".repeat(83);

describe("an order whose raw legs overflow uint256 (was: unexpected exception -> 503 on /orders and /verify-signature, 200 on preview)", () => {
  const cases = [
    ["amount", (b: Record<string, unknown>) => ({ ...b, amount: HUGE_AMOUNT }), "amount is too large: its raw value exceeds uint256"],
    ["price", (b: Record<string, unknown>) => ({ ...b, side: "bid", price: HUGE_PRICE }), "amount × price is too large: the raw quote amount exceeds uint256"],
  ] as const;

  it.each(cases)("huge %s: 400 (the catch-all code) on preview, POST /orders, /orders/vl/batch and /verify-signature; nothing changes", async (_name, make, detail) => {
    const logged: string[] = [];
    const ex = exchange({ logger: { error: (m) => void logged.push(m) } });
    const body = make(orderBody(ex, alice));
    const signed = { ...body, signature: `0x${"1b".repeat(65)}` };
    const before = stateOf(ex);
    const preview = await request(ex.app).post("/api/v1/orders/preview").send(body);
    expect(preview.status).toBe(400);
    expect(preview.body).toEqual({ ok: false, error_code: "TRANSIENT_SETTLEMENT_FAILURE", detail });
    const order = await request(ex.app).post("/api/v1/orders").send(signed);
    expect(order.status).toBe(400);
    expect(order.body).toEqual({ detail: { detail, error_code: "TRANSIENT_SETTLEMENT_FAILURE" } });
    const vl = await request(ex.app).post("/api/v1/orders/vl/batch").send({ orders: [signed, signed] });
    expect(vl.status).toBe(400);
    expect(vl.body.detail.error_code).toBe("TRANSIENT_SETTLEMENT_FAILURE");
    const verify = await request(ex.app).post("/api/v1/verify-signature").send(signed);
    expect(verify.status).toBe(400);
    expect(verify.body).toEqual({ detail });
    expect(stateOf(ex)).toBe(before);
    expect(logged).toEqual([]);
  });

  it("the largest amount that still fits is not refused for size (it fails later, on funds)", async () => {
    const ex = exchange();
    // 10^70 EURC (6 decimals) = 10^76 raw < 2^256 ≈ 1.16·10^77; quote 1.08 · 10^76 raw also fits.
    const body = { ...orderBody(ex, alice), amount: `1${"0".repeat(70)}` };
    const preview = await request(ex.app).post("/api/v1/orders/preview").send(body);
    expect(preview.status).toBe(200);
    expect(preview.body.eip712_order.fromAmount).toBe(`1${"0".repeat(76)}`);
  });
});
