// GET /balances (API key, rate group "read"). owner_address must be the key owner,
// compared as sent (spec Conventions: read endpoints are case-sensitive, send it
// lowercase) → 403 otherwise. The ledger is brought up to date with the chain first
// (deposits credited, withdrawals debited) so a deposit shows as soon as it is mined.
// Wallet balances are read from each token; if the node cannot be read, rows carry
// wallet_balance "0" and wallet_balance_available is false (still 200).
//
// Statuses: 401 key, 429 rate, 422 query shape, 403 owner.

import type { Router } from "express";
import { apiRouter } from "../api-router.ts";
import { z } from "zod";
import { balanceRows } from "../../core/balance-rows.ts";
import type { Account } from "../../core/ledger.ts";
import { isoOf } from "../../core/clock.ts";
import type { Registry } from "../../core/registry.ts";
import { rateLimit, requireApiKey, requireOwner } from "../auth.ts";
import type { HttpContext } from "../context.ts";
import { methodNotAllowed } from "../errors.ts";
import type { FundsServices } from "../funds-services.ts";
import { parseInput } from "../validate.ts";
import { addressAsSent, queryBoolean } from "./funds-fields.ts";

const BalancesQuery = z.object({
  owner_address: addressAsSent,
  include_zero: queryBoolean.optional(),
});

/**
 * What GET /balances reads: the vault columns (after a sync with the chain) and the
 * wallets. The funds services are one; the memory exchange, which has no node and no
 * other funds route, gives its own (its sync reads the memory chain's vault events).
 */
export type BalancesSource = Pick<FundsServices, "sync" | "ledger"> & { reader: Pick<FundsServices["reader"], "walletBalance"> };

export function balancesRouter(ctx: HttpContext, registry: Registry, funds: BalancesSource, router: Router = apiRouter()): Router {
  router
    .route("/balances")
    .get(requireApiKey(ctx), rateLimit(ctx, "read"), async (req, res) => {
      const q = parseInput(BalancesQuery, req.query, "query");
      const owner = requireOwner(res, q.owner_address);
      const tokens = registry.tokens();
      // The vault columns as synced, and the wallets at the block the sync read: a deposit
      // mined in between moves funds from one to the other, and the two must not straddle it.
      // When that block is gone by the wallet reads (a restore took the chain back, or the
      // node keeps no state that old), all of it is read again once, together.
      let vaults = new Map<string, Account>();
      let wallets: Map<string, bigint> | null = null;
      for (let attempt = 0; attempt < 2 && wallets === null; attempt++) {
        let synced: bigint | undefined;
        try {
          const block = await funds.sync();
          if (typeof block === "bigint") synced = block;
        } catch (err) {
          // Stale vault columns beat no answer; the wallet flag below tells the node is down.
          ctx.logger?.error("balances: ledger sync failed", { error: err instanceof Error ? err.message : String(err) });
        }
        vaults = new Map(tokens.map((t) => [t.address, funds.ledger.peek(owner, t.address)]));
        try {
          const values = await Promise.all(tokens.map((t) => funds.reader.walletBalance(owner, t.address, synced)));
          wallets = new Map(tokens.map((t, k) => [t.address, values[k]!]));
        } catch {
          // At the latest block there is nothing to read again: the node is not answering.
          if (synced === undefined) break;
        }
      }
      res.json(
        balanceRows({
          owner,
          tokens,
          vault: (t) => vaults.get(t)!,
          wallets,
          includeZero: q.include_zero ?? false,
          updatedAt: isoOf(ctx.clock.nowMs()),
        }),
      );
    })
    .all(methodNotAllowed("GET"));
  return router;
}
