// POST /swap through the engine: swap orders as takers of their route's fills,
// one Router.executeIntent per swap on the memory chain, receipts applied to
// the ledger (success and revert), quote time-outs from the fault plan,
// snapshot / restore with quotes and pending swaps, determinism.
import { describe, expect, it } from "vitest";
import { parseFaultPlan } from "../../sim/core/faults.ts";
import { caught, deposit, MAKER, MAKER2, ownerMismatches, quoteBody, rest, setupSwapEngine, submission, TAKER, tok, type SwapEnv } from "./engine-helpers.ts";

const FEE_RECIPIENT = "0x000000000000000000000000000000000000fee1";
/** recipient zero: the output stays in the taker's vault (non-zero: the Router sends it to that wallet). */
const IN_VAULT = { recipient: "0x0000000000000000000000000000000000000000" };

/** Maker asks 10 EURC at 1.08; the taker holds 20 USDC in its vault. */
async function directBook(env: SwapEnv): Promise<string> {
  await deposit(env, MAKER, "EURC", 10_000_000n);
  await deposit(env, TAKER, "USDC", 20_000_000n);
  return rest(env, MAKER, "EURC/USDC", "ask", "10", "1.08");
}

function vault(env: SwapEnv, owner: string, symbol: string) {
  return env.engine.ledger.peek(owner.toLowerCase(), tok(env, symbol));
}

describe("engine swaps: a direct swap settles through the memory chain", () => {
  it("equity-only: swap order of type swap, one fill, balances moved exactly, ledger equals the chain", async () => {
    const env = setupSwapEngine();
    const makerId = await directBook(env);
    const q = await env.engine.quoteSwap(quoteBody(env, "USDC", "EURC", 5_400_000n, IN_VAULT));
    expect(q.route_params.initialDepositAmount).toBe("0");
    expect(q.permit).toBeNull();

    const res = env.engine.swap(submission(q));
    expect(res).toMatchObject({ success: true, status: "pending", fee_breakdown: q.fee_breakdown });
    const accepted = env.engine.getOrder(res.trade_id);
    expect(accepted.order_type).toBe("swap");
    expect(accepted.status).toBe("matched");
    expect(accepted.uuid_int).toBe(q.route_params.uuid);
    expect(accepted.from_amount).toBe(q.route_params.maxInputAmount);
    expect(accepted.to_amount).toBe(q.route_params.minOutputAmount);
    // 5.4 USDC of the 20 frozen for the leg; the maker's 500 lots are taken at once.
    expect(vault(env, TAKER, "USDC")).toEqual({ available: 14_600_000n, frozen: 5_400_000n });
    expect(env.engine.getOrder(makerId).remaining_amount).toBe("5");

    await env.engine.settleAll();
    const settled = env.engine.getOrder(res.trade_id);
    expect(settled.status).toBe("settled");
    expect(settled.settlement_summary).toMatchObject({ total_fill_count: 1, settled_fill_count: 1, latest_parent_status: "confirmed" });
    const fills = env.engine.fillsOfOrder(res.trade_id);
    expect(fills).toHaveLength(1);
    expect(fills[0]).toMatchObject({ maker_order_id: makerId, taker_order_id: res.trade_id, quantity: "5", price: "1.08", settlement_status: "settled" });

    // Taker: 5.4 USDC out, 5 EURC in less the quoted gas (receive_less: off the output), no fee.
    // Maker: 5 EURC out, 5.4 USDC in less 20 bps (10,800 raw). The protocol: the fee and the gas.
    const gas = BigInt(q.quote_breakdown!.gas_cost_output_token);
    expect(gas).toBeGreaterThan(0n);
    expect(BigInt(q.route_params.minOutputAmount)).toBe(5_000_000n - gas);
    expect(vault(env, TAKER, "USDC")).toEqual({ available: 14_600_000n, frozen: 0n });
    expect(vault(env, TAKER, "EURC")).toEqual({ available: 5_000_000n - gas, frozen: 0n });
    expect(vault(env, MAKER, "EURC")).toEqual({ available: 0n, frozen: 5_000_000n });
    expect(vault(env, MAKER, "USDC")).toEqual({ available: 5_389_200n, frozen: 0n });
    expect(vault(env, FEE_RECIPIENT, "USDC")).toEqual({ available: 10_800n, frozen: 0n });
    expect(vault(env, FEE_RECIPIENT, "EURC")).toEqual({ available: gas, frozen: 0n });
    // The order's economics: the credit is what arrived, and the gas is a fees_paid line of type gas.
    const eurc = tok(env, "EURC");
    expect(settled.settlement_economics.gross_credits).toEqual([expect.objectContaining({ token_address: eurc, amount_raw: "5000000" })]);
    expect(settled.settlement_economics.balance_credits).toEqual([expect.objectContaining({ token_address: eurc, amount_raw: (5_000_000n - gas).toString() })]);
    expect(settled.settlement_economics.fees_paid).toEqual([expect.objectContaining({ type: "gas", token_address: eurc, amount_raw: gas.toString() })]);
    expect(env.engine.getOrder(makerId).status).toBe("pending");
    expect(await ownerMismatches(env)).toEqual([]);
    expect(env.chain.intentUsed(TAKER, BigInt(q.route_params.uuid))).toBe(true);
    expect(env.engine.desk.pendingPermitSwaps(TAKER, tok(env, "USDC"))).toBe(0);
  });

  it("balance_credits are the owner's own: the output sent to another wallet is no credit of the owner's (in its vault or its wallet it is)", async () => {
    const OTHER = "0x4444444444444444444444444444444444444444";
    const cases = [
      { recipient: OTHER, owner: 0n, other: 1n },
      // Non-zero and the owner's own address in capitals: its wallet.
      { recipient: TAKER.toUpperCase().replace("0X", "0x"), owner: 1n, other: 0n },
      { recipient: IN_VAULT.recipient, owner: 1n, other: 0n },
    ];
    for (const c of cases) {
      const env = setupSwapEngine();
      await directBook(env);
      const q = await env.engine.quoteSwap(quoteBody(env, "USDC", "EURC", 5_400_000n, { recipient: c.recipient }));
      const res = env.engine.swap(submission(q));
      await env.engine.settleAll();
      const settled = env.engine.getOrder(res.trade_id);
      expect(settled.status).toBe("settled");
      const eurc = tok(env, "EURC");
      const out = 5_000_000n - BigInt(q.quote_breakdown!.gas_cost_output_token);
      // Where the output went, on the memory chain: the other wallet, or the owner's wallet or vault.
      const ownerGot = (await env.chain.walletBalance(TAKER, eurc)) + vault(env, TAKER, "EURC").available;
      expect([ownerGot, await env.chain.walletBalance(OTHER, eurc)]).toEqual([c.owner * out, c.other * out]);
      const economics = settled.settlement_economics;
      expect(economics.balance_credits).toEqual(c.owner ? [expect.objectContaining({ token_address: eurc, amount_raw: out.toString() })] : []);
      // The gross totals stay the swap's own, whoever received the output.
      expect(economics.gross_credits).toEqual([expect.objectContaining({ token_address: eurc, amount_raw: "5000000" })]);
      expect(economics.balance_debits).toEqual([expect.objectContaining({ token_address: tok(env, "USDC"), amount_raw: "5400000" })]);
      // GET /orders shows the same economics as GET /orders/{id}.
      expect(env.engine.listOrders(TAKER).find((o) => o.trade_id === res.trade_id)?.settlement_economics).toEqual(economics);
    }
  });

  it("the event log of the same commands under the same seed is identical (and includes the swap)", async () => {
    const run = async (seed: number) => {
      const env = setupSwapEngine(seed);
      await directBook(env);
      const q = await env.engine.quoteSwap(quoteBody(env, "USDC", "EURC", 5_400_000n));
      env.engine.swap(submission(q));
      await deposit(env, MAKER2, "USDC", 10_000_000n);
      rest(env, MAKER2, "EURC/USDC", "bid", "5", "1.07");
      await env.engine.settleAll();
      const kinds = env.engine.log.snapshot();
      return { hash: env.engine.eventHash(), kinds };
    };
    const a = await run(11);
    const b = await run(11);
    const c = await run(12);
    expect(a.hash).toBe(b.hash);
    expect(c.hash).not.toBe(a.hash);
    expect(JSON.stringify(a.kinds, (_, v) => (typeof v === "bigint" ? v.toString() : v))).toContain("swap_settled");
  });

  it("wallet deposit with a permit: the Router pulls it; a pay_more surplus stays as available equity", async () => {
    for (const mode of ["receive_less", "pay_more"] as const) {
      const env = setupSwapEngine();
      await deposit(env, MAKER, "EURC", 10_000_000n);
      rest(env, MAKER, "EURC/USDC", "ask", "10", "1.08");
      env.chain.mint(TAKER, tok(env, "USDC"), 10_000_000n);
      const q = await env.engine.quoteSwap(quoteBody(env, "USDC", "EURC", 5_400_000n, { gas_mode: mode }));
      const dep = BigInt(q.route_params.initialDepositAmount);
      expect(dep).toBe(BigInt(q.route_params.maxInputAmount));
      expect(q.permit?.permit_required).toBe(true);
      const res = env.engine.swap(submission(q));
      expect(vault(env, TAKER, "USDC")).toEqual({ available: 0n, frozen: 0n });
      expect(env.engine.desk.pendingPermitSwaps(TAKER, tok(env, "USDC"))).toBe(1);

      await env.engine.settleAll();
      expect(env.engine.getOrder(res.trade_id).status).toBe("settled");
      expect(await env.chain.walletBalance(TAKER, tok(env, "USDC"))).toBe(10_000_000n - dep);
      // The quoted gas: pay_more spends it on top of the input (the deposit covers it),
      // receive_less takes it off the output.
      const gasIn = mode === "pay_more" ? BigInt(q.quote_breakdown!.gas_cost_input_token) : 0n;
      const gasOut = mode === "receive_less" ? BigInt(q.quote_breakdown!.gas_cost_output_token) : 0n;
      expect(gasIn + gasOut).toBeGreaterThan(0n);
      expect(vault(env, TAKER, "USDC")).toEqual({ available: dep - 5_400_000n - gasIn, frozen: 0n });
      // recipient = the taker: the output left the vault for its wallet.
      expect(vault(env, TAKER, "EURC")).toEqual({ available: 0n, frozen: 0n });
      expect(await env.chain.walletBalance(TAKER, tok(env, "EURC"))).toBe(5_000_000n - gasOut);
      expect(vault(env, FEE_RECIPIENT, "USDC").available - 10_800n).toBe(gasIn);
      expect(vault(env, FEE_RECIPIENT, "EURC").available).toBe(gasOut);
      if (mode === "pay_more") expect(dep).toBe(5_400_000n + gasIn);
      expect(env.engine.desk.pendingPermitSwaps(TAKER, tok(env, "USDC"))).toBe(0);
      // The Router's IntentDeposit of our own swap is not credited a second time.
      expect(await env.engine.syncVaultEvents()).toEqual({ deposits: 0, withdrawals: 0, block: await env.chain.blockNumber() });
      expect(await ownerMismatches(env)).toEqual([]);
    }
  });

  it("a two-hop swap (USDT → USDC → EURC) settles in one intent; the intermediate nets to zero", async () => {
    const env = setupSwapEngine();
    await deposit(env, MAKER, "EURC", 10_000_000n);
    await deposit(env, MAKER2, "USDC", 20_000_000n);
    await deposit(env, TAKER, "USDT", 20_000_000n);
    const ask = rest(env, MAKER, "EURC/USDC", "ask", "10", "1.08");
    const bid = rest(env, MAKER2, "USDT/USDC", "bid", "20", "1");
    const q = await env.engine.quoteSwap(quoteBody(env, "USDT", "EURC", 5_400_000n, IN_VAULT));
    const res = env.engine.swap(submission(q));
    const fills = env.engine.fillsOfOrder(res.trade_id);
    expect(fills.map((f) => f.maker_order_id)).toEqual([bid, ask]);
    await env.engine.settleAll();
    expect(env.engine.settlementBatches()).toHaveLength(1);
    expect(env.engine.settlementBatches()[0]).toMatchObject({ kind: "swap", swapOrderId: res.trade_id, status: "confirmed" });
    expect(env.engine.getOrder(res.trade_id).status).toBe("settled");
    const usdt = vault(env, TAKER, "USDT");
    expect(usdt.frozen).toBe(0n);
    expect(usdt.available).toBe(20_000_000n - 5_400_000n);
    expect(vault(env, TAKER, "USDC")).toEqual({ available: 0n, frozen: 0n });
    // receive_less: the quoted gas (two legs) comes off the EURC output.
    const gas = BigInt(q.quote_breakdown!.gas_cost_output_token);
    expect(vault(env, TAKER, "EURC").available).toBe(5_000_000n - gas);
    expect(await ownerMismatches(env)).toEqual([]);

    // The swap's view is in its own tokens: USDT spent, EURC received; the USDC legs net out.
    const o = env.engine.getOrder(res.trade_id);
    expect(o).toMatchObject({ order_type: "swap", from_token: tok(env, "USDT"), to_token: tok(env, "EURC"), filled_amount: "5400000" });
    expect(o.settlement_economics.balance_debits).toEqual([{ token: "USDT", token_address: tok(env, "USDT"), amount: "5.4", amount_raw: "5400000" }]);
    expect(o.settlement_economics.balance_credits).toEqual([expect.objectContaining({ token: "EURC", amount_raw: (5_000_000n - gas).toString() })]);
    expect(o.settlement_economics.fees_paid).toEqual([expect.objectContaining({ type: "gas", token: "EURC", amount_raw: gas.toString() })]);
    const legs = env.engine.fillsOfOrder(res.trade_id);
    expect(legs.map((l) => [l.quantity, l.price])).toEqual([
      ["5.4", "1"],
      ["5", "1.08"],
    ]);
    expect(legs[1]!.settlement_economics.gross_debits[0]).toMatchObject({ token: "USDC", amount_raw: "5400000" });
    expect(legs[1]!.settlement_economics.gross_credits[0]).toMatchObject({ token: "EURC", amount_raw: "5000000" });
  });

  it("swap and limit fills interleave: each goes out in its own transaction, in execution order", async () => {
    const env = setupSwapEngine();
    await directBook(env);
    await deposit(env, MAKER2, "USDC", 20_000_000n);
    rest(env, MAKER2, "EURC/USDC", "bid", "5", "1.09"); // crosses the ask: limit fill 1
    const q = await env.engine.quoteSwap(quoteBody(env, "USDC", "EURC", 2_160_000n));
    const res = env.engine.swap(submission(q)); // fill 2
    rest(env, MAKER2, "EURC/USDC", "bid", "5", "1.09"); // fill 3
    await env.engine.settleAll();
    const batches = env.engine.settlementBatches();
    expect(batches.map((b) => [b.kind ?? "match", [...b.fillIds]])).toEqual([
      ["match", [1]],
      ["swap", [2]],
      ["match", [3]],
    ]);
    expect(env.engine.getOrder(res.trade_id).status).toBe("settled");
    expect(await ownerMismatches(env)).toEqual([]);
  });
});

describe("engine swaps: a reverted intent fails the swap and gives every fund back", () => {
  it("the Intent deadline passes before the transaction is mined: INTENT_EXPIRED → failed, frozen equity released, maker restored", async () => {
    const env = setupSwapEngine();
    const makerId = await directBook(env);
    const q = await env.engine.quoteSwap(quoteBody(env, "USDC", "EURC", 5_400_000n, { expiration: env.clock.nowSec() + 60 }));
    const res = env.engine.swap(submission(q));
    env.chain.setAutomine(false);
    expect(await env.engine.settle()).toEqual({ broadcast: 1, confirmed: 0, failed: 0 });
    env.clock.advanceSec(120);
    await env.chain.mine(1);
    expect(await env.engine.settle()).toEqual({ broadcast: 0, confirmed: 0, failed: 1 });

    const o = env.engine.getOrder(res.trade_id);
    expect(o.status).toBe("failed");
    expect(o.error).toBe("INTENT_EXPIRED");
    expect(o.error_code).toBe("INTENT_DEADLINE_EXPIRED");
    expect(o.settlement_summary).toMatchObject({ failed_fill_count: 1, latest_parent_status: "failed" });
    expect(env.engine.fillsOfOrder(res.trade_id)[0]!.settlement_status).toBe("failed");
    expect(vault(env, TAKER, "USDC")).toEqual({ available: 20_000_000n, frozen: 0n });
    expect(vault(env, TAKER, "EURC")).toEqual({ available: 0n, frozen: 0n });
    // The maker was only partly taken: it stays pending with its quantity back.
    const maker = env.engine.getOrder(makerId);
    expect(maker.status).toBe("pending");
    expect(maker.remaining_amount).toBe("10");
    expect(vault(env, MAKER, "EURC")).toEqual({ available: 0n, frozen: 10_000_000n });
    expect(env.chain.intentUsed(TAKER, BigInt(q.route_params.uuid))).toBe(false);
    expect(await ownerMismatches(env)).toEqual([]);

    // The restored liquidity is swappable again.
    env.chain.setAutomine(true);
    const q2 = await env.engine.quoteSwap(quoteBody(env, "USDC", "EURC", 5_400_000n));
    const res2 = env.engine.swap(submission(q2));
    await env.engine.settleAll();
    expect(env.engine.getOrder(res2.trade_id).status).toBe("settled");
    expect(await ownerMismatches(env)).toEqual([]);
  });

  it("a fault-plan revert of the swap's settlement fails it through the router-leg fault hook, which is cleared after", async () => {
    const env = setupSwapEngine(7, { faults: { revertSettlements: [{ nth: 1, reason: "PAUSED" }] } });
    const makerId = await directBook(env);
    // A swap that takes the whole maker: the maker goes matched, then failed with the swap.
    const q = await env.engine.quoteSwap(quoteBody(env, "USDC", "EURC", 10_800_000n));
    const res = env.engine.swap(submission(q));
    expect(env.engine.getOrder(makerId).status).toBe("matched");
    await env.engine.settleAll();
    const o = env.engine.getOrder(res.trade_id);
    expect(o.status).toBe("failed");
    expect(o.error_code).toBe("TRANSIENT_SETTLEMENT_FAILURE");
    expect(o.settlement_summary.latest_failed_fill_failure_reason).toBe("PAUSED");
    expect(env.engine.getOrder(makerId).status).toBe("failed");
    expect(vault(env, MAKER, "EURC")).toEqual({ available: 10_000_000n, frozen: 0n });
    expect(vault(env, TAKER, "USDC")).toEqual({ available: 20_000_000n, frozen: 0n });
    expect(env.chain.snapshot().faults).toEqual([]);
    expect(await ownerMismatches(env)).toEqual([]);
  });

  it("a swap fill hit by both revertSettlements and revertFills reverts with the settlement rule's reason (the README's order)", async () => {
    const env = setupSwapEngine(7, { faults: { revertSettlements: [{ nth: 1, reason: "PAUSED" }], revertFills: [{ fill: 1, reason: "ORDER_EXPIRED" }] } });
    await directBook(env);
    const q = await env.engine.quoteSwap(quoteBody(env, "USDC", "EURC", 10_800_000n));
    const res = env.engine.swap(submission(q));
    expect(env.engine.fillRecords().map((f) => f.id)).toEqual([1]);
    await env.engine.settleAll();
    const o = env.engine.getOrder(res.trade_id);
    expect(o.status).toBe("failed");
    expect(o.settlement_summary.latest_failed_fill_failure_reason).toBe("PAUSED");
  });

  it("a bound violated on chain (the maker's vault drained by a withdrawal) reverts the intent", async () => {
    const env = setupSwapEngine();
    await directBook(env);
    const q = await env.engine.quoteSwap(quoteBody(env, "USDC", "EURC", 5_400_000n));
    const res = env.engine.swap(submission(q));
    env.chain.setAutomine(false);
    await env.engine.settle();
    // An emergency exit of the maker's frozen EURC lands before the swap's block.
    env.chain.withdraw(MAKER, tok(env, "EURC"), 10_000_000n);
    await env.chain.mine(1);
    await env.engine.settle();
    const o = env.engine.getOrder(res.trade_id);
    expect(o.status).toBe("failed");
    expect(o.error).toBe("INSUFFICIENT_VAULT_BALANCE");
    // A swap order's code is one of POST /swap's subset, which has no INSUFFICIENT_EQUITY: the catch-all
    // (to the swap, the maker's drained vault is a counterparty-state change all the same).
    expect(o.error_code).toBe("TRANSIENT_SETTLEMENT_FAILURE");
    expect(vault(env, TAKER, "USDC")).toEqual({ available: 20_000_000n, frozen: 0n });
  });

  it("two makers, one of whom an emergency exit left owing the vault: the shortfall's code is that maker's, the other maker and the swap get the catch-all", async () => {
    const env = setupSwapEngine();
    await deposit(env, MAKER, "EURC", 5_000_000n);
    await deposit(env, MAKER2, "EURC", 5_000_000n);
    await deposit(env, TAKER, "USDC", 20_000_000n);
    const first = rest(env, MAKER, "EURC/USDC", "ask", "5", "1.08");
    const second = rest(env, MAKER2, "EURC/USDC", "ask", "5", "1.09");
    const q = await env.engine.quoteSwap(quoteBody(env, "USDC", "EURC", 8_000_000n));
    const res = env.engine.swap(submission(q));
    // The swap has met both asks; before it settles, MAKER takes its frozen EURC out on
    // chain and the engine syncs it and records the debt (a matched order keeps its funds).
    env.chain.withdraw(MAKER, tok(env, "EURC"), 5_000_000n);
    await env.engine.syncVaultEvents();
    expect(env.engine.getOrder(first).status).toBe("matched");
    await env.engine.settle();
    const swap = env.engine.getOrder(res.trade_id);
    expect(swap).toMatchObject({ status: "failed", error: "INSUFFICIENT_VAULT_BALANCE", error_code: "TRANSIENT_SETTLEMENT_FAILURE" });
    expect(env.engine.getOrder(first).error_code).toBe("INSUFFICIENT_EQUITY");
    expect(env.engine.getOrder(second).error_code).toBe("TRANSIENT_SETTLEMENT_FAILURE");
  });
});

describe("engine swaps: quotes", () => {
  it("a chain port without submitIntent refuses POST /swap with 503 before anything changes", async () => {
    const env = setupSwapEngine();
    await directBook(env);
    const q = await env.engine.quoteSwap(quoteBody(env, "USDC", "EURC", 5_400_000n));
    const submitIntent = env.chain.submitIntent;
    (env.chain as { submitIntent?: unknown }).submitIntent = undefined;
    expect(await caught(() => env.engine.swap(submission(q)))).toEqual({ status: 503, code: "UNAVAILABLE" });
    (env.chain as { submitIntent?: unknown }).submitIntent = submitIntent;
    expect(env.engine.swap(submission(q)).success).toBe(true);
  });

  it("quoteTimeouts from the fault plan: listed batch items answer quote_timeout, the others price normally", async () => {
    const env = setupSwapEngine();
    await directBook(env);
    env.engine.setFaultPlan({ quoteTimeouts: { items: [1] } });
    const body = { quotes: [0, 1, 2].map(() => quoteBody(env, "USDC", "EURC", 2_160_000n)) };
    const { items } = await env.engine.quoteSwapBatch(body);
    expect(items.map((i) => i.ok)).toEqual([true, false, true]);
    expect(items[1]!.error?.rejectionCategory).toBe("quote_timeout");
    expect(items[1]!.quote).toBeNull();
    expect(items[0]!.quote!.uuid).not.toBe(items[2]!.quote!.uuid);

    env.engine.setFaultPlan({ quoteTimeouts: { fraction: 1 } });
    const all = await env.engine.quoteSwapBatch(body);
    expect(all.items.every((i) => i.error?.rejectionCategory === "quote_timeout")).toBe(true);
    expect(await caught(env.engine.quoteSwap(quoteBody(env, "USDC", "EURC", 2_160_000n)))).toEqual({ status: 503, code: "UNAVAILABLE" });

    env.engine.setFaultPlan({});
    expect((await env.engine.quoteSwapBatch(body)).items.every((i) => i.ok)).toBe(true);
  });

  it("fault-plan validation of quoteTimeouts is 422 VALIDATION", async () => {
    for (const bad of [{ quoteTimeouts: { items: [-1] } }, { quoteTimeouts: { fraction: 2 } }, { quoteTimeouts: { other: 1 } }, { quoteTimeouts: [] }]) {
      expect(await caught(() => parseFaultPlan(bad))).toEqual({ status: 422, code: "VALIDATION" });
    }
    expect(parseFaultPlan({ quoteTimeouts: { items: [0, 3], fraction: 0.5 } })).toEqual({ quoteTimeouts: { items: [0, 3], fraction: 0.5 } });
  });

  it("swapIntentOf gives the Intent to verify, 410 once consumed; a rejected swap changes nothing", async () => {
    const env = setupSwapEngine();
    await directBook(env);
    const q = await env.engine.quoteSwap(quoteBody(env, "USDC", "EURC", 5_400_000n));
    const intent = env.engine.swapIntentOf(q.uuid);
    expect(intent.uuid.toString()).toBe(q.route_params.uuid);
    const before = env.engine.eventHash();
    expect(await caught(() => env.engine.swap({ ...submission(q), signer: MAKER }))).toEqual({ status: 400, code: "SIGNATURE_INVALID" });
    expect(env.engine.eventHash()).toBe(before);
    expect(vault(env, TAKER, "USDC").frozen).toBe(0n);
    env.engine.swap(submission(q));
    expect(await caught(() => env.engine.swapIntentOf(q.uuid))).toEqual({ status: 410, code: "QUOTE_GONE" });
    expect(await caught(() => env.engine.swap(submission(q)))).toEqual({ status: 410, code: "QUOTE_GONE" });
  });
});

describe("engine swaps: snapshot / restore", () => {
  it("quotes, consumed quotes and a pending swap survive a round trip and replay to the same state", async () => {
    const env = setupSwapEngine();
    await directBook(env);
    const q1 = await env.engine.quoteSwap(quoteBody(env, "USDC", "EURC", 2_160_000n));
    const q2 = await env.engine.quoteSwap(quoteBody(env, "USDC", "EURC", 1_080_000n));
    const res = env.engine.swap(submission(q1));
    const snapE = env.engine.snapshot();
    const snapC = env.chain.snapshot();

    const play = async () => {
      await env.engine.settleAll();
      const q3 = await env.engine.quoteSwap(quoteBody(env, "USDC", "EURC", 1_080_000n));
      const r3 = env.engine.swap(submission(q3));
      await env.engine.settleAll();
      return { hash: env.engine.eventHash(), rows: env.engine.ledger.rows(), r3: env.engine.getOrder(r3.trade_id).status };
    };
    const first = await play();
    expect(first.r3).toBe("settled");
    expect(env.engine.getOrder(res.trade_id).status).toBe("settled");

    env.engine.restore(snapE);
    env.chain.restore(snapC);
    expect(env.engine.getOrder(res.trade_id).status).toBe("matched");
    expect(await caught(() => env.engine.swapIntentOf(q1.uuid))).toEqual({ status: 410, code: "QUOTE_GONE" });
    expect(env.engine.swapIntentOf(q2.uuid).uuid.toString()).toBe(q2.route_params.uuid);
    expect(env.engine.desk.swapSequence(TAKER)).toBe(1);
    // q2 was quoted before q1's swap was accepted: stale after the restore as before it.
    expect(await caught(() => env.engine.swap(submission(q2)))).toEqual({ status: 409, code: "QUOTE_STALE" });
    expect(vault(env, TAKER, "USDC").frozen).toBe(2_160_000n);

    const second = await play();
    expect(second.hash).toBe(first.hash);
    expect(second.rows).toEqual(first.rows);
    expect(await ownerMismatches(env)).toEqual([]);
  });
});
