// GET /health: status, executor ids and signature readiness (sim/core/health.ts owns
// the rules; a dependency marked unavailable throws UNAVAILABLE → 503 + Retry-After).

import { Router } from "express";
import type { Health } from "../../core/health.ts";
import { methodNotAllowed } from "../errors.ts";

export function healthRouter(health: Health, router: Router = Router({ caseSensitive: true, strict: true })): Router {
  router
    .route("/health")
    .get((_req, res) => {
      res.json(health.view());
    })
    .all(methodNotAllowed("GET"));
  return router;
}
