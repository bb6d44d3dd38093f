// The /api/v1 express application. It holds no business rule: routers validate,
// authenticate, call sim/core and shape answers; errors are shaped in errors.ts.
//
// Adding a resource: a `routes/<resource>.ts` exporting a factory that adds its routes
// to the router it is given (the one /api/v1 router; called below, in mount order). Per route, in this order: `jsonBody(ctx.bodyLimit)` for POST bodies (body.ts),
// `requireApiKey`/`optionalApiKey` + `rateLimit(ctx, group)` (auth.ts) or
// `requireTypedSignature` (signed.ts), `parseInput` (validate.ts), then the
// core call; throw ExchangeError for every rejection. Close each path with
// `.all(methodNotAllowed(...))`. Routes with a non-plain error body are listed in
// ROUTE_ENVELOPES (errors.ts).

import express, { type Application } from "express";
import { apiRouter } from "./api-router.ts";
import type { HttpContext } from "./context.ts";
import { corsMiddleware } from "./cors.ts";
import { errorHandler, notFoundHandler } from "./errors.ts";
import { apiKeysRouter } from "./routes/api-keys.ts";
import { balancesRouter } from "./routes/balances.ts";
import { broadcastRouter } from "./routes/broadcast.ts";
import { fundsRouter } from "./routes/funds.ts";
import { unservedFundsRouter } from "./routes/funds-unserved.ts";
import { permitRouter } from "./routes/permit.ts";
import { withdrawRouter } from "./routes/withdraw.ts";
import { configRouter } from "./routes/config.ts";
import { fillsRouter } from "./routes/fills.ts";
import { ordersRouter } from "./routes/orders.ts";
import { swapsRouter } from "./routes/swaps.ts";
import { vlRouter } from "./routes/vl.ts";
import { fxRouter } from "./routes/fx.ts";
import { healthRouter } from "./routes/health.ts";
import { marketsRouter } from "./routes/markets.ts";
import { previewRouter } from "./routes/preview.ts";
import { systemRouter } from "./routes/system.ts";
import { tokensRouter } from "./routes/tokens.ts";
import { verifySignatureRouter } from "./routes/verify-signature.ts";

export type { HttpContext } from "./context.ts";

export const API_PREFIX = "/api/v1";

/**
 * The /api/v1 app; with `into`, its routes and handlers are added to that app instead
 * (after what it has already), so a server that puts its own middleware in front does
 * not mount one express app inside another: a mounted app changes every request's
 * prototypes on the way in, which costs more than a signed order's other HTTP work.
 */
export function createApp(ctx: HttpContext, into?: Application): Application {
  const app = into ?? express();
  // Nothing about the server implementation leaks, and no caching validators the
  // live service does not send.
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", "simple");
  // Paths match as the live service's router matches them: /API/V1/Health is a 404 there,
  // so a client with a mistyped path must not pass against fakex.
  app.set("case sensitive routing", true);
  // And strictly: /health/ is a 404 there as any unknown path is, so it must be one here too.
  app.set("strict routing", true);

  // One flat router: every route factory adds its routes to v1 itself, in mount order,
  // instead of each mounting a router of its own (a request walked through each of
  // those in turn, which cost more than matching the routes).
  const v1 = apiRouter();
  // CORS first, so every /api/v1 answer (errors and 404s included) carries it.
  if (ctx.cors !== null) v1.use(corsMiddleware(ctx.cors ?? { kind: "any" }));
  systemRouter(ctx, v1);
  configRouter(ctx.config ?? (() => ({})), v1);
  if (ctx.health) healthRouter(ctx.health, v1);
  if (ctx.fx) fxRouter(ctx.fx, v1);
  if (ctx.registry) {
    tokensRouter(ctx.registry, v1);
    marketsRouter(ctx.registry, v1);
  }
  if (ctx.apiKeyManager) apiKeysRouter(ctx, ctx.apiKeyManager, v1);
  // Both build the Order to sign, which needs the markets and the current executor id.
  if (ctx.registry && ctx.health) {
    previewRouter(ctx, ctx.registry, ctx.health, v1);
    verifySignatureRouter(ctx, ctx.registry, ctx.health, v1);
  }
  // Orders, VL batches, fills and swaps. After preview, and the fixed /orders/* paths before
  // /orders/{order_id} inside ordersRouter, so GET /orders/preview is a 405 (a known
  // path asked with the wrong method), never a lookup of an order called "preview".
  if (ctx.engine) {
    vlRouter(ctx, ctx.engine, v1);
    ordersRouter(ctx, ctx.engine, v1);
    fillsRouter(ctx, ctx.engine, v1);
    swapsRouter(ctx, ctx.engine, v1);
  }
  // Account and funds: balances, permit metadata, tx builders, withdraw, broadcasts.
  const balances = ctx.funds ?? ctx.balances;
  if (balances && ctx.registry) balancesRouter(ctx, ctx.registry, balances, v1);
  if (!ctx.funds && ctx.fundsUnavailable !== undefined) unservedFundsRouter(ctx.fundsUnavailable, v1);
  if (ctx.funds && ctx.registry) {
    permitRouter(ctx, ctx.funds, v1);
    fundsRouter(ctx, ctx.registry, ctx.funds, v1);
    broadcastRouter(ctx, ctx.registry, ctx.funds, v1);
    withdrawRouter(ctx, ctx.registry, ctx.funds, v1);
  }
  // Into another app: behind a router of their own, so the 404 and error handler answer
  // what reaches them from /api/v1 and never an error raised by that app's middleware.
  const target = into ? apiRouter() : app;
  target.use(API_PREFIX, v1);
  target.use(notFoundHandler);
  target.use(errorHandler(ctx.logger));
  if (into) into.use(target);
  return app;
}
