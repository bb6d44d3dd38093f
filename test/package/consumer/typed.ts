// TypeScript consumer: every entry point resolves with its types.
import { createFakeExchange, type FakeExchange, type FakeExchangeOptions } from "fakex/fixtures";
import { createExchangeTest } from "fakex/vitest";
import { limitOrderBody, createMemoryExchange } from "fakex/sim";
import { sim, startAnvil, type RunningAnvil } from "fakex";
import * as properties from "fakex/properties";

const options: FakeExchangeOptions = { seed: 7, liquidity: false };
export async function start(): Promise<FakeExchange> {
  const exchange = await createFakeExchange(options);
  const url: string = exchange.baseUrl;
  void url;
  return exchange;
}
export const anvil: () => Promise<RunningAnvil> = () => startAnvil();
export const test = createExchangeTest({ liquidity: false });
export const fns = [limitOrderBody, createMemoryExchange, sim.createMemoryExchange];
export const props = properties;
// @ts-expect-error: not an export of fakex/fixtures
import { noSuchExport } from "fakex/fixtures";
void noSuchExport;
