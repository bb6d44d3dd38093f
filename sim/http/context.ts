// Everything a route may use, injected once into createApp. Later routes (orders,
// fills, swaps, funds) extend this with the engine and the chain port; optional
// members let the app start in partial configurations (a route whose dependency is
// absent is not mounted, and answers 404 like any unknown route).

import type { Clock } from "../core/clock.ts";
import type { Registry } from "../core/registry.ts";
import type { ApiKeyAuthenticator, WalletRateLimiter } from "./auth.ts";
import type { HttpLogger } from "./errors.ts";

export interface HttpContext {
  /** The simulator's virtual clock: the only time source of every response. */
  clock: Clock;
  /** Where unexpected exceptions are logged (default: one line on stderr). */
  logger?: HttpLogger;
  /** Largest accepted JSON body (express/body-parser syntax, default "1mb"); larger → 413. */
  bodyLimit?: string | number;
  /** Tokens and markets (GET /tokens, GET /markets). */
  registry?: Registry;
  /** Bearer-credential authentication for "API Key" routes. */
  apiKeys?: ApiKeyAuthenticator;
  /** Per-wallet rate limiting; absent means unlimited. */
  rateLimits?: WalletRateLimiter;
}
