// The account and funds routes an app without funds services cannot serve (the memory
// exchange: no chain node to read permits from, build transactions for or broadcast to).
// Each answers 404 with the reason, so a client tested against such an app learns why
// instead of taking a bare "Not Found" for a missing route. GET /balances is not here:
// it is served from whatever source the app has (routes/balances.ts).

import { type Router, type RequestHandler } from "express";
import { apiRouter } from "../api-router.ts";
import { ExchangeError } from "../../core/errors.ts";
import { methodNotAllowed } from "../errors.ts";

/** Each path with the one method the spec gives it. */
export const FUNDS_ROUTES_NEEDING_A_NODE = [
  ["GET", "/permit/metadata"],
  ["POST", "/approve"],
  ["POST", "/deposit"],
  ["POST", "/transfer"],
  ["POST", "/transfer/send"],
  ["POST", "/tx/send"],
  ["POST", "/withdraw"],
  ["POST", "/withdraw/build"],
  ["POST", "/withdraw/send"],
] as const;

export function unservedFundsRouter(reason: string, router: Router = apiRouter()): Router {
  for (const [method, path] of FUNDS_ROUTES_NEEDING_A_NODE) {
    const unserved: RequestHandler = () => {
      throw new ExchangeError("NOT_FOUND", 404, `${method} /api/v1${path} is not served here: ${reason}`);
    };
    // Another method is the 405 the served route gives, so a client's wrong method is not taken for "not served".
    const route = router.route(path);
    (method === "GET" ? route.get(unserved) : route.post(unserved)).all(methodNotAllowed(method));
  }
  return router;
}
