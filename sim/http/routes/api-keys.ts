// API-key management (spec "API-key management" and Authentication rules 1-5).
// The rules (action per operation, 5-minute timestamp window, replay 409, 10-key
// cap, secrets shown once) live in sim/core/api-keys.ts; this router validates the
// request shape, verifies the ManageApiKey EIP-712 signature (ECDSA, then EIP-1271
// through the chain port) BEFORE calling the store, and returns the store's answer.
//
// Paths and methods (every alias of the spec):
//   POST   /api-keys                  create       body   owner_address, action "create", timestamp, signature, label?
//   GET    /api-keys, /api-keys/list  list         query  owner_address, action "list", timestamp, signature
//   POST   /api-keys/list             list         body   (same fields)
//   DELETE /api-keys                  revoke       query  owner_address, api_key, action "revoke_<api_key>", timestamp, signature
//   POST   /api-keys/revoke           revoke       body   (same fields)
//   POST   /api-keys/revoke-all       revoke all   body   owner_address, action "revoke_all", timestamp, signature
//   POST   /api-keys/self-revoke      API key      body   api_key (must be the bearer key)
//   POST   /api-keys/verify           none         body   api_key, api_secret
// Any other method on these paths: 405.
//
// Wire shapes the spec leaves "not shown", chosen the way a FastAPI-style service
// answers (200 with a JSON object, snake_case, ISO 8601 times):
//   create       200 {api_key, api_secret, label, owner_address, created_at}
//   list         200 {owner_address, api_keys: [{api_key, label, created_at, last_used_at}], count}
//                    (active keys only, oldest first; never a secret)
//   revoke       200 {status: "ok", api_key}
//   self-revoke  200 {status: "ok", api_key}
// Documented ones: revoke-all 200 {status: "ok", revoked_api_keys, count};
// verify 200 {valid: true, owner_address} or 401 {detail}.
//
// Statuses, in the order they are checked:
//   422 shape (missing field, wrong JSON type, owner_address not an address,
//       timestamp not a non-negative integer) - FastAPI's request-model failure;
//   400 signature does not verify for owner_address (SIGNATURE_INVALID);
//   400 wrong action for the operation, or timestamp outside +-5 minutes (store);
//   409 signature already used (store); 400 LIMIT_EXCEEDED at 10 active keys (store);
//   404 revoke of an unknown, foreign or revoked key (store);
//   self-revoke: 401 missing/invalid key, 422 body, 403 api_key is not the bearer key.
//   503 while the EIP-712 domain is not configured yet (signingDomain).
// All error bodies are plain {"detail": "..."}.

import { type Router, type Request, type Response } from "express";
import { apiRouter } from "../api-router.ts";
import { z } from "zod";
import { MAX_LABEL_LENGTH, type ManageAuth } from "../../core/api-keys.ts";
import { MANAGE_API_KEY_TYPE } from "../../core/typed-data.ts";
import { requireApiKey } from "../auth.ts";
import { jsonBody } from "../body.ts";
import { signingDomain, type ApiKeyManager, type HttpContext } from "../context.ts";
import { methodNotAllowed } from "../errors.ts";
import { stringTypeError, zAddress, zUnixSeconds } from "../fields.ts";
import { requireTypedSignature } from "../signed.ts";
import { parseInput, type RequestSource } from "../validate.ts";

// A module constant, so the verifier's type-hash cache (keyed by identity) hits.
const MANAGE_TYPES = { ManageApiKey: MANAGE_API_KEY_TYPE } as const;

// Timestamps: uint256 Unix seconds (JSON integer, or a digit string from a query).
// Range is the type's; the 5-minute window is the store's rule (400), not a shape rule.
const required = (name: string) => z.string({ error: (iss) => `${name} ${stringTypeError(iss)}` });

const managed = {
  owner_address: zAddress,
  action: required("action"),
  timestamp: zUnixSeconds,
  signature: required("signature"),
};

// The label's length is part of the body's shape (422, first): a long label does not hide a
// bad signature, a stale timestamp or a replay behind a label error.
const CreateInput = z.object({ ...managed, label: z.string({ error: "must be a string" }).max(MAX_LABEL_LENGTH, `must be at most ${MAX_LABEL_LENGTH} characters`).nullish() });
const ListInput = z.object(managed);
const RevokeInput = z.object({ ...managed, api_key: required("api_key") });
const RevokeAllInput = z.object(managed);
const SelfRevokeInput = z.object({ api_key: required("api_key") });
const VerifyInput = z.object({ api_key: required("api_key"), api_secret: required("api_secret") });

type Managed = z.output<typeof ListInput>;

/**
 * Verify the ManageApiKey signature over {owner, action, timestamp} as sent, by the
 * claimed owner (any letter case: EIP-712 encodes the address bytes), and hand the
 * store what it needs to check action, window and replay.
 */
async function verifiedManageAuth(ctx: HttpContext, input: Managed): Promise<ManageAuth> {
  await requireTypedSignature(
    ctx,
    {
      domain: signingDomain(ctx),
      types: MANAGE_TYPES,
      primaryType: "ManageApiKey",
      message: { owner: input.owner_address, action: input.action, timestamp: input.timestamp },
      signature: input.signature,
      expected: input.owner_address,
    },
    "Invalid signature: ManageApiKey must be signed by owner_address",
  );
  return { owner: input.owner_address, action: input.action, timestamp: input.timestamp, signature: input.signature };
}

function input<S extends z.ZodType>(schema: S, req: Request, source: RequestSource): z.output<S> {
  return parseInput(schema, req[source], source);
}

export function apiKeysRouter(ctx: HttpContext, keys: ApiKeyManager, router: Router = apiRouter()): Router {
  const body = jsonBody(ctx.bodyLimit);

  const create = async (req: Request, res: Response) => {
    const i = input(CreateInput, req, "body");
    const auth = await verifiedManageAuth(ctx, i);
    res.status(200).json(keys.create(auth, i.label ?? ""));
  };
  const list = (source: RequestSource) => async (req: Request, res: Response) => {
    const i = input(ListInput, req, source);
    res.json(keys.list(await verifiedManageAuth(ctx, i)));
  };
  const revoke = (source: RequestSource) => async (req: Request, res: Response) => {
    const i = input(RevokeInput, req, source);
    res.json(keys.revoke(await verifiedManageAuth(ctx, i), i.api_key));
  };

  router
    .route("/api-keys")
    .get(list("query"))
    .post(body, create)
    .delete(revoke("query"))
    .all(methodNotAllowed("GET", "POST", "DELETE"));

  router.route("/api-keys/list").get(list("query")).post(body, list("body")).all(methodNotAllowed("GET", "POST"));

  // The interface's row is "DELETE or POST | /api-keys or /api-keys/revoke": DELETE (query) on
  // both paths, as GET lists on both; POST on /api-keys is create, so POST revokes on /revoke only.
  router.route("/api-keys/revoke").post(body, revoke("body")).delete(revoke("query")).all(methodNotAllowed("POST", "DELETE"));

  router
    .route("/api-keys/revoke-all")
    .post(body, async (req, res) => {
      const i = input(RevokeAllInput, req, "body");
      res.json(keys.revokeAll(await verifiedManageAuth(ctx, i)));
    })
    .all(methodNotAllowed("POST"));

  router
    .route("/api-keys/self-revoke")
    // The key authenticates first (401 before any body complaint), then the store
    // checks the body names that same key (403) and revokes it.
    .post(body, requireApiKey({ apiKeys: keys }), (req, res) => {
      const i = input(SelfRevokeInput, req, "body");
      res.json(keys.selfRevoke(req.headers.authorization, i.api_key));
    })
    .all(methodNotAllowed("POST"));

  router
    .route("/api-keys/verify")
    // No rate-limit hook and no authentication: verification costs no budget and
    // changes no state (the store does not even record a last use).
    .post(body, (req, res) => {
      const i = input(VerifyInput, req, "body");
      res.json(keys.verify(i.api_key, i.api_secret));
    })
    .all(methodNotAllowed("POST"));

  return router;
}
