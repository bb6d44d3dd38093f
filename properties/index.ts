// Public entry point `fakex/properties`: fast-check arbitraries, the engine command
// model with its balance-economics check, replay bundles and the conformance suite.
export * from "./arbitraries.ts";
export * from "./model.ts";
export * from "./replay.ts";
export * from "./conformance.ts";
export * from "./http-model.ts";
