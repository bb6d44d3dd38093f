// vitest through the fixture the package exports for it.
import { expect } from "vitest";
import { createExchangeTest } from "fakex/vitest";
import { placeAndSettle } from "./flow.cjs";

const test = createExchangeTest({ liquidity: false });

test("an ask and a crossing bid settle", async ({ exchange }) => {
  expect(await placeAndSettle(exchange)).toBe(1);
});
