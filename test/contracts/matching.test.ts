// Single matches: partial fills, fees, positive-spread split, both payout modes,
// the initial deposit pulled on a first fill, EIP-1271 and 64-byte signatures,
// and every per-order rejection with its revert reason.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { encodeFunctionData, parseEventLogs, type PrivateKeyAccount } from "viem";
import type { Address, Hex, OrderMessage } from "../../sim/core/typed-data.ts";
import {
  approveAndDeposit,
  Exchange,
  latestTimestamp,
  lowerAddresses,
  order,
  orderDigest,
  revertOf,
  send,
  signOrder,
  SmartWallet1271,
  snapshotEach,
  startHarness,
  TestToken,
  toCompact,
  UNIT,
  vaultBalance,
  walletBalance,
  type Harness,
} from "./harness.ts";

let h: Harness;
let WETH: Address;
let USDC: Address;
beforeAll(async () => {
  h = await startHarness();
  WETH = h.d.tokens.WETH!;
  USDC = h.d.tokens.USDC!;
  // Alice sells WETH; Bob and Carol buy it with USDC. Everyone starts with vault funds.
  await approveAndDeposit(h, h.alice, WETH, 100n * UNIT.WETH);
  await approveAndDeposit(h, h.bob, USDC, 100_000n * UNIT.USDC);
  await approveAndDeposit(h, h.carol, USDC, 100_000n * UNIT.USDC);
});
afterAll(async () => {
  await h?.stop();
});
snapshotEach(() => h, beforeEach, afterEach);

interface Side {
  order: OrderMessage;
  sig: Hex;
}

/** Alice offers `weth` WETH at `price` USDC each. */
async function ask(weth: bigint, price: bigint, extra: Partial<OrderMessage> = {}, signer: PrivateKeyAccount = h.alice): Promise<Side> {
  const now = await latestTimestamp(h.pub);
  const o = order(
    { user: h.alice.address, fromToken: WETH, toToken: USDC, fromAmount: weth * UNIT.WETH, toAmount: weth * price * UNIT.USDC, ...extra },
    now,
  );
  return { order: o, sig: await signOrder(h, signer, o) };
}

/** `who` bids for `weth` WETH paying at most `price` USDC each. */
async function bid(who: PrivateKeyAccount, weth: bigint, price: bigint, extra: Partial<OrderMessage> = {}): Promise<Side> {
  const now = await latestTimestamp(h.pub);
  const o = order(
    { user: who.address, fromToken: USDC, toToken: WETH, fromAmount: weth * price * UNIT.USDC, toAmount: weth * UNIT.WETH, ...extra },
    now,
  );
  return { order: o, sig: await signOrder(h, who, o) };
}

function matchOf(maker: Side, taker: Side, makerAmount: bigint, takerAmount: bigint) {
  return { maker: maker.order, makerSignature: maker.sig, taker: taker.order, takerSignature: taker.sig, makerAmount, takerAmount };
}

function matchCall(m: ReturnType<typeof matchOf>) {
  return { address: h.d.exchange, abi: Exchange.abi, functionName: "matchOrders", args: [m as never] } as const;
}

const execute = (m: ReturnType<typeof matchOf>) => send(h.pub, h.wallet(h.executor), matchCall(m));
const reasonOf = (m: ReturnType<typeof matchOf>, from: PrivateKeyAccount = h.executor) => revertOf(h.pub, from, matchCall(m));
const filled = (o: OrderMessage) =>
  h.pub.readContract({ address: h.d.exchange, abi: Exchange.abi, functionName: "filled", args: [orderDigest(h, o)] });

describe("matchOrders: settlement", () => {
  it("settles partial fills of one maker order against two takers and tracks filled", async () => {
    const maker = await ask(10n, 2000n);
    const bobBid = await bid(h.bob, 2n, 2000n);
    const carolBid = await bid(h.carol, 3n, 2000n);
    await execute(matchOf(maker, bobBid, 2n * UNIT.WETH, 4000n * UNIT.USDC));
    expect(await filled(maker.order)).toBe(2n * UNIT.WETH);
    expect(await filled(bobBid.order)).toBe(4000n * UNIT.USDC);
    // The later fill carries a junk maker signature: it is only checked on the first fill.
    await execute(matchOf({ ...maker, sig: "0x" }, carolBid, 3n * UNIT.WETH, 6000n * UNIT.USDC));
    expect(await filled(maker.order)).toBe(5n * UNIT.WETH);

    expect(await vaultBalance(h, h.alice.address, WETH)).toBe(95n * UNIT.WETH);
    expect(await vaultBalance(h, h.alice.address, USDC)).toBe(10_000n * UNIT.USDC);
    expect(await vaultBalance(h, h.bob.address, WETH)).toBe(2n * UNIT.WETH);
    expect(await vaultBalance(h, h.bob.address, USDC)).toBe(96_000n * UNIT.USDC);
    expect(await vaultBalance(h, h.carol.address, WETH)).toBe(3n * UNIT.WETH);
    expect(await vaultBalance(h, h.carol.address, USDC)).toBe(94_000n * UNIT.USDC);
  });

  it("charges feeBps on what each side receives, to the fee recipient's vault balance", async () => {
    const maker = await ask(10n, 2000n, { feeBps: 10n });
    const taker = await bid(h.bob, 2n, 2000n, { feeBps: 30n });
    const receipt = await execute(matchOf(maker, taker, 2n * UNIT.WETH, 4000n * UNIT.USDC));
    const makerFee = (4000n * UNIT.USDC * 10n) / 10_000n;
    const takerFee = (2n * UNIT.WETH * 30n) / 10_000n;
    expect(await vaultBalance(h, h.alice.address, USDC)).toBe(4000n * UNIT.USDC - makerFee);
    expect(await vaultBalance(h, h.bob.address, WETH)).toBe(2n * UNIT.WETH - takerFee);
    expect(await vaultBalance(h, h.d.feeRecipient, USDC)).toBe(makerFee);
    expect(await vaultBalance(h, h.d.feeRecipient, WETH)).toBe(takerFee);
    const [settled] = parseEventLogs({ abi: Exchange.abi, logs: receipt.logs, eventName: "MatchSettled" });
    expect(settled!.args.orderHash0).toBe(orderDigest(h, maker.order));
    expect(settled!.args.orderHash1).toBe(orderDigest(h, taker.order));
    expect(settled!.args.settlement.makerFee).toBe(makerFee);
    expect(settled!.args.settlement.takerFee).toBe(takerFee);
  });

  it("splits a positive spread 25% maker / 25% taker refund / 50% protocol", async () => {
    const maker = await ask(10n, 2000n);
    const taker = await bid(h.bob, 2n, 2100n); // pays up to 2100: 200 USDC above the maker's price
    const receipt = await execute(matchOf(maker, taker, 2n * UNIT.WETH, 4200n * UNIT.USDC));
    const spread = 200n * UNIT.USDC;
    expect(await vaultBalance(h, h.alice.address, USDC)).toBe(4000n * UNIT.USDC + spread / 4n);
    expect(await vaultBalance(h, h.bob.address, USDC)).toBe(100_000n * UNIT.USDC - 4200n * UNIT.USDC + spread / 4n);
    expect(await vaultBalance(h, h.d.feeRecipient, USDC)).toBe(spread / 2n);
    expect(await vaultBalance(h, h.bob.address, WETH)).toBe(2n * UNIT.WETH);
    // The taker's filled amount is the full 4200 even though only 4150 was debited.
    expect(await filled(taker.order)).toBe(4200n * UNIT.USDC);
    const [settled] = parseEventLogs({ abi: Exchange.abi, logs: receipt.logs, eventName: "MatchSettled" });
    expect(lowerAddresses(settled!.args.settlement)).toEqual({
      maker: h.alice.address.toLowerCase(),
      taker: h.bob.address.toLowerCase(),
      makerToken: WETH,
      takerToken: USDC,
      makerAmount: 2n * UNIT.WETH,
      takerAmount: 4200n * UNIT.USDC,
      takerPaid: 4150n * UNIT.USDC,
      makerReceived: 4050n * UNIT.USDC,
      takerReceived: 2n * UNIT.WETH,
      makerFee: 0n,
      takerFee: 0n,
      spread,
      makerSpreadShare: spread / 4n,
      takerSpreadShare: spread / 4n,
      protocolSpreadShare: spread / 2n,
    });
  });

  it("the spread split is configurable by the admin only", async () => {
    expect(
      await revertOf(h.pub, h.executor, { address: h.d.exchange, abi: Exchange.abi, functionName: "setSpreadSplit", args: [5000n, 0n] }),
    ).toBe("AccessControlUnauthorizedAccount");
    expect(
      await revertOf(h.pub, h.admin, { address: h.d.exchange, abi: Exchange.abi, functionName: "setSpreadSplit", args: [6000n, 5000n] }),
    ).toBe("BAD_SPREAD_SPLIT");
    await send(h.pub, h.wallet(h.admin), { address: h.d.exchange, abi: Exchange.abi, functionName: "setSpreadSplit", args: [5000n, 0n] });
    const maker = await ask(10n, 2000n);
    const taker = await bid(h.bob, 2n, 2100n);
    await execute(matchOf(maker, taker, 2n * UNIT.WETH, 4200n * UNIT.USDC));
    expect(await vaultBalance(h, h.alice.address, USDC)).toBe(4100n * UNIT.USDC);
    expect(await vaultBalance(h, h.bob.address, USDC)).toBe(95_800n * UNIT.USDC);
    expect(await vaultBalance(h, h.d.feeRecipient, USDC)).toBe(100n * UNIT.USDC);
  });

  it("pays out to the recipient's wallet when the order names one", async () => {
    const payee = "0x000000000000000000000000000000000000beef" as Address;
    const maker = await ask(10n, 2000n, { recipient: payee });
    const taker = await bid(h.bob, 2n, 2000n, { recipient: h.carol.address });
    const carolWethBefore = await walletBalance(h, WETH, h.carol.address);
    await execute(matchOf(maker, taker, 2n * UNIT.WETH, 4000n * UNIT.USDC));
    expect(await walletBalance(h, USDC, payee)).toBe(4000n * UNIT.USDC);
    expect(await vaultBalance(h, h.alice.address, USDC)).toBe(0n);
    expect(await walletBalance(h, WETH, h.carol.address)).toBe(carolWethBefore + 2n * UNIT.WETH);
    expect(await vaultBalance(h, h.bob.address, WETH)).toBe(0n);
    expect(await walletBalance(h, WETH, h.d.vault)).toBe(98n * UNIT.WETH);
  });

  it("pulls initialDepositAmount from the wallet on the order's first fill only", async () => {
    const wbtc = h.d.tokens.WBTC!;
    await send(h.pub, h.wallet(h.carol), { address: wbtc, abi: TestToken.abi, functionName: "approve", args: [h.d.vault, 10n * UNIT.WBTC] });
    const now = await latestTimestamp(h.pub);
    const o = order(
      { user: h.carol.address, fromToken: wbtc, toToken: USDC, fromAmount: 4n * UNIT.WBTC, toAmount: 120_000n * UNIT.USDC, initialDepositAmount: 4n * UNIT.WBTC },
      now,
    );
    const maker = { order: o, sig: await signOrder(h, h.carol, o) };
    const t = order({ user: h.bob.address, fromToken: USDC, toToken: wbtc, fromAmount: 60_000n * UNIT.USDC, toAmount: 2n * UNIT.WBTC }, now);
    const taker = { order: t, sig: await signOrder(h, h.bob, t) };
    const walletBefore = await walletBalance(h, wbtc, h.carol.address);
    const receipt = await execute(matchOf(maker, taker, UNIT.WBTC, 30_000n * UNIT.USDC));
    expect(await walletBalance(h, wbtc, h.carol.address)).toBe(walletBefore - 4n * UNIT.WBTC);
    expect(await vaultBalance(h, h.carol.address, wbtc)).toBe(3n * UNIT.WBTC);
    expect(parseEventLogs({ abi: Exchange.abi, logs: receipt.logs, eventName: "Deposit" })).toHaveLength(1);
    await execute(matchOf(maker, taker, UNIT.WBTC, 30_000n * UNIT.USDC));
    expect(await walletBalance(h, wbtc, h.carol.address)).toBe(walletBefore - 4n * UNIT.WBTC);
    expect(await vaultBalance(h, h.carol.address, wbtc)).toBe(2n * UNIT.WBTC);
  });

  it("a first-fill initial deposit without allowance fails: ALLOWANCE_INSUFFICIENT", async () => {
    const maker = await ask(10n, 2000n);
    const taker = await bid(h.bob, 2n, 2000n, { initialDepositAmount: 4000n * UNIT.USDC });
    expect(await reasonOf(matchOf(maker, taker, 2n * UNIT.WETH, 4000n * UNIT.USDC))).toBe("ALLOWANCE_INSUFFICIENT");
  });

  it("accepts a 64-byte (EIP-2098) order signature", async () => {
    const maker = await ask(10n, 2000n);
    const taker = await bid(h.bob, 2n, 2000n);
    await execute(matchOf({ ...maker, sig: toCompact(maker.sig) }, { ...taker, sig: toCompact(taker.sig) }, 2n * UNIT.WETH, 4000n * UNIT.USDC));
    expect(await filled(maker.order)).toBe(2n * UNIT.WETH);
  });

  it("verifies an order signed for an EIP-1271 smart-contract wallet", async () => {
    const w = h.wallet(h.carol);
    const hash = await w.deployContract({ abi: SmartWallet1271.abi, bytecode: SmartWallet1271.bytecode, args: [h.carol.address] });
    const scw = (await h.pub.waitForTransactionReceipt({ hash })).contractAddress!.toLowerCase() as Address;
    await send(h.pub, w, { address: USDC, abi: TestToken.abi, functionName: "transfer", args: [scw, 5000n * UNIT.USDC] });
    await send(h.pub, w, {
      address: scw,
      abi: SmartWallet1271.abi,
      functionName: "execute",
      args: [USDC, encodeFunctionData({ abi: TestToken.abi, functionName: "approve", args: [h.d.vault, 5000n * UNIT.USDC] })],
    });
    const now = await latestTimestamp(h.pub);
    const o = order(
      { user: scw, fromToken: USDC, toToken: WETH, fromAmount: 4000n * UNIT.USDC, toAmount: 2n * UNIT.WETH, initialDepositAmount: 4000n * UNIT.USDC },
      now,
    );
    const maker = await ask(10n, 2000n);
    // The wallet's owner signs the raw EIP-712 digest; the exchange asks the wallet (isValidSignature).
    const wrong = await h.bob.sign({ hash: orderDigest(h, o) });
    expect(await reasonOf(matchOf(maker, { order: o, sig: wrong }, 2n * UNIT.WETH, 4000n * UNIT.USDC))).toBe("BAD_SIGNATURE");
    const sig = await h.carol.sign({ hash: orderDigest(h, o) });
    await execute(matchOf(maker, { order: o, sig }, 2n * UNIT.WETH, 4000n * UNIT.USDC));
    expect(await vaultBalance(h, scw, WETH)).toBe(2n * UNIT.WETH);
    expect(await vaultBalance(h, scw, USDC)).toBe(0n);
  });

  it("an EIP-7702-delegated EOA (has code) still passes by ECDSA", async () => {
    // Delegate Bob's account to a contract with no isValidSignature: only the ECDSA-first
    // order of checks can accept his signature now that his address has code.
    await h.testClient.setCode({ address: h.bob.address, bytecode: `0xef0100${h.d.vault.slice(2)}` });
    expect((await h.pub.getCode({ address: h.bob.address }))?.length).toBe(2 + 23 * 2);
    const maker = await ask(10n, 2000n);
    const taker = await bid(h.bob, 2n, 2000n);
    await execute(matchOf(maker, taker, 2n * UNIT.WETH, 4000n * UNIT.USDC));
    expect(await vaultBalance(h, h.bob.address, WETH)).toBe(2n * UNIT.WETH);
  });

  it("rounds the maker's required amount up (mulDiv ceil)", async () => {
    // 3 WETH for 1000 USDC-units: 1 wei of WETH requires ceil(1000 / 3e18) = 1 unit.
    const now = await latestTimestamp(h.pub);
    const m = order({ user: h.alice.address, fromToken: WETH, toToken: USDC, fromAmount: 3n * UNIT.WETH, toAmount: 1000n }, now);
    const t = order({ user: h.bob.address, fromToken: USDC, toToken: WETH, fromAmount: 1n, toAmount: 1n }, now);
    const maker = { order: m, sig: await signOrder(h, h.alice, m) };
    const taker = { order: t, sig: await signOrder(h, h.bob, t) };
    await execute(matchOf(maker, taker, 1n, 1n));
    expect(await vaultBalance(h, h.alice.address, USDC)).toBe(1n);
  });
});

describe("matchOrders: rejections", () => {
  it("ORDER_EXPIRED once the expiration has passed", async () => {
    const now = await latestTimestamp(h.pub);
    const maker = await ask(10n, 2000n, { expiration: now + 60n });
    const taker = await bid(h.bob, 2n, 2000n);
    await h.testClient.increaseTime({ seconds: 120 });
    await h.testClient.mine({ blocks: 1 });
    expect(await reasonOf(matchOf(maker, taker, 2n * UNIT.WETH, 4000n * UNIT.USDC))).toBe("ORDER_EXPIRED");
  });

  it("OVERFILL when filled + amount exceeds fromAmount", async () => {
    const maker = await ask(3n, 2000n);
    const taker = await bid(h.bob, 4n, 2000n);
    await execute(matchOf(maker, taker, 2n * UNIT.WETH, 4000n * UNIT.USDC));
    expect(await reasonOf(matchOf(maker, taker, 2n * UNIT.WETH, 4000n * UNIT.USDC))).toBe("OVERFILL");
  });

  it("BAD_SIGNATURE when the order is signed by another key", async () => {
    const maker = await ask(10n, 2000n, {}, h.bob);
    const taker = await bid(h.bob, 2n, 2000n);
    expect(await reasonOf(matchOf(maker, taker, 2n * UNIT.WETH, 4000n * UNIT.USDC))).toBe("BAD_SIGNATURE");
  });

  it("PRICE_MISMATCH when the taker pays less than the maker's price", async () => {
    const maker = await ask(10n, 2000n);
    const taker = await bid(h.bob, 2n, 1990n);
    expect(await reasonOf(matchOf(maker, taker, 2n * UNIT.WETH, 3980n * UNIT.USDC))).toBe("PRICE_MISMATCH");
  });

  it("PRICE_MISMATCH when the taker would receive less than its own price", async () => {
    const maker = await ask(10n, 2000n);
    const taker = await bid(h.bob, 2n, 2000n);
    expect(await reasonOf(matchOf(maker, taker, UNIT.WETH, 4000n * UNIT.USDC))).toBe("PRICE_MISMATCH");
  });

  it("TOKEN_MISMATCH when the orders are not opposite sides of one pair", async () => {
    const maker = await ask(10n, 2000n);
    const taker = await bid(h.bob, 2n, 2000n, { toToken: h.d.tokens.WBTC! });
    expect(await reasonOf(matchOf(maker, taker, 2n * UNIT.WETH, 4000n * UNIT.USDC))).toBe("TOKEN_MISMATCH");
  });

  it("FEE_TOO_HIGH above 1000 bps", async () => {
    const maker = await ask(10n, 2000n, { feeBps: 1001n });
    const taker = await bid(h.bob, 2n, 2000n);
    expect(await reasonOf(matchOf(maker, taker, 2n * UNIT.WETH, 4000n * UNIT.USDC))).toBe("FEE_TOO_HIGH");
  });

  it("EXPIRATION_TOO_FAR beyond 365 days", async () => {
    const now = await latestTimestamp(h.pub);
    const maker = await ask(10n, 2000n, { expiration: now + 366n * 86_400n });
    const taker = await bid(h.bob, 2n, 2000n);
    expect(await reasonOf(matchOf(maker, taker, 2n * UNIT.WETH, 4000n * UNIT.USDC))).toBe("EXPIRATION_TOO_FAR");
  });

  it("TOKEN_NOT_WHITELISTED for an order on a token the exchange does not list", async () => {
    const now = await latestTimestamp(h.pub);
    const m = order({ user: h.alice.address, fromToken: h.rogue, toToken: USDC, fromAmount: 10n, toAmount: 10n }, now);
    const t = order({ user: h.bob.address, fromToken: USDC, toToken: h.rogue, fromAmount: 10n, toAmount: 10n }, now);
    const reason = await reasonOf(
      matchOf({ order: m, sig: await signOrder(h, h.alice, m) }, { order: t, sig: await signOrder(h, h.bob, t) }, 10n, 10n),
    );
    expect(reason).toBe("TOKEN_NOT_WHITELISTED");
  });

  it("INSUFFICIENT_VAULT_BALANCE when the vault balance does not cover the fill", async () => {
    const maker = await ask(200n, 2000n); // alice has 100 WETH in the vault
    const taker = await bid(h.bob, 150n, 2000n);
    const reason = await reasonOf(matchOf(maker, taker, 150n * UNIT.WETH, 300_000n * UNIT.USDC));
    expect(reason).toBe("INSUFFICIENT_VAULT_BALANCE");
  });

  it("ZERO_AMOUNT for an empty fill and SAME_ORDER for an order against itself", async () => {
    const maker = await ask(10n, 2000n);
    const taker = await bid(h.bob, 2n, 2000n);
    expect(await reasonOf(matchOf(maker, taker, 0n, 0n))).toBe("ZERO_AMOUNT");
    expect(await reasonOf(matchOf(maker, maker, UNIT.WETH, UNIT.WETH))).toBe("SAME_ORDER");
  });

  it("ZERO_ORDER_AMOUNT for an order asking nothing in return", async () => {
    const maker = await ask(10n, 2000n, { toAmount: 0n });
    const taker = await bid(h.bob, 2n, 2000n);
    expect(await reasonOf(matchOf(maker, taker, 2n * UNIT.WETH, 4000n * UNIT.USDC))).toBe("ZERO_ORDER_AMOUNT");
  });

  it("only the executor matches; nothing matches while paused", async () => {
    const maker = await ask(10n, 2000n);
    const taker = await bid(h.bob, 2n, 2000n);
    const m = matchOf(maker, taker, 2n * UNIT.WETH, 4000n * UNIT.USDC);
    expect(await reasonOf(m, h.alice)).toBe("AccessControlUnauthorizedAccount");
    await send(h.pub, h.wallet(h.admin), { address: h.d.exchange, abi: Exchange.abi, functionName: "pause" });
    expect(await reasonOf(m)).toBe("EnforcedPause");
  });
});
