// All-layer snapshots and restores sent while work that spans awaits is running: a
// settlement (broadcast, then receipts) and a vault-event sync (read the chain, then move
// the cursor). Each takes its turn: the state a restore brings back or a take keeps is
// one whole state, so the ledger always equals what the vault contract holds.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createFakeExchange, type FakeExchange } from "../../fixtures/fake-exchange.ts";
import { beforeFirstWalletRead } from "../funds/harness.ts";

let ex: FakeExchange;
const erc20BalanceOf = [{ type: "function", name: "balanceOf", stateMutability: "view", inputs: [{ name: "a", type: "address" }], outputs: [{ name: "", type: "uint256" }] }] as const;

async function call(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : null };
}
const ctl = (method: string, path: string, body?: unknown) => call(ex.controlUrl, method, path, body);
const api = (method: string, path: string, body?: unknown) => call(ex.baseUrl, method, path, body);

function usdtMarket() {
  return ex.registry.markets().find((x) => x.baseSymbol === "USDT")!;
}

/** Two users fund their vaults and cross 100 at 1: one fill, matched and not settled. */
async function crossTwoUsers(): Promise<void> {
  const m = usdtMarket();
  const [a, b] = ex.accounts as [FakeExchange["accounts"][0], FakeExchange["accounts"][0]];
  expect((await ctl("POST", "/fund", { address: a.address, token: m.base, amount: "1000000000", vault: true })).status).toBe(200);
  expect((await ctl("POST", "/fund", { address: b.address, token: m.quote, amount: "1000000000", vault: true })).status).toBe(200);
  for (const [who, side] of [[a, "ask"], [b, "bid"]] as const) {
    const preview = await api("POST", "/orders/preview", ex.newOrder(who, { symbol: m.symbol, side, amount: "100", price: "1" }));
    const { body } = await ex.signOrder(who, preview.body);
    expect((await api("POST", "/orders", body)).status).toBe(201);
  }
}

/** Per user and token of the USDT market: the ledger's total against the vault contract's balance. */
async function ledgerAgainstVault(): Promise<string[]> {
  const m = usdtMarket();
  const out: string[] = [];
  for (const who of ex.accounts.slice(0, 2)) {
    for (const token of [m.base, m.quote]) {
      const acc = ex.parts.engine.vaultAccount(who.address, token);
      const onChain = await ex.parts.port.vaultBalance(who.address, token);
      if (acc.available + acc.frozen !== onChain) out.push(`${who.address} ${token}: ledger ${acc.available}+${acc.frozen}, vault ${onChain}`);
    }
  }
  return out;
}

beforeAll(async () => {
  ex = await createFakeExchange({ seed: 5, clock: "virtual", liquidity: false, rateLimits: false });
}, 60_000);
afterAll(async () => {
  await ex?.close();
});

describe("snapshots and restores racing settlement and vault syncs", () => {
  test("a restore sent while a settlement runs waits for it: settling again settles the restored fill, and the ledger equals the vault", async () => {
    const clean = await ex.snapshot();
    await crossTwoUsers();
    const matched = await ex.snapshot();
    for (let i = 0; i < 5; i++) {
      const [settled, restored] = await Promise.all([ctl("POST", "/settle"), ctl("POST", "/restore", { id: matched })]);
      expect([settled.status, restored.status]).toEqual([200, 200]);
      const again = await ctl("POST", "/settle");
      expect(again.status).toBe(200);
      expect(again.body.fills).toEqual({ settled: 1 });
      const fills = ex.parts.engine.fillRecords();
      expect(fills.map((f) => [f.status, f.revertReason ?? null])).toEqual([["settled", null]]);
      expect(await ledgerAgainstVault()).toEqual([]);
    }
    await ex.restore(clean);
  }, 120_000);

  test("a snapshot taken while a settlement runs holds a whole state: restoring it and settling ends settled", async () => {
    const clean = await ex.snapshot();
    await crossTwoUsers();
    const matched = await ex.snapshot();
    for (let i = 0; i < 5; i++) {
      const [settled, taken] = await Promise.all([ctl("POST", "/settle"), ctl("POST", "/snapshot")]);
      expect([settled.status, taken.status]).toEqual([200, 200]);
      expect((await ctl("POST", "/restore", { id: taken.body.id })).status).toBe(200);
      expect((await ctl("POST", "/settle")).status).toBe(200);
      expect(ex.parts.engine.fillRecords().map((f) => f.status)).toEqual(["settled"]);
      expect(await ledgerAgainstVault()).toEqual([]);
      expect((await ctl("POST", "/restore", { id: matched })).status).toBe(200);
    }
    await ex.restore(clean);
  }, 120_000);

  test("a fund() in flight and a restore: the restore waits for it, and the fund answers (its transaction is not dropped under it)", async () => {
    const clean = await ex.snapshot();
    const m = usdtMarket();
    const who = ex.accounts[2]!;
    const before = await ex.snapshot();
    for (let i = 0; i < 6; i++) {
      const funding = ex.control.fund({ address: who.address, token: m.quote, amount: 5_000_000n, vault: true });
      await Promise.all([funding, ex.restore(before)]);
      // The restore went after the fund: the deposit is taken back on both sides.
      const acc = ex.parts.engine.vaultAccount(who.address, m.quote);
      expect(acc.available + acc.frozen).toBe(0n);
      expect(await ex.parts.port.vaultBalance(who.address, m.quote)).toBe(0n);
    }
    await ex.restore(clean);
  }, 60_000);

  test("GET /balances with a restore landing between its sync and its wallet reads: every column from one state, not vaults from before and wallets from after", async () => {
    const clean = await ex.snapshot();
    const m = usdtMarket();
    const who = ex.accounts[2]!;
    const signed = await ex.signManageApiKey(who, "create", ex.control.now().now);
    const key = await api("POST", "/api-keys", { ...signed, label: "races" });
    expect(key.status).toBe(200);
    const before = await ex.snapshot();
    expect((await ctl("POST", "/fund", { address: who.address, token: m.quote, amount: "3000000", vault: true })).status).toBe(200);
    let restored = false;
    const undo = beforeFirstWalletRead(ex.parts.funds.reader, async () => {
      restored = true;
      await ex.restore(before);
    });
    try {
      const res = await fetch(`${ex.baseUrl}/balances?owner_address=${who.address.toLowerCase()}&include_zero=true`, { headers: { authorization: `Bearer ${key.body.api_key}:${key.body.api_secret}` } });
      const body = (await res.json()) as { wallet_balance_available: boolean; balances: { token: string; wallet_balance: string; vault_total: string }[] };
      expect(res.status).toBe(200);
      expect(restored).toBe(true);
      expect(body.wallet_balance_available).toBe(true);
      const row = body.balances.find((r) => r.token === m.quote)!;
      // The state after the restore, whole: nothing in the vault, the wallet without the funding.
      const onChain = await ex.clients.public.readContract({ address: m.quote as `0x${string}`, abi: erc20BalanceOf, functionName: "balanceOf", args: [who.address as `0x${string}`] });
      expect({ wallet: row.wallet_balance, vault: row.vault_total }).toEqual({ wallet: onChain.toString(), vault: "0" });
    } finally {
      undo();
      await ex.restore(clean);
    }
  }, 60_000);

  test("vault syncs racing a restore leave the cursor on the restored chain: a deposit after it is credited", async () => {
    const clean = await ex.snapshot();
    const m = usdtMarket();
    const who = ex.accounts[2]!;
    const before = await ex.snapshot();
    for (let i = 0; i < 5; i++) {
      // Blocks to take back, each with a vault event the syncs read.
      for (let k = 0; k < 3; k++) expect((await ctl("POST", "/fund", { address: who.address, token: m.quote, amount: "1000000", vault: true })).status).toBe(200);
      expect((await ctl("POST", "/mine", { blocks: 20 })).status).toBe(200);
      // What every request that reads balances or sends funds does first (GET /balances, /withdraw, /tx/send).
      const syncs = Array.from({ length: 6 }, () => ex.parts.engine.syncVaultEvents());
      const [restored] = await Promise.all([ctl("POST", "/restore", { id: before }), ...syncs]);
      expect(restored.status).toBe(200);
      const funded = await ctl("POST", "/fund", { address: who.address, token: m.quote, amount: "7000000", vault: true });
      expect(funded.status).toBe(200);
      expect(funded.body.vault_available).toBe("7000000");
      const acc = ex.parts.engine.vaultAccount(who.address, m.quote);
      expect(acc.available + acc.frozen).toBe(await ex.parts.port.vaultBalance(who.address, m.quote));
      expect((await ctl("POST", "/restore", { id: before })).status).toBe(200);
    }
    await ex.restore(clean);
  }, 120_000);
});

describe("with --state-dir", () => {
  let sx: FakeExchange;
  beforeAll(async () => {
    sx = await createFakeExchange({ seed: 6, clock: "virtual", liquidity: false, stateDir: mkdtempSync(path.join(tmpdir(), "fakex-races-")) });
  }, 60_000);
  afterAll(async () => {
    await sx?.close();
  });

  // Each request holds the durable log's lock while it waits: an advance for the clock gate,
  // a take or restore for the snapshot turn; the restore's checkpoint then needs that lock.
  test.each([
    ["clock advance", "/clock/advance", { seconds: 1 }, 200],
    ["snapshot", "/snapshot", {}, 200],
    // The restore of the older snapshot discards the one taken after it: a 404, not a hang.
    ["restore", "/restore", "recent", 404],
  ] as const)("a restore from code of a snapshot older than the last checkpoint, while a %s sent over HTTP waits for it: both finish", async (_kind, route, body, status) => {
    const old = await sx.snapshot();
    const recent = await sx.snapshot();
    await sx.persistence!.persist();
    // Hold the restore (inside the gate and its turn) until the HTTP request waits for it.
    const port = sx.parts.port;
    const revert = port.revertAndSnapshot.bind(port);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    port.revertAndSnapshot = async (id) => {
      await held;
      return revert(id);
    };
    try {
      const restoring = sx.restore(old);
      const sent = body === "recent" ? { id: recent } : body;
      const other = fetch(`${sx.controlUrl}${route}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(sent) });
      await new Promise((r) => setTimeout(r, 300));
      release();
      const [answered] = await Promise.all([other, restoring]);
      expect(answered.status).toBe(status);
    } finally {
      port.revertAndSnapshot = revert;
    }
  }, 30_000);
});
