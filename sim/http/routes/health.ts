// GET /health: status, executor ids and signature readiness (sim/core/health.ts owns
// the rules; a dependency marked unavailable throws UNAVAILABLE → 503 + Retry-After).

import type { Router } from "express";
import { apiRouter } from "../api-router.ts";
import type { Health } from "../../core/health.ts";
import { methodNotAllowed } from "../errors.ts";

export function healthRouter(health: Health, router: Router = apiRouter()): Router {
  router
    .route("/health")
    .get((_req, res) => {
      res.json(health.view());
    })
    .all(methodNotAllowed("GET"));
  return router;
}
