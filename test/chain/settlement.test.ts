// The engine settling on Anvil through the Anvil port: real deposits, real
// EIP-712 signatures carried through to the Exchange, fills confirming then
// settled, reverts and failed batches, block modes.
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from "vitest";
import type { Hex } from "../../sim/core/typed-data.ts";
import { anvilEngine, depositOnChain, ledgerMismatches, signedBody, startTestChain, type ChainCtx } from "./helpers.ts";

let ctx: ChainCtx;
let snap: Hex;

beforeAll(async () => {
  ctx = await startTestChain(3);
}, 60_000);
afterAll(async () => {
  await ctx?.chain.stop();
});
beforeEach(async () => {
  snap = (await fetchRpc("evm_snapshot")) as Hex;
});
afterEach(async () => {
  await fetchRpc("evm_revert", [snap]);
});

async function fetchRpc(method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(ctx.chain.info.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
}

const UNIT = 1_000_000n; // USDT and USDC both have 6 decimals

describe("engine on the Anvil port", () => {
  it("deposits sync from chain; a crossing pair settles on chain with tx_hash; vault equals ledger", async () => {
    const env = await anvilEngine(ctx);
    const [alice, bob] = ctx.traders;
    await depositOnChain(ctx, alice!, "USDT", 100n * UNIT);
    await depositOnChain(ctx, bob!, "USDC", 200n * UNIT);
    expect(await env.engine.syncDeposits()).toBe(2);
    const usdt = ctx.registry.tokenBySymbol("USDT")!.address;
    expect(env.engine.ledger.available(alice!.address.toLowerCase(), usdt)).toBe(100n * UNIT);

    const ask = await signedBody(env, alice!, { side: "ask", amount: "20", price: "1.1" });
    const bid = await signedBody(env, bob!, { side: "bid", amount: "20", price: "1.2" });
    env.engine.placeOrder(ask.body);
    const placed = env.engine.placeOrder(bid.body);
    expect(placed.fillIds).toEqual([1]);

    const report = await env.engine.settle();
    expect(report).toEqual({ broadcast: 1, confirmed: 1, failed: 0 });
    const fill = env.engine.fillsOfOrder(placed.orderId)[0]!;
    expect(fill.settlement_status).toBe("settled");
    expect(fill.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    const rc = await ctx.pub.getTransactionReceipt({ hash: fill.tx_hash as Hex });
    expect(rc.status).toBe("success");
    expect(env.engine.getOrder(placed.orderId).status).toBe("settled");
    // The taker bid gave 22 USDC at the maker's price (20 × 1.1) out of its signed 24.
    expect(await env.port.filledOf(bid.message)).toBe(22n * UNIT);
    expect(await env.port.filledOf(ask.message)).toBe(20n * UNIT);
    expect(await ledgerMismatches(env, [alice!.address, bob!.address])).toEqual([]);
  });
});
