// node:test: the exchange per test, closed in an after hook.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { createFakeExchange } from "fakex";
import { placeAndSettle } from "./flow.cjs";

const exchange = await createFakeExchange({ liquidity: false });
after(() => exchange.close());

test("an ask and a crossing bid settle", async () => {
  assert.equal(await placeAndSettle(exchange), 1);
});
