// A wallet-funded swap: quote → sign the Intent (and the token permit the quote
// asks for) → POST /swap → settled against the seeded makers' liquidity.
import { erc20Abi } from "viem";
import { expect } from "vitest";
import { test } from "fakex/vitest";
import { client, login } from "./client.ts";

test("swap USDC for USDT from the wallet with a permit", async ({ exchange }) => {
  const me = exchange.accounts[0]!;
  const { USDC, USDT } = exchange.contracts.tokens as Record<string, `0x${string}`>;
  const walletUsdt = () => exchange.clients.public.readContract({ address: USDT!, abi: erc20Abi, functionName: "balanceOf", args: [me.address] });
  const before = await walletUsdt();

  const quote = await client(exchange).post("/swap/quote", {
    from_token: USDC,
    to_token: USDT,
    from_amount: "50000000", // 50 USDC, raw
    owner_address: me.address,
    recipient: me.address,
    expiration: exchange.control.now().now + 600,
  });
  expect(quote.status).toBe(200);
  const minOut = BigInt(quote.body.route_params.minOutputAmount);
  expect(minOut).toBeGreaterThan(0n);

  const { body } = await exchange.signIntent(me, quote.body);
  const swap = await client(exchange).post("/swap", body);
  expect(swap.status).toBe(200);
  expect(swap.body).toMatchObject({ success: true, status: "pending" });

  await client(exchange).control("POST", "/settle");
  const mine = client(exchange, await login(exchange, me));
  expect((await mine.get(`/orders/${swap.body.trade_id}`)).body.status).toBe("settled");
  // The recipient is the wallet: the output arrived there, at least the quoted minimum.
  expect((await walletUsdt()) - before).toBeGreaterThanOrEqual(minOut);
});

test("a quote is single-use: submitting it twice answers 410 the second time", async ({ exchange }) => {
  const me = exchange.accounts[1]!;
  const quote = await client(exchange).post("/swap/quote", {
    from_token: exchange.contracts.tokens.USDC,
    to_token: exchange.contracts.tokens.USDT,
    from_amount: "20000000",
    owner_address: me.address,
    recipient: me.address,
    expiration: exchange.control.now().now + 600,
  });
  const { body } = await exchange.signIntent(me, quote.body);
  expect((await client(exchange).post("/swap", body)).status).toBe(200);
  expect((await client(exchange).post("/swap", body)).status).toBe(410);
});
