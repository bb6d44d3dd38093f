// Read-only JSON views of the run's accounts for the viewer (/__fakex/ui/accounts) and the
// report, mounted under /__fakex beside the run views:
//
//   GET /accounts?limit&offset   every wallet the exchange knows: the fixture's accounts, the
//                                liquidity makers and the fee recipient first, then every
//                                other owner with vault funds, by address; vault columns only
//   GET /accounts/{address}      one wallet: GET /balances' rows (wallet column read from the
//                                chain), the vault moves mined but not yet synced, its newest
//                                orders and how many it placed
//
// The vault columns are the ledger's as GET /balances shows them (net of owed withdrawals),
// as of the last sync with the chain: these reads never sync (a GET of the control API
// changes nothing), so a deposit mined since has left the wallet column and joins the vault
// columns at the next sync (an API read of balances, a settlement); the page lists such
// moves (unsynced_vault_moves) so its totals can be read.
import type { Request, Router } from "express";
import { balanceRows } from "../core/balance-rows.ts";
import { isoOf } from "../core/clock.ts";
import type { Engine } from "../core/engine.ts";
import type { Registry, TokenInfo } from "../core/registry.ts";
import type { Address } from "../core/typed-data.ts";
import { controlPrefixRouter, ControlInputError } from "./control.ts";
import { checkViewQuery, onlyGet, orderListRow, queryWholeNumber, viewErrors } from "./run-views.ts";
import type { FundsServices } from "./funds-services.ts";

/** Who a known wallet is, as the viewer names it. */
export interface AccountRole {
  address: string;
  role: string;
}

export interface AccountViewParts {
  engine: Pick<Engine, "ledger" | "orderIdsOf" | "getOrder" | "clock" | "unsyncedVaultMoves">;
  registry: Registry;
  funds: Pick<FundsServices, "ledger"> & { reader: Pick<FundsServices["reader"], "walletBalance"> };
  /** Known wallets in the order they are listed first (lowercase addresses). */
  roles: readonly AccountRole[];
}

const ACCOUNTS_PAGE = 100;
export const MAX_ACCOUNTS_PAGE = 500;
/** Orders an account's page lists (its newest). */
export const ACCOUNT_ORDERS = 50;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

const ACCOUNT_PAGE_KEYS = new Set(["limit", "offset"]);
const NO_KEYS = new Set<string>();

/** `limit` (1-500, default 100) and `offset`; any other query key is refused, not ignored. */
function accountsPage(req: Request): { limit: number; offset: number } {
  checkViewQuery(req, ACCOUNT_PAGE_KEYS, "limit and offset");
  const limit = queryWholeNumber(req, "limit", ACCOUNTS_PAGE);
  const offset = queryWholeNumber(req, "offset", 0);
  if (!(limit >= 1 && limit <= MAX_ACCOUNTS_PAGE)) throw new ControlInputError(`limit must be 1-${MAX_ACCOUNTS_PAGE}`);
  if (Number.isNaN(offset)) throw new ControlInputError("offset must be a whole number from 0 to 999999999");
  return { limit, offset };
}

export function accountViewsRouter(p: AccountViewParts, r: Router = controlPrefixRouter()): Router {
  const { engine, registry, funds, roles } = p;
  const roleOf = new Map(roles.map((r) => [r.address, r.role]));

  /** The vault columns of one wallet, token by token (registry order), as raw decimal strings. */
  const vaultRows = (owner: string, tokens: readonly TokenInfo[]) =>
    tokens.flatMap((t) => {
      const acc = funds.ledger.peek(owner, t.address);
      if (acc.available === 0n && acc.frozen === 0n) return [];
      return [{ token: t.address, symbol: t.symbol, decimals: t.decimals, vault_available: acc.available.toString(), vault_frozen: acc.frozen.toString(), vault_total: (acc.available + acc.frozen).toString() }];
    });

  r.route("/accounts").all(onlyGet).get((req, res) => {
    const { limit, offset } = accountsPage(req);
    const tokens = registry.tokens();
    // Known wallets first (funded or not: a user with only wallet funds is still worth a link),
    // then every other owner the ledger holds funds for, by address.
    const others = new Set<string>();
    for (const row of engine.ledger.rows()) if (!roleOf.has(row.owner) && (row.available !== 0n || row.frozen !== 0n)) others.add(row.owner);
    const owners = [...roles.map((x) => x.address), ...[...others].sort()];
    const rows = owners.slice(offset, offset + limit).map((owner) => ({ owner, role: roleOf.get(owner) ?? null, vault: vaultRows(owner, tokens) }));
    res.json({ accounts: rows, total: owners.length, next_offset: offset + limit < owners.length ? offset + limit : null, updated_at: isoOf(engine.clock.nowMs()) });
  });

  r.route("/accounts/:address").all(onlyGet).get(async (req, res) => {
    checkViewQuery(req, NO_KEYS, "no query parameters");
    const raw = String(req.params["address"]);
    if (!ADDRESS.test(raw)) throw new ControlInputError(`not an address: ${JSON.stringify(raw.slice(0, 80))} (0x and 40 hex digits)`);
    const owner = raw.toLowerCase();
    const tokens = registry.tokens();
    let wallets: Map<string, bigint> | null = null;
    try {
      const values = await Promise.all(tokens.map((t) => funds.reader.walletBalance(owner as Address, t.address as Address)));
      wallets = new Map(tokens.map((t, k) => [t.address, values[k]!]));
    } catch {
      // The node does not answer: the vault columns still say something (wallet_balance_available false).
    }
    // Deposits and withdrawals mined since the ledger's last sync: in the wallet column's
    // reading already, in the vault columns only once a sync applies them (this read does not).
    let unsynced: { token: string; symbol: string; decimals: number; deposits: string; withdrawals: string }[] | null = null;
    try {
      const moves = await engine.unsyncedVaultMoves(owner);
      unsynced = tokens.filter((t) => moves.has(t.address)).map((t) => ({ token: t.address, symbol: t.symbol, decimals: t.decimals, deposits: moves.get(t.address)!.deposits.toString(), withdrawals: moves.get(t.address)!.withdrawals.toString() }));
    } catch {
      // The node does not answer: unknown (null), as the wallet column.
    }
    const balances = balanceRows({ owner, tokens, vault: (t) => funds.ledger.peek(owner, t), wallets, includeZero: true, updatedAt: isoOf(engine.clock.nowMs()) });
    // The wallet column is read now and the vault columns are the ledger's: a move mined in
    // between is in one and not the other, so the total counts it once, as the chain holds it
    // (a withdrawal mined was counted twice, a deposit not at all).
    for (const m of unsynced ?? []) {
      const row = balances.balances.find((b) => b.token === m.token);
      if (row && wallets) row.total = (BigInt(row.total) + BigInt(m.deposits) - BigInt(m.withdrawals)).toString();
    }
    const ids = engine.orderIdsOf(owner);
    const orders = ids
      .slice(-ACCOUNT_ORDERS)
      .reverse()
      .map((id) => orderListRow(engine.getOrder(id)));
    res.json({ ...balances, unsynced_vault_moves: unsynced, role: roleOf.get(owner) ?? null, orders, order_count: ids.length });
  });

  r.use(viewErrors);
  return r;
}
