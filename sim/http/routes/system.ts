// GET /system/time: the reference clock for signed expirations (spec rule 7).

import { Router } from "express";
import type { HttpContext } from "../context.ts";
import { methodNotAllowed } from "../errors.ts";

export function systemRouter(ctx: HttpContext, router: Router = Router({ caseSensitive: true, strict: true })): Router {
  router
    .route("/system/time")
    .get((_req, res) => {
      res.json({ timestamp: ctx.clock.nowSec() });
    })
    .all(methodNotAllowed("GET"));
  return router;
}
