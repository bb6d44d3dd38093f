// GET /permit/metadata (API key, rate group "read": an account read like /balances).
// Query token, owner, spender (required addresses), amount (optional raw uint256).
// owner must be the key owner (any letter case: this is not one of the
// case-sensitive read endpoints) → 403. Everything is read from the token itself:
// current_allowance_raw, and for an ERC-2612 token the nonce and EIP-712 domain;
// a token without permit gives permit_supported false and no nonce / domain.
// `required` (only when amount is given): the allowance does not cover amount, so
// a permit (or an approve) is needed before a deposit of that size.
//
// Statuses: 401 key, 429 rate, 422 query shape, 403 owner, 503 node.

import type { Router } from "express";
import { apiRouter } from "../api-router.ts";
import { z } from "zod";
import { rateLimit, requireApiKey, requireOwner } from "../auth.ts";
import type { HttpContext } from "../context.ts";
import { methodNotAllowed } from "../errors.ts";
import type { FundsServices } from "../funds-services.ts";
import { parseInput } from "../validate.ts";
import { address, rawAmount } from "./funds-fields.ts";

const PermitQuery = z.object({
  token: address,
  owner: address,
  spender: address,
  amount: rawAmount.optional(),
});

export function permitRouter(ctx: HttpContext, funds: FundsServices, router: Router = apiRouter()): Router {
  router
    .route("/permit/metadata")
    .get(requireApiKey(ctx), rateLimit(ctx, "read"), async (req, res) => {
      const q = parseInput(PermitQuery, req.query, "query");
      requireOwner(res, q.owner, "owner");
      const state = await funds.reader.permitState(q.token, q.owner, q.spender);
      const body: Record<string, unknown> = {
        token: q.token,
        owner: q.owner,
        spender: q.spender,
        current_allowance_raw: state.allowance.toString(),
        permit_supported: state.supported,
      };
      if (state.supported && state.nonce !== undefined && state.domain) {
        body["nonce"] = Number(state.nonce);
        body["domain"] = state.domain;
      }
      if (q.amount !== undefined) body["required"] = state.allowance < q.amount;
      res.json(body);
    })
    .all(methodNotAllowed("GET"));
  return router;
}
