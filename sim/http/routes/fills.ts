// Fills (spec "GET /fills/{order_id}", "GET /fills"), API key, read rate group.
//
// GET /fills/{order_id}: query limit (default 100, 1..500), offset (default 0);
//   {items: Fill[]} in execution order, from that order's perspective. 404 when the
//   order is unknown or belongs to another wallet (as GET /orders/{order_id}).
// GET /fills: query owner_address (required, = key owner, else 403), order_status,
//   settlement_status, limit (default 100, max 500), offset; {items: Fill[]} for every
//   fill touching the owner's orders, in execution order (a self-crossing fill
//   appears once per side, each from its own order's perspective).
// Statuses in order: 401 → 429 read group → 422 query → 403 / 404 → 200.
// Items carry exactly the spec's Fill fields.

import { type Router, type Request, type Response } from "express";
import { apiRouter } from "../api-router.ts";
import { z } from "zod";
import type { Engine, FillWire } from "../../core/engine.ts";
import { ownerOf, rateLimit, requireApiKey, requireOwner } from "../auth.ts";
import type { HttpContext } from "../context.ts";
import { methodNotAllowed } from "../errors.ts";
import { parseInput } from "../validate.ts";
import { zAddress, zQueryInt } from "../fields.ts";
import { ORDER_STATUSES } from "./orders-list.ts";
import { ownOrderOr404 } from "./orders.ts";

export type FillsEngine = Pick<Engine, "fillsOfOrder" | "fillsOfOwner" | "orderRecord">;

export const FILL_LIMIT_DEFAULT = 100;
export const FILL_LIMIT_MAX = 500;
export const SETTLEMENT_STATUSES = ["pending", "confirming", "settled", "failed", "reverted"] as const;


const Page = {
  limit: zQueryInt(1, FILL_LIMIT_MAX, FILL_LIMIT_DEFAULT),
  offset: zQueryInt(0, Number.MAX_SAFE_INTEGER, 0),
};
const OrderFillsQuery = z.object(Page);
const OwnerFillsQuery = z.object({
  owner_address: zAddress,
  order_status: z.enum(ORDER_STATUSES).optional(),
  settlement_status: z.enum(SETTLEMENT_STATUSES).optional(),
  ...Page,
});

/** Exactly the spec's Fill fields (engine rows may carry more for filtering). */
function fillOnly(f: FillWire): FillWire {
  return {
    maker_order_id: f.maker_order_id,
    taker_order_id: f.taker_order_id,
    quantity: f.quantity,
    price: f.price,
    settlement_status: f.settlement_status,
    tx_hash: f.tx_hash,
    timestamp: f.timestamp,
    failure_reason: f.failure_reason,
    settlement_economics: f.settlement_economics,
  };
}

export function fillsRouter(ctx: HttpContext, engine: FillsEngine, router: Router = apiRouter()): Router {

  router
    .route("/fills")
    .get(requireApiKey(ctx), rateLimit(ctx, "read"), (req: Request, res: Response) => {
      const q = parseInput(OwnerFillsQuery, req.query, "query");
      const owner = requireOwner(res, q.owner_address);
      const rows = engine.fillsOfOwner(owner, { orderStatus: q.order_status, settlementStatus: q.settlement_status, offset: q.offset, limit: q.limit });
      res.json({ items: rows.map(fillOnly) });
    })
    .all(methodNotAllowed("GET"));

  router
    .route("/fills/:order_id")
    .get(requireApiKey(ctx), rateLimit(ctx, "read"), (req: Request, res: Response) => {
      const q = parseInput(OrderFillsQuery, req.query, "query");
      const id = String(req.params["order_id"]);
      ownOrderOr404(engine, id, ownerOf(res)!);
      res.json({ items: engine.fillsOfOrder(id).slice(q.offset, q.offset + q.limit).map(fillOnly) });
    })
    .all(methodNotAllowed("GET"));

  return router;
}
