// Deposits: plain (approve the vault, then depositFund), by ERC-2612 permit with 65-
// and 64-byte signatures, the skipped/failed permit paths, and every rejection.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { encodeFunctionData, parseEventLogs } from "viem";
import type { Hex } from "../../sim/core/typed-data.ts";
import {
  approveAndDeposit,
  Exchange,
  latestTimestamp,
  lowerAddresses,
  revertOf,
  send,
  signPermit,
  SmartWallet1271,
  snapshotEach,
  startHarness,
  TestToken,
  toCompact,
  Vault,
  vaultBalance,
  walletBalance,
  type Harness,
} from "./harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});
snapshotEach(() => h, beforeEach, afterEach);

const AMOUNT = 250n * 10n ** 6n;

describe("depositFund", () => {
  it("moves wallet funds into the vault ledger and emits Deposit", async () => {
    const usdc = h.d.tokens.USDC!;
    const w = h.wallet(h.alice);
    const walletBefore = await walletBalance(h, usdc, h.alice.address);
    await send(h.pub, w, { address: usdc, abi: TestToken.abi, functionName: "approve", args: [h.d.vault, AMOUNT] });
    const receipt = await send(h.pub, w, {
      address: h.d.exchange,
      abi: Exchange.abi,
      functionName: "depositFund",
      args: [usdc, h.alice.address, AMOUNT],
    });
    expect(await vaultBalance(h, h.alice.address, usdc)).toBe(AMOUNT);
    expect(await walletBalance(h, usdc, h.alice.address)).toBe(walletBefore - AMOUNT);
    expect(await walletBalance(h, usdc, h.d.vault)).toBe(AMOUNT);
    const logs = parseEventLogs({ abi: Exchange.abi, logs: receipt.logs, eventName: "Deposit" });
    expect(logs).toHaveLength(1);
    expect(lowerAddresses(logs[0]!.args)).toEqual({ owner: h.alice.address.toLowerCase(), token: usdc, amount: AMOUNT });
  });

  it("works for a token without permit", async () => {
    await approveAndDeposit(h, h.alice, h.d.tokens.NOP!, 5n);
    expect(await vaultBalance(h, h.alice.address, h.d.tokens.NOP!)).toBe(5n);
  });

  it("rejects a sender other than the owner: NOT_OWNER", async () => {
    const usdc = h.d.tokens.USDC!;
    await send(h.pub, h.wallet(h.alice), { address: usdc, abi: TestToken.abi, functionName: "approve", args: [h.d.vault, AMOUNT] });
    const reason = await revertOf(h.pub, h.bob, {
      address: h.d.exchange,
      abi: Exchange.abi,
      functionName: "depositFund",
      args: [usdc, h.alice.address, AMOUNT],
    });
    expect(reason).toBe("NOT_OWNER");
  });

  it("rejects a non-whitelisted token: TOKEN_NOT_WHITELISTED", async () => {
    await send(h.pub, h.wallet(h.alice), { address: h.rogue, abi: TestToken.abi, functionName: "approve", args: [h.d.vault, AMOUNT] });
    const reason = await revertOf(h.pub, h.alice, {
      address: h.d.exchange,
      abi: Exchange.abi,
      functionName: "depositFund",
      args: [h.rogue, h.alice.address, AMOUNT],
    });
    expect(reason).toBe("TOKEN_NOT_WHITELISTED");
  });

  it("rejects zero: ZERO_AMOUNT", async () => {
    const reason = await revertOf(h.pub, h.alice, {
      address: h.d.exchange,
      abi: Exchange.abi,
      functionName: "depositFund",
      args: [h.d.tokens.USDC!, h.alice.address, 0n],
    });
    expect(reason).toBe("ZERO_AMOUNT");
  });

  it("rejects without allowance: ALLOWANCE_INSUFFICIENT", async () => {
    const reason = await revertOf(h.pub, h.alice, {
      address: h.d.exchange,
      abi: Exchange.abi,
      functionName: "depositFund",
      args: [h.d.tokens.USDC!, h.alice.address, AMOUNT],
    });
    expect(reason).toBe("ALLOWANCE_INSUFFICIENT");
  });

  it("rejects more than the wallet holds: INSUFFICIENT_WALLET_BALANCE", async () => {
    const usdc = h.d.tokens.USDC!;
    const held = await walletBalance(h, usdc, h.alice.address);
    await send(h.pub, h.wallet(h.alice), { address: usdc, abi: TestToken.abi, functionName: "approve", args: [h.d.vault, held + 1n] });
    const reason = await revertOf(h.pub, h.alice, {
      address: h.d.exchange,
      abi: Exchange.abi,
      functionName: "depositFund",
      args: [usdc, h.alice.address, held + 1n],
    });
    expect(reason).toBe("INSUFFICIENT_WALLET_BALANCE");
  });

  it("is blocked while paused (EnforcedPause) and works again after unpause", async () => {
    const usdc = h.d.tokens.USDC!;
    await send(h.pub, h.wallet(h.admin), { address: h.d.exchange, abi: Exchange.abi, functionName: "pause" });
    await send(h.pub, h.wallet(h.alice), { address: usdc, abi: TestToken.abi, functionName: "approve", args: [h.d.vault, AMOUNT] });
    const call = { address: h.d.exchange, abi: Exchange.abi, functionName: "depositFund", args: [usdc, h.alice.address, AMOUNT] } as const;
    expect(await revertOf(h.pub, h.alice, call)).toBe("EnforcedPause");
    await send(h.pub, h.wallet(h.admin), { address: h.d.exchange, abi: Exchange.abi, functionName: "unpause" });
    await send(h.pub, h.wallet(h.alice), call);
    expect(await vaultBalance(h, h.alice.address, usdc)).toBe(AMOUNT);
  });

  it("only the admin whitelists and pauses: AccessControlUnauthorizedAccount", async () => {
    expect(
      await revertOf(h.pub, h.alice, { address: h.d.exchange, abi: Exchange.abi, functionName: "setTokenWhitelisted", args: [h.rogue, true] }),
    ).toBe("AccessControlUnauthorizedAccount");
    expect(await revertOf(h.pub, h.executor, { address: h.d.exchange, abi: Exchange.abi, functionName: "pause" })).toBe(
      "AccessControlUnauthorizedAccount",
    );
  });

  it("a smart-contract wallet deposits through execute()", async () => {
    const usdc = h.d.tokens.USDC!;
    const w = h.wallet(h.carol);
    const hash = await w.deployContract({ abi: SmartWallet1271.abi, bytecode: SmartWallet1271.bytecode, args: [h.carol.address] });
    const scw = (await h.pub.waitForTransactionReceipt({ hash })).contractAddress!;
    await send(h.pub, w, { address: usdc, abi: TestToken.abi, functionName: "transfer", args: [scw, AMOUNT] });
    const approve = encodeFunctionData({ abi: TestToken.abi, functionName: "approve", args: [h.d.vault, AMOUNT] });
    const deposit = encodeFunctionData({ abi: Exchange.abi, functionName: "depositFund", args: [usdc, scw, AMOUNT] });
    await send(h.pub, w, { address: scw, abi: SmartWallet1271.abi, functionName: "execute", args: [usdc, approve] });
    await send(h.pub, w, { address: scw, abi: SmartWallet1271.abi, functionName: "execute", args: [h.d.exchange, deposit] });
    expect(await vaultBalance(h, scw, usdc)).toBe(AMOUNT);
    expect(
      await revertOf(h.pub, h.bob, { address: scw, abi: SmartWallet1271.abi, functionName: "execute", args: [usdc, approve] }),
    ).toBe("NOT_OWNER");
  });
});

describe("depositFundWithPermit", () => {
  async function permitDeposit(sig: Hex, permitAmount = AMOUNT, depositAmount = AMOUNT, deadline?: bigint) {
    const dl = deadline ?? (await latestTimestamp(h.pub)) + 600n;
    return send(h.pub, h.wallet(h.alice), {
      address: h.d.exchange,
      abi: Exchange.abi,
      functionName: "depositFundWithPermit",
      args: [h.d.tokens.USDC!, h.alice.address, permitAmount, depositAmount, dl, sig],
    });
  }

  it("deposits with a 65-byte permit signature, spending the permit allowance", async () => {
    const usdc = h.d.tokens.USDC!;
    const deadline = (await latestTimestamp(h.pub)) + 600n;
    const sig = await signPermit(h, h.alice, usdc, AMOUNT, deadline);
    expect((sig.length - 2) / 2).toBe(65);
    const receipt = await permitDeposit(sig, AMOUNT, AMOUNT, deadline);
    expect(await vaultBalance(h, h.alice.address, usdc)).toBe(AMOUNT);
    expect(await h.pub.readContract({ address: usdc, abi: TestToken.abi, functionName: "nonces", args: [h.alice.address] })).toBe(1n);
    expect(await h.pub.readContract({ address: usdc, abi: TestToken.abi, functionName: "allowance", args: [h.alice.address, h.d.vault] })).toBe(0n);
    expect(parseEventLogs({ abi: Exchange.abi, logs: receipt.logs, eventName: "Deposit" })).toHaveLength(1);
  });

  it("deposits with a 64-byte EIP-2098 permit signature", async () => {
    const usdc = h.d.tokens.USDC!;
    const deadline = (await latestTimestamp(h.pub)) + 600n;
    const compact = toCompact(await signPermit(h, h.alice, usdc, AMOUNT * 2n, deadline));
    expect((compact.length - 2) / 2).toBe(64);
    await permitDeposit(compact, AMOUNT * 2n, AMOUNT, deadline);
    expect(await vaultBalance(h, h.alice.address, usdc)).toBe(AMOUNT);
    // The permit ran: nonce consumed and the rest of the permitted amount is still allowed.
    expect(await h.pub.readContract({ address: usdc, abi: TestToken.abi, functionName: "nonces", args: [h.alice.address] })).toBe(1n);
    expect(await h.pub.readContract({ address: usdc, abi: TestToken.abi, functionName: "allowance", args: [h.alice.address, h.d.vault] })).toBe(AMOUNT);
  });

  it("skips the permit when the allowance already covers the deposit", async () => {
    const usdc = h.d.tokens.USDC!;
    await send(h.pub, h.wallet(h.alice), { address: usdc, abi: TestToken.abi, functionName: "approve", args: [h.d.vault, AMOUNT] });
    const deadline = (await latestTimestamp(h.pub)) + 600n;
    const sig = await signPermit(h, h.alice, usdc, 1n, deadline);
    await permitDeposit(sig, 1n, AMOUNT, deadline);
    expect(await vaultBalance(h, h.alice.address, usdc)).toBe(AMOUNT);
    // Skipped, not executed: the permit nonce is untouched.
    expect(await h.pub.readContract({ address: usdc, abi: TestToken.abi, functionName: "nonces", args: [h.alice.address] })).toBe(0n);
  });

  it("a failing permit is caught and the transfer decides: ALLOWANCE_INSUFFICIENT", async () => {
    const usdc = h.d.tokens.USDC!;
    const deadline = (await latestTimestamp(h.pub)) + 600n;
    const bobSig = await signPermit(h, h.bob, usdc, AMOUNT, deadline); // signed by the wrong key
    const reason = await revertOf(h.pub, h.alice, {
      address: h.d.exchange,
      abi: Exchange.abi,
      functionName: "depositFundWithPermit",
      args: [usdc, h.alice.address, AMOUNT, AMOUNT, deadline, bobSig],
    });
    expect(reason).toBe("ALLOWANCE_INSUFFICIENT");
  });

  it("an expired permit is caught: ALLOWANCE_INSUFFICIENT", async () => {
    const usdc = h.d.tokens.USDC!;
    const deadline = (await latestTimestamp(h.pub)) - 1n;
    const sig = await signPermit(h, h.alice, usdc, AMOUNT, deadline);
    const reason = await revertOf(h.pub, h.alice, {
      address: h.d.exchange,
      abi: Exchange.abi,
      functionName: "depositFundWithPermit",
      args: [usdc, h.alice.address, AMOUNT, AMOUNT, deadline, sig],
    });
    expect(reason).toBe("ALLOWANCE_INSUFFICIENT");
  });

  it("a token without permit falls through to the allowance", async () => {
    const nop = h.d.tokens.NOP!;
    const deadline = (await latestTimestamp(h.pub)) + 600n;
    const junk = `0x${"11".repeat(65)}` as Hex;
    const call = {
      address: h.d.exchange,
      abi: Exchange.abi,
      functionName: "depositFundWithPermit",
      args: [nop, h.alice.address, 10n, 10n, deadline, junk],
    } as const;
    expect(await revertOf(h.pub, h.alice, call)).toBe("ALLOWANCE_INSUFFICIENT");
    await send(h.pub, h.wallet(h.alice), { address: nop, abi: TestToken.abi, functionName: "approve", args: [h.d.vault, 10n] });
    await send(h.pub, h.wallet(h.alice), call);
    expect(await vaultBalance(h, h.alice.address, nop)).toBe(10n);
  });

  it("rejects a non-whitelisted token: TOKEN_NOT_WHITELISTED", async () => {
    const deadline = (await latestTimestamp(h.pub)) + 600n;
    const sig = await signPermit(h, h.alice, h.rogue, AMOUNT, deadline);
    const reason = await revertOf(h.pub, h.alice, {
      address: h.d.exchange,
      abi: Exchange.abi,
      functionName: "depositFundWithPermit",
      args: [h.rogue, h.alice.address, AMOUNT, AMOUNT, deadline, sig],
    });
    expect(reason).toBe("TOKEN_NOT_WHITELISTED");
  });

  it("rejects a sender other than the owner: NOT_OWNER", async () => {
    const usdc = h.d.tokens.USDC!;
    const deadline = (await latestTimestamp(h.pub)) + 600n;
    const sig = await signPermit(h, h.alice, usdc, AMOUNT, deadline);
    const reason = await revertOf(h.pub, h.bob, {
      address: h.d.exchange,
      abi: Exchange.abi,
      functionName: "depositFundWithPermit",
      args: [usdc, h.alice.address, AMOUNT, AMOUNT, deadline, sig],
    });
    expect(reason).toBe("NOT_OWNER");
  });
});

describe("Vault access", () => {
  it("only the exchange and its operators move ledger balances: NOT_OPERATOR", async () => {
    for (const [functionName, args] of [
      ["credit", [h.alice.address, h.d.tokens.USDC!, 1n]],
      ["debit", [h.alice.address, h.d.tokens.USDC!, 1n]],
      ["pullDeposit", [h.d.tokens.USDC!, h.alice.address, 1n]],
      ["withdrawTo", [h.alice.address, h.d.tokens.USDC!, 1n, h.alice.address]],
    ] as const) {
      expect(await revertOf(h.pub, h.alice, { address: h.d.vault, abi: Vault.abi, functionName, args })).toBe("NOT_OPERATOR");
    }
  });

  it("the exchange binding is admin-only and set once", async () => {
    expect(await revertOf(h.pub, h.alice, { address: h.d.vault, abi: Vault.abi, functionName: "setExchange", args: [h.alice.address] })).toBe(
      "NOT_ADMIN",
    );
    expect(await revertOf(h.pub, h.admin, { address: h.d.vault, abi: Vault.abi, functionName: "setExchange", args: [h.alice.address] })).toBe(
      "EXCHANGE_ALREADY_SET",
    );
    const bound = await h.pub.readContract({ address: h.d.vault, abi: Vault.abi, functionName: "exchange" });
    expect(bound.toLowerCase()).toBe(h.d.exchange);
  });
});
