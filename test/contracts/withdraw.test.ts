// Withdrawals: the dual-signature instant withdrawal (valid, replayed uuid, wrong
// executor, expired, malformed) and the two-step emergency withdrawal across the
// 7,200-block delay and the 14,400-block lapse, also while paused.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseEventLogs, type PrivateKeyAccount } from "viem";
import { ZERO_ADDRESS, type Address, type WithdrawIntentMessage } from "../../sim/core/typed-data.ts";
import {
  approveAndDeposit,
  Exchange,
  latestTimestamp,
  lowerAddresses,
  revertAtBlock,
  revertOf,
  send,
  sendUnchecked,
  signWithdraw,
  snapshotEach,
  startHarness,
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
  await approveAndDeposit(h, h.alice, WETH, 10n * UNIT.WETH);
  await approveAndDeposit(h, h.alice, USDC, 5000n * UNIT.USDC);
});
afterAll(async () => {
  await h?.stop();
});
snapshotEach(() => h, beforeEach, afterEach);

async function intent(fields: Partial<WithdrawIntentMessage> = {}): Promise<WithdrawIntentMessage> {
  return {
    user: h.alice.address,
    tokens: [WETH, USDC],
    amounts: [3n * UNIT.WETH, 1000n * UNIT.USDC],
    recipient: ZERO_ADDRESS,
    deadline: (await latestTimestamp(h.pub)) + 300n,
    uuid: 1234n,
    ...fields,
  };
}

async function withdrawCall(
  w: WithdrawIntentMessage,
  opts: { userSigner?: PrivateKeyAccount; executor?: Address; executorSigner?: PrivateKeyAccount } = {},
) {
  const userSig = await signWithdraw(h, opts.userSigner ?? h.alice, w);
  const execSig = await signWithdraw(h, opts.executorSigner ?? h.executor, w);
  return {
    address: h.d.exchange,
    abi: Exchange.abi,
    functionName: "executeInstantWithdrawDualSig",
    args: [w, userSig, opts.executor ?? h.executor.address, execSig],
  } as const;
}

describe("executeInstantWithdrawDualSig", () => {
  it("pays the user's wallet (recipient zero) and anyone may submit it", async () => {
    const w = await intent();
    const wethBefore = await walletBalance(h, WETH, h.alice.address);
    const usdcBefore = await walletBalance(h, USDC, h.alice.address);
    const receipt = await send(h.pub, h.wallet(h.carol), await withdrawCall(w));
    expect(await vaultBalance(h, h.alice.address, WETH)).toBe(7n * UNIT.WETH);
    expect(await vaultBalance(h, h.alice.address, USDC)).toBe(4000n * UNIT.USDC);
    expect(await walletBalance(h, WETH, h.alice.address)).toBe(wethBefore + 3n * UNIT.WETH);
    expect(await walletBalance(h, USDC, h.alice.address)).toBe(usdcBefore + 1000n * UNIT.USDC);
    const [done] = parseEventLogs({ abi: Exchange.abi, logs: receipt.logs, eventName: "InstantWithdraw" });
    expect(lowerAddresses(done!.args)).toEqual({
      user: h.alice.address.toLowerCase(),
      uuid: 1234n,
      executor: h.executor.address.toLowerCase(),
      recipient: h.alice.address.toLowerCase(),
    });
    expect(parseEventLogs({ abi: Exchange.abi, logs: receipt.logs, eventName: "Withdrawal" })).toHaveLength(2);
    expect(await h.pub.readContract({ address: h.d.exchange, abi: Exchange.abi, functionName: "withdrawUuidUsed", args: [h.alice.address, 1234n] })).toBe(true);
  });

  it("pays a named recipient", async () => {
    const payee = "0x000000000000000000000000000000000000c0de" as Address;
    await send(h.pub, h.wallet(h.alice), await withdrawCall(await intent({ recipient: payee, tokens: [WETH], amounts: [UNIT.WETH] })));
    expect(await walletBalance(h, WETH, payee)).toBe(UNIT.WETH);
    expect(await vaultBalance(h, h.alice.address, WETH)).toBe(9n * UNIT.WETH);
  });

  it("a replayed uuid is rejected: UUID_USED", async () => {
    const w = await intent({ tokens: [WETH], amounts: [UNIT.WETH] });
    const call = await withdrawCall(w);
    await send(h.pub, h.wallet(h.alice), call);
    expect(await revertOf(h.pub, h.alice, call)).toBe("UUID_USED");
    // The uuid is per user: the same uuid from another user is fine.
    await approveAndDeposit(h, h.bob, WETH, UNIT.WETH);
    const bobs = await intent({ user: h.bob.address, tokens: [WETH], amounts: [UNIT.WETH] });
    await send(h.pub, h.wallet(h.bob), await withdrawCall(bobs, { userSigner: h.bob }));
    expect(await vaultBalance(h, h.bob.address, WETH)).toBe(0n);
  });

  it("a co-signer without the executor role is rejected: NOT_EXECUTOR", async () => {
    const call = await withdrawCall(await intent(), { executor: h.bob.address, executorSigner: h.bob });
    expect(await revertOf(h.pub, h.alice, call)).toBe("NOT_EXECUTOR");
  });

  it("an executor signature by another key is rejected: BAD_EXECUTOR_SIGNATURE", async () => {
    const call = await withdrawCall(await intent(), { executorSigner: h.bob });
    expect(await revertOf(h.pub, h.alice, call)).toBe("BAD_EXECUTOR_SIGNATURE");
  });

  it("a user signature by another key is rejected: BAD_SIGNATURE", async () => {
    const call = await withdrawCall(await intent(), { userSigner: h.bob });
    expect(await revertOf(h.pub, h.alice, call)).toBe("BAD_SIGNATURE");
  });

  it("an expired deadline is rejected: WITHDRAW_EXPIRED", async () => {
    const w = await intent();
    const call = await withdrawCall(w);
    await h.testClient.setNextBlockTimestamp({ timestamp: w.deadline });
    await h.testClient.mine({ blocks: 1 });
    expect(await revertOf(h.pub, h.alice, call)).toBe("WITHDRAW_EXPIRED");
  });

  it("token count must be 1..20 with equal array lengths", async () => {
    expect(await revertOf(h.pub, h.alice, await withdrawCall(await intent({ tokens: [], amounts: [] })))).toBe("BAD_TOKEN_COUNT");
    const many = await intent({ tokens: Array.from({ length: 21 }, () => WETH), amounts: Array.from({ length: 21 }, () => 1n) });
    expect(await revertOf(h.pub, h.alice, await withdrawCall(many))).toBe("BAD_TOKEN_COUNT");
    expect(await revertOf(h.pub, h.alice, await withdrawCall(await intent({ amounts: [1n] })))).toBe("LENGTH_MISMATCH");
  });

  it("cannot withdraw more than the vault balance: INSUFFICIENT_VAULT_BALANCE", async () => {
    const call = await withdrawCall(await intent({ tokens: [WETH], amounts: [11n * UNIT.WETH] }));
    expect(await revertOf(h.pub, h.alice, call)).toBe("INSUFFICIENT_VAULT_BALANCE");
  });

  it("is blocked while paused: EnforcedPause", async () => {
    await send(h.pub, h.wallet(h.admin), { address: h.d.exchange, abi: Exchange.abi, functionName: "pause" });
    expect(await revertOf(h.pub, h.alice, await withdrawCall(await intent()))).toBe("EnforcedPause");
  });
});

describe("emergencyWithdraw", () => {
  const call = (token: Address, amount: bigint) =>
    ({ address: h.d.exchange, abi: Exchange.abi, functionName: "emergencyWithdraw", args: [token, amount] }) as const;

  async function request(token: Address): Promise<{ amount: bigint; blockNumber: bigint }> {
    const [amount, blockNumber] = await h.pub.readContract({
      address: h.d.exchange,
      abi: Exchange.abi,
      functionName: "emergencyRequests",
      args: [h.alice.address, token],
    });
    return { amount, blockNumber };
  }

  it("block boundaries: too early below 7,200, payable from 7,200 through 14,400, lapsed after", async () => {
    const r = await send(h.pub, h.wallet(h.alice), call(WETH, 4n * UNIT.WETH));
    const b = r.blockNumber;
    const [requested] = parseEventLogs({ abi: Exchange.abi, logs: r.logs, eventName: "EmergencyWithdrawRequested" });
    expect(requested!.args.amount).toBe(4n * UNIT.WETH);
    expect(await request(WETH)).toEqual({ amount: 4n * UNIT.WETH, blockNumber: b });
    expect(await vaultBalance(h, h.alice.address, WETH)).toBe(10n * UNIT.WETH);

    const at = (n: bigint, amount: bigint) => revertAtBlock(h.pub, h.alice, call(WETH, amount), n);
    expect(await at(b + 7_199n, 4n * UNIT.WETH)).toBe("EMERGENCY_TOO_EARLY");
    expect(await at(b + 7_200n, 4n * UNIT.WETH)).toBeNull();
    expect(await at(b + 7_200n, 5n * UNIT.WETH)).toBe("AMOUNT_EXCEEDS_REQUEST");
    expect(await at(b + 14_400n, 5n * UNIT.WETH)).toBe("AMOUNT_EXCEEDS_REQUEST");
    // Lapsed: the call records a new request instead, so even a larger amount does not revert.
    expect(await at(b + 14_401n, 5n * UNIT.WETH)).toBeNull();
  });

  it("the block counts are the live 7,200 / 14,400 and only the admin may change them", async () => {
    const read = (functionName: "emergencyDelayBlocks" | "emergencyLapseBlocks") =>
      h.pub.readContract({ address: h.d.exchange, abi: Exchange.abi, functionName });
    expect(await read("emergencyDelayBlocks")).toBe(7_200n);
    expect(await read("emergencyLapseBlocks")).toBe(14_400n);
    const set = (delay: bigint, lapse: bigint) =>
      ({ address: h.d.exchange, abi: Exchange.abi, functionName: "setEmergencyWithdrawBlocks", args: [delay, lapse] }) as const;
    expect(await revertOf(h.pub, h.executor, set(10n, 20n))).toBe("AccessControlUnauthorizedAccount");
    expect(await revertOf(h.pub, h.admin, set(0n, 20n))).toBe("BAD_EMERGENCY_BLOCKS");
    expect(await revertOf(h.pub, h.admin, set(30n, 20n))).toBe("BAD_EMERGENCY_BLOCKS");
  });

  // Anvil needs minutes to mine 14,400 blocks, so the on-chain walk uses the same code with
  // the counts scaled down 100x; the live boundaries are probed above with block overrides.
  it("on chain, while paused: too early, paid after the delay in mined blocks, a lapsed request re-recorded", async () => {
    const admin = h.wallet(h.admin);
    await send(h.pub, admin, { address: h.d.exchange, abi: Exchange.abi, functionName: "setEmergencyWithdrawBlocks", args: [72n, 144n] });
    await send(h.pub, admin, { address: h.d.exchange, abi: Exchange.abi, functionName: "pause" });
    const w = h.wallet(h.alice);
    const first = await send(h.pub, w, call(WETH, 4n * UNIT.WETH));
    const second = await send(h.pub, w, call(USDC, 100n * UNIT.USDC));
    expect(second.blockNumber).toBe(first.blockNumber + 1n);

    // Next tx lands 71 blocks after the WETH request: too early, as a mined failed transaction.
    await h.testClient.mine({ blocks: 69 });
    const early = await sendUnchecked(h.pub, w, call(WETH, 4n * UNIT.WETH));
    expect(early.blockNumber).toBe(first.blockNumber + 71n);
    expect(early.status).toBe("reverted");

    const wethBefore = await walletBalance(h, WETH, h.alice.address);
    const paid = await send(h.pub, w, call(WETH, 4n * UNIT.WETH));
    expect(paid.blockNumber).toBe(first.blockNumber + 72n);
    expect(parseEventLogs({ abi: Exchange.abi, logs: paid.logs, eventName: "EmergencyWithdrawn" })).toHaveLength(1);
    expect(await walletBalance(h, WETH, h.alice.address)).toBe(wethBefore + 4n * UNIT.WETH);
    expect(await vaultBalance(h, h.alice.address, WETH)).toBe(6n * UNIT.WETH);
    expect(await request(WETH)).toEqual({ amount: 0n, blockNumber: 0n });

    // The USDC request lapses: the next call lands 145 blocks after it and records anew.
    const now = await h.pub.getBlockNumber({ cacheTime: 0 });
    await h.testClient.mine({ blocks: Number(second.blockNumber + 144n - now) });
    const again = await send(h.pub, w, call(USDC, 100n * UNIT.USDC));
    expect(again.blockNumber).toBe(second.blockNumber + 145n);
    expect(parseEventLogs({ abi: Exchange.abi, logs: again.logs, eventName: "EmergencyWithdrawRequested" })).toHaveLength(1);
    expect(parseEventLogs({ abi: Exchange.abi, logs: again.logs, eventName: "EmergencyWithdrawn" })).toHaveLength(0);
    expect(await vaultBalance(h, h.alice.address, USDC)).toBe(5000n * UNIT.USDC);
    expect(await request(USDC)).toEqual({ amount: 100n * UNIT.USDC, blockNumber: again.blockNumber });
    expect(await revertOf(h.pub, h.alice, call(USDC, 100n * UNIT.USDC))).toBe("EMERGENCY_TOO_EARLY");
  });

  it("rejects zero and cannot pay more than the vault balance", async () => {
    expect(await revertOf(h.pub, h.alice, call(WETH, 0n))).toBe("ZERO_AMOUNT");
    const r = await send(h.pub, h.wallet(h.alice), call(WETH, 50n * UNIT.WETH));
    expect(await revertAtBlock(h.pub, h.alice, call(WETH, 50n * UNIT.WETH), r.blockNumber + 7_200n)).toBe("INSUFFICIENT_VAULT_BALANCE");
  });
});
