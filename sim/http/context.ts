// Everything a route may use, injected once into createApp. Later routes (orders,
// fills, swaps, funds) extend this with the engine and the chain port; optional
// members let the app start in partial configurations (a route whose dependency is
// absent is not mounted, and answers 404 like any unknown route).

import type { ApiKeyStore } from "../core/api-keys.ts";
import type { Clock } from "../core/clock.ts";
import type { Engine } from "../core/engine.ts";
import type { ConfigInputs } from "../core/config-view.ts";
import { ExchangeError } from "../core/errors.ts";
import type { FxRates } from "../core/fx.ts";
import type { Health } from "../core/health.ts";
import type { Registry } from "../core/registry.ts";
import { exchangeDomain, type Address, type ExchangeDomain, type Hex } from "../core/typed-data.ts";
import type { ApiKeyAuthenticator, WalletRateLimiter } from "./auth.ts";
import type { CorsPolicy } from "./cors.ts";
import type { FundsServices } from "./funds-services.ts";
import type { BalancesSource } from "./routes/balances.ts";
import type { HttpLogger } from "./errors.ts";

/** EIP-1271 access for signature checks; the chain port supplies it. */
export interface ContractSignatureChecker {
  /** Whether `addr` has code (a contract wallet, or an EIP-7702-delegated EOA). */
  isContract(addr: Address): boolean | Promise<boolean>;
  /** `isValidSignature(digest, signature)` returned the EIP-1271 magic value; false on revert. */
  isValidSignature(addr: Address, digest: Hex, signature: Hex): boolean | Promise<boolean>;
}

/** What the API-key management routes call; ApiKeyStore satisfies it. */
export type ApiKeyManager = Pick<ApiKeyStore, "create" | "list" | "revoke" | "revokeAll" | "selfRevoke" | "verify" | "authenticate">;

export interface HttpContext {
  /** The simulator's virtual clock: the only time source of every response. */
  clock: Clock;
  /** Where unexpected exceptions are logged (default: one line on stderr). */
  logger?: HttpLogger;
  /** Largest accepted JSON body (express/body-parser syntax, default "1mb"); larger → 413. */
  bodyLimit?: string | number;
  /** Tokens and markets (GET /tokens, GET /markets). */
  registry?: Registry;
  /** Health state (GET /health). */
  health?: Health;
  /** Provider quotes and the consensus rule (GET /fx/rate). */
  fx?: FxRates;
  /**
   * What GET /config shows, read on every request (addresses and chain id appear as
   * start-up progresses). Absent: every value null, the VL limits at their defaults.
   */
  config?: () => ConfigInputs;
  /** Bearer-credential authentication for "API Key" routes. */
  apiKeys?: ApiKeyAuthenticator;
  /**
   * API-key management (create, list, revoke, revoke-all, self-revoke, verify). Normally
   * the same ApiKeyStore as `apiKeys`; absent means the /api-keys routes are not mounted.
   */
  apiKeyManager?: ApiKeyManager;
  /** EIP-1271 fallback for signed routes; absent means ECDSA only (no contract wallets). */
  contractSignatures?: ContractSignatureChecker;
  /** Per-wallet rate limiting; absent means unlimited. */
  rateLimits?: WalletRateLimiter;
  /**
   * Balances, permit metadata, transaction builders, withdraw co-signing and the
   * broadcast helpers (spec "Account and funds"). Needs `registry` as well.
   */
  funds?: FundsServices;
  /** GET /balances for an app without `funds` (the memory exchange); `funds` serves it when given. */
  balances?: BalancesSource;
  /**
   * Why an app without `funds` does not serve the other account and funds routes: they
   * answer 404 with this reason rather than a bare "Not Found" (the memory exchange).
   */
  fundsUnavailable?: string;
  /**
   * The simulator's engine: order, VL, fill (and swap) routes. Absent means those
   * routes are not mounted. Its registry must be `registry`.
   */
  engine?: Engine;
  /**
   * CORS on /api/v1 (cors.ts); absent: any origin. null: not mounted by this app,
   * because the caller mounts it in front of its own /api/v1 middleware.
   */
  cors?: CorsPolicy | null;
}

/**
 * The EIP-712 exchange domain every signed route verifies against. It comes from the
 * same inputs GET /config shows, so what clients read there is what we check. Before
 * start-up has produced the chain id, exchange address and domain name, a signed
 * route cannot verify anything: 503 (the spec's "retry after Retry-After").
 */
export function signingDomain(ctx: Pick<HttpContext, "config">): ExchangeDomain {
  const c = ctx.config?.();
  const exchange = c?.exchangeAddress;
  if (!c || typeof c.chainId !== "number" || typeof c.domainName !== "string" || typeof exchange !== "string") {
    throw new ExchangeError("UNAVAILABLE", 503, "EIP-712 domain not configured yet");
  }
  return exchangeDomain(c.domainName, c.chainId, exchange.toLowerCase() as Address);
}
