// jest (CommonJS, its default): the exchange per file, closed in afterAll.
const { createFakeExchange } = require("fakex/fixtures");
const { placeAndSettle } = require("./flow.cjs");

let exchange;
beforeAll(async () => {
  exchange = await createFakeExchange({ liquidity: false });
}, 120_000);
afterAll(() => exchange?.close());

test("an ask and a crossing bid settle", async () => {
  expect(await placeAndSettle(exchange)).toBe(1);
}, 120_000);
