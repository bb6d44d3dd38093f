// Plain Node, CommonJS: require the fixtures by package name, trade, close.
const { createFakeExchange } = require("fakex/fixtures");
const { placeAndSettle } = require("./flow.cjs");

// fakex/vitest is ESM-only (vitest itself refuses require()): its require side says so.
try {
  require("fakex/vitest");
  console.log("fakex/vitest loaded through require");
} catch (e) {
  console.log(/^fakex\/vitest is ESM-only/.test(e.message) ? "fakex/vitest: ESM-only, said so" : `fakex/vitest: ${e.message}`);
}

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
