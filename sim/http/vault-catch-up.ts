// Deposits a wallet sends straight to the chain (approve and depositFund through
// rpc_url, as browser wallets and contract wallets do) reach the ledger only at a
// vault sync. The live service credits a mined deposit by itself, whatever the client
// asks next, so the routes whose outcome depends on vault equity take in what is
// mined before they answer: a quote or a VL batch (their amounts follow the equity)
// first, an order (accepted or not, nothing else) only when its equity falls short,
// so a placement that fits costs no chain round trip.
import { ExchangeError } from "../core/errors.ts";
import type { HttpContext } from "./context.ts";

/**
 * Take in the vault events mined since the ledger last synced. A node that does not
 * answer is logged and the caller answers from the ledger as it is, as GET /balances
 * does. False when this app has no chain to sync from (the memory exchange).
 */
export async function catchUpVault(ctx: Pick<HttpContext, "funds" | "logger">): Promise<boolean> {
  if (ctx.funds === undefined) return false;
  try {
    await ctx.funds.sync();
    return true;
  } catch (err) {
    ctx.logger?.error("vault catch-up: ledger sync failed", { error: err instanceof Error ? err.message : String(err) });
    return false;
  }
}

/**
 * A placement the engine refused (`refusal`, thrown before anything changed): when it
 * was refused for equity and the vault caught up, the result of `again()`, the
 * placement from the start (the clock may have moved during the sync); otherwise the
 * refusal is thrown on. Called from the placement's catch, so a placement that fits
 * pays for no promise.
 */
export async function placeAgainAfterCatchUp<T>(ctx: Pick<HttpContext, "funds" | "logger">, refusal: unknown, again: () => T): Promise<T> {
  if (!(refusal instanceof ExchangeError) || refusal.code !== "INSUFFICIENT_EQUITY" || !(await catchUpVault(ctx))) throw refusal;
  return again();
}
