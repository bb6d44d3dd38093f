// GET /markets: the markets open for trading, Market resource shape. Inactive pairs
// are left out: the Market resource has no "active" field, and PAIR_INACTIVE tells
// clients to consult this list, so presence here is what "active" means.

import type { Router } from "express";
import { apiRouter } from "../api-router.ts";
import type { Registry } from "../../core/registry.ts";
import { marketView } from "../../core/registry.ts";
import { methodNotAllowed } from "../errors.ts";

export function marketsRouter(registry: Registry, router: Router = apiRouter()): Router {
  router
    .route("/markets")
    .get((_req, res) => {
      res.json({ markets: registry.activeMarkets().map(marketView) });
    })
    .all(methodNotAllowed("GET"));
  return router;
}
