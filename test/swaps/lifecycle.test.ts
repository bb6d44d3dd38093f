// The spec's "Swap quote lifecycle" table, row by row, on the desk alone
// (POST /swap after the HTTP layer verified the signature).
import { describe, expect, it } from "vitest";
import { QUOTE_TTL_MS } from "../../sim/core/quotes.ts";
import { MAKER, TAKER, caught, quoteBody, rest, setVault, setupDesk, token, validSwap, type DeskEnv } from "./helpers.ts";

const OTHER = "0xeeee00000000000000000000000000000000eeee";

async function quoted(env: DeskEnv, over: Record<string, unknown> = {}, amount = 5_400000n) {
  return env.desk.quote(quoteBody(env, "USDC", "EURC", amount, over));
}

function book(env: DeskEnv) {
  return { best: rest(env, "EURC/USDC", "ask", "10", "1.08"), next: rest(env, "EURC/USDC", "ask", "10", "1.20", { owner: MAKER }) };
}

describe("swap quote lifecycle", () => {
  it("issued → consumed by the first fully valid POST /swap; the route is re-walked and the swap state advances", async () => {
    const env = setupDesk();
    const { best } = book(env);
    const q = await quoted(env);
    const before = env.desk.swapSequence(TAKER);
    const p = env.desk.accept(validSwap(q));
    expect(env.desk.quoteRecord(q.uuid)!.consumed).toBe(true);
    expect(env.desk.swapSequence(TAKER)).toBe(before + 1);
    expect(p.route.legs.map((l) => l.maker.id)).toEqual([best.id]);
    expect(p.route.output).toBe(5_000000n);
    expect(p.permit).toEqual({ value: 5_400000n, deadline: BigInt(q.permit!.eip712!.message.deadline), signature: "0x" + "cd".repeat(65) });
  });

  it("expires about 30 s after issue on the virtual clock: 410 after, live just before", async () => {
    const env = setupDesk();
    book(env);
    const q = await quoted(env);
    env.clock.advanceMs(QUOTE_TTL_MS - 1);
    expect(env.desk.intentOf(q.uuid).taker).toBe(TAKER.toLowerCase());
    env.clock.advanceMs(1);
    const e = await caught(() => env.desk.accept(validSwap(q)));
    expect([e.status, e.code]).toEqual([410, "QUOTE_GONE"]);
    expect(env.desk.quoteRecord(q.uuid)!.consumed).toBe(false);
    const i = await caught(() => env.desk.intentOf(q.uuid));
    expect(i.status).toBe(410);
  });

  it("an unknown quote id is 410", async () => {
    const env = setupDesk();
    for (const id of ["6f1c9a3e-1234-4abc-8def-0123456789ab", 12, undefined]) {
      const e = await caught(() => env.desk.accept({ uuid: id, signer: TAKER, signature: "0x00" }));
      expect([e.status, e.code]).toEqual([410, "QUOTE_GONE"]);
    }
  });

  it("a second valid caller gets 410", async () => {
    const env = setupDesk();
    rest(env, "EURC/USDC", "ask", "100", "1.08");
    const q = await quoted(env);
    env.desk.accept(validSwap(q));
    const e = await caught(() => env.desk.accept(validSwap(q)));
    expect([e.status, e.code]).toEqual([410, "QUOTE_GONE"]);
  });

  it("signature mismatch is 400 and does not consume", async () => {
    const env = setupDesk();
    book(env);
    const q = await quoted(env);
    for (const signer of [MAKER, null]) {
      const e = await caught(() => env.desk.accept(validSwap(q, { signer })));
      expect([e.status, e.code]).toEqual([400, "SIGNATURE_INVALID"]);
    }
    const bad = await caught(() => env.desk.accept(validSwap(q, { signature: "nope" })));
    expect(bad.status).toBe(400);
    expect(env.desk.quoteRecord(q.uuid)!.consumed).toBe(false);
    expect(() => env.desk.accept(validSwap(q))).not.toThrow();
  });

  it("missing or mismatched permit fields are 400 and do not consume; a 64-byte compact permit signature is accepted", async () => {
    const env = setupDesk();
    book(env);
    const q = await quoted(env);
    const dl = q.permit!.eip712!.message.deadline;
    for (const over of [
      { permit_signature: undefined },
      { permit_deadline: undefined },
      { permit_deadline: dl + 1 },
      { permit_signature: "0x1234" },
    ]) {
      const e = await caught(() => env.desk.accept(validSwap(q, over)));
      expect([e.status, e.code]).toEqual([400, "ALLOWANCE_INSUFFICIENT"]);
    }
    expect(env.desk.quoteRecord(q.uuid)!.consumed).toBe(false);
    const p = env.desk.accept(validSwap(q, { permit_signature: "0x" + "ef".repeat(64) }));
    expect(p.permit!.signature).toHaveLength(130);
  });

  it("an equity-only quote needs no permit fields", async () => {
    const env = setupDesk();
    book(env);
    setVault(env, TAKER, "USDC", 10_000000n);
    const q = await quoted(env);
    expect(q.permit).toBeNull();
    const p = env.desk.accept({ uuid: q.uuid, signer: TAKER, signature: "0x" + "ab".repeat(65) });
    expect(p.permit).toBeNull();
  });

  it("a non-permit token's quote needs no permit fields either (approve flow)", async () => {
    const env = setupDesk();
    rest(env, "USDT/USDC", "bid", "100", "0.9999");
    const q = await env.desk.quote(quoteBody(env, "USDT", "USDC", 50_000000n));
    expect(q.permit!.permit_supported).toBe(false);
    const p = env.desk.accept({ uuid: q.uuid, signer: TAKER, signature: "0x" + "ab".repeat(65) });
    expect(p.permit).toBeNull();
    expect(p.quote.intent.initialDepositAmount).toBe(50_000000n);
  });

  it("an informational quote (minOutputAmount 0) is rejected with 400 and not consumed", async () => {
    const env = setupDesk();
    book(env);
    const q = await quoted(env, {}, 50_000000n);
    expect(q.route_params.minOutputAmount).toBe("0");
    const e = await caught(() => env.desk.accept(validSwap(q)));
    expect([e.status, e.code]).toEqual([400, "NO_LIQUIDITY"]);
    expect(env.desk.quoteRecord(q.uuid)!.consumed).toBe(false);
  });

  it("a route whose whole output goes to gas is informational too (minOutputAmount 0): 400, not consumed", async () => {
    // Gas of 5 USD in EURC is more than the 0.92 EURC 1 USDC buys.
    const env = setupDesk({ gas: { baseUsd: "5", perLegUsd: "0" } });
    book(env);
    const q = await quoted(env, {}, 1_000000n);
    expect(q.quote_breakdown!.output_amount_before_gas).toBe("920000");
    expect(q.route_params.minOutputAmount).toBe("0");
    const e = await caught(() => env.desk.accept(validSwap(q)));
    expect([e.status, e.code]).toEqual([400, "NO_LIQUIDITY"]);
    expect(env.desk.quoteRecord(q.uuid)!.consumed).toBe(false);
  });

  it("an informational quote stays refused (400 NO_LIQUIDITY, not consumed) even once liquidity arrives so the route would now fill", async () => {
    const env = setupDesk();
    book(env);
    const q = await quoted(env, {}, 50_000000n);
    expect(q.route_params.minOutputAmount).toBe("0");
    rest(env, "EURC/USDC", "ask", "100", "1.08", { owner: MAKER });
    const before = env.desk.swapSequence(TAKER);
    const e = await caught(() => env.desk.accept(validSwap(q)));
    expect([e.status, e.code]).toEqual([400, "NO_LIQUIDITY"]);
    expect(env.desk.quoteRecord(q.uuid)!.consumed).toBe(false);
    expect(env.desk.swapSequence(TAKER)).toBe(before);
    // The same size quoted now is executable: the refusal is the old quote's, not the book's.
    const fresh = await quoted(env, {}, 50_000000n);
    expect(fresh.route_params.minOutputAmount).not.toBe("0");
  });

  it("409 QUOTE_STALE when the wallet's swap state advanced, without consuming; a fresh quote works", async () => {
    const env = setupDesk();
    rest(env, "EURC/USDC", "ask", "100", "1.08");
    setVault(env, TAKER, "USDC", 100_000000n);
    const a = await quoted(env);
    const b = await quoted(env);
    env.desk.accept(validSwap(a));
    const e = await caught(() => env.desk.accept(validSwap(b)));
    expect([e.status, e.code]).toEqual([409, "QUOTE_STALE"]);
    expect(env.desk.quoteRecord(b.uuid)!.consumed).toBe(false);
    // Another wallet's swaps do not make this wallet's quotes stale.
    const c = await quoted(env);
    const other = await env.desk.quote(quoteBody(env, "USDC", "EURC", 5_400000n, { owner_address: OTHER, recipient: OTHER }));
    env.desk.accept(validSwap(other));
    expect(() => env.desk.accept(validSwap(c))).not.toThrow();
  });

  it("409 QUOTE_STALE after an executor rotation or when vault equity no longer covers the equity part", async () => {
    const env = setupDesk();
    rest(env, "EURC/USDC", "ask", "100", "1.08");
    setVault(env, TAKER, "USDC", 100_000000n);
    const q = await quoted(env);
    env.executor.id = 9;
    const e = await caught(() => env.desk.accept(validSwap(q)));
    expect([e.status, e.code]).toEqual([409, "QUOTE_STALE"]);
    env.executor.id = 5;
    setVault(env, TAKER, "USDC", 1_000000n);
    const f = await caught(() => env.desk.accept(validSwap(q)));
    expect([f.status, f.code]).toEqual([409, "QUOTE_STALE"]);
    expect(env.desk.quoteRecord(q.uuid)!.consumed).toBe(false);
  });

  it("409 QUOTE_STALE when the signed deadline passed before submission while the quote is live; not consumed", async () => {
    const env = setupDesk();
    book(env);
    const q = await quoted(env, { expiration: env.clock.nowSec() + 5 });
    env.clock.advanceSec(5);
    const e = await caught(() => env.desk.accept(validSwap(q)));
    expect([e.status, e.code]).toEqual([409, "QUOTE_STALE"]);
    expect(env.desk.quoteRecord(q.uuid)!.consumed).toBe(false);
  });

  it("400 SLIPPAGE_EXCEEDED when the book moved below minOutputAmount, NO_LIQUIDITY when it emptied; not consumed", async () => {
    const env = setupDesk();
    const { best, next } = book(env);
    const q = await quoted(env);
    best.inBook = false;
    const e = await caught(() => env.desk.accept(validSwap(q)));
    expect([e.status, e.code]).toEqual([400, "SLIPPAGE_EXCEEDED"]);
    next.inBook = false;
    const n = await caught(() => env.desk.accept(validSwap(q)));
    expect([n.status, n.code]).toEqual([400, "NO_LIQUIDITY"]);
    expect(env.desk.quoteRecord(q.uuid)!.consumed).toBe(false);
  });

  it("400 SLIPPAGE_EXCEEDED when the output still reaches minOutputAmount but not once the Router takes the gas off it (receive_less)", async () => {
    const env = setupDesk();
    const { best } = book(env);
    const q = await quoted(env);
    // 5 EURC quoted, minOutputAmount 5 EURC less the gas (~0.23). The best ask moves from 1.08
    // to 1.10: 5.4 USDC now buy about 4.9 EURC, above the minimum but not once the gas is off.
    expect(BigInt(q.route_params.minOutputAmount)).toBeLessThan(4_900_000n);
    expect(BigInt(q.route_params.minOutputAmount) + BigInt(q.quote_breakdown!.gas_cost_output_token)).toBe(5_000_000n);
    best.inBook = false;
    rest(env, "EURC/USDC", "ask", "10", "1.10");
    const e = await caught(() => env.desk.accept(validSwap(q)));
    expect([e.status, e.code]).toEqual([400, "SLIPPAGE_EXCEEDED"]);
    expect(env.desk.quoteRecord(q.uuid)!.consumed).toBe(false);
  });

  it("409 STP_BLOCKED when the taker's own order now sits in the route", async () => {
    const env = setupDesk();
    book(env);
    const q = await quoted(env);
    rest(env, "EURC/USDC", "ask", "10", "1.01", { owner: TAKER });
    const e = await caught(() => env.desk.accept(validSwap(q)));
    expect([e.status, e.code]).toEqual([409, "STP_BLOCKED"]);
  });

  it("snapshot / restore brings back quotes, swap state and pending swaps", async () => {
    const env = setupDesk();
    rest(env, "EURC/USDC", "ask", "100", "1.08");
    const q = await quoted(env);
    const snap = env.desk.snapshot();
    const p = env.desk.accept(validSwap(q));
    expect(env.desk.pendingPermitSwaps(TAKER.toLowerCase(), token(env, "USDC").address)).toBe(1);
    env.desk.restore(snap);
    expect(env.desk.quoteRecord(q.uuid)!.consumed).toBe(false);
    expect(env.desk.swapSequence(TAKER)).toBe(0);
    expect(env.desk.pendingPermitSwaps(TAKER.toLowerCase(), token(env, "USDC").address)).toBe(0);
    expect(env.desk.accept(validSwap(q)).quote.tradeId).toBe(p.quote.tradeId);
  });
});
