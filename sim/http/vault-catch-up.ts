// Deposits a wallet sends straight to the chain (approve and depositFund through
// rpc_url, as browser wallets and contract wallets do) reach the ledger only at a
// vault sync. The live service credits a mined deposit by itself, whatever the client
// asks next, so the routes whose outcome depends on vault equity take in what is
// mined before they answer: a quote or a VL batch (their amounts follow the equity)
// first, an order (accepted or not, nothing else) only when its equity falls short,
// so a placement that fits costs no chain round trip.
import { ExchangeError } from "../core/errors.ts";
import type { HttpContext } from "./context.ts";

type CatchUpContext = Pick<HttpContext, "funds" | "balances" | "logger">;

/**
 * Take in the vault events mined since the ledger last synced (the memory exchange's
 * chain too). False when the app has no chain to sync from. A node that does not answer
 * is a 503 (retry): an answer from the ledger as it is could differ from the one the same
 * request gets once the node is back, as a --state-dir replay would show.
 */
export async function catchUpVault(ctx: CatchUpContext): Promise<boolean> {
  const source = ctx.funds ?? ctx.balances;
  if (source === undefined) return false;
  try {
    await source.sync();
    return true;
  } catch (err) {
    ctx.logger?.error("vault catch-up: ledger sync failed", { error: err instanceof Error ? err.message : String(err) });
    throw new ExchangeError("UNAVAILABLE", 503, "the chain node did not answer the vault sync");
  }
}

/**
 * A placement the engine refused (`refusal`, thrown before anything changed): when it
 * was refused for equity and the vault caught up, the result of `again()`, the
 * placement from the start (the clock may have moved during the sync); otherwise the
 * refusal is thrown on. Called from the placement's catch, so a placement that fits
 * pays for no promise.
 */
export async function placeAgainAfterCatchUp<T>(ctx: CatchUpContext, refusal: unknown, again: () => T): Promise<T> {
  if (!(refusal instanceof ExchangeError) || refusal.code !== "INSUFFICIENT_EQUITY" || !(await catchUpVault(ctx))) throw refusal;
  return again();
}
