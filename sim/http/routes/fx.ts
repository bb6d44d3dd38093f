// GET /fx/rate?base=&quote=: consensus FX rate (sim/core/fx.ts validates the codes —
// 400 when missing or non-alphabetic — and answers 503 without provider data).

import type { Router } from "express";
import { apiRouter } from "../api-router.ts";
import type { FxRates } from "../../core/fx.ts";
import { methodNotAllowed } from "../errors.ts";

export function fxRouter(fx: FxRates, router: Router = apiRouter()): Router {
  router
    .route("/fx/rate")
    .get((req, res) => {
      // A repeated parameter arrives as an array; fx.rate rejects non-strings with 400.
      res.json(fx.rate(req.query["base"], req.query["quote"]));
    })
    .all(methodNotAllowed("GET"));
  return router;
}
