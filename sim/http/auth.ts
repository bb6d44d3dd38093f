// API-key authentication for the routes the spec marks "API Key" or "Optional":
// `Authorization: Bearer {api_key}:{api_secret}` → the key's owner (401 when missing
// or invalid), the owner check (403 when the request names another wallet), and the
// per-wallet rate-limit hook. The key store itself (sim/core/api-keys.ts) owns
// parsing the header and checking the secret; this file only wires it to express.

import type { RequestHandler, Response } from "express";
import { ExchangeError } from "../core/errors.ts";
import type { RateGroup } from "../core/rate-limits.ts";
import type { Address } from "../core/typed-data.ts";

/** What the HTTP layer needs from the API-key store (ApiKeyStore satisfies it). */
export interface ApiKeyAuthenticator {
  /** Authorization header value → owner (lowercase); throws 401 ExchangeError. */
  authenticate(authorization: unknown): Address;
}

/** What the HTTP layer needs from the rate limiter (RateLimiter satisfies it). */
export interface WalletRateLimiter {
  /** Count one request or throw 429 RATE_LIMITED. */
  hit(wallet: string, group: RateGroup): void;
}

export interface AuthDeps {
  apiKeys?: ApiKeyAuthenticator | undefined;
  rateLimits?: WalletRateLimiter | undefined;
}

function keyStore(deps: AuthDeps): ApiKeyAuthenticator {
  // A route that needs keys on an app built without a store is a wiring bug (→ 503).
  if (!deps.apiKeys) throw new Error("API-key store not configured on this app");
  return deps.apiKeys;
}

/** Route guard for "API Key" routes: sets res.locals.owner or answers 401. */
export function requireApiKey(deps: AuthDeps): RequestHandler {
  return (req, res, next) => {
    res.locals["owner"] = keyStore(deps).authenticate(req.headers.authorization);
    next();
  };
}

/**
 * Route guard for "Optional" routes: authenticates only when an Authorization
 * header is present (a present but bad key is still 401, not anonymous).
 */
export function optionalApiKey(deps: AuthDeps): RequestHandler {
  return (req, res, next) => {
    if (req.headers.authorization !== undefined) res.locals["owner"] = keyStore(deps).authenticate(req.headers.authorization);
    next();
  };
}

/** The authenticated owner (lowercase), or undefined on an anonymous Optional route. */
export function ownerOf(res: Response): Address | undefined {
  return res.locals["owner"] as Address | undefined;
}

/**
 * 403 unless `claimed` (the request's `field`: owner_address, owner, from_address) is the
 * authenticated wallet. Call after requireApiKey; returns the owner.
 */
export function requireOwner(res: Response, claimed: unknown, field = "owner_address"): Address {
  const owner = ownerOf(res);
  if (!owner) throw new ExchangeError("UNAUTHORIZED", 401, "Missing API key");
  // Case-sensitive: the spec asks clients to send owner_address lowercase, so a checksummed one is a mismatch.
  if (claimed !== owner) {
    const sameWallet = typeof claimed === "string" && claimed.toLowerCase() === owner;
    throw new ExchangeError("FORBIDDEN", 403, sameWallet ? `${field} must be sent lowercase (${owner}): it is compared as sent` : `${field} does not match the API key owner`);
  }
  return owner;
}

/**
 * Per-wallet rate limiting for a group (spec Limits). Counts against the
 * authenticated owner; anonymous requests pass (the wallet limit applies to
 * key-authenticated requests; swaps count their signer in the route itself via
 * `hitRateLimit`). A no-op when the app has no limiter.
 */
export function rateLimit(deps: AuthDeps, group: RateGroup): RequestHandler {
  return (_req, res, next) => {
    const owner = ownerOf(res);
    if (owner) hitRateLimit(deps, owner, group);
    next();
  };
}

/** Count one request of `wallet` in `group` (for routes whose wallet comes from a signature). */
export function hitRateLimit(deps: AuthDeps, wallet: string, group: RateGroup): void {
  deps.rateLimits?.hit(wallet, group);
}
