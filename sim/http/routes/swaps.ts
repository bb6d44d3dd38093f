// Swaps (spec "Swaps", "Swap quote", "Permit object", "Swap quote lifecycle"):
// POST /swap/quote, POST /swap/quote/batch and POST /swap. No business rule lives
// here: pricing, the quote store and its lifecycle are the engine's SwapDesk; this
// router validates the wire shape, verifies the Intent signature, counts the rate
// limit and shapes the answer.
//
// POST /swap/quote (None):
//   422 field validation (bad address, same token both sides, from_amount not a
//       positive uint256 string, expiration not an integer, bad gas_mode). The spec
//       gives 422 for exactly these failures in the batch, and says nothing for the
//       single quote beyond "400 AMOUNT_BELOW_MIN"; one validator, one status, so a
//       client sees the same answer for the same mistake on both routes.
//   400 pricing: AMOUNT_BELOW_MIN as {"detail": {"code", "detail", min_amount_raw,
//       min_amount}} (errors.ts "swapQuote"), unlisted token, NO_LIQUIDITY (no market
//       path), INTENT_DEADLINE_EXPIRED / EXPIRATION_INVALID (plain {"detail"}).
//   409 self-trade: the route would take the owner's own resting order (plain {"detail"};
//       the batch item's invalid_quote).
//   503 quote time-out (fault plan). 200 the quote (quote_breakdown included).
// POST /swap/quote/batch (None): 422 unless `quotes` is an array of 1..50 items each
//   passing the same field validation (one bad item fails the whole request); then
//   200 {items} positionally, each {ok, quote, error}; pricing failures are items.
// POST /swap (EIP-712 Intent), checks in this order, the first failure wins:
//   400 body shape (uuid and signature strings; signature 0x-hex)
//   410 quote unknown, expired or consumed — before any signature work
//   400 SIGNATURE_INVALID: engine.swapIntentOf(uuid) (= route_params) was not signed
//       by its taker (ECDSA, then EIP-1271 for contract wallets)
//   429 trade rate group of the taker (the proven wallet, as POST /orders does)
//   engine.swap: 400 informational quote / permit fields, 409 QUOTE_STALE (deadline passed, swap state),
//       409 STP_BLOCKED, 400 NO_LIQUIDITY / SLIPPAGE_EXCEEDED (quote not consumed),
//       410 when another caller consumed it during our signature check, 503 on a
//       chain port without swaps.
//   200 {success, trade_id, status "pending", fee_breakdown}. Every 4xx is typed:
//   {"detail": {"detail", "error_code"}} (errors.ts ROUTE_ENVELOPES), with the spec's
//   POST /swap subset of codes (wire-codes.ts: 410 → QUOTE_STALE, a bad signature →
//   TRANSIENT_SETTLEMENT_FAILURE, permit fields → ALLOWANCE_INSUFFICIENT).

import type { Router } from "express";
import { apiRouter } from "../api-router.ts";
import { z } from "zod";
import type { Engine } from "../../core/engine.ts";
import { QUOTE_BATCH_MAX, QUOTE_BATCH_MIN } from "../../core/quotes.ts";
import { INTENT_TYPE, type Hex } from "../../core/typed-data.ts";
import { hitRateLimit } from "../auth.ts";
import { jsonBody } from "../body.ts";
import { signingDomain, type HttpContext } from "../context.ts";
import { methodNotAllowed } from "../errors.ts";
import { requireTypedSignature } from "../signed.ts";
import { toContractSignature } from "../../signing/signatures.ts";
import { parseInput } from "../validate.ts";
import { catchUpVault } from "../vault-catch-up.ts";
import { zAddress, zUint256 } from "../fields.ts";
import { zSignature } from "./orders.ts";

/** What the swap routes call on the engine. */
export type SwapsEngine = Pick<Engine, "quoteSwap" | "quoteSwapBatch" | "swapIntentOf" | "swap">;

// A module constant, so the verifier's type-hash cache (keyed by identity) hits.
const INTENT_TYPES = { Intent: INTENT_TYPE } as const;

/** Raw amount: a positive uint256 decimal string (no sign, no leading zeros). */
const zPositiveRaw = zUint256("must be a positive uint256 decimal string (raw units)", { canonical: true, positive: true }, "must be a decimal string (raw units)");

/** One POST /swap/quote body (also each item of the batch). */
export const QuoteRequestSchema = z
  .object({
    from_token: zAddress,
    to_token: zAddress,
    from_amount: zPositiveRaw,
    owner_address: zAddress,
    recipient: zAddress,
    expiration: z.number({ error: "must be an integer Unix timestamp in seconds" }).int("must be an integer Unix timestamp in seconds"),
    gas_mode: z.enum(["receive_less", "pay_more"], { error: "must be receive_less or pay_more" }).optional(),
  })
  .refine((b) => b.from_token.toLowerCase() !== b.to_token.toLowerCase(), {
    message: "from_token and to_token must differ",
    path: ["to_token"],
  });

const QuoteBatchSchema = z.object({
  quotes: z
    .array(QuoteRequestSchema, { error: "must be an array of quote requests" })
    .min(QUOTE_BATCH_MIN, `must hold ${QUOTE_BATCH_MIN} to ${QUOTE_BATCH_MAX} items`)
    .max(QUOTE_BATCH_MAX, `must hold ${QUOTE_BATCH_MIN} to ${QUOTE_BATCH_MAX} items`),
});

/**
 * POST /swap body. Only uuid and signature are always required; the permit fields
 * are conditional on the quote, so the desk judges them (400, quote not consumed).
 */
const SwapBody = z.object({
  uuid: z.string({ error: "must be the quote uuid string" }),
  signature: zSignature,
  permit_signature: z.unknown().optional(),
  permit_deadline: z.unknown().optional(),
});

/** A 65-byte permit signature in the v 27/28 form ERC-2612 tokens recover; anything else as sent (the desk judges it). */
function contractForm(sig: unknown): unknown {
  return typeof sig === "string" && /^0x[0-9a-fA-F]{130}$/.test(sig) ? toContractSignature(sig as Hex) : sig;
}

export function swapsRouter(ctx: HttpContext, engine: SwapsEngine, router: Router = apiRouter()): Router {

  router
    .route("/swap/quote")
    .post(jsonBody(ctx.bodyLimit), async (req, res) => {
      parseInput(QuoteRequestSchema, req.body, "body");
      // initialDepositAmount is what the vault equity does not cover: take in deposits mined since the last sync.
      await catchUpVault(ctx);
      // The desk re-reads the raw body with the same rules; zod above gives the readable 422.
      res.json(await engine.quoteSwap(req.body));
    })
    .all(methodNotAllowed("POST"));

  router
    .route("/swap/quote/batch")
    .post(jsonBody(ctx.bodyLimit), async (req, res) => {
      parseInput(QuoteBatchSchema, req.body, "body");
      await catchUpVault(ctx);
      res.json(await engine.quoteSwapBatch(req.body));
    })
    .all(methodNotAllowed("POST"));

  router
    .route("/swap")
    .post(jsonBody(ctx.bodyLimit), async (req, res) => {
      const b = parseInput(SwapBody, req.body, "body", { status: 400 });
      // 410 for an unknown, expired or consumed quote, before any signature work.
      const intent = engine.swapIntentOf(b.uuid);
      await requireTypedSignature(ctx, {
        domain: signingDomain(ctx),
        types: INTENT_TYPES,
        primaryType: "Intent",
        message: intent as unknown as Record<string, unknown>,
        signature: b.signature,
        expected: intent.taker,
      }, "Invalid signature: route_params must be signed as an Intent by the taker");
      hitRateLimit(ctx, intent.taker, "trade");
      const result = engine.swap({
        uuid: b.uuid,
        signer: intent.taker,
        // The contract form (v 27/28), as the Router will check it on chain.
        signature: toContractSignature(b.signature as Hex),
        ...(b.permit_signature !== undefined ? { permit_signature: contractForm(b.permit_signature) } : {}),
        ...(b.permit_deadline !== undefined ? { permit_deadline: b.permit_deadline } : {}),
      });
      res.json(result);
    })
    .all(methodNotAllowed("POST"));

  return router;
}
