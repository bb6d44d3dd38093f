// Plain Node, ES modules: import the fixtures by package name, trade, close.
import { createFakeExchange } from "fakex/fixtures";
import { placeAndSettle } from "./flow.cjs";

const exchange = await createFakeExchange({ liquidity: false });
try {
  console.log(`settled ${await placeAndSettle(exchange)}`);
} finally {
  await exchange.close();
}
