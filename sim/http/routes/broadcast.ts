// Broadcast helpers: POST /tx/send and /transfer/send (API key), POST /withdraw/send
// (Optional, mounted by withdraw.ts). Body {raw_tx}; answer {tx_hash}. Each relays
// only the calls sim/core/broadcast-policy.ts allows for it, then eth_sendRawTransaction.
// A relayed deposit or withdrawal is synced into the ledger right away (on an
// automining chain it is already mined), so a client that deposits and then places an
// order has the equity; later blocks are picked up by the next GET /balances or
// withdraw request. A failed sync never fails the relay: the tx is already out.
//
// Statuses: 401 key; 429 rate ("transfer" group, per key owner); 422 body shape;
// 400 not an allowed call / wrong target / wrong spender / unlisted token / EIP-7702
// delegate not allowlisted / wrong chain id / unsigned or undecodable / refused by
// the node (nonce, funds); 503 node unreachable.

import { type Router, type RequestHandler } from "express";
import { apiRouter } from "../api-router.ts";
import type { Abi } from "viem";
import { checkBroadcast, type AcceptedBroadcast, type BroadcastEndpoint } from "../../core/broadcast-policy.ts";
import { Exchange } from "../../chain/artifacts.ts";
import type { Registry } from "../../core/registry.ts";
import type { Address, Hex } from "../../core/typed-data.ts";
import { rateLimit, requireApiKey } from "../auth.ts";
import { jsonBody } from "../body.ts";
import type { HttpContext } from "../context.ts";
import { methodNotAllowed } from "../errors.ts";
import type { FundsServices } from "../funds-services.ts";
import { parseInput } from "../validate.ts";
import { rawTxBody } from "./funds-fields.ts";

/** Check `rawTx` against the endpoint's policy, broadcast it, sync the ledger for fund moves. */
export async function relay(
  ctx: HttpContext,
  registry: Registry,
  funds: FundsServices,
  endpoint: BroadcastEndpoint,
  rawTx: string,
): Promise<{ tx_hash: Hex; accepted: AcceptedBroadcast }> {
  const accepted = await checkBroadcast(endpoint, rawTx, {
    ...funds.deployment,
    exchangeAbi: Exchange.abi as Abi,
    isRegistryToken: (t: Address) => registry.token(t) !== undefined,
    delegateAllowlist: funds.delegates.list(),
  });
  const txHash = await funds.reader.sendRawTransaction(rawTx as Hex);
  if (accepted.kind === "depositFund" || accepted.kind === "depositFundWithPermit" || accepted.kind === "executeInstantWithdrawDualSig") {
    try {
      await funds.reader.waitMined(txHash);
      await funds.sync();
    } catch (err) {
      ctx.logger?.error("relay: ledger sync failed", { error: err instanceof Error ? err.message : String(err) });
    }
  }
  return { tx_hash: txHash, accepted };
}

/** The handler of one broadcast endpoint (guards are added by the caller). */
export function relayHandler(ctx: HttpContext, registry: Registry, funds: FundsServices, endpoint: BroadcastEndpoint): RequestHandler {
  return async (req, res) => {
    const b = parseInput(rawTxBody, req.body, "body");
    const { tx_hash } = await relay(ctx, registry, funds, endpoint, b.raw_tx);
    res.json({ tx_hash });
  };
}

export function broadcastRouter(ctx: HttpContext, registry: Registry, funds: FundsServices, router: Router = apiRouter()): Router {
  const body = jsonBody(ctx.bodyLimit);
  const guard = [requireApiKey(ctx), rateLimit(ctx, "transfer")];
  router.route("/tx/send").post(body, ...guard, relayHandler(ctx, registry, funds, "tx")).all(methodNotAllowed("POST"));
  router.route("/transfer/send").post(body, ...guard, relayHandler(ctx, registry, funds, "transfer")).all(methodNotAllowed("POST"));
  return router;
}
