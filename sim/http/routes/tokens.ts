// GET /tokens: every registered token, Token resource shape (sim/core/registry tokenView).

import { Router } from "express";
import type { Registry } from "../../core/registry.ts";
import { tokenView } from "../../core/registry.ts";
import { methodNotAllowed } from "../errors.ts";

export function tokensRouter(registry: Registry, router: Router = Router({ caseSensitive: true, strict: true })): Router {
  router
    .route("/tokens")
    .get((_req, res) => {
      res.json({ tokens: registry.tokens().map(tokenView) });
    })
    .all(methodNotAllowed("GET"));
  return router;
}
