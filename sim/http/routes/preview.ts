// POST /orders/preview (auth None): the exact Order a client must sign for a limit
// order, from public market metadata and the submitted fields only (no balances,
// no liquidity). sim/core/preview.ts owns every rule and the check order; the
// executor id uuid_int must carry is the current one from GET /health.
//
// 200: the spec's preview body (ok, symbol, side, normalized_amount, ...,
// eip712_order with numeric members as decimal strings, eip712_types).
// Failures: {"ok": false, "error_code", "detail"} at the top level (the "preview"
// envelope in errors.ts), 400 for field format, INVALID_DECIMAL_FORMAT,
// INVALID_PRECISION, PAIR_INACTIVE, AMOUNT_BELOW_MIN (with min_amount_raw and
// min_amount), EXPIRATION_INVALID and UUID_INT_MISMATCH; malformed JSON 422. The
// error_code shown is the spec's code wire-codes.ts maps each to. A VL leg's own
// uuid_int (leg_id >= 1) is accepted (sim/core/uuid-int.ts checkPreviewUuidInt).

import type { Router } from "express";
import { apiRouter } from "../api-router.ts";
import type { Health } from "../../core/health.ts";
import { previewOrder } from "../../core/preview.ts";
import type { Registry } from "../../core/registry.ts";
import { jsonBody } from "../body.ts";
import type { HttpContext } from "../context.ts";
import { methodNotAllowed } from "../errors.ts";

export function previewRouter(ctx: HttpContext, registry: Registry, health: Health, router: Router = apiRouter()): Router {
  router
    .route("/orders/preview")
    .post(jsonBody(ctx.bodyLimit), (req, res) => {
      res.json(previewOrder(req.body, { registry, nowSec: ctx.clock.nowSec(), executorId: health.executorId }));
    })
    .all(methodNotAllowed("POST"));
  return router;
}
