// Plain Node, CommonJS: require the fixtures by package name, trade, close.
const { createFakeExchange } = require("fakex/fixtures");
const { placeAndSettle } = require("./flow.cjs");

(async () => {
  const exchange = await createFakeExchange({ liquidity: false });
  try {
    console.log(`settled ${await placeAndSettle(exchange)}`);
  } finally {
    await exchange.close();
  }
})().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
