// GET /config: chain id, contract addresses, EIP-712 domain and run-time limits.
// Always mounted: during partial start-up the unknown values are null (spec Config
// rules), so the inputs are read per request rather than fixed at app creation.

import type { Router } from "express";
import { apiRouter } from "../api-router.ts";
import { configView, type ConfigInputs } from "../../core/config-view.ts";
import { methodNotAllowed } from "../errors.ts";

export function configRouter(inputs: () => ConfigInputs, router: Router = apiRouter()): Router {
  router
    .route("/config")
    .get((_req, res) => {
      res.json(configView(inputs()));
    })
    .all(methodNotAllowed("GET"));
  return router;
}
