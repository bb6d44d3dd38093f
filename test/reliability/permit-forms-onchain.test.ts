// The ERC-2612 permit signature of a wallet-funded swap, in every form, on Anvil. The
// server does not judge the permit (POST /swap passes it through unchanged): the
// token does, inside Router.executeIntent, and a refused permit is not fatal there, so
// the wallet pull decides. With no standing allowance a refused permit must therefore
// end the swap as the spec's ALLOWANCE_INSUFFICIENT ("including invalid or expired
// permit"), never settle it. Before 501ea6f the route rewrote v 0/1 to 27/28, so a
// permit the token refuses settled here.
import { describe, expect, it } from "vitest";
import request from "supertest";
import type { PrivateKeyAccount } from "viem/accounts";
import { createApp } from "../../sim/http/app.ts";
import type { QuoteWire } from "../../sim/core/quotes.ts";
import { INTENT_TYPE, PERMIT_TYPE, type Address, type Hex } from "../../sim/core/typed-data.ts";
import { anvilEngine, depositOnChain, ledgerMismatches, signedBody, useTestChain, type ChainCtx, type Env } from "../chain/helpers.ts";
import { compact, flipBit, highS, withV } from "./sig-mutations.ts";

let ctx: ChainCtx;
const UNIT = 1_000_000n;

useTestChain(2, (c) => (ctx = c));

const tok = (s: string) => ctx.registry.tokenBySymbol(s)!.address;

async function signIntent(env: Env, who: PrivateKeyAccount, q: QuoteWire): Promise<Hex> {
  const intent = env.engine.swapIntentOf(q.uuid);
  return who.signTypedData({ domain: env.port.domain, types: { Intent: INTENT_TYPE }, primaryType: "Intent", message: { ...intent, deadline: Number(intent.deadline) } });
}

async function signPermit(who: PrivateKeyAccount, q: QuoteWire): Promise<Hex> {
  const e = q.permit!.eip712!;
  return who.signTypedData({
    domain: { ...e.domain, chainId: Number(e.domain.chainId), verifyingContract: e.domain.verifyingContract as Address },
    types: { Permit: PERMIT_TYPE },
    primaryType: "Permit",
    message: { owner: e.message.owner as Address, spender: e.message.spender as Address, value: BigInt(e.message.value), nonce: BigInt(e.message.nonce), deadline: BigInt(e.message.deadline) },
  });
}

const yParityOf = (sig: Hex) => Number.parseInt(sig.slice(130), 16) - 27;

const FORMS: readonly [string, "settled" | "failed", (s: Hex) => Hex][] = [
  ["65-byte, v 27/28", "settled", (s) => s],
  ["64-byte EIP-2098 compact", "settled", compact],
  ["65-byte, v 0/1", "failed", (s) => withV(s, yParityOf(s))],
  ["high-s twin", "failed", highS],
  ["bit flipped in s", "failed", (s) => flipBit(s, 40, 3)],
];

describe("swap permit signature forms on Anvil (no standing allowance)", () => {
  it.each(FORMS)("%s: %s", async (_label, expected, form) => {
    const env = await anvilEngine(ctx);
    const alice = ctx.traders[0]!;
    await depositOnChain(ctx, alice, "USDT", 100n * UNIT);
    await env.engine.syncDeposits();
    env.engine.placeOrder((await signedBody(env, alice, { side: "ask", amount: "20", price: "1" })).body);
    const bob = ctx.traders[1]!;
    const owner = bob.address.toLowerCase() as Address;
    const walletUsdc = await env.port.walletBalance(owner, tok("USDC"));
    const q = await env.engine.quoteSwap({ from_token: tok("USDC"), to_token: tok("USDT"), from_amount: (10n * UNIT).toString(), owner_address: owner, recipient: owner, expiration: env.clock.nowSec() + 3600 });
    expect(q.permit?.permit_required).toBe(true);
    const permit = form(await signPermit(bob, q));
    // Through POST /swap, so whatever the route does to the permit bytes is what reaches the token.
    const d = ctx.chain.info.deployment;
    const app = createApp({
      clock: env.clock,
      registry: ctx.registry,
      engine: env.engine,
      contractSignatures: env.port,
      config: () => ({ chainId: ctx.chain.info.chainId, exchangeAddress: d.exchange, vaultAddress: d.vault, sorAddress: d.router, domainName: env.port.domain.name }),
    });
    const res = await request(app)
      .post("/api/v1/swap")
      .send({ uuid: q.uuid, signature: await signIntent(env, bob, q), permit_signature: permit, permit_deadline: q.permit!.eip712!.message.deadline });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe("pending");
    await env.engine.settleAll();
    const order = env.engine.getOrder(res.body.trade_id);
    if (expected === "settled") {
      expect(order.status).toBe("settled");
      expect(await env.port.walletBalance(owner, tok("USDC"))).toBe(walletUsdc - BigInt(q.route_params.initialDepositAmount));
    } else {
      expect([order.status, order.error_code]).toEqual(["failed", "ALLOWANCE_INSUFFICIENT"]);
      expect(await env.port.walletBalance(owner, tok("USDC"))).toBe(walletUsdc);
    }
    expect(await ledgerMismatches(env, [alice.address, owner])).toEqual([]);
  });
});
