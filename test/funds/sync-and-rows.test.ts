// Pieces of the funds flow that need no chain node: the funds sync through the
// engine's vault sync (memory chain), the balance rows, and the 503 mapping when the
// node cannot be reached.
import { describe, expect, it } from "vitest";
import { createPublicClient, http } from "viem";
import { FundsReader } from "../../sim/chain/funds-reads.ts";
import { MemoryChain } from "../../sim/chain/memory.ts";
import { TxBuilder } from "../../sim/chain/tx-builder.ts";
import { balanceRows } from "../../sim/core/balance-rows.ts";
import { VirtualClock } from "../../sim/core/clock.ts";
import { Engine } from "../../sim/core/engine.ts";
import { ExchangeError } from "../../sim/core/errors.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry } from "../../sim/core/registry.ts";
import { exchangeDomain, type Address } from "../../sim/core/typed-data.ts";
import { WithdrawCoSigner } from "../../sim/core/withdraw.ts";
import { createFundsServices } from "../../sim/http/funds-services.ts";

const USER = "0x00000000000000000000000000000000000a11ce" as Address;
const TOKEN = "0x00000000000000000000000000000000000070c0" as Address;

describe("funds sync goes through the engine", () => {
  const registry = new Registry(DEFAULT_REGISTRY_CONFIG);
  const usdc = registry.tokenBySymbol("USDC")!.address;
  const deadClient = createPublicClient({ transport: http("http://127.0.0.1:9", { retryCount: 0, timeout: 2_000 }) });

  function setup() {
    const clock = new VirtualClock();
    const chain = new MemoryChain({ clock });
    const engine = new Engine({ seed: 1, clock, registry, executorId: 1, chain });
    const funds = createFundsServices({
      client: deadClient,
      deployment: { chainId: 31337, exchange: TOKEN, vault: TOKEN, router: TOKEN },
      engine,
      coSigner: new WithdrawCoSigner({ executorPrivateKey: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d", domain: exchangeDomain("x", 31337, TOKEN) }),
    });
    return { chain, engine, funds };
  }

  it("sync() applies deposits and withdrawals once each, logged by the engine", async () => {
    const { chain, engine, funds } = setup();
    chain.mint(USER, usdc, 100n);
    chain.deposit(USER, usdc, 100n);
    chain.withdraw(USER, usdc, 40n);
    await funds.sync();
    await funds.sync(); // nothing new: nothing re-applied
    expect(funds.ledger.peek(USER, usdc)).toEqual({ available: 60n, frozen: 0n });
    expect(funds.available(USER, usdc)).toBe(60n);
    const types = engine.log.since().map((e) => e.type);
    expect(types.filter((t) => t === "deposit")).toHaveLength(1);
    expect(types.filter((t) => t === "withdrawal")).toHaveLength(1);
  });

  it("available() is net of owed withdrawals (what the co-signer may vouch for)", async () => {
    const { chain, engine, funds } = setup();
    chain.mint(USER, usdc, 100n);
    chain.deposit(USER, usdc, 100n);
    await funds.sync();
    engine.ledger.freeze(USER, usdc, 100n); // held by open orders
    chain.withdraw(USER, usdc, 100n); // an emergency exit ignores them
    await funds.sync();
    engine.creditDeposit(USER, usdc, 30n); // credited outside the sync: all of it owed
    expect(engine.ledger.peek(USER, usdc)).toEqual({ available: 30n, frozen: 100n });
    // The balance rows' columns are net of the 100 owed: 30 from available, 70 from frozen.
    expect(funds.ledger.peek(USER, usdc)).toEqual({ available: 0n, frozen: 30n });
    expect(funds.available(USER, usdc)).toBe(engine.available(USER, usdc));
    expect(funds.available(USER, usdc)).toBe(0n);
  });
});

describe("balanceRows", () => {
  const registry = new Registry(DEFAULT_REGISTRY_CONFIG);
  const [eurc, gbpt] = registry.tokens();
  it("sums wallet and vault, keeps registry order, filters zero totals unless include_zero", () => {
    const vault = (t: string) => (t === gbpt!.address ? { available: 5n, frozen: 7n } : { available: 0n, frozen: 0n });
    const wallets = new Map([[eurc!.address, 3n]]);
    const rows = balanceRows({ owner: USER, tokens: registry.tokens(), vault, wallets, includeZero: false, updatedAt: "2026-01-01T00:00:00.000Z" });
    expect(rows).toEqual({
      owner_address: USER,
      balances: [
        { token: eurc!.address, symbol: "EURC", decimals: 6, wallet_balance: "3", vault_available: "0", vault_frozen: "0", vault_total: "0", total: "3" },
        { token: gbpt!.address, symbol: "GBPT", decimals: 18, wallet_balance: "0", vault_available: "5", vault_frozen: "7", vault_total: "12", total: "12" },
      ],
      updated_at: "2026-01-01T00:00:00.000Z",
      wallet_balance_available: true,
    });
    const all = balanceRows({ owner: USER, tokens: registry.tokens(), vault, wallets: null, includeZero: true, updatedAt: "x" });
    expect(all.balances).toHaveLength(registry.tokens().length);
    expect(all.wallet_balance_available).toBe(false);
    expect(all.balances[0]!.wallet_balance).toBe("0");
  });
});

describe("node unreachable", () => {
  const client = createPublicClient({ transport: http("http://127.0.0.1:9", { retryCount: 0, timeout: 2_000 }) });
  const deployment = { chainId: 31337, exchange: TOKEN, vault: TOKEN, router: TOKEN };

  it("the builder answers 503 (UNAVAILABLE), not a revert 400", async () => {
    const err = await new TxBuilder(client, deployment).approve({ token: TOKEN, owner: USER, spender: TOKEN, amount: 1n }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExchangeError);
    expect((err as ExchangeError).status).toBe(503);
  });

  it("reads and broadcasts answer 503", async () => {
    const reader = new FundsReader(client, deployment);
    for (const p of [reader.walletBalance(USER, TOKEN), reader.permitState(TOKEN, USER, TOKEN), reader.sendRawTransaction("0x02")]) {
      const err = await p.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ExchangeError);
      expect((err as ExchangeError).status).toBe(503);
    }
  });
});
