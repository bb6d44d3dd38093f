// Router.executeIntent: a taker's signed Intent settled against maker orders in one
// transaction, with and without an ERC-2612 permit, direct and via one intermediate
// token, and each bound (max input, min output, deadline, uuid, route) enforced.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseEventLogs, type PrivateKeyAccount } from "viem";
import { ZERO_ADDRESS, type Address, type Hex, type IntentMessage, type OrderMessage } from "../../sim/core/typed-data.ts";
import {
  approveAndDeposit,
  Exchange,
  latestTimestamp,
  lowerAddresses,
  order,
  orderDigest,
  revertOf,
  Router,
  send,
  signIntent,
  signOrder,
  signPermit,
  snapshotEach,
  startHarness,
  toCompact,
  UNIT,
  vaultBalance,
  walletBalance,
  type Harness,
} from "./harness.ts";

let h: Harness;
let WETH: Address;
let USDC: Address;
let WBTC: Address;
beforeAll(async () => {
  h = await startHarness();
  WETH = h.d.tokens.WETH!;
  USDC = h.d.tokens.USDC!;
  WBTC = h.d.tokens.WBTC!;
  // Makers: Alice sells WETH for USDC, Carol sells WBTC for WETH.
  await approveAndDeposit(h, h.alice, WETH, 100n * UNIT.WETH);
  await approveAndDeposit(h, h.carol, WBTC, 10n * UNIT.WBTC);
});
afterAll(async () => {
  await h?.stop();
});
snapshotEach(() => h, beforeEach, afterEach);

interface Leg {
  order: OrderMessage;
  signature: Hex;
  makerAmount: bigint;
  takerAmount: bigint;
}
const NO_PERMIT = { value: 0n, deadline: 0n, signature: "0x" as Hex };

/** Alice: 10 WETH at 2000 USDC each. */
async function wethForUsdc(makerAmount: bigint, takerAmount: bigint, extra: Partial<OrderMessage> = {}): Promise<Leg> {
  const o = order({ user: h.alice.address, fromToken: WETH, toToken: USDC, fromAmount: 10n * UNIT.WETH, toAmount: 20_000n * UNIT.USDC, ...extra }, await latestTimestamp(h.pub));
  return { order: o, signature: await signOrder(h, h.alice, o), makerAmount, takerAmount };
}

/** Carol: 1 WBTC for 15 WETH. */
async function wbtcForWeth(makerAmount: bigint, takerAmount: bigint): Promise<Leg> {
  const o = order({ user: h.carol.address, fromToken: WBTC, toToken: WETH, fromAmount: 2n * UNIT.WBTC, toAmount: 30n * UNIT.WETH }, await latestTimestamp(h.pub));
  return { order: o, signature: await signOrder(h, h.carol, o), makerAmount, takerAmount };
}

async function intent(fields: Partial<IntentMessage> = {}): Promise<IntentMessage> {
  return {
    taker: h.bob.address,
    inputToken: USDC,
    outputToken: WETH,
    maxInputAmount: 4000n * UNIT.USDC,
    minOutputAmount: 2n * UNIT.WETH,
    recipient: ZERO_ADDRESS,
    initialDepositAmount: 0n,
    uuid: 777n,
    deadline: (await latestTimestamp(h.pub)) + 120n,
    ...fields,
  };
}

/** Router.GasFee: nothing charged. */
const NO_GAS = { token: ZERO_ADDRESS, amount: 0n };

async function executeCall(i: IntentMessage, legs: Leg[], permit = NO_PERMIT, signer: PrivateKeyAccount = h.bob, gas = NO_GAS) {
  const sig = await signIntent(h, signer, i);
  return { address: h.d.router, abi: Router.abi, functionName: "executeIntent", args: [i as never, sig, legs as never, permit, gas] } as const;
}

const run = async (i: IntentMessage, legs: Leg[], permit = NO_PERMIT, gas = NO_GAS) => send(h.pub, h.wallet(h.executor), await executeCall(i, legs, permit, h.bob, gas));
const reasonOf = async (i: IntentMessage, legs: Leg[], permit = NO_PERMIT, signer: PrivateKeyAccount = h.bob, gas = NO_GAS) =>
  revertOf(h.pub, h.executor, await executeCall(i, legs, permit, signer, gas));

describe("executeIntent: settlement", () => {
  it("direct route from the taker's vault balance, output credited to the vault (recipient zero)", async () => {
    await approveAndDeposit(h, h.bob, USDC, 5000n * UNIT.USDC);
    const leg = await wethForUsdc(2n * UNIT.WETH, 4000n * UNIT.USDC, { feeBps: 10n });
    const receipt = await run(await intent(), [leg]);
    expect(await vaultBalance(h, h.bob.address, USDC)).toBe(1000n * UNIT.USDC);
    expect(await vaultBalance(h, h.bob.address, WETH)).toBe(2n * UNIT.WETH);
    const fee = (4000n * UNIT.USDC * 10n) / 10_000n;
    expect(await vaultBalance(h, h.alice.address, USDC)).toBe(4000n * UNIT.USDC - fee);
    expect(await vaultBalance(h, h.d.feeRecipient, USDC)).toBe(fee);
    expect(await vaultBalance(h, h.alice.address, WETH)).toBe(98n * UNIT.WETH);
    const [done] = parseEventLogs({ abi: Router.abi, logs: receipt.logs, eventName: "IntentExecuted" });
    expect(lowerAddresses(done!.args)).toEqual({ taker: h.bob.address.toLowerCase(), uuid: 777n, inputAmount: 4000n * UNIT.USDC, outputAmount: 2n * UNIT.WETH });
    // Maker legs go through the exchange's per-order accounting.
    expect(await h.pub.readContract({ address: h.d.exchange, abi: Exchange.abi, functionName: "filled", args: [orderDigest(h, leg.order)] })).toBe(2n * UNIT.WETH);
    const settled = parseEventLogs({ abi: Exchange.abi, logs: receipt.logs, eventName: "MatchSettled" });
    expect(settled).toHaveLength(1);
    expect(await h.pub.readContract({ address: h.d.router, abi: Router.abi, functionName: "intentUuidUsed", args: [h.bob.address, 777n] })).toBe(true);
  });

  it("with a permit (65 bytes): pulls initialDepositAmount from the wallet and pays the recipient's wallet", async () => {
    const deadline = (await latestTimestamp(h.pub)) + 600n;
    const permitSig = await signPermit(h, h.bob, USDC, 4000n * UNIT.USDC, deadline);
    const usdcBefore = await walletBalance(h, USDC, h.bob.address);
    const wethBefore = await walletBalance(h, WETH, h.bob.address);
    const i = await intent({ initialDepositAmount: 4000n * UNIT.USDC, recipient: h.bob.address });
    const receipt = await run(i, [await wethForUsdc(2n * UNIT.WETH, 4000n * UNIT.USDC)], { value: 4000n * UNIT.USDC, deadline, signature: permitSig });
    expect(await walletBalance(h, USDC, h.bob.address)).toBe(usdcBefore - 4000n * UNIT.USDC);
    expect(await walletBalance(h, WETH, h.bob.address)).toBe(wethBefore + 2n * UNIT.WETH);
    expect(await vaultBalance(h, h.bob.address, USDC)).toBe(0n);
    expect(await vaultBalance(h, h.bob.address, WETH)).toBe(0n);
    expect(parseEventLogs({ abi: Router.abi, logs: receipt.logs, eventName: "IntentDeposit" })).toHaveLength(1);
  });

  it("with a 64-byte permit signature", async () => {
    const deadline = (await latestTimestamp(h.pub)) + 600n;
    const permitSig = toCompact(await signPermit(h, h.bob, USDC, 4000n * UNIT.USDC, deadline));
    const i = await intent({ initialDepositAmount: 4000n * UNIT.USDC });
    await run(i, [await wethForUsdc(2n * UNIT.WETH, 4000n * UNIT.USDC)], { value: 4000n * UNIT.USDC, deadline, signature: permitSig });
    expect(await vaultBalance(h, h.bob.address, WETH)).toBe(2n * UNIT.WETH);
  });

  it("a failing permit is caught; the wallet pull then fails: ALLOWANCE_INSUFFICIENT", async () => {
    const deadline = (await latestTimestamp(h.pub)) + 600n;
    const wrong = await signPermit(h, h.alice, USDC, 4000n * UNIT.USDC, deadline);
    const i = await intent({ initialDepositAmount: 4000n * UNIT.USDC });
    const reason = await reasonOf(i, [await wethForUsdc(2n * UNIT.WETH, 4000n * UNIT.USDC)], { value: 4000n * UNIT.USDC, deadline, signature: wrong });
    expect(reason).toBe("ALLOWANCE_INSUFFICIENT");
  });

  it("two hops through one intermediate token that nets to zero", async () => {
    await approveAndDeposit(h, h.bob, USDC, 30_000n * UNIT.USDC);
    const i = await intent({ outputToken: WBTC, maxInputAmount: 30_000n * UNIT.USDC, minOutputAmount: UNIT.WBTC });
    const hop1 = await wethForUsdc(10n * UNIT.WETH, 20_000n * UNIT.USDC);
    const hop1b = await wethForUsdc(5n * UNIT.WETH, 10_000n * UNIT.USDC);
    const hop2 = await wbtcForWeth(UNIT.WBTC, 15n * UNIT.WETH);
    const receipt = await run(i, [hop1, hop1b, hop2]);
    expect(await vaultBalance(h, h.bob.address, WBTC)).toBe(UNIT.WBTC);
    expect(await vaultBalance(h, h.bob.address, WETH)).toBe(0n);
    expect(await vaultBalance(h, h.bob.address, USDC)).toBe(0n);
    expect(await vaultBalance(h, h.carol.address, WETH)).toBe(15n * UNIT.WETH);
    const [done] = parseEventLogs({ abi: Router.abi, logs: receipt.logs, eventName: "IntentExecuted" });
    expect(done!.args.inputAmount).toBe(30_000n * UNIT.USDC);
    expect(done!.args.outputAmount).toBe(UNIT.WBTC);
  });
});

describe("executeIntent: the swap's gas", () => {
  it("receive_less: charged in the output token off what the taker receives (the recipient's wallet here), to the fee recipient", async () => {
    await approveAndDeposit(h, h.bob, USDC, 4000n * UNIT.USDC);
    const gas = UNIT.WETH / 100n;
    const wethBefore = await walletBalance(h, WETH, h.carol.address);
    const feeBefore = await vaultBalance(h, h.d.feeRecipient, WETH);
    const i = await intent({ recipient: h.carol.address, minOutputAmount: 2n * UNIT.WETH - gas });
    const receipt = await run(i, [await wethForUsdc(2n * UNIT.WETH, 4000n * UNIT.USDC)], NO_PERMIT, { token: WETH, amount: gas });
    expect(await walletBalance(h, WETH, h.carol.address)).toBe(wethBefore + 2n * UNIT.WETH - gas);
    expect(await vaultBalance(h, h.bob.address, WETH)).toBe(0n);
    expect(await vaultBalance(h, h.d.feeRecipient, WETH)).toBe(feeBefore + gas);
    const [charged] = parseEventLogs({ abi: Router.abi, logs: receipt.logs, eventName: "IntentGasCharged" });
    expect(lowerAddresses(charged!.args)).toEqual({ taker: h.bob.address.toLowerCase(), uuid: i.uuid, token: WETH.toLowerCase(), amount: gas });
    const [done] = parseEventLogs({ abi: Router.abi, logs: receipt.logs, eventName: "IntentExecuted" });
    expect(done!.args.outputAmount).toBe(2n * UNIT.WETH - gas);
  });

  it("receive_less: MIN_OUTPUT_NOT_MET when the output after gas is below the signed minimum", async () => {
    await approveAndDeposit(h, h.bob, USDC, 4000n * UNIT.USDC);
    const i = await intent({ minOutputAmount: 2n * UNIT.WETH });
    expect(await reasonOf(i, [await wethForUsdc(2n * UNIT.WETH, 4000n * UNIT.USDC)], NO_PERMIT, h.bob, { token: WETH, amount: 1n })).toBe("MIN_OUTPUT_NOT_MET");
  });

  it("pay_more: charged in the input token on top of the route's input, within maxInputAmount; MAX_INPUT_EXCEEDED past it", async () => {
    await approveAndDeposit(h, h.bob, USDC, 5000n * UNIT.USDC);
    const gas = 3n * UNIT.USDC;
    const over = await intent({ maxInputAmount: 4000n * UNIT.USDC + gas - 1n });
    expect(await reasonOf(over, [await wethForUsdc(2n * UNIT.WETH, 4000n * UNIT.USDC)], NO_PERMIT, h.bob, { token: USDC, amount: gas })).toBe("MAX_INPUT_EXCEEDED");
    const feeBefore = await vaultBalance(h, h.d.feeRecipient, USDC);
    const i = await intent({ maxInputAmount: 4000n * UNIT.USDC + gas });
    const receipt = await run(i, [await wethForUsdc(2n * UNIT.WETH, 4000n * UNIT.USDC)], NO_PERMIT, { token: USDC, amount: gas });
    expect(await vaultBalance(h, h.bob.address, USDC)).toBe(1000n * UNIT.USDC - gas);
    expect(await vaultBalance(h, h.bob.address, WETH)).toBe(2n * UNIT.WETH);
    expect(await vaultBalance(h, h.d.feeRecipient, USDC)).toBe(feeBefore + gas);
    const [done] = parseEventLogs({ abi: Router.abi, logs: receipt.logs, eventName: "IntentExecuted" });
    expect(done!.args.inputAmount).toBe(4000n * UNIT.USDC + gas);
  });

  it("BAD_GAS_TOKEN for gas in a token that is neither the input nor the output", async () => {
    await approveAndDeposit(h, h.bob, USDC, 4000n * UNIT.USDC);
    expect(await reasonOf(await intent(), [await wethForUsdc(2n * UNIT.WETH, 4000n * UNIT.USDC)], NO_PERMIT, h.bob, { token: WBTC, amount: 1n })).toBe("BAD_GAS_TOKEN");
  });
});

describe("executeIntent: rejections", () => {
  beforeEach(async () => {
    await approveAndDeposit(h, h.bob, USDC, 50_000n * UNIT.USDC);
  });

  it("MAX_INPUT_EXCEEDED when the legs take more input than signed", async () => {
    const reason = await reasonOf(await intent({ maxInputAmount: 4000n * UNIT.USDC - 1n }), [await wethForUsdc(2n * UNIT.WETH, 4000n * UNIT.USDC)]);
    expect(reason).toBe("MAX_INPUT_EXCEEDED");
  });

  it("MIN_OUTPUT_NOT_MET when the legs deliver less output than signed", async () => {
    const reason = await reasonOf(await intent({ minOutputAmount: 2n * UNIT.WETH + 1n }), [await wethForUsdc(2n * UNIT.WETH, 4000n * UNIT.USDC)]);
    expect(reason).toBe("MIN_OUTPUT_NOT_MET");
  });

  it("INTENT_EXPIRED once the deadline has passed", async () => {
    const i = await intent();
    const leg = await wethForUsdc(2n * UNIT.WETH, 4000n * UNIT.USDC);
    await h.testClient.setNextBlockTimestamp({ timestamp: i.deadline });
    await h.testClient.mine({ blocks: 1 });
    expect(await reasonOf(i, [leg])).toBe("INTENT_EXPIRED");
  });

  it("INTENT_UUID_USED on replay", async () => {
    const i = await intent({ minOutputAmount: UNIT.WETH });
    await run(i, [await wethForUsdc(UNIT.WETH, 2000n * UNIT.USDC)]);
    expect(await reasonOf(i, [await wethForUsdc(UNIT.WETH, 2000n * UNIT.USDC)])).toBe("INTENT_UUID_USED");
  });

  it("BAD_SIGNATURE when someone other than the taker signed", async () => {
    expect(await reasonOf(await intent(), [await wethForUsdc(2n * UNIT.WETH, 4000n * UNIT.USDC)], NO_PERMIT, h.alice)).toBe("BAD_SIGNATURE");
  });

  it("INTERMEDIATE_NOT_NETTED when the intermediate token does not net to zero", async () => {
    const i = await intent({ outputToken: WBTC, maxInputAmount: 30_000n * UNIT.USDC, minOutputAmount: 1n });
    const reason = await reasonOf(i, [await wethForUsdc(10n * UNIT.WETH, 20_000n * UNIT.USDC), await wbtcForWeth(UNIT.WBTC / 2n, 7_500_000_000_000_000_000n)]);
    expect(reason).toBe("INTERMEDIATE_NOT_NETTED");
  });

  it("BAD_ROUTE for a leg that neither spends the input nor yields the output", async () => {
    const reason = await reasonOf(await intent(), [await wbtcForWeth(UNIT.WBTC, 15n * UNIT.WETH)]);
    expect(reason).toBe("BAD_ROUTE");
  });

  it("maker legs obey the per-order rules: PRICE_MISMATCH and ORDER_EXPIRED", async () => {
    expect(await reasonOf(await intent(), [await wethForUsdc(2n * UNIT.WETH, 3999n * UNIT.USDC)])).toBe("PRICE_MISMATCH");
    const now = await latestTimestamp(h.pub);
    const expired = await wethForUsdc(2n * UNIT.WETH, 4000n * UNIT.USDC, { expiration: now + 5n });
    await h.testClient.increaseTime({ seconds: 10 });
    await h.testClient.mine({ blocks: 1 });
    expect(await reasonOf(await intent(), [expired])).toBe("ORDER_EXPIRED");
  });

  it("only the executor may execute; nothing executes while the exchange is paused", async () => {
    const call = await executeCall(await intent(), [await wethForUsdc(2n * UNIT.WETH, 4000n * UNIT.USDC)]);
    expect(await revertOf(h.pub, h.bob, call)).toBe("AccessControlUnauthorizedAccount");
    await send(h.pub, h.wallet(h.admin), { address: h.d.exchange, abi: Exchange.abi, functionName: "pause" });
    expect(await revertOf(h.pub, h.executor, call)).toBe("PAUSED");
  });

  it("the exchange's router entry is closed to everyone but the router", async () => {
    const leg = await wethForUsdc(2n * UNIT.WETH, 4000n * UNIT.USDC);
    const zero = `0x${"00".repeat(32)}` as Hex;
    const reason = await revertOf(h.pub, h.executor, {
      address: h.d.exchange,
      abi: Exchange.abi,
      functionName: "settleRouterLeg",
      args: [leg.order as never, leg.signature, leg.makerAmount, leg.takerAmount, h.bob.address, zero, 0n],
    });
    expect(reason).toBe("AccessControlUnauthorizedAccount");
  });
});
