// MemoryChain.submitIntent: Router.executeIntent semantics on the in-process
// chain (all or nothing, uuid spent once, router-leg fault hook, deposit event,
// snapshot), the shape the Anvil adapter must match.
import { describe, expect, it } from "vitest";
import { VirtualClock } from "../../sim/core/clock.ts";
import { NO_GAS, type ChainIntent } from "../../sim/core/swap-intent.ts";
import type { Address, IntentMessage, OrderMessage } from "../../sim/core/typed-data.ts";
import { MemoryChain } from "../../sim/chain/memory.ts";

const EURC = "0x00000000000000000000000000000000000000e1" as Address;
const USDC = "0x00000000000000000000000000000000000000a1" as Address;
const MAKER = "0x2222222222222222222222222222222222222222" as Address;
const TAKER = "0x1111111111111111111111111111111111111111" as Address;
const ZERO = "0x0000000000000000000000000000000000000000" as Address;

function world() {
  const clock = new VirtualClock();
  const chain = new MemoryChain({ clock });
  chain.mint(MAKER, EURC, 10_000_000n);
  chain.deposit(MAKER, EURC, 10_000_000n);
  chain.mint(TAKER, USDC, 10_000_000n);
  const order: OrderMessage = {
    user: MAKER,
    expiration: BigInt(clock.nowSec() + 3600),
    feeBps: 20n,
    recipient: ZERO,
    fromToken: EURC,
    toToken: USDC,
    fromAmount: 10_000_000n,
    toAmount: 10_800_000n,
    initialDepositAmount: 0n,
    uuid: 1n,
  };
  const intent = (uuid: bigint, over: Partial<IntentMessage> = {}): IntentMessage => ({
    taker: TAKER,
    inputToken: USDC,
    outputToken: EURC,
    maxInputAmount: 5_400_000n,
    minOutputAmount: 5_000_000n,
    recipient: ZERO,
    initialDepositAmount: 5_400_000n,
    uuid,
    deadline: BigInt(clock.nowSec() + 100),
    ...over,
  });
  const ci = (i: IntentMessage): ChainIntent => ({
    intent: i,
    takerSignature: "0xab",
    legs: [{ order, signature: "0x11", makerAmount: 5_000_000n, takerAmount: 5_400_000n }],
    permit: { value: i.initialDepositAmount, deadline: i.deadline, signature: "0xcd" },
    gas: NO_GAS,
  });
  return { clock, chain, order, intent, ci };
}

describe("MemoryChain.submitIntent", () => {
  it("settles the legs, pulls the deposit with an IntentDeposit event, spends the uuid once", async () => {
    const { chain, intent, ci } = world();
    const { txHash } = await chain.submitIntent(ci(intent(77n)));
    const r = await chain.getReceipt(txHash);
    expect(r).toMatchObject({ status: "success", revertReason: null, failedMask: 0n, failures: [] });
    expect(await chain.walletBalance(TAKER, USDC)).toBe(4_600_000n);
    expect(await chain.vaultBalance(TAKER, USDC)).toBe(0n);
    expect(await chain.vaultBalance(TAKER, EURC)).toBe(5_000_000n);
    expect(await chain.vaultBalance(MAKER, USDC)).toBe(5_389_200n);
    expect(await chain.vaultBalance(chain.feeRecipient, USDC)).toBe(10_800n);
    expect(chain.intentUsed(TAKER, 77n)).toBe(true);
    const deps = await chain.intentDepositEvents(0n, r!.blockNumber);
    expect(deps).toEqual([{ owner: TAKER, token: USDC, amount: 5_400_000n, blockNumber: r!.blockNumber, txHash, logIndex: 0 }]);

    const again = await chain.getReceipt((await chain.submitIntent(ci(intent(77n)))).txHash);
    expect(again).toMatchObject({ status: "reverted", revertReason: "INTENT_UUID_USED" });
    expect(await chain.walletBalance(TAKER, USDC)).toBe(4_600_000n);
  });

  it("a revert leaves no trace: bound violations and the router-leg fault hook", async () => {
    const { chain, intent, ci, order } = world();
    const before = chain.snapshot();
    const tooMuch = await chain.getReceipt((await chain.submitIntent(ci(intent(1n, { minOutputAmount: 5_000_001n })))).txHash);
    expect(tooMuch).toMatchObject({ status: "reverted", revertReason: "MIN_OUTPUT_NOT_MET" });
    const i2 = intent(2n);
    await chain.setIntentLegFault(order, i2, "PAUSED");
    expect(await chain.getReceipt((await chain.submitIntent(ci(i2))).txHash)).toMatchObject({ status: "reverted", revertReason: "PAUSED" });
    const after = chain.snapshot();
    expect(after.vault).toEqual(before.vault);
    expect(after.wallets).toEqual(before.wallets);
    expect(after.filled).toEqual(before.filled);
    expect(chain.intentUsed(TAKER, 2n)).toBe(false);
    await chain.clearIntentLegFault(order, i2);
    expect(await chain.getReceipt((await chain.submitIntent(ci(i2))).txHash)).toMatchObject({ status: "success" });
    expect(chain.filledOf(order)).toBe(5_000_000n);
  });

  it("queues without automine; the deadline is checked at mining; snapshots keep spent uuids", async () => {
    const { chain, clock, intent, ci } = world();
    chain.setAutomine(false);
    const { txHash } = await chain.submitIntent(ci(intent(5n)));
    expect(await chain.getReceipt(txHash)).toBeNull();
    clock.advanceSec(100);
    await chain.mine(1);
    expect(await chain.getReceipt(txHash)).toMatchObject({ status: "reverted", revertReason: "INTENT_EXPIRED" });
    const { txHash: h2 } = await chain.submitIntent(ci(intent(6n, { deadline: BigInt(clock.nowSec() + 50) })));
    const snap = chain.snapshot();
    await chain.mine(1);
    expect(chain.intentUsed(TAKER, 6n)).toBe(true);
    const mined = chain.snapshot();
    chain.restore(snap);
    expect(chain.intentUsed(TAKER, 6n)).toBe(false);
    expect(await chain.getReceipt(h2)).toBeNull();
    chain.restore(mined);
    expect(chain.intentUsed(TAKER, 6n)).toBe(true);
  });
});
