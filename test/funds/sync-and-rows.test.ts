// Pieces of the funds flow that need no chain: the withdrawal mirror into the ledger
// (clipping, unlisted tokens, cursor), the balance rows, and the 503 mapping when the
// node cannot be reached.
import { describe, expect, it } from "vitest";
import { createPublicClient, http } from "viem";
import { FundsReader, type WithdrawalEvent } from "../../sim/chain/funds-reads.ts";
import { TxBuilder } from "../../sim/chain/tx-builder.ts";
import { WithdrawalSync } from "../../sim/chain/withdrawal-sync.ts";
import { balanceRows } from "../../sim/core/balance-rows.ts";
import { ExchangeError } from "../../sim/core/errors.ts";
import { Ledger } from "../../sim/core/ledger.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry } from "../../sim/core/registry.ts";
import type { Address } from "../../sim/core/typed-data.ts";

const USER = "0x00000000000000000000000000000000000a11ce" as Address;
const TOKEN = "0x00000000000000000000000000000000000070c0" as Address;
const UNLISTED = "0x00000000000000000000000000000000000bad00" as Address;

describe("WithdrawalSync", () => {
  it("debits available once per event, skips unlisted tokens, never goes negative", async () => {
    const ledger = new Ledger();
    ledger.credit(USER, TOKEN, 100n);
    ledger.freeze(USER, TOKEN, 30n); // available 70, frozen 30
    const events: WithdrawalEvent[] = [
      { user: USER, token: TOKEN, amount: 50n, blockNumber: 3n, logIndex: 0 },
      { user: USER, token: UNLISTED, amount: 9n, blockNumber: 3n, logIndex: 1 },
      { user: USER, token: TOKEN, amount: 40n, blockNumber: 5n, logIndex: 0 }, // emergency-style: more than available
    ];
    const reads = { head: 4n };
    const asked: [bigint, bigint][] = [];
    const sync = new WithdrawalSync(
      {
        blockNumber: async () => reads.head,
        withdrawalEvents: async (from, to) => {
          asked.push([from, to]);
          return events.filter((e) => e.blockNumber >= from && e.blockNumber <= to);
        },
      },
      ledger,
      (t) => t === TOKEN,
      2n,
    );
    expect(await sync.sync()).toBe(1);
    expect(ledger.peek(USER, TOKEN)).toEqual({ available: 20n, frozen: 30n });
    expect(await sync.sync()).toBe(0); // same head: nothing re-applied
    reads.head = 6n;
    expect(await sync.sync()).toBe(1);
    expect(ledger.peek(USER, TOKEN)).toEqual({ available: 0n, frozen: 30n });
    expect(asked).toEqual([
      [2n, 4n],
      [5n, 6n],
    ]);
    expect(sync.snapshot()).toEqual({ cursor: "6" });
    sync.restore({ cursor: "4" });
    ledger.credit(USER, TOKEN, 100n);
    await sync.sync();
    expect(ledger.peek(USER, TOKEN).available).toBe(60n);
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
