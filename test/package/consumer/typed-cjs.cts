// TypeScript consumer compiled as CommonJS: the "require" side of the exports.
import { createFakeExchange, type FakeExchange } from "fakex/fixtures";

export async function start(): Promise<FakeExchange> {
  return createFakeExchange({ liquidity: false });
}

