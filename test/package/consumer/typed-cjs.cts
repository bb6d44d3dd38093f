// TypeScript consumer compiled as CommonJS: the "require" side of the exports.
import { createFakeExchange, type FakeExchange } from "fakex/fixtures";

export async function start(): Promise<FakeExchange> {
  return createFakeExchange({ liquidity: false });
}

// fakex/vitest is ESM-only (vitest itself refuses require()): its CommonJS declaration is
// the message saying so, so reading the API through require is a type error here.
import vitestEntry = require("fakex/vitest");
// @ts-expect-error: fakex/vitest has no CommonJS API.
export const notThere = vitestEntry.createExchangeTest;
export const esmOnlyMessage: string = vitestEntry;
