// GET /tokens: every registered token, Token resource shape (sim/core/registry tokenView).

import type { Router } from "express";
import { apiRouter } from "../api-router.ts";
import type { Registry } from "../../core/registry.ts";
import { tokenView } from "../../core/registry.ts";
import { methodNotAllowed } from "../errors.ts";

export function tokensRouter(registry: Registry, router: Router = apiRouter()): Router {
  router
    .route("/tokens")
    .get((_req, res) => {
      res.json({ tokens: registry.tokens().map(tokenView) });
    })
    .all(methodNotAllowed("GET"));
  return router;
}
