// The /api/v1 express application. It holds no business rule: routers validate,
// authenticate, call sim/core and shape answers; errors are shaped in errors.ts.
//
// Adding a resource: a `routes/<resource>.ts` exporting a Router factory, mounted
// below. Per route, in this order: `jsonBody(ctx.bodyLimit)` for POST bodies (body.ts),
// `requireApiKey`/`optionalApiKey` + `rateLimit(ctx, group)` (auth.ts) or
// `requireTypedSignature` (signed.ts), `validate`/`parseInput` (validate.ts), then the
// core call; throw ExchangeError for every rejection. Close each path with
// `.all(methodNotAllowed(...))`. Routes with a non-plain error body are listed in
// ROUTE_ENVELOPES (errors.ts).

import express, { type Application, Router } from "express";
import type { HttpContext } from "./context.ts";
import { corsMiddleware } from "./cors.ts";
import { errorHandler, notFoundHandler } from "./errors.ts";
import { apiKeysRouter } from "./routes/api-keys.ts";
import { balancesRouter } from "./routes/balances.ts";
import { broadcastRouter } from "./routes/broadcast.ts";
import { fundsRouter } from "./routes/funds.ts";
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

export function createApp(ctx: HttpContext): Application {
  const app = express();
  // Nothing about the server implementation leaks, and no caching validators the
  // live service does not send.
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", "simple");

  const v1 = Router();
  v1.use(systemRouter(ctx));
  v1.use(configRouter(ctx.config ?? (() => ({}))));
  if (ctx.health) v1.use(healthRouter(ctx.health));
  if (ctx.fx) v1.use(fxRouter(ctx.fx));
  if (ctx.registry) {
    v1.use(tokensRouter(ctx.registry));
    v1.use(marketsRouter(ctx.registry));
  }
  if (ctx.apiKeyManager) v1.use(apiKeysRouter(ctx, ctx.apiKeyManager));
  // Both build the Order to sign, which needs the markets and the current executor id.
  if (ctx.registry && ctx.health) {
    v1.use(previewRouter(ctx, ctx.registry, ctx.health));
    v1.use(verifySignatureRouter(ctx, ctx.registry, ctx.health));
  }
  // Orders, VL batches, fills and swaps. After preview, and the fixed /orders/* paths before
  // /orders/{order_id} inside ordersRouter, so GET /orders/preview is a 405 (a known
  // path asked with the wrong method), never a lookup of an order called "preview".
  if (ctx.engine) {
    v1.use(vlRouter(ctx, ctx.engine));
    v1.use(ordersRouter(ctx, ctx.engine));
    v1.use(fillsRouter(ctx, ctx.engine));
    v1.use(swapsRouter(ctx, ctx.engine));
  }
  // Account and funds: balances, permit metadata, tx builders, withdraw, broadcasts.
  if (ctx.funds && ctx.registry) {
    v1.use(balancesRouter(ctx, ctx.registry, ctx.funds));
    v1.use(permitRouter(ctx, ctx.funds));
    v1.use(fundsRouter(ctx, ctx.registry, ctx.funds));
    v1.use(broadcastRouter(ctx, ctx.registry, ctx.funds));
    v1.use(withdrawRouter(ctx, ctx.registry, ctx.funds));
  }
  // CORS first, so every /api/v1 answer (errors and 404s included) carries it.
  if (ctx.cors !== null) app.use(API_PREFIX, corsMiddleware(ctx.cors ?? { kind: "any" }));
  app.use(API_PREFIX, v1);

  app.use(notFoundHandler);
  app.use(errorHandler(ctx.logger));
  return app;
}
