// A vitest test file in a "type": "commonjs" package (what `npm init -y` writes): TypeScript
// reads it as CommonJS and resolves fakex/vitest through "require", while vitest runs it as
// an ES module. The start of README section 1's snippet, type-checked as such a project has it.
import { expect } from "vitest";
import { test } from "fakex/vitest";

test("the fixture's exchange and accounts are typed", async ({ exchange }) => {
  const [alice, bob] = [exchange.accounts[0]!, exchange.accounts[1]!];
  const market = exchange.registry.markets().find((m) => m.baseSymbol === "USDT")!;
  await exchange.control.fund({ address: alice.address, token: market.base, amount: 100_000_000n, vault: true });
  expect(bob.address).not.toBe(alice.address);
});
