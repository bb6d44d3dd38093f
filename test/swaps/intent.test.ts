// Router.executeIntent semantics (pure): what the memory chain will apply for a swap.
import { describe, expect, it } from "vitest";
import { intentLegs, simulateIntent, type ChainIntent, type IntentChainView } from "../../sim/core/swap-intent.ts";
import { swapGasCharge } from "../../sim/core/quotes.ts";
import type { OrderMessage } from "../../sim/core/typed-data.ts";
import { MAKER, MAKER2, TAKER, quoteBody, rest, setVault, setupDesk, token, validSwap, type DeskEnv } from "./helpers.ts";

const RECIPIENT = "0xdddd00000000000000000000000000000000dddd";

const FEE_RECIPIENT_OF_VIEW = "0x000000000000000000000000000000000000fee1";

function view(env: DeskEnv, vault: Record<string, bigint>, wallet: Record<string, bigint> = {}, over: Partial<IntentChainView> = {}): IntentChainView {
  return {
    nowSec: BigInt(env.clock.nowSec()),
    vault: (o, t) => vault[`${o}|${t}`] ?? 0n,
    wallet: (o, t) => wallet[`${o}|${t}`] ?? 0n,
    filled: (_o: OrderMessage) => 0n,
    intentUsed: () => false,
    whitelisted: () => true,
    feeRecipient: FEE_RECIPIENT_OF_VIEW,
    maxFeeBps: 1000n,
    ...over,
  };
}

async function twoHopSwap(env: DeskEnv, recipient: string) {
  rest(env, "USDT/USDC", "bid", "100", "0.9999", { owner: MAKER });
  rest(env, "EURC/USDC", "ask", "100", "1.08", { owner: MAKER2 });
  setVault(env, TAKER, "USDT", 20_000000n);
  const q = await env.desk.quote(quoteBody(env, "USDT", "EURC", 50_000000n, { recipient }));
  const p = env.desk.accept(validSwap(q));
  const ci: ChainIntent = { intent: p.quote.intent, takerSignature: p.signature, legs: intentLegs(p.route), permit: p.permit, gas: swapGasCharge(p.quote) };
  return { q, p, ci };
}

const k = (o: string, t: string) => `${o.toLowerCase()}|${t}`;

/** A two-hop swap to the taker with every party funded for it, and the chain view. */
async function fundedTwoHop() {
  const env = setupDesk();
  const { ci } = await twoHopSwap(env, "0x0000000000000000000000000000000000000000");
  const v = view(env, {
    [k(TAKER, token(env, "USDT").address)]: 100_000000n,
    [k(MAKER, token(env, "USDC").address)]: 100_000000n,
    [k(MAKER2, token(env, "EURC").address)]: 100_000000n,
  }, { [k(TAKER, token(env, "USDT").address)]: 100_000000n });
  return { ci, v };
}

describe("executeIntent semantics", () => {
  it("a two-hop swap with a wallet deposit moves exactly the Router's amounts and nets the intermediate", async () => {
    const env = setupDesk();
    const { ci } = await twoHopSwap(env, "0x0000000000000000000000000000000000000000");
    const usdt = token(env, "USDT").address;
    const usdc = token(env, "USDC").address;
    const eurc = token(env, "EURC").address;
    expect(ci.intent.initialDepositAmount).toBe(30_000000n);
    const fx = simulateIntent(ci, view(env, {
      [k(TAKER, usdt)]: 20_000000n,
      [k(MAKER, usdc)]: 100_000000n,
      [k(MAKER2, eurc)]: 100_000000n,
    }, { [k(TAKER, usdt)]: 30_000000n }));
    // receive_less: the quoted gas comes off the output and goes to the fee recipient.
    const gas = ci.gas.amount;
    expect(ci.gas.token).toBe(eurc);
    expect(gas).toBeGreaterThan(0n);
    expect(fx.input).toBe(50_000000n);
    expect(fx.output).toBe(46_290000n - gas);
    expect(fx.output).toBeGreaterThanOrEqual(ci.intent.minOutputAmount);
    expect(fx.wallet.get(k(TAKER, usdt))).toBe(-30_000000n);
    expect(fx.vault.get(k(TAKER, usdt))).toBe(-20_000000n);
    expect(fx.vault.get(k(TAKER, usdc)) ?? 0n).toBe(0n);
    expect(fx.vault.get(k(TAKER, eurc))).toBe(46_290000n - gas);
    expect(fx.vault.get(k(FEE_RECIPIENT_OF_VIEW, eurc))).toBe(gas);
    expect(fx.vault.get(k(MAKER, usdt))).toBe(50_000000n);
    expect(fx.vault.get(k(MAKER, usdc))).toBe(-49_995000n);
    expect(fx.vault.get(k(MAKER2, usdc))).toBe(49_995000n);
    expect(fx.vault.get(k(MAKER2, eurc))).toBe(-46_290000n);
    expect(fx.filled.map((f) => f.amount)).toEqual([49_995000n, 46_290000n]);
  });

  it("a non-zero recipient receives the output in its wallet", async () => {
    const env = setupDesk();
    const { ci } = await twoHopSwap(env, RECIPIENT);
    const usdt = token(env, "USDT").address;
    const eurc = token(env, "EURC").address;
    const fx = simulateIntent(ci, view(env, {
      [k(TAKER, usdt)]: 20_000000n,
      [k(MAKER, token(env, "USDC").address)]: 100_000000n,
      [k(MAKER2, eurc)]: 100_000000n,
    }, { [k(TAKER, usdt)]: 30_000000n }));
    expect(fx.vault.get(k(TAKER, eurc))).toBe(0n);
    expect(fx.wallet.get(k(RECIPIENT, eurc))).toBe(46_290000n - ci.gas.amount);
  });

  it.each([
    ["wallet short of the deposit", "ALLOWANCE_INSUFFICIENT", { wallet: 0n }],
    ["maker vault drained", "INSUFFICIENT_VAULT_BALANCE", { makerVault: 0n }],
    ["deadline passed", "INTENT_EXPIRED", { now: 10_000n }],
    ["intent uuid reused", "INTENT_UUID_USED", { used: true }],
    ["maker already filled", "OVERFILL", { filled: 100_000000n }],
  ])("reverts as a whole: %s → %s", async (_n, reason, o: { wallet?: bigint; makerVault?: bigint; now?: bigint; used?: boolean; filled?: bigint }) => {
    const env = setupDesk();
    const { ci } = await twoHopSwap(env, "0x0000000000000000000000000000000000000000");
    const usdt = token(env, "USDT").address;
    const v = view(env, {
      [k(TAKER, usdt)]: 20_000000n,
      [k(MAKER, token(env, "USDC").address)]: o.makerVault ?? 100_000000n,
      [k(MAKER2, token(env, "EURC").address)]: 100_000000n,
    }, { [k(TAKER, usdt)]: o.wallet ?? 30_000000n }, {
      ...(o.now !== undefined ? { nowSec: BigInt(env.clock.nowSec()) + o.now } : {}),
      ...(o.used ? { intentUsed: () => true } : {}),
      ...(o.filled !== undefined ? { filled: () => o.filled! } : {}),
    });
    expect(() => simulateIntent(ci, v)).toThrow(reason);
  });

  it("checks the signed bounds: MIN_OUTPUT_NOT_MET and MAX_INPUT_EXCEEDED", async () => {
    const { ci, v } = await fundedTwoHop();
    expect(() => simulateIntent({ ...ci, intent: { ...ci.intent, minOutputAmount: 46_290001n } }, v)).toThrow("MIN_OUTPUT_NOT_MET");
    expect(() => simulateIntent({ ...ci, intent: { ...ci.intent, maxInputAmount: 49_999999n } }, v)).toThrow("MAX_INPUT_EXCEEDED");
    const unNetted = ci.legs.map((l, i) => (i === 1 ? { ...l, takerAmount: l.takerAmount - 1n } : l));
    expect(() => simulateIntent({ ...ci, legs: unNetted }, v)).toThrow(/INTERMEDIATE_NOT_NETTED|PRICE_MISMATCH/);
  });

  it("a maker order expiring in the block's very second reverts ORDER_EXPIRED (the contract wants expiration > block time)", async () => {
    const { ci, v } = await fundedTwoHop();
    const expiringAt = (sec: bigint): ChainIntent => ({ ...ci, legs: ci.legs.map((l, i) => (i === 0 ? { ...l, order: { ...l.order, expiration: sec } } : l)) });
    expect(() => simulateIntent(expiringAt(v.nowSec + 1n), v)).not.toThrow();
    expect(() => simulateIntent(expiringAt(v.nowSec), v)).toThrow("ORDER_EXPIRED");
  });
});
