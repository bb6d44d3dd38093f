// POST /verify-signature (auth None): would this Order signature be accepted?
// The body is POST /orders without order_type (owner_address, side, amount, price,
// from_address, to_address, order_id, uuid_int, signature, expiration), with the
// same meaning and rules: the fields are validated and the Order to sign is built
// by the preview machinery (sim/core/preview.ts: same fee bps, same side-to-token
// mapping, same bounded expiration and uuid_int check), then the signature is
// checked the way every signed route checks it (ECDSA, then EIP-1271).
//
// 200 {valid, recovered_address, expected_address, error}: a bad signature is an
// answer, never an error. recovered_address is the ECDSA-recovered signer
// (lowercase), null when the bytes recover nobody (also for a contract wallet's
// EIP-1271 signature, which is valid without recovering to anyone);
// expected_address is owner_address, lowercase; error is null when valid.
//
// Field errors are 400 {"detail": "..."}, as POST /orders rejects the same fields
// with 400 (a missing or non-string signature included); malformed JSON is 422.
// order_type may be sent; when present it must be "limit", as on POST /orders.

import type { Router } from "express";
import { apiRouter } from "../api-router.ts";
import { z } from "zod";
import type { Health } from "../../core/health.ts";
import { validateOrderFields } from "../../core/preview.ts";
import type { Registry } from "../../core/registry.ts";
import { ORDER_TYPE } from "../../core/typed-data.ts";
import { jsonBody } from "../body.ts";
import { signingDomain, type HttpContext } from "../context.ts";
import { methodNotAllowed } from "../errors.ts";
import { verifyTypedSignature } from "../../signing/signatures.ts";
import { parseInput } from "../validate.ts";

const ORDER_TYPES = { Order: ORDER_TYPE } as const;

// The order fields are validated by validateOrderFields (the rules POST /orders
// uses); this schema adds what only this route has: the signature to check.
const SignaturePart = z.object({ signature: z.string({ error: (iss) => (iss.input === undefined ? "is required" : "signature must be a hex string") }) });

export interface VerifySignatureResponse {
  valid: boolean;
  recovered_address: string | null;
  expected_address: string;
  error: string | null;
}

export function verifySignatureRouter(ctx: HttpContext, registry: Registry, health: Health, router: Router = apiRouter()): Router {
  router
    .route("/verify-signature")
    .post(jsonBody(ctx.bodyLimit), async (req, res) => {
      const { signature } = parseInput(SignaturePart, req.body, "body", { status: 400 });
      const body = req.body as Record<string, unknown>;
      const order = validateOrderFields(
        { ...body, order_type: body["order_type"] ?? "limit" },
        { registry, nowSec: ctx.clock.nowSec(), executorId: health.executorId },
      );
      const checker = ctx.contractSignatures;
      const result = await verifyTypedSignature({
        domain: signingDomain(ctx),
        types: ORDER_TYPES,
        primaryType: "Order",
        message: { ...order.message },
        signature,
        expected: order.owner,
        ...(checker
          ? { isContract: (a) => checker.isContract(a), isValidSignature: (a, d, s) => checker.isValidSignature(a, d, s) }
          : {}),
      });
      const answer: VerifySignatureResponse = {
        valid: result.valid,
        recovered_address: result.recovered,
        expected_address: order.owner,
        error: result.valid ? null : mismatchReason(result.recovered),
      };
      res.json(answer);
    })
    .all(methodNotAllowed("POST"));
  return router;
}

function mismatchReason(recovered: string | null): string {
  return recovered === null
    ? "signature is malformed or recovers no address"
    : "signature was not made by owner_address for this order";
}
