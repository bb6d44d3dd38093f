// The shared field schemas (sim/http/fields.ts) and the routes that use them: one
// uint256 rule everywhere, each route keeping its own failure status.
import { describe, expect, it } from "vitest";
import request from "supertest";
import { isUint256Text, zAddress, zAddressLower, zHex, zUint256, zUnixSeconds, zUuid4 } from "../../sim/http/fields.ts";
import { ALICE, exchange, orderBody, alice } from "./exchange-harness.ts";

const MAX = ((1n << 256n) - 1n).toString();
const OVER = (1n << 256n).toString();

describe("isUint256Text / zUint256", () => {
  it("accepts decimal uint256 text under its rules and never throws on junk", () => {
    for (const s of ["0", "1", "007", MAX]) expect(isUint256Text(s), s).toBe(true);
    for (const s of ["", "1.5", "1e3", "-1", "+1", " 1", "0x10", "１", OVER, "9".repeat(79)]) expect(isUint256Text(s), s).toBe(false);
    expect(isUint256Text("007", { canonical: true })).toBe(false);
    expect(isUint256Text("0", { canonical: true })).toBe(true);
    expect(isUint256Text("0", { positive: true })).toBe(false);
    expect(isUint256Text("00", { canonical: true, positive: true })).toBe(false);
    expect(isUint256Text("10", { canonical: true, positive: true })).toBe(true);
  });

  it("zUint256 fails with its message (and the not-a-string message) instead of throwing", () => {
    const s = zUint256("bad uint", { canonical: true }, "not a string");
    expect(s.safeParse("42").success).toBe(true);
    const junk = s.safeParse("1.5");
    expect(junk.success).toBe(false);
    expect(junk.error!.issues[0]!.message).toBe("bad uint");
    expect(s.safeParse(42).error!.issues[0]!.message).toBe("not a string");
  });

  it("address, uuid, unix seconds and hex schemas", () => {
    const a = "0xAbCdEf0123456789aBcDeF0123456789AbCdEf01";
    expect(zAddress.parse(a)).toBe(a);
    expect(zAddressLower.parse(a)).toBe(a.toLowerCase());
    expect(zAddress.safeParse("0x1234").success).toBe(false);
    expect(zUuid4.safeParse("0f8fad5b-d9cb-469f-a165-70867728950e").success).toBe(true);
    expect(zUuid4.safeParse("0f8fad5b-d9cb-169f-a165-70867728950e").success).toBe(false);
    expect(zUnixSeconds.parse(17)).toBe(17);
    expect(zUnixSeconds.parse("17")).toBe("17");
    for (const v of [-1, 1.5, "1.5", "12a", OVER]) expect(zUnixSeconds.safeParse(v).success, String(v)).toBe(false);
    expect(zHex("x").safeParse("0x").success).toBe(true);
    expect(zHex("x", { nonEmpty: true }).safeParse("0x").success).toBe(false);
    expect(zHex("x").safeParse("0xabc").success).toBe(false);
  });

  it("an address is exactly 40 hex digits: anything after them is refused, not ignored", async () => {
    const a = "0xAbCdEf0123456789aBcDeF0123456789AbCdEf01";
    for (const tail of ["00", "x", " ", "\n"]) {
      expect(zAddress.safeParse(a + tail).success, JSON.stringify(tail)).toBe(false);
      expect(zAddressLower.safeParse(a + tail).success, JSON.stringify(tail)).toBe(false);
    }
    const ex = exchange();
    const res = await request(ex.app).post("/api/v1/api-keys").send({ owner_address: `${ALICE}00`, action: "create", timestamp: 1, signature: "0x00" });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: "body.owner_address: must be a 0x-prefixed 20-byte hex address" });
  });

  it("a string field that is absent says it is required; one of another type says it must be a string", () => {
    for (const schema of [zAddress, zUuid4, zHex("x")]) {
      expect(schema.safeParse(undefined).error!.issues[0]!.message).toBe("is required");
      expect(schema.safeParse(42).error!.issues[0]!.message).toBe("must be a string");
    }
    // Fields with their own not-a-string wording (signatures, uint256 strings) say "is required" when absent too.
    for (const [schema, notString] of [[zHex("x", { error: "must be a hex string" }), "must be a hex string"], [zUint256("bad", {}, "must be a decimal string"), "must be a decimal string"]] as const) {
      expect(schema.safeParse(undefined).error!.issues[0]!.message).toBe("is required");
      expect(schema.safeParse(42).error!.issues[0]!.message).toBe(notString);
    }
  });

  it("over HTTP: POST /api-keys names a missing field as required, a mistyped one as not a string", async () => {
    const ex = exchange();
    const res = await request(ex.app).post("/api/v1/api-keys").send({ owner_address: ALICE, timestamp: 1, signature: "0x00" });
    expect(res.status).toBe(422);
    expect(res.body.detail).toContain("body.action: action is required");
    const typed = await request(ex.app).post("/api/v1/api-keys").send({ owner_address: ALICE, action: 5, timestamp: 1, signature: "0x00" });
    expect(typed.body.detail).toContain("body.action: action must be a string");
  });
});

describe("routes keep their own status for a bad uint256 field", () => {
  it("POST /orders uuid_int '1.5' is 400 typed (catch-all code); POST /swap/quote from_amount '1.5' is 422", async () => {
    const ex = exchange();
    const order = await request(ex.app).post("/api/v1/orders").send({ ...orderBody(ex, alice), uuid_int: "1.5", signature: "0x00" });
    expect(order.status).toBe(400);
    expect(order.body.detail.error_code).toBe("TRANSIENT_SETTLEMENT_FAILURE");
    const quote = await request(ex.app)
      .post("/api/v1/swap/quote")
      .send({
        from_token: ex.registry.tokenBySymbol("USDC")!.address,
        to_token: ex.registry.tokenBySymbol("EURC")!.address,
        from_amount: "1.5",
        owner_address: ALICE,
        recipient: ALICE,
        expiration: ex.clock.nowSec() + 3600,
      });
    expect(quote.status).toBe(422);
    expect(quote.body.detail).toContain("from_amount");
  });

  it("API-key management: timestamp '12a' is 422", async () => {
    const ex = exchange();
    const res = await request(ex.app).post("/api/v1/api-keys").send({ owner_address: ALICE, action: "create", timestamp: "12a", signature: "0x00", label: "x" });
    expect(res.status).toBe(422);
    expect(res.body.detail).toContain("timestamp");
  });
});
