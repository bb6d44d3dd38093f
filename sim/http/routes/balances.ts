// GET /balances (API key, rate group "read"). owner_address must be the key owner,
// compared as sent (spec Conventions: read endpoints are case-sensitive, send it
// lowercase) → 403 otherwise. The ledger is brought up to date with the chain first
// (deposits credited, withdrawals debited) so a deposit shows as soon as it is mined.
// Wallet balances are read from each token; if the node cannot be read, rows carry
// wallet_balance "0" and wallet_balance_available is false (still 200).
//
// Statuses: 401 key, 429 rate, 422 query shape, 403 owner.

import { Router } from "express";
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

export function balancesRouter(ctx: HttpContext, registry: Registry, funds: FundsServices, router: Router = Router()): Router {
  router
    .route("/balances")
    .get(requireApiKey(ctx), rateLimit(ctx, "read"), async (req, res) => {
      const q = parseInput(BalancesQuery, req.query, "query");
      const owner = requireOwner(res, q.owner_address);
      let synced: bigint | undefined;
      try {
        const block = await funds.sync();
        if (typeof block === "bigint") synced = block;
      } catch (err) {
        // Stale vault columns beat no answer; the wallet flag below tells the node is down.
        ctx.logger?.error("balances: ledger sync failed", { error: err instanceof Error ? err.message : String(err) });
      }
      const tokens = registry.tokens();
      // The vault columns as synced, and the wallets at the block the sync read: a deposit
      // mined in between moves funds from one to the other, and the two must not straddle it.
      const vaults = new Map<string, Account>(tokens.map((t) => [t.address, funds.ledger.peek(owner, t.address)]));
      const readWallets = (block?: bigint) => Promise.all(tokens.map((t) => funds.reader.walletBalance(owner, t.address, block)));
      let wallets: Map<string, bigint> | null = new Map();
      try {
        // That block may be gone by now (a restore took the chain back, or the node keeps no
        // state that old): then the latest block, as before a sync could name one.
        const values = await readWallets(synced).catch(() => readWallets());
        tokens.forEach((t, k) => wallets!.set(t.address, values[k]!));
      } catch {
        wallets = null;
      }
      res.json(
        balanceRows({
          owner,
          tokens,
          vault: (t) => vaults.get(t) ?? funds.ledger.peek(owner, t),
          wallets,
          includeZero: q.include_zero ?? false,
          updatedAt: isoOf(ctx.clock.nowMs()),
        }),
      );
    })
    .all(methodNotAllowed("GET"));
  return router;
}
