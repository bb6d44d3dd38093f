// The whole /api/v1 service assembled from the simulator's parts: one call that the
// fixtures (Anvil chain port), the CLI and the HTTP tests (memory chain) share, so
// every deployment of the fake mounts the same routes with the same wiring.
//
// `createMemoryExchange` is the in-process variant: Engine on a MemoryChain, the
// default registry, a seeded API-key store, rate limiter, health, FX quotes and
// config, with optional funded owners. It needs no chain node, which is what HTTP
// tests and the HTTP benchmark want.

import type { Application } from "express";
import { ApiKeyStore } from "../core/api-keys.ts";
import { VirtualClock, type Clock } from "../core/clock.ts";
import type { ConfigInputs } from "../core/config-view.ts";
import { Engine, type EngineOptions } from "../core/engine.ts";
import { FxRates, installDefaultFx } from "../core/fx.ts";
import { fxUsdPrice } from "../core/swap-gas.ts";
import { Health } from "../core/health.ts";
import { RateLimiter } from "../core/rate-limits.ts";
import { DEFAULT_REGISTRY_CONFIG, Registry, type RegistryConfig } from "../core/registry.ts";
import { isSeedValue, Rng } from "../core/rng.ts";
import { isDomainName } from "../core/typed-data.ts";
import { isExecutorId } from "../core/uuid-int.ts";
import { ADDRESS_RE } from "./fields.ts";
import { MemoryChain } from "../chain/memory.ts";
import { createApp } from "./app.ts";
import type { ApiKeyAuthenticator, WalletRateLimiter } from "./auth.ts";
import type { ApiKeyManager, ContractSignatureChecker } from "./context.ts";
import { parseCorsOrigin, type CorsPolicy } from "./cors.ts";
import type { HttpLogger } from "./errors.ts";
import type { FundsServices } from "./funds-services.ts";
import type { BalancesSource } from "./routes/balances.ts";

export interface ExchangeAppParts {
  engine: Engine;
  registry: Registry;
  clock: Clock;
  /** Authenticates bearer keys and serves /api-keys (an ApiKeyStore). */
  apiKeys: ApiKeyAuthenticator & ApiKeyManager;
  rateLimits: WalletRateLimiter;
  health: Health;
  fx: FxRates;
  config: () => ConfigInputs;
  /** EIP-1271 through the chain port; absent means ECDSA only. */
  contractSignatures?: ContractSignatureChecker;
  logger?: HttpLogger;
  /** Funds routes (balances, permit, builders, withdraw, broadcasts); mounted when given. */
  funds?: FundsServices;
  /** GET /balances without `funds` (the memory exchange's chain and ledger). */
  balances?: BalancesSource;
  /** Without `funds`: why the other account and funds routes are not served (their 404's detail). */
  fundsUnavailable?: string;
  bodyLimit?: string | number;
  /** CORS on /api/v1 (default any origin); null when the caller mounts it in front. */
  cors?: CorsPolicy | null;
}

/**
 * The express app serving every endpoint the parts support, under /api/v1. With
 * `into`, they are added to that app (behind its own middleware) and it is returned.
 */
export function createExchangeApp(p: ExchangeAppParts, into?: Application): Application {
  // One registry everywhere: GET /markets, preview and order entry must agree.
  if (p.engine.registry !== p.registry) throw new Error("createExchangeApp: engine.registry must be the registry the app serves");
  return createApp({
    clock: p.clock,
    registry: p.registry,
    health: p.health,
    fx: p.fx,
    config: p.config,
    apiKeys: p.apiKeys,
    apiKeyManager: p.apiKeys,
    rateLimits: p.rateLimits,
    engine: p.engine,
    ...(p.contractSignatures ? { contractSignatures: p.contractSignatures } : {}),
    ...(p.logger ? { logger: p.logger } : {}),
    ...(p.funds ? { funds: p.funds } : {}),
    ...(p.balances ? { balances: p.balances } : {}),
    ...(p.fundsUnavailable !== undefined ? { fundsUnavailable: p.fundsUnavailable } : {}),
    ...(p.bodyLimit !== undefined ? { bodyLimit: p.bodyLimit } : {}),
    ...(p.cors !== undefined ? { cors: p.cors } : {}),
  }, into);
}

export interface MemoryExchangeOptions {
  seed?: number | string;
  /** Virtual start time, epoch ms (default 2026-03-14T09:30:00Z). */
  startMs?: number;
  executorId?: number;
  registry?: RegistryConfig;
  chainId?: number;
  exchangeAddress?: string;
  domainName?: string;
  /** Vault deposits to credit at start: owner, token symbol, raw amount. */
  funded?: readonly { owner: string; symbol: string; raw: bigint }[];
  engine?: Partial<Omit<EngineOptions, "registry" | "chain" | "clock" | "executorId">>;
  /** Rate limiting on (default) or off (load tests). */
  rateLimits?: boolean;
  contractSignatures?: ContractSignatureChecker;
  logger?: HttpLogger;
  /** Allowed browser origins on /api/v1: "*" (default) or a comma-separated list (cors.ts). */
  corsOrigin?: string;
}

export interface MemoryExchange extends Required<Omit<ExchangeAppParts, "contractSignatures" | "logger" | "funds" | "bodyLimit">> {
  contractSignatures?: ContractSignatureChecker;
  logger?: HttpLogger;
  app: Application;
  chain: MemoryChain;
  clock: VirtualClock;
  apiKeys: ApiKeyStore;
  rateLimits: RateLimiter;
  configInputs: ConfigInputs;
  /** Mint to the wallet, deposit into the memory vault and credit the engine. */
  fund(owner: string, symbol: string, raw: bigint): void;
}

/** The 404 detail of the account and funds routes the memory exchange does not serve. */
export const MEMORY_FUNDS_UNAVAILABLE =
  "the memory exchange (createMemoryExchange) has no chain node to read permits from, build transactions for or broadcast to; createFakeExchange (Anvil) serves it";

export const MEMORY_EXCHANGE_DEFAULTS = {
  startMs: Date.UTC(2026, 2, 14, 9, 30, 0),
  executorId: 3,
  chainId: 31337,
  exchangeAddress: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
  domainName: "fakex",
} as const;

const MEMORY_OPTION_NAMES = Object.keys({
  seed: true,
  startMs: true,
  executorId: true,
  registry: true,
  chainId: true,
  exchangeAddress: true,
  domainName: true,
  funded: true,
  engine: true,
  rateLimits: true,
  contractSignatures: true,
  logger: true,
  corsOrigin: true,
} as const satisfies Record<keyof MemoryExchangeOptions, true>);

/** Options a memory exchange would take silently and then serve wrong (a misspelt one, a bad chain id or address in /config). */
function checkMemoryOptions(o: MemoryExchangeOptions): void {
  const bad = (what: string, v: unknown) => new RangeError(`createMemoryExchange: ${what}, got ${typeof v === "string" ? JSON.stringify(v) : String(v)}`);
  const unknown = Object.keys(o).filter((k) => !MEMORY_OPTION_NAMES.includes(k));
  if (unknown.length > 0) throw new TypeError(`createMemoryExchange: unknown option${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => JSON.stringify(k)).join(", ")}; the options are ${MEMORY_OPTION_NAMES.join(", ")}`);
  if (o.seed !== undefined && !isSeedValue(o.seed)) throw bad("seed must be a finite number or non-empty text", o.seed);
  if (o.chainId !== undefined && !(Number.isSafeInteger(o.chainId) && o.chainId > 0)) throw bad("chainId must be a positive integer", o.chainId);
  if (o.exchangeAddress !== undefined && !(typeof o.exchangeAddress === "string" && ADDRESS_RE.test(o.exchangeAddress))) throw bad("exchangeAddress must be a 0x-prefixed 20-byte hex address", o.exchangeAddress);
  if (o.domainName !== undefined && !isDomainName(o.domainName)) throw bad("domainName must be non-empty text", o.domainName);
  if (o.executorId !== undefined && !isExecutorId(o.executorId)) throw bad("executorId must be a whole number 0-15", o.executorId);
  if (o.rateLimits !== undefined && typeof o.rateLimits !== "boolean") throw new TypeError(`createMemoryExchange: rateLimits must be true or false, got ${String(o.rateLimits)}`);
}

/** An in-process exchange (memory chain) behind the full app. */
export function createMemoryExchange(o: MemoryExchangeOptions = {}): MemoryExchange {
  checkMemoryOptions(o);
  const d = MEMORY_EXCHANGE_DEFAULTS;
  const seed = o.seed ?? 1;
  const clock = new VirtualClock(o.startMs ?? d.startMs);
  const registry = new Registry(o.registry ?? DEFAULT_REGISTRY_CONFIG);
  const executorId = o.executorId ?? d.executorId;
  const chain = new MemoryChain({ clock });
  // Swap gas is priced in tokens at the service's own FX rates (GET /fx/rate), unless the caller prices it.
  const fx = new FxRates(clock);
  installDefaultFx(fx, clock.nowSec());
  const swaps = { ...o.engine?.swaps, usdPrice: o.engine?.swaps?.usdPrice ?? fxUsdPrice(fx) };
  const engine = new Engine({ seed, ...o.engine, swaps, clock, registry, executorId, chain });
  // The engine owns the executor id; Health reads it from there (one source of truth).
  const health = new Health(clock, {}, engine);
  const apiKeys = new ApiKeyStore(clock, new Rng(`${String(seed)}/api-keys`));
  const rateLimits = new RateLimiter(clock);
  if (o.rateLimits === false) rateLimits.setEnabled(false);
  const configInputs: ConfigInputs = {
    chainId: o.chainId ?? d.chainId,
    exchangeAddress: o.exchangeAddress ?? d.exchangeAddress,
    domainName: o.domainName ?? d.domainName,
    vlBatch: engine.vlLimits,
  };
  const config = () => configInputs;
  const fund = (owner: string, symbol: string, raw: bigint) => {
    const t = registry.tokenBySymbol(symbol);
    if (!t) throw new Error(`no token ${symbol}`);
    chain.mint(owner, t.address, raw);
    // Credited at once (fund() is synchronous) and marked seen: a later sync skips it.
    engine.applyDepositEvent(chain.deposit(owner, t.address, raw));
  };
  for (const f of o.funded ?? []) fund(f.owner, f.symbol, f.raw);
  // GET /balances syncs first, as on Anvil: deposits and withdrawals made on `chain` directly
  // (an emergency exit a test models) reach the ledger then.
  const balances: BalancesSource = {
    sync: async () => (await engine.syncVaultEvents()).block,
    ledger: { peek: (owner, token) => engine.vaultAccount(owner, token) },
    reader: { walletBalance: (owner, token) => chain.walletBalance(owner, token) },
  };
  // Everything the app is built from travels with the exchange, so createExchangeApp(ex, app)
  // builds the same app (CORS policy, EIP-1271 checker and logger included).
  const parts = {
    engine,
    registry,
    clock,
    apiKeys,
    rateLimits,
    health,
    fx,
    config,
    balances,
    fundsUnavailable: MEMORY_FUNDS_UNAVAILABLE,
    cors: parseCorsOrigin(o.corsOrigin),
    ...(o.contractSignatures ? { contractSignatures: o.contractSignatures } : {}),
    ...(o.logger ? { logger: o.logger } : {}),
  };
  const app = createExchangeApp(parts);
  return { ...parts, app, chain, configInputs, fund };
}
