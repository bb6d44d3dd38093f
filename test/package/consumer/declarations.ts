// A project that exports what it builds from fakex (a shared test package in a monorepo,
// built with declarations): every inferred type must be nameable from fakex's entry points.
import { createChainTest, createExchangeTest, test as base, type ExchangeTest } from "fakex/vitest";
import type { FakeExchange } from "fakex/fixtures";

export const test = createExchangeTest({ seed: 3 });
export const named: ExchangeTest = createExchangeTest({ seed: 4 });
export const chainTest = createChainTest();
export const withTrader = base.extend("trader", async ({ exchange }) => exchange.accounts[0]!.address);
export const parts = (ex: FakeExchange) => ex.parts;
export const markets = (ex: FakeExchange) => ex.registry.markets();
export const order = (ex: FakeExchange) => ex.newOrder(ex.accounts[0]!, { symbol: "USDT/USDC", side: "bid", amount: "1", price: "1" });
export const control = (ex: FakeExchange) => ex.control;
export const clients = (ex: FakeExchange) => ex.clients;
export const info = (ex: FakeExchange) => ex.info;
export const persistence = (ex: FakeExchange) => ex.persistence;
export const faultPlan = (ex: FakeExchange) => ex.control.faultPlan();
export const onClockMoved = (ex: FakeExchange) => ex.onClockMoved;
