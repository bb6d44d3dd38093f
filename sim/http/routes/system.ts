// GET /system/time: the reference clock for signed expirations (spec rule 7).

import type { Router } from "express";
import { apiRouter } from "../api-router.ts";
import type { HttpContext } from "../context.ts";
import { methodNotAllowed } from "../errors.ts";

export function systemRouter(ctx: HttpContext, router: Router = apiRouter()): Router {
  router
    .route("/system/time")
    .get((_req, res) => {
      res.json({ timestamp: ctx.clock.nowSec() });
    })
    .all(methodNotAllowed("GET"));
  return router;
}
