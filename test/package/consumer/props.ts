// Property factories in a module of their own: `fakex replay` imports this module outside
// the test runner, so it must not call test() or describe() at its top level.
import fc from "fast-check";

export const sumsCommute = () => fc.property(fc.integer(), fc.integer(), (a, b) => a + b === b + a);
export const staysSmall = () => fc.property(fc.integer({ min: 0, max: 1000 }), (n) => n < 500);
