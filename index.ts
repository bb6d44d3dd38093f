// Public entry point `fakex`: the fixtures and the simulator.
export * from "./fixtures/index.ts";
export * as sim from "./sim/index.ts";
