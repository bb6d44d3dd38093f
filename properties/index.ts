// Public entry point `fakex/properties`: fast-check arbitraries for downstream suites.
export * from "./arbitraries.ts";
