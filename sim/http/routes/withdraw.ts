// Instant withdrawal (Optional auth, rate group "transfer" when a key is sent):
//   POST /withdraw        {intent, user_signature} → {success, executor_address,
//                         executor_signature, error}: the executor's co-signature over
//                         the same WithdrawIntent (sim/core/withdraw.ts). Not payable
//                         (vault balance short, uuid used) is 200 with success false.
//   POST /withdraw/build  {intent, user_signature, executor, executor_signature} → {tx}:
//                         executeInstantWithdrawDualSig to the exchange, sent by intent.user.
//   POST /withdraw/send   {raw_tx} → {tx_hash}: only that call to the exchange.
// "When an API key accompanies /withdraw or /withdraw/build, intent.user must equal
// the key owner" → 403.
//
// Statuses, in the order checked: 401 bad key (a present key must be valid); 429
// rate; 422 body shape (intent not an object, signatures not hex, executor not an
// address); 400 intent rules (tokens 1-20, amounts positive and one per token,
// deadline in the window, uuid, listed tokens); 403 intent.user vs key owner; 400
// user signature (ECDSA or EIP-1271) does not sign the intent; build only: 400 the
// executor is not the service's, or its signature does not sign the intent, or the
// transaction would revert (reason in detail); 503 node / domain not configured.

import { type Router, type Response } from "express";
import { apiRouter } from "../api-router.ts";
import { z } from "zod";
import { ExchangeError } from "../../core/errors.ts";
import type { Registry } from "../../core/registry.ts";
import { WITHDRAW_INTENT_TYPE, type Address, type WithdrawIntentMessage } from "../../core/typed-data.ts";
import { parseWithdrawIntent } from "../../core/withdraw.ts";
import { optionalApiKey, ownerOf, rateLimit } from "../auth.ts";
import { jsonBody } from "../body.ts";
import { signingDomain, type HttpContext } from "../context.ts";
import { methodNotAllowed } from "../errors.ts";
import type { FundsServices } from "../funds-services.ts";
import { requireTypedSignature } from "../signed.ts";
import { toContractSignature } from "../../signing/signatures.ts";
import { parseInput } from "../validate.ts";
import { relayHandler } from "./broadcast.ts";
import { address, hexSignature } from "./funds-fields.ts";

// A module constant, so the verifier's type-hash cache (keyed by identity) hits.
const WITHDRAW_TYPES = { WithdrawIntent: WITHDRAW_INTENT_TYPE } as const;

// The intent's own rules live in parseWithdrawIntent (400); the schema only asks for an object.
const intentObject = z.record(z.string(), z.unknown(), { error: "must be an object" });

const CoSignBody = z.object({ intent: intentObject, user_signature: hexSignature });
const BuildBody = z.object({ intent: intentObject, user_signature: hexSignature, executor: address, executor_signature: hexSignature });

/** Parse the intent, enforce the key owner, verify the user's signature over it. */
async function verifiedIntent(ctx: HttpContext, res: Response, intent: unknown, userSignature: string): Promise<WithdrawIntentMessage> {
  const m = parseWithdrawIntent(intent, ctx.clock.nowSec());
  const owner = ownerOf(res);
  if (owner !== undefined && m.user !== owner) throw new ExchangeError("FORBIDDEN", 403, "intent.user does not match the API key owner");
  await requireTypedSignature(
    ctx,
    { domain: signingDomain(ctx), types: WITHDRAW_TYPES, primaryType: "WithdrawIntent", message: { ...m }, signature: userSignature, expected: m.user },
    "Invalid signature: user_signature must sign the WithdrawIntent by intent.user",
  );
  return m;
}

export function withdrawRouter(ctx: HttpContext, registry: Registry, funds: FundsServices, router: Router = apiRouter()): Router {
  const body = jsonBody(ctx.bodyLimit);
  const guard = [optionalApiKey(ctx), rateLimit(ctx, "transfer")];

  router
    .route("/withdraw")
    .post(body, ...guard, async (req, res) => {
      const b = parseInput(CoSignBody, req.body, "body");
      const m = await verifiedIntent(ctx, res, b.intent, b.user_signature);
      // The ledger must include every mined deposit and withdrawal before the
      // executor vouches for the balance; uuid use is read from the contract.
      await funds.sync();
      const used = await funds.reader.withdrawUuidUsed(m.user, m.uuid);
      const result = await funds.coSigner.coSign(
        b.intent,
        {
          nowSec: ctx.clock.nowSec(),
          available: (owner, token) => funds.available(owner, token),
          isListedToken: (t) => registry.token(t) !== undefined,
          isUuidUsed: () => used,
          describeToken: (t) => registry.token(t),
          hold: (user, uuid, amounts, deadlineSec) => funds.holdWithdrawal(user, uuid, amounts, deadlineSec),
          isHeld: (user, uuid) => funds.hasWithdrawHold(user, uuid),
        },
        ownerOf(res),
      );
      res.json(result);
    })
    .all(methodNotAllowed("POST"));

  router
    .route("/withdraw/build")
    .post(body, ...guard, async (req, res) => {
      const b = parseInput(BuildBody, req.body, "body");
      const m = await verifiedIntent(ctx, res, b.intent, b.user_signature);
      const unlisted = m.tokens.find((t) => registry.token(t) === undefined);
      if (unlisted) throw new ExchangeError("VALIDATION", 400, `invalid withdraw intent: token ${unlisted} is not listed`);
      const executor = funds.coSigner.executorAddress;
      if (b.executor !== executor) throw new ExchangeError("VALIDATION", 400, `executor must be the service executor ${executor}`);
      await requireTypedSignature(
        ctx,
        { domain: signingDomain(ctx), types: WITHDRAW_TYPES, primaryType: "WithdrawIntent", message: { ...m }, signature: b.executor_signature, expected: executor },
        "Invalid signature: executor_signature is not the executor's co-signature of this intent",
      );
      const tx = await funds.builder.withdraw({
        intent: m,
        userSignature: toContractSignature(b.user_signature),
        executor: b.executor as Address,
        executorSignature: toContractSignature(b.executor_signature),
        from: m.user,
      });
      res.json({ tx });
    })
    .all(methodNotAllowed("POST"));

  router.route("/withdraw/send").post(body, ...guard, relayHandler(ctx, registry, funds, "withdraw")).all(methodNotAllowed("POST"));

  return router;
}
