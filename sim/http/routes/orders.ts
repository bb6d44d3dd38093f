// Limit orders (spec "Orders"): POST /orders, POST /orders/cancel,
// DELETE /orders/cancel-all, GET /orders/{order_id} and GET /orders (whose
// filters, sort and paging live in orders-list.ts). No business rule lives here: the field rules are
// sim/core's (the same validator as preview), the order book and its rules are the
// engine's; this router validates, verifies the signature, counts the rate limit
// and shapes the answer.
//
// POST /orders (EIP-712 Order), checks in this order, the first failure wins:
//   400 body shape (missing/ill-typed field, client_id / fee_bps present, signature
//       not a string) → INVALID_DECIMAL_FORMAT → INVALID_PRECISION → PAIR_INACTIVE →
//       AMOUNT_BELOW_MIN → EXPIRATION_INVALID → UUID_INT_MISMATCH   (the shared validator;
//       the spec: "non-canonical strings and non-zero extra precision are rejected
//       before signature verification")
//   400 SIGNATURE_INVALID: the Order built exactly as POST /orders/preview builds it
//       (fee bps, side→token mapping, uuid_int) was not signed by owner_address
//       (ECDSA, then EIP-1271 for contract wallets)
//   429 trade rate group of the (now proven) owner wallet
//   409 order_id already used; 400 INSUFFICIENT_EQUITY (after taking in deposits mined
//       since the last vault sync: vault-catch-up.ts); 409 STP_BLOCKED (engine)
//   201 {order_id}. Every 4xx uses the typed envelope {"detail": {"detail", "error_code"}}.
// The codes named here are the simulator's; the wire shows the spec's code each maps
// to in wire-codes.ts (e.g. UUID_INT_MISMATCH → the catch-all, or QUOTE_STALE for a
// rotated executor id).
// The stored signature is the contract form (v 27/28), so the first on-chain fill
// verifies it.
//
// POST /orders/cancel (EIP-712 CancelOrder {owner, orderId = uuid_int}):
//   422 shape → 400 signature → 429 cancel rate group → engine: 404 unknown order,
//   403 another owner's order, 400 UUID_INT_MISMATCH, 409 not pending (a replayed
//   cancel lands here), 429 CANCEL_COOLDOWN (typed, as FACTS shows) → 200 {status: "ok"}.
// DELETE /orders/cancel-all (API key; query owner_address = key owner):
//   401 → 429 cancel group → 422 query → 403 → 200 {cancelled, failed, skipped_cooldown, total}.
// GET /orders/{order_id} (API key, read group): the Order; 404 when unknown or owned
//   by another wallet (a key reads its own wallet only; existence is not disclosed).
//
// Mount order: POST /orders/preview is mounted before this router (app.ts), and the
// fixed paths below (/orders/cancel, /orders/cancel-all) before /orders/{order_id},
// so GET /orders/preview or GET /orders/cancel answer 405 (a known path, another
// method) instead of being read as an order id (FastAPI's first-match would say
// 404 "not found" there; 405 tells the client what is really wrong).

import { type Router, type Response } from "express";
import { apiRouter } from "../api-router.ts";
import { z } from "zod";
import type { Engine, OrderBody } from "../../core/engine.ts";
import { ExchangeError } from "../../core/errors.ts";
import { limitOrderMessage } from "../../core/order-terms.ts";
import { UNACCEPTED_ORDER_FIELDS } from "../../core/preview.ts";
import type { Registry } from "../../core/registry.ts";
import { CANCEL_ORDER_TYPE, ORDER_TYPE, type Address, type Hex } from "../../core/typed-data.ts";
import { hitRateLimit, rateLimit, requireApiKey, requireOwner, ownerOf } from "../auth.ts";
import { jsonBody } from "../body.ts";
import { signingDomain, type HttpContext } from "../context.ts";
import { methodNotAllowed } from "../errors.ts";
import { zAddress, zHex, zUint256 as zUint256Field, zUuid4 } from "../fields.ts";
import { sendJson } from "../respond.ts";
import { requireTypedSignature } from "../signed.ts";
import { toContractSignature } from "../../signing/signatures.ts";
import { parseInput } from "../validate.ts";
import { placeAgainAfterCatchUp } from "../vault-catch-up.ts";
import { listOrdersHandler } from "./orders-list.ts";

/** What the order routes call on the engine. */
export type OrdersEngine = Pick<
  Engine,
  "validateOrder" | "placeParsed" | "placeOrder" | "cancelOrder" | "cancelAll" | "getOrder" | "listOrders" | "orderRecordsOf" | "viewOfOrder" | "orderRecord" | "executorId" | "registry" | "clock"
>;

// Module constants, so the verifier's type-hash cache (keyed by identity) hits.
export const ORDER_TYPES = { Order: ORDER_TYPE } as const;
const CANCEL_TYPES = { CancelOrder: CANCEL_ORDER_TYPE } as const;

export const zUint256 = zUint256Field("must be a uint256 decimal string", { canonical: true }, "must be a decimal string");
export const zSignature = zHex("must be 0x-prefixed hex", { error: "must be a hex string" });

/**
 * The shape step's refusal of `client_id` / `fee_bps` (spec: "not accepted"). The
 * shared validator has it too, but the engine's fast intake path does not look at
 * fields it does not use, so the route says it once for every order body.
 */
export function refuseUnacceptedFields(body: Record<string, unknown>): void {
  for (const name of UNACCEPTED_ORDER_FIELDS) {
    if (body[name] !== undefined) throw new ExchangeError("VALIDATION", 400, `${name} is not accepted`, { field: name });
  }
}

/** A signature field of an order body: a string is all the shape step asks (the verifier judges the bytes). */
export function signatureField(body: Record<string, unknown>, where = "signature"): string {
  const s = body["signature"];
  if (typeof s !== "string") throw new ExchangeError("VALIDATION", 400, `${where} ${s === undefined ? "is required" : "must be a hex string"}`, { field: "signature" });
  return s;
}

/** `what`: the object's name in the message (a VL leg names its position). */
export function requireObjectBody(body: unknown, what = "request body"): Record<string, unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new ExchangeError("VALIDATION", 400, `${what} must be a JSON object`);
  }
  return body as Record<string, unknown>;
}

/** The order of `orderId` as its owner's key sees it: unknown and foreign orders are both 404. */
export function ownOrderOr404(engine: Pick<Engine, "orderRecord">, orderId: string, owner: Address): void {
  const rec = engine.orderRecord(orderId); // 404 when unknown
  if (rec.owner !== owner) throw new ExchangeError("NOT_FOUND", 404, `order ${orderId} not found`);
}

const CancelBody = z.object({
  owner_address: zAddress,
  order_id: zUuid4,
  uuid_int: zUint256,
  signature: zSignature,
});

const CancelAllQuery = z.object({ owner_address: zAddress });

export function ordersRouter(ctx: HttpContext, engine: OrdersEngine, router: Router = apiRouter()): Router {
  const registry: Registry = engine.registry;

  router
    .route("/orders")
    .get(requireApiKey(ctx), rateLimit(ctx, "read"), listOrdersHandler(engine))
    .post(jsonBody(ctx.bodyLimit), async (req, res) => {
      const body = requireObjectBody(req.body);
      refuseUnacceptedFields(body);
      const signature = signatureField(body);
      // Kept lowercased; placed only once verified below (a verified signature is hex, ECDSA or EIP-1271).
      const contractSignature = toContractSignature(signature as Hex);
      // Validated once, by the engine: the Order to verify needs its amounts, and the
      // same result is placed below unless what validation read (the clock's second,
      // the executor id) moved while the signature was checked.
      const nowSec = engine.clock.nowSec();
      const executorId = engine.executorId;
      const v = engine.validateOrder(body as unknown as OrderBody, contractSignature);
      await requireTypedSignature(ctx, {
        domain: signingDomain(ctx),
        types: ORDER_TYPES,
        primaryType: "Order",
        // What POST /orders/preview returns as eip712_order, under the registry's fee.
        message: { ...limitOrderMessage(v, registry.feeBps) },
        signature,
        expected: v.owner,
      }, "Invalid signature: Order must be signed by owner_address");
      hitRateLimit(ctx, v.owner, "trade");
      const placeFromBody = () => engine.placeOrder({ ...(body as unknown as OrderBody), signature: contractSignature });
      let placed;
      try {
        placed = engine.clock.nowSec() === nowSec && engine.executorId === executorId ? engine.placeParsed(v) : placeFromBody();
      } catch (refusal) {
        placed = await placeAgainAfterCatchUp(ctx, refusal, placeFromBody);
      }
      sendJson(res, 201, { order_id: placed.orderId });
    })
    .all(methodNotAllowed("GET", "POST"));

  router
    .route("/orders/cancel")
    .post(jsonBody(ctx.bodyLimit), async (req, res) => {
      const b = parseInput(CancelBody, req.body, "body");
      const owner = b.owner_address.toLowerCase() as Address;
      await requireTypedSignature(ctx, {
        domain: signingDomain(ctx),
        types: CANCEL_TYPES,
        primaryType: "CancelOrder",
        message: { owner, orderId: BigInt(b.uuid_int) },
        signature: b.signature,
        expected: owner,
      }, "Invalid signature: CancelOrder must be signed by owner_address");
      hitRateLimit(ctx, owner, "cancel");
      res.json(engine.cancelOrder({ owner, orderId: b.order_id, uuidInt: b.uuid_int }));
    })
    .all(methodNotAllowed("POST"));

  router
    .route("/orders/cancel-all")
    .delete(requireApiKey(ctx), rateLimit(ctx, "cancel"), (req, res: Response) => {
      const q = parseInput(CancelAllQuery, req.query, "query");
      const owner = requireOwner(res, q.owner_address);
      res.json(engine.cancelAll(owner));
    })
    .all(methodNotAllowed("DELETE"));

  router
    .route("/orders/:order_id")
    .get(requireApiKey(ctx), rateLimit(ctx, "read"), (req, res) => {
      const id = String(req.params["order_id"]);
      const owner = ownerOf(res)!;
      ownOrderOr404(engine, id, owner);
      res.json(engine.getOrder(id));
    })
    .all(methodNotAllowed("GET"));

  return router;
}
