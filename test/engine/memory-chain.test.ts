import { describe, expect, it } from "vitest";
import { VirtualClock } from "../../sim/core/clock.ts";
import { parseFaultPlan } from "../../sim/core/faults.ts";
import { ExchangeError } from "../../sim/core/errors.ts";
import { ChainRevert, MemoryChain } from "../../sim/chain/memory.ts";
import type { ChainMatch } from "../../sim/chain/port.ts";
import { ZERO_ADDRESS, type Address, type OrderMessage } from "../../sim/core/typed-data.ts";
import { errorCodeForRevert, errorCodeForSide, planBatches, publicFailureReason } from "../../sim/core/settlement.ts";
import { matchMoves } from "../../sim/core/economics.ts";

const A = "0x00000000000000000000000000000000000000aa" as Address;
const B = "0x00000000000000000000000000000000000000bb" as Address;
const BASE = "0x0000000000000000000000000000000000000b05" as Address;
const QUOTE = "0x0000000000000000000000000000000000000a07" as Address;

function order(user: Address, from: Address, to: Address, fromAmount: bigint, toAmount: bigint, uuid: bigint, expiration = 1_767_300_000n): OrderMessage {
  return { user, expiration, feeBps: 0n, recipient: ZERO_ADDRESS, fromToken: from, toToken: to, fromAmount, toAmount, initialDepositAmount: 0n, uuid };
}

function setupChain(automine = true) {
  const clock = new VirtualClock();
  const chain = new MemoryChain({ clock, automine });
  chain.mint(A, BASE, 1000n);
  chain.mint(B, QUOTE, 2000n);
  chain.deposit(A, BASE, 1000n);
  chain.deposit(B, QUOTE, 2000n);
  // maker A sells 100 base for 110 quote; taker B buys 100 base for up to 120 quote
  const maker = order(A, BASE, QUOTE, 100n, 110n, 1n);
  const taker = order(B, QUOTE, BASE, 120n, 100n, 2n);
  return { clock, chain, maker, taker };
}

const m = (maker: OrderMessage, taker: OrderMessage, makerAmount: bigint, takerAmount: bigint): ChainMatch => ({
  maker,
  makerSignature: "0x",
  taker,
  takerSignature: "0x",
  makerAmount,
  takerAmount,
});

async function receipt(chain: MemoryChain, matches: ChainMatch[], atomic = false) {
  const { txHash } = await chain.submitBatch(matches, { atomic });
  return (await chain.getReceipt(txHash))!;
}

describe("memory chain", () => {
  it("deposits move wallet → vault and emit events; bad deposits revert", async () => {
    const { chain } = setupChain();
    expect(await chain.vaultBalance(A, BASE)).toBe(1000n);
    expect(await chain.walletBalance(A, BASE)).toBe(0n);
    const evs = await chain.depositEvents(0n, await chain.blockNumber());
    expect(evs.map((e) => [e.owner, e.amount])).toEqual([[A, 1000n], [B, 2000n]]);
    expect(() => chain.deposit(A, BASE, 1n)).toThrow(ChainRevert);
    expect(() => chain.deposit(A, BASE, 0n)).toThrow(/ZERO_AMOUNT/);
  });

  it("settles a match at the maker's price, with the contract's per-order rules", async () => {
    const { chain, maker, taker } = setupChain();
    const r = await receipt(chain, [m(maker, taker, 50n, 55n)]);
    expect([r.status, r.failedMask]).toEqual(["success", 0n]);
    expect(await chain.vaultBalance(A, QUOTE)).toBe(55n);
    expect(await chain.vaultBalance(B, BASE)).toBe(50n);
    expect(chain.filledOf(maker)).toBe(50n);
    // Per-match failures inside a successful batch set bits and carry reasons.
    const r2 = await receipt(chain, [
      m(maker, taker, 10n, 10n), // maker wants ceil(10*110/100) = 11
      m(maker, taker, 60n, 66n), // overfills the maker (50 + 60 > 100)
      m(maker, taker, 10n, 11n), // fine
    ]);
    expect(r2.status).toBe("success");
    expect(r2.failedMask).toBe(0b011n);
    expect(r2.failures).toEqual([
      { index: 0, reason: "PRICE_MISMATCH" },
      { index: 1, reason: "OVERFILL" },
    ]);
    expect(chain.filledOf(maker)).toBe(60n);
  });

  it("expired orders, drained vaults and installed faults revert the match", async () => {
    const { chain, maker, taker, clock } = setupChain();
    await chain.setMatchFault(maker, taker, "CUSTOM");
    expect((await receipt(chain, [m(maker, taker, 10n, 11n)])).failures).toEqual([{ index: 0, reason: "CUSTOM" }]);
    await chain.clearMatchFault(maker, taker);
    const poor = order(B, QUOTE, BASE, 5000n, 4000n, 3n);
    expect((await receipt(chain, [m(order(A, BASE, QUOTE, 3000n, 3000n, 4n), poor, 2500n, 2500n)])).failures[0]!.reason).toBe("INSUFFICIENT_VAULT_BALANCE");
    clock.advanceSec(100_000);
    expect((await receipt(chain, [m(maker, taker, 10n, 11n)])).failures[0]!.reason).toBe("ORDER_EXPIRED");
  });

  it("the atomic batch reverts entirely; empty and oversized batches revert", async () => {
    const { chain, maker, taker } = setupChain();
    const r = await receipt(chain, [m(maker, taker, 10n, 11n), m(maker, taker, 10n, 1n)], true);
    expect([r.status, r.revertReason]).toEqual(["reverted", "PRICE_MISMATCH"]);
    expect(chain.filledOf(maker)).toBe(0n);
    expect(await chain.vaultBalance(A, QUOTE)).toBe(0n);
    expect((await receipt(chain, [])).revertReason).toBe("EMPTY_BATCH");
    const many = Array.from({ length: 21 }, () => m(maker, taker, 1n, 2n));
    expect((await receipt(chain, many)).revertReason).toBe("BATCH_TOO_LARGE");
  });

  it("positive spread: split 25/25/50, the same numbers as economics.matchMoves", async () => {
    const { chain, maker, taker } = setupChain();
    await receipt(chain, [m(maker, taker, 100n, 118n)]);
    const mv = matchMoves(maker, taker, 100n, 118n);
    expect([mv.spread, mv.makerSpread, mv.takerRefund, mv.protocolSpread]).toEqual([8n, 2n, 2n, 4n]);
    expect(await chain.vaultBalance(A, QUOTE)).toBe(112n);
    expect(await chain.vaultBalance(B, QUOTE)).toBe(2000n - 116n);
    expect(await chain.vaultBalance(chain.feeRecipient, QUOTE)).toBe(4n);
  });

  it("without automine a batch waits for a mined block", async () => {
    const { chain, maker, taker } = setupChain(false);
    const { txHash } = await chain.submitBatch([m(maker, taker, 10n, 11n)]);
    expect(await chain.getReceipt(txHash)).toBeNull();
    await chain.mine(1);
    expect((await chain.getReceipt(txHash))!.status).toBe("success");
  });

  it("mine(n) advances the head by n blocks, as on Anvil", async () => {
    const { chain } = setupChain();
    const head = await chain.blockNumber();
    await chain.mine(3);
    expect(await chain.blockNumber()).toBe(head + 3n);
  });

  it("an order's first fill checks its own bounds: zero toAmount, fee over 10%", async () => {
    const { chain, taker } = setupChain();
    const zeroAsk = order(A, BASE, QUOTE, 100n, 0n, 7n);
    expect((await receipt(chain, [m(zeroAsk, taker, 10n, 11n)])).failures).toEqual([{ index: 0, reason: "ZERO_ORDER_AMOUNT" }]);
    const feeAt = (feeBps: bigint, uuid: bigint) => ({ ...order(A, BASE, QUOTE, 100n, 110n, uuid), feeBps });
    expect((await receipt(chain, [m(feeAt(1_001n, 8n), taker, 10n, 11n)])).failures).toEqual([{ index: 0, reason: "FEE_TOO_HIGH" }]);
    expect((await receipt(chain, [m(feeAt(1_000n, 9n), taker, 10n, 11n)])).failedMask).toBe(0n);
  });

  it("restore puts back the snapshot's automine setting", async () => {
    const { chain, maker, taker } = setupChain();
    const s = chain.snapshot();
    chain.setAutomine(false);
    chain.restore(s);
    const { txHash } = await chain.submitBatch([m(maker, taker, 10n, 11n)]);
    expect((await chain.getReceipt(txHash))!.status).toBe("success");
  });

  it("snapshot/restore", async () => {
    const { chain, maker, taker } = setupChain();
    const s = chain.snapshot();
    await receipt(chain, [m(maker, taker, 10n, 11n)]);
    chain.restore(s);
    expect(chain.filledOf(maker)).toBe(0n);
    expect(await chain.vaultBalance(A, QUOTE)).toBe(0n);
  });
});

describe("settlement vocabulary and fault plans", () => {
  it("failure reasons outside the allowlist are null; error codes map or fall back to TRANSIENT", () => {
    expect(publicFailureReason("OVERFILL")).toBe("OVERFILL");
    expect(publicFailureReason("panic: 0x11")).toBeNull();
    expect(publicFailureReason(null)).toBeNull();
    expect(errorCodeForRevert("INSUFFICIENT_VAULT_BALANCE")).toBe("INSUFFICIENT_EQUITY");
    expect(errorCodeForRevert("ALLOWANCE_INSUFFICIENT")).toBe("ALLOWANCE_INSUFFICIENT");
    expect(errorCodeForRevert("WHATEVER")).toBe("TRANSIENT_SETTLEMENT_FAILURE");
    expect(errorCodeForRevert(null)).toBe("TRANSIENT_SETTLEMENT_FAILURE");
  });

  it("errorCodeForSide: a typed code goes to the order the revert concerns, the catch-all to its counterparty", () => {
    const now = 1_000;
    const expired = { expiration: 1_000, isSwap: false };
    const live = { expiration: 1_001, isSwap: false };
    const liveMaker = { ...live, isMaker: true };
    const swap = { expiration: 2_000, isSwap: true };
    const T = "TRANSIENT_SETTLEMENT_FAILURE";
    // ORDER_EXPIRED: the expired side only (both when both expired); when neither had (a fault
    // plan injected it), the maker, as a live revert names one party: the taker gets the catch-all.
    expect(errorCodeForSide("ORDER_EXPIRED", expired, [live], now)).toBe("INTENT_DEADLINE_EXPIRED");
    expect(errorCodeForSide("ORDER_EXPIRED", live, [expired], now)).toBe(T);
    expect(errorCodeForSide("ORDER_EXPIRED", expired, [expired], now)).toBe("INTENT_DEADLINE_EXPIRED");
    expect(errorCodeForSide("ORDER_EXPIRED", liveMaker, [live], now)).toBe("INTENT_DEADLINE_EXPIRED");
    expect(errorCodeForSide("ORDER_EXPIRED", live, [liveMaker], now)).toBe(T);
    // A live maker whose taker expired is not blamed: the revert picked out the taker.
    expect(errorCodeForSide("ORDER_EXPIRED", liveMaker, [expired], now)).toBe(T);
    // A swap whose maker leg expired: the swap sees a counterparty change, the maker its own deadline.
    expect(errorCodeForSide("ORDER_EXPIRED", swap, [live, expired], now)).toBe(T);
    expect(errorCodeForSide("ORDER_EXPIRED", expired, [swap], now)).toBe("INTENT_DEADLINE_EXPIRED");
    // The Intent's own reasons: the swap only, never its makers.
    for (const [reason, code] of [
      ["INTENT_EXPIRED", "INTENT_DEADLINE_EXPIRED"],
      ["MIN_OUTPUT_NOT_MET", "SLIPPAGE_EXCEEDED"],
      ["ALLOWANCE_INSUFFICIENT", "ALLOWANCE_INSUFFICIENT"],
    ] as const) {
      expect(errorCodeForSide(reason, swap, [live], now)).toBe(code);
      expect(errorCodeForSide(reason, live, [swap], now)).toBe(T);
    }
    // A shortfall goes to the side whose owner owes the vault (an emergency exit past available);
    // both when both do; when neither does (injected), the maker only.
    const owes = { ...live, owesVault: true };
    expect(errorCodeForSide("INSUFFICIENT_VAULT_BALANCE", owes, [live], now)).toBe("INSUFFICIENT_EQUITY");
    expect(errorCodeForSide("INSUFFICIENT_VAULT_BALANCE", live, [owes], now)).toBe(T);
    expect(errorCodeForSide("INSUFFICIENT_VAULT_BALANCE", liveMaker, [live], now)).toBe("INSUFFICIENT_EQUITY");
    expect(errorCodeForSide("INSUFFICIENT_VAULT_BALANCE", live, [liveMaker], now)).toBe(T);
    expect(errorCodeForSide("INSUFFICIENT_VAULT_BALANCE", owes, [owes], now)).toBe("INSUFFICIENT_EQUITY");
    expect(errorCodeForSide("INSUFFICIENT_VAULT_BALANCE", liveMaker, [owes], now)).toBe(T);
    // A swap order's code stays inside POST /swap's subset: its makers may read INSUFFICIENT_EQUITY, it the catch-all.
    expect(errorCodeForSide("INSUFFICIENT_VAULT_BALANCE", swap, [live], now)).toBe(T);
    expect(errorCodeForSide("INSUFFICIENT_VAULT_BALANCE", { ...swap, owesVault: true }, [live], now)).toBe(T);
    expect(errorCodeForSide("INSUFFICIENT_VAULT_BALANCE", liveMaker, [swap], now)).toBe("INSUFFICIENT_EQUITY");
    expect(errorCodeForSide("TOKEN_NOT_WHITELISTED", swap, [live], now)).toBe(T);
    expect(errorCodeForSide("TOKEN_NOT_WHITELISTED", live, [swap], now)).toBe("PAIR_INACTIVE");
    expect(errorCodeForSide("BAD_SIGNATURE", live, [live], now)).toBe(T);
    expect(errorCodeForSide(null, live, [live], now)).toBe(T);
  });

  it("planBatches splits in order under the cap", () => {
    expect(planBatches([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(() => planBatches([1], 0)).toThrow(RangeError);
  });

  it("fault plans are validated data (422 VALIDATION on bad input)", () => {
    const plan = parseFaultPlan({
      revertFills: [{ fill: 3, reason: "OVERFILL" }],
      revertSettlements: [{ nth: 2, reason: "X", mode: "batch" }, { nth: 4, reason: "Y" }],
      revertFraction: { fraction: 0.1, reason: "BAD_SIGNATURE" },
      spreadFills: { rate: 0.5, sizeBps: 20 },
      confirmationDelayBlocks: 3,
    });
    expect(plan.revertSettlements![1]!.mode).toBe("legs");
    const bad = [
      null,
      { nope: 1 },
      { revertFills: [{ fill: 0, reason: "X" }] },
      { revertFills: [{ fill: 1, reason: "" }] },
      { revertSettlements: [{ nth: 1, reason: "X", mode: "all" }] },
      // Batches count from 1: a 0th would never revert anything.
      { revertSettlements: [{ nth: 0, reason: "X" }] },
      { revertFraction: { fraction: 1.5, reason: "X" } },
      { spreadFills: { rate: 0.5, sizeBps: 0 } },
      { confirmationDelayBlocks: -1 },
      { confirmationDelayBlocks: 10_001 },
      // Misspelt keys inside an entry: refused, not dropped (a dropped `mode` would revert legs instead of the batch).
      { revertFills: [{ fill: 1, reason: "X", reasn: "Y" }] },
      { revertSettlements: [{ nth: 1, reason: "X", mdoe: "batch" }] },
      { revertFraction: { fraction: 0.1, reason: "X", reasn: "Y" } },
      { spreadFills: { rate: 0.5, sizeBps: 5, typo: 1 } },
      { quoteTimeouts: { fracton: 0.5 } },
    ];
    for (const b of bad) {
      try {
        parseFaultPlan(b);
        throw new Error(`accepted ${JSON.stringify(b)}`);
      } catch (e) {
        expect(e).toBeInstanceOf(ExchangeError);
        expect([(e as ExchangeError).status, (e as ExchangeError).code]).toEqual([422, "VALIDATION"]);
      }
    }
  });

  it("spreadFills.sizeBps is an integer 1-10000: both ends accepted, one past either refused", () => {
    for (const sizeBps of [1, 10_000]) expect(parseFaultPlan({ spreadFills: { rate: 0.5, sizeBps } })).toEqual({ spreadFills: { rate: 0.5, sizeBps } });
    for (const sizeBps of [0, 10_001]) {
      try {
        parseFaultPlan({ spreadFills: { rate: 0.5, sizeBps } });
        throw new Error(`accepted sizeBps ${sizeBps}`);
      } catch (e) {
        expect(e).toBeInstanceOf(ExchangeError);
        const x = e as ExchangeError;
        expect([x.status, x.code, x.detail]).toEqual([422, "VALIDATION", "fault plan: spreadFills needs rate in [0,1] and sizeBps an integer 1-10000"]);
      }
    }
  });
});
