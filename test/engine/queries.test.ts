import { describe, expect, it } from "vitest";
import { balanceRows } from "../../sim/core/balance-rows.ts";
import { ExchangeError } from "../../sim/core/errors.ts";
import { ALICE, BOB, EXECUTOR_ID, body, fund, setup } from "./helpers.ts";

describe("deposits, balances, executor rotation, order listing", () => {
  it("syncDeposits credits chain deposit events once, in block order", async () => {
    const env = setup();
    const usdc = env.registry.tokenBySymbol("USDC")!.address;
    env.chain.mint(ALICE, usdc, 50_000000n);
    env.chain.deposit(ALICE, usdc, 20_000000n);
    env.chain.deposit(ALICE, usdc, 5_000000n);
    expect(await env.engine.syncDeposits()).toBe(2);
    expect(await env.engine.syncDeposits()).toBe(0);
    const b = await env.engine.balances(ALICE);
    expect(b.balances).toEqual([
      {
        token: usdc,
        symbol: "USDC",
        decimals: 6,
        wallet_balance: "25000000",
        vault_available: "25000000",
        vault_frozen: "0",
        vault_total: "25000000",
        total: "50000000",
      },
    ]);
    expect(b).toMatchObject({ owner_address: ALICE.toLowerCase(), wallet_balance_available: true, updated_at: env.clock.iso() });
    // include_zero lists every registry token
    expect((await env.engine.balances(ALICE, true)).balances).toHaveLength(env.registry.tokens().length);
  });

  it("balances are the rows balanceRows builds (one builder): a failed wallet read makes the whole wallet column unknown", async () => {
    const env = setup();
    const usdc = env.registry.tokenBySymbol("USDC")!.address;
    const eurc = env.registry.tokenBySymbol("EURC")!.address;
    fund(env, ALICE, "USDC", 7_000000n);
    env.chain.mint(ALICE, eurc, 3_000000n);
    const online = await env.engine.balances(ALICE);
    const expected = (wallets: Map<string, bigint> | null) =>
      balanceRows({
        owner: ALICE.toLowerCase(),
        tokens: env.registry.tokens(),
        vault: (t) => env.engine.ledger.peek(ALICE.toLowerCase(), t),
        wallets,
        includeZero: false,
        updatedAt: env.clock.iso(),
      });
    expect(online).toEqual(expected(new Map([[eurc, 3_000000n]])));
    expect(online.balances.map((r) => r.wallet_balance)).toContain("3000000");
    // The USDC contract cannot be read: no wallet value is trusted, as on GET /balances.
    const read = env.chain.walletBalance.bind(env.chain);
    env.chain.walletBalance = async (o, t) => {
      if (t === usdc) throw new Error("node down");
      return read(o, t);
    };
    const offline = await env.engine.balances(ALICE);
    expect(offline).toEqual(expected(null));
    expect(offline.wallet_balance_available).toBe(false);
    expect(offline.balances.find((r) => r.symbol === "USDC")).toMatchObject({ wallet_balance: "0", vault_total: "7000000" });
  });

  it("creditDeposit rejects unknown tokens and non-positive amounts", () => {
    const env = setup();
    const bad = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return [(e as ExchangeError).status, (e as ExchangeError).code];
      }
      return null;
    };
    expect(bad(() => env.engine.creditDeposit(ALICE, "0x9999999999999999999999999999999999999999", 1n))).toEqual([400, "VALIDATION"]);
    expect(bad(() => env.engine.creditDeposit(ALICE, env.registry.tokenBySymbol("USDC")!.address, 0n))).toEqual([400, "VALIDATION"]);
  });

  it("a changed executor id invalidates outstanding signed ids", () => {
    const env = setup();
    fund(env, ALICE, "EURC", 100_000000n);
    const b = body(env, { owner: ALICE, side: "ask", amount: "10", price: "1.1" });
    env.engine.setExecutorId(EXECUTOR_ID + 1);
    try {
      env.engine.placeOrder(b);
      throw new Error("accepted");
    } catch (e) {
      expect([(e as ExchangeError).status, (e as ExchangeError).code]).toEqual([400, "UUID_INT_MISMATCH"]);
    }
    expect(() => env.engine.setExecutorId(16)).toThrow(RangeError);
  });

  it("an owner's list keeps placement order across reads, other owners' orders, cancel-all and snapshot/restore", () => {
    const env = setup();
    fund(env, ALICE, "EURC", 100_000000n);
    fund(env, BOB, "EURC", 100_000000n);
    const place = (owner: typeof ALICE, price: string) => env.engine.placeOrder(body(env, { owner, side: "ask", amount: "10", price })).orderId;
    const a1 = place(ALICE, "1.1");
    expect(env.engine.listOrders(ALICE).map((o) => o.trade_id)).toEqual([a1]);
    const b1 = place(BOB, "1.2");
    const a2 = place(ALICE, "1.3");
    const snap = env.engine.snapshot();
    const a3 = place(ALICE, "1.4");
    expect(env.engine.listOrders(ALICE.toUpperCase().replace("0X", "0x")).map((o) => o.trade_id)).toEqual([a1, a2, a3]);
    expect(env.engine.listOrders(BOB).map((o) => o.trade_id)).toEqual([b1]);
    // cancel-all sees every order placed so far, including ones no read has listed yet.
    const a4 = place(ALICE, "1.5");
    env.clock.advanceSec(301); // past every order's cancel cooldown
    expect(env.engine.cancelAll(ALICE)).toEqual({ cancelled: [a1, a2, a3, a4], failed: [], skipped_cooldown: [], total: 4 });
    expect(env.engine.listOrders(ALICE).map((o) => [o.trade_id, o.status])).toEqual([a1, a2, a3, a4].map((id) => [id, "cancelled"]));
    env.engine.restore(snap);
    expect(env.engine.listOrders(ALICE).map((o) => [o.trade_id, o.status])).toEqual([[a1, "pending"], [a2, "pending"]]);
    const a5 = place(ALICE, "1.6");
    expect(env.engine.listOrders(ALICE).map((o) => o.trade_id)).toEqual([a1, a2, a5]);
    expect(env.engine.listOrders(BOB).map((o) => o.trade_id)).toEqual([b1]);
  });

  it("lists an owner's orders in placement order with every Order field of the spec", () => {
    const env = setup();
    fund(env, ALICE, "EURC", 100_000000n);
    const ids = [1, 2, 3].map((i) => env.engine.placeOrder(body(env, { owner: ALICE, side: "ask", amount: "10", price: `1.${i}` })).orderId);
    const list = env.engine.listOrders(ALICE);
    expect(list.map((o) => o.trade_id)).toEqual(ids);
    expect(env.engine.listOrders(BOB)).toEqual([]);
    expect(Object.keys(list[0]!).sort()).toEqual(
      [
        "trade_id", "owner_address", "status", "order_type", "symbol", "base_symbol", "quote_symbol", "side", "base_token", "quote_token",
        "price", "amount", "remaining_amount", "filled_base_amount", "filled_quote_amount", "notional", "remaining_notional", "from_token",
        "to_token", "from_amount", "to_amount", "filled_amount", "created_at", "updated_at", "expiration", "error", "error_code", "uuid_int",
        "vl_batch_id", "settlement_summary", "settlement_economics",
      ].sort(),
    );
    expect(list[0]).toMatchObject({ notional: "11", remaining_notional: "11", order_type: "limit", error: null, error_code: null, vl_batch_id: null });
    try {
      env.engine.getOrder("0b0b0b0b-0b0b-4b0b-8b0b-0b0b0b0b0b0b");
      throw new Error("found");
    } catch (e) {
      expect([(e as ExchangeError).status, (e as ExchangeError).code]).toEqual([404, "NOT_FOUND"]);
    }
  });
});
