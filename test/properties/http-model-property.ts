// The model-based property (a factory, so replay bundles can name it): runs through HTTP against the in-memory exchange, with settlement
// faults (reverted legs, a failed batch) and positive-spread fills injected:
// every observed order, fill and quote move must be a spec transition, and the
// balance economics hold once everything has settled.
import fc from "fast-check";
import request from "supertest";
import { privateKeyToAccount } from "viem/accounts";
import { ANVIL_KEYS } from "../../fixtures/accounts.ts";
import { exchangeDomain, type Address } from "../../sim/core/typed-data.ts";
import type { FaultPlan } from "../../sim/core/faults.ts";
import { createMemoryExchange, MEMORY_EXCHANGE_DEFAULTS } from "../../sim/http/exchange-app.ts";
import { balanceEconomicsViolations, commandsReplayPath, httpModelCommands, newExchangeModel, observe, type ModelDriver, type PropertyFactory } from "../../properties/index.ts";

const ACCOUNTS = [privateKeyToAccount(ANVIL_KEYS[2]!), privateKeyToAccount(ANVIL_KEYS[3]!), privateKeyToAccount(ANVIL_KEYS[4]!)];
const DOMAIN = exchangeDomain(MEMORY_EXCHANGE_DEFAULTS.domainName, MEMORY_EXCHANGE_DEFAULTS.chainId, MEMORY_EXCHANGE_DEFAULTS.exchangeAddress as Address);
const COOLDOWN = 120;
const FUNDS: Record<string, bigint> = { EURC: 10n ** 12n, USDC: 10n ** 12n, GBPT: 10n ** 24n, USDT: 10n ** 12n, XCHF: 10n ** 24n, JPYS: 10n ** 10n };

const BASE_FAULTS: FaultPlan = {
  revertFraction: { fraction: 0.3, reason: "BAD_SIGNATURE" },
  revertSettlements: [{ nth: 2, reason: "OUT_OF_GAS", mode: "batch" }],
  spreadFills: { rate: 0.4, sizeBps: 60 },
  // Batches stay "confirming" until the next round, so observations see that status.
  confirmationDelayBlocks: 1,
};

function world(seed: number) {
  const ex = createMemoryExchange({
    seed,
    logger: { error: () => undefined },
    rateLimits: false,
    engine: { cancelCooldownSec: COOLDOWN, faults: BASE_FAULTS },
  });
  const deposits = new Map<Address, Map<string, bigint>>();
  for (const a of ACCOUNTS) {
    const owner = a.address.toLowerCase() as Address;
    const per = new Map<string, bigint>();
    for (const [sym, raw] of Object.entries(FUNDS)) {
      ex.fund(owner, sym, raw);
      per.set(ex.registry.tokenBySymbol(sym)!.address, raw);
    }
    deposits.set(owner, per);
  }
  const wallets = ACCOUNTS.map((account) => {
    const k = ex.apiKeys.create({ owner: account.address.toLowerCase() as Address, action: "create", timestamp: ex.clock.nowSec(), signature: `0x${String(seed).padStart(4, "0")}${account.address.slice(2, 10)}` as `0x${string}` }, "model");
    return { account, auth: `Bearer ${k.api_key}:${k.api_secret}` };
  });
  const driver: ModelDriver = {
    async call(method, path, body, auth) {
      let r = request(ex.app)[method.toLowerCase() as "get"](`/api/v1${path}`);
      if (auth) r = r.set("authorization", auth);
      const res = body === undefined ? await r : await r.send(body as object);
      return { status: res.status, body: res.body };
    },
    advanceSec: (s) => void ex.clock.advanceSec(s),
    settle: async () => void (await ex.engine.settle()),
    nowSec: () => ex.clock.nowSec(),
    executorId: () => ex.engine.executorId,
    domain: DOMAIN,
    injectFault(kind) {
      const next = ex.engine.settlementBatches().length + 1;
      const plan: FaultPlan = { ...BASE_FAULTS, revertSettlements: [...(BASE_FAULTS.revertSettlements ?? [])] };
      if (kind === "revert-legs") plan.revertSettlements!.push({ nth: next, reason: "BAD_SIGNATURE", mode: "legs" });
      if (kind === "fail-batch") plan.revertSettlements!.push({ nth: next, reason: "OUT_OF_GAS", mode: "batch" });
      if (kind === "spread") plan.spreadFills = { rate: 1, sizeBps: 200 };
      ex.engine.setFaultPlan(plan);
    },
    wallets,
  };
  return { ex, driver, deposits };
}

/** What the runs of this process exercised, by transition / answer. */
export const seen: Record<string, number> = {};

export const httpModelProperty: PropertyFactory = (ctx) => {
  const registry = world(0).ex.registry;
  let run = 0;
  const cmds = fc.commands(httpModelCommands(registry, { wallets: ACCOUNTS.length }), { size: "large", maxCommands: 40, replayPath: commandsReplayPath(ctx) });
  return fc.asyncProperty(cmds, async (cmds) => {
    const w = world(++run);
    const model = newExchangeModel(COOLDOWN);
    await fc.asyncModelRun(() => ({ model, real: w.driver }), cmds);
    // Drain settlement under observation, so that final fill statuses are seen too.
    for (let i = 0; i < 3; i++) {
      await w.driver.settle();
      await observe(model, w.driver);
    }
    await w.ex.engine.settleAll();
    const holdings = new Map<string, bigint>();
    for (const e of w.ex.chain.vaultEntries()) holdings.set(e.token, (holdings.get(e.token) ?? 0n) + e.amount);
    // fund() deposits everything it mints, so wallets start empty: their balance is the change.
    const walletChanges = new Map<Address, Map<string, bigint>>();
    for (const owner of w.deposits.keys()) {
      const per = new Map<string, bigint>();
      for (const t of w.ex.registry.tokens()) per.set(t.address, await w.ex.chain.walletBalance(owner, t.address));
      walletChanges.set(owner, per);
    }
    const violations = balanceEconomicsViolations({ engine: w.ex.engine, vaultHoldings: holdings, deposits: w.deposits, walletChanges });
    // A plain throw, not vitest's expect: `fakex replay` loads this module outside vitest.
    if (violations.length > 0) throw new Error(`balance economics:\n${violations.join("\n")}`);
    for (const [k, n] of Object.entries(model.seen)) seen[k] = (seen[k] ?? 0) + n;
  });
};
