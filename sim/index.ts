// Public surface of the simulator: the deterministic engine and its parts, the
// shared primitives, the chain port with its Anvil and in-process adapters, and the
// /api/v1 app assembly.
export * from "./core/errors.ts";
export * from "./core/clock.ts";
export * from "./core/rng.ts";
export * from "./core/typed-data.ts";
export * from "./core/amounts.ts";
export * from "./core/expiration.ts";
export * from "./core/uuid-int.ts";
export * from "./core/registry.ts";
export * from "./core/order-terms.ts";
export * from "./core/preview.ts";
export * from "./core/event-log.ts";
export * from "./core/ledger.ts";
export * from "./core/book.ts";
export * from "./core/orders.ts";
export * from "./core/fills.ts";
export * from "./core/economics.ts";
export * from "./core/faults.ts";
export * from "./core/settlement.ts";
export * from "./core/vl.ts";
export * from "./core/views.ts";
export * from "./core/order-intake.ts";
export * from "./core/order-body.ts";
export * from "./core/engine.ts";
export * from "./chain/port.ts";
export * from "./chain/memory.ts";
export { createAnvilChainPort, AnvilChainPort, ANVIL_MAX_BATCH_SIZE } from "./chain/anvil.ts";
export type { AnvilChainPortOptions, BlockMode, PermitState } from "./chain/anvil.ts";
export { createExchangeApp, createMemoryExchange } from "./http/exchange-app.ts";
export { createAppServer } from "./http/server.ts";
export * from "./core/quotes.ts";
export * from "./core/routing.ts";
export * from "./core/swap-gas.ts";
export * from "./core/swap-orders.ts";
export { IntentRevert, intentLegs, orderMessageOf, simulateIntent, MAX_INTENT_LEGS } from "./core/swap-intent.ts";
export type { ChainIntent, IntentChainView, IntentEffects, IntentLeg, IntentPermit } from "./core/swap-intent.ts";
