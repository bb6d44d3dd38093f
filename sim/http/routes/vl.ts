// Virtual-liquidity batches (spec "POST /orders/vl/batch", "POST /orders/vl/cancel").
//
// POST /orders/vl/batch (EIP-712 Order on every sibling), typed envelope like POST
// /orders ("each sibling has the same semantics"). Checks in order:
//   400 body shape (orders not an array) → 400 batch size outside GET /config
//   limits.vl_batch → per leg, in array order, the POST /orders field rules (shape,
//   INVALID_DECIMAL_FORMAT, INVALID_PRECISION, PAIR_INACTIVE, AMOUNT_BELOW_MIN,
//   expiration, uuid_int as leg i of leg 0's group) → every leg's signature (400) →
//   the engine's batch rules (one owner, one spent token, distinct markets, unique
//   ids; budget; STP) → 201 {order_ids, amendments, cancelled, fills, vl_group}.
// Not rate limited: the spec's trade group names POST /orders and POST /swap only.
//
// POST /orders/vl/cancel (EIP-712 CancelVLBatch {owner, vlBatchId = leg 0's
// order_id as a string}): 422 shape → 400 signature → engine: 404 unknown batch,
// 403 another owner's batch, 429 CANCEL_COOLDOWN (typed) while any open leg is in
// its cooldown → 200 {status: "ok"}. A replay after the cancel is harmless (no leg
// is pending any more) and answers "ok" again. Not rate limited (not in the
// spec's cancel group).

import type { Router } from "express";
import { apiRouter } from "../api-router.ts";
import { z } from "zod";
import type { Engine } from "../../core/engine.ts";
import { ExchangeError } from "../../core/errors.ts";
import { validateOrderFields } from "../../core/preview.ts";
import { groupIdOf, isUuid4 } from "../../core/uuid-int.ts";
import { checkBatchSize } from "../../core/vl.ts";
import { CANCEL_VL_BATCH_TYPE, type Address, type Hex } from "../../core/typed-data.ts";
import { jsonBody } from "../body.ts";
import { signingDomain, type HttpContext } from "../context.ts";
import { methodNotAllowed } from "../errors.ts";
import { requireTypedSignature } from "../signed.ts";
import { toContractSignature } from "../../signing/signatures.ts";
import { parseInput } from "../validate.ts";
import { catchUpVault } from "../vault-catch-up.ts";
import { zAddress, zUuid4 } from "../fields.ts";
import { ORDER_TYPES, requireObjectBody, signatureField, zSignature } from "./orders.ts";

export type VlEngine = Pick<Engine, "placeVlBatch" | "cancelVlBatch" | "executorId" | "registry" | "vlLimits">;

const CANCEL_VL_TYPES = { CancelVLBatch: CANCEL_VL_BATCH_TYPE } as const;

const CancelVlBody = z.object({
  owner_address: zAddress,
  vl_batch_id: zUuid4,
  signature: zSignature,
});

export function vlRouter(ctx: HttpContext, engine: VlEngine, router: Router = apiRouter()): Router {

  router
    .route("/orders/vl/batch")
    .post(jsonBody(ctx.bodyLimit), async (req, res) => {
      const body = requireObjectBody(req.body);
      const orders = body["orders"];
      if (!Array.isArray(orders)) throw new ExchangeError("VALIDATION", 400, "orders must be an array of POST /orders bodies", { field: "orders" });
      checkBatchSize(orders.length, engine.vlLimits);
      const leg0 = (orders[0] as Record<string, unknown> | null)?.["order_id"];
      const groupId = isUuid4(leg0) ? groupIdOf(leg0.toLowerCase()) : 0n;
      const pctx = { registry: engine.registry, nowSec: ctx.clock.nowSec(), executorId: engine.executorId };
      const legs = orders.map((o: unknown, i) => {
        const leg = requireObjectBody(o, `orders[${i}]`);
        const signature = signatureField(leg, `orders[${i}].signature`);
        return { leg, signature, v: validateOrderFields(leg, pctx, { groupId, legId: i }) };
      });
      const domain = signingDomain(ctx);
      for (const [i, l] of legs.entries()) {
        await requireTypedSignature(ctx, {
          domain,
          types: ORDER_TYPES,
          primaryType: "Order",
          message: { ...l.v.message },
          signature: l.signature,
          expected: l.v.owner,
        }, `Invalid signature: orders[${i}] must be signed by its owner_address`);
      }
      const bodies = legs.map((l) => ({ ...l.leg, signature: toContractSignature(l.signature as Hex) })) as unknown as Parameters<VlEngine["placeVlBatch"]>[0];
      // The budget and its clips follow the vault equity: take in deposits mined since the last sync.
      await catchUpVault(ctx);
      res.status(201).json(engine.placeVlBatch(bodies));
    })
    .all(methodNotAllowed("POST"));

  router
    .route("/orders/vl/cancel")
    .post(jsonBody(ctx.bodyLimit), async (req, res) => {
      const b = parseInput(CancelVlBody, req.body, "body");
      const owner = b.owner_address.toLowerCase() as Address;
      await requireTypedSignature(ctx, {
        domain: signingDomain(ctx),
        types: CANCEL_VL_TYPES,
        primaryType: "CancelVLBatch",
        // Signed as sent: the id is a string member, so its spelling is what was signed.
        message: { owner, vlBatchId: b.vl_batch_id },
        signature: b.signature,
        expected: owner,
      }, "Invalid signature: CancelVLBatch must be signed by owner_address");
      res.json(engine.cancelVlBatch({ owner, vlBatchId: b.vl_batch_id }));
    })
    .all(methodNotAllowed("POST"));

  return router;
}
