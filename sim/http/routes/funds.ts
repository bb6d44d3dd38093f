// Transaction builders (API key, rate group "transfer"): POST /approve, /deposit,
// /transfer answer {tx}, an unsigned EIP-1559 transaction (sim/chain/tx-builder.ts)
// for the owner to sign and relay with POST /tx/send or /transfer/send.
//
//   /approve   token (listed), owner (= key owner), spender (the live vault or
//              router from GET /config), amount (raw; 0 revokes)
//   /deposit   token (listed), owner (= key owner), amount (raw, positive), optional
//              permit_signature (65/64-byte hex) + permit_deadline (integer) and
//              permit_amount (raw, default amount): depositFund(token, owner, amount)
//              without permit fields, depositFundWithPermit(...) with them
//   /transfer  token (listed), to, amount (raw), from_address (= key owner)
//
// Statuses, in the order checked: 401 key; 429 rate; 422 body shape; 403 owner /
// from_address is not the key owner (any letter case); 400 token not listed, spender
// not vault/router, zero deposit, incomplete permit fields, or the transaction would
// revert (its reason in detail, e.g. an allowance too low for depositFund); 503 node.

import type { Router } from "express";
import { apiRouter } from "../api-router.ts";
import { z } from "zod";
import { ExchangeError } from "../../core/errors.ts";
import type { Registry } from "../../core/registry.ts";
import type { Address } from "../../core/typed-data.ts";
import { rateLimit, requireApiKey, requireOwner } from "../auth.ts";
import { jsonBody } from "../body.ts";
import type { HttpContext } from "../context.ts";
import { methodNotAllowed } from "../errors.ts";
import type { FundsServices } from "../funds-services.ts";
import { parseInput } from "../validate.ts";
import { address, compactOrFullSignature, rawAmount, unixSeconds } from "./funds-fields.ts";

const ApproveBody = z.object({ token: address, owner: address, spender: address, amount: rawAmount });

const DepositBody = z.object({
  token: address,
  owner: address,
  amount: rawAmount,
  permit_signature: compactOrFullSignature.nullish(),
  permit_deadline: unixSeconds.nullish(),
  permit_amount: rawAmount.nullish(),
});

const TransferBody = z.object({ token: address, to: address, amount: rawAmount, from_address: address });

export function listedToken(registry: Registry, token: Address): Address {
  if (!registry.token(token)) throw new ExchangeError("VALIDATION", 400, `token ${token} is not in the token registry`);
  return token;
}

export function fundsRouter(ctx: HttpContext, registry: Registry, funds: FundsServices, router: Router = apiRouter()): Router {
  const body = jsonBody(ctx.bodyLimit);
  const guard = [requireApiKey(ctx), rateLimit(ctx, "transfer")];

  router
    .route("/approve")
    .post(body, ...guard, async (req, res) => {
      const b = parseInput(ApproveBody, req.body, "body");
      requireOwner(res, b.owner, "owner");
      listedToken(registry, b.token);
      const { vault, router: sor } = funds.deployment;
      if (b.spender !== vault && b.spender !== sor) {
        throw new ExchangeError("VALIDATION", 400, `spender must be the vault (${vault}) or the router (${sor})`);
      }
      res.json({ tx: await funds.builder.approve({ token: b.token, owner: b.owner, spender: b.spender, amount: b.amount }) });
    })
    .all(methodNotAllowed("POST"));

  router
    .route("/deposit")
    .post(body, ...guard, async (req, res) => {
      const b = parseInput(DepositBody, req.body, "body");
      requireOwner(res, b.owner, "owner");
      listedToken(registry, b.token);
      if (b.amount === 0n) throw new ExchangeError("VALIDATION", 400, "amount must be positive");
      const signature = b.permit_signature ?? undefined;
      const deadline = b.permit_deadline ?? undefined;
      const permitAmount = b.permit_amount ?? undefined;
      const anyPermit = signature !== undefined || deadline !== undefined || permitAmount !== undefined;
      if (anyPermit && (signature === undefined || deadline === undefined)) {
        throw new ExchangeError("VALIDATION", 400, "missing permit fields: permit_signature and permit_deadline are both required for a permit deposit");
      }
      const permit = signature !== undefined && deadline !== undefined ? { signature, deadline, amount: permitAmount ?? b.amount } : undefined;
      res.json({ tx: await funds.builder.deposit({ token: b.token, owner: b.owner, amount: b.amount, ...(permit ? { permit } : {}) }) });
    })
    .all(methodNotAllowed("POST"));

  router
    .route("/transfer")
    .post(body, ...guard, async (req, res) => {
      const b = parseInput(TransferBody, req.body, "body");
      requireOwner(res, b.from_address, "from_address");
      listedToken(registry, b.token);
      res.json({ tx: await funds.builder.transfer({ token: b.token, from: b.from_address, to: b.to, amount: b.amount }) });
    })
    .all(methodNotAllowed("POST"));

  return router;
}
