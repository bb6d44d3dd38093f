import { describe, expect, it } from "vitest";
import { recoverTypedDataAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ExchangeError } from "../../sim/core/errors.ts";
import { EXPIRATION_MAX_AHEAD_SEC } from "../../sim/core/expiration.ts";
import { exchangeDomain, type Address } from "../../sim/core/typed-data.ts";
import { parseWithdrawIntent, WithdrawCoSigner, withdrawTypedData, type WithdrawContext } from "../../sim/core/withdraw.ts";

const EXECUTOR_KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a" as const;
const executor = privateKeyToAccount(EXECUTOR_KEY);
const USER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const T1 = "0x1000000000000000000000000000000000000001";
const T2 = "0x2000000000000000000000000000000000000002";
const NOW = 1_767_225_600;
const domain = exchangeDomain("fakex", 31337, "0x5fbdb2315678afecb367f032d93f642f64180aa3");

const intent = (over: Record<string, unknown> = {}) => ({
  user: USER,
  tokens: [T1, T2],
  amounts: ["1000000", "5"],
  recipient: "0x0000000000000000000000000000000000000000",
  deadline: String(NOW + 600),
  uuid: "42",
  ...over,
});

function ctx(balances: Record<string, bigint> = { [T1]: 2_000_000n, [T2]: 5n }, extra: Partial<WithdrawContext> = {}): WithdrawContext {
  return {
    nowSec: NOW,
    available: (owner, token) => (owner === USER.toLowerCase() ? (balances[token] ?? 0n) : 0n),
    ...extra,
  };
}

async function caughtAsync(p: Promise<unknown>): Promise<ExchangeError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ExchangeError) return e;
    throw e;
  }
  throw new Error("expected an ExchangeError");
}

function caught(f: () => unknown): ExchangeError {
  try {
    f();
  } catch (e) {
    if (e instanceof ExchangeError) return e;
    throw e;
  }
  throw new Error("expected an ExchangeError");
}

describe("parseWithdrawIntent", () => {
  it("parses to the signed message with lowercase addresses and bigints", () => {
    expect(parseWithdrawIntent(intent(), NOW)).toEqual({
      user: USER.toLowerCase(),
      tokens: [T1, T2],
      amounts: [1_000_000n, 5n],
      recipient: "0x0000000000000000000000000000000000000000",
      deadline: BigInt(NOW + 600),
      uuid: 42n,
    });
  });

  it("accepts 20 tokens and rejects 21", () => {
    const tokens = Array.from({ length: 20 }, (_, k) => `0x${(k + 1).toString(16).padStart(40, "0")}`);
    expect(parseWithdrawIntent(intent({ tokens, amounts: tokens.map(() => "1") }), NOW).tokens).toHaveLength(20);
    const e = caught(() => parseWithdrawIntent(intent({ tokens: [...tokens, T1], amounts: [...tokens, T1].map(() => "1") }), NOW));
    expect(e.status).toBe(400);
    expect(e.code).toBe("VALIDATION");
  });

  it.each([
    ["not an object", null],
    ["bad user", { user: "0x1" }],
    ["no tokens", { tokens: [], amounts: [] }],
    ["tokens not an array", { tokens: T1 }],
    ["bad token", { tokens: [T1, "nope"] }],
    ["length mismatch", { amounts: ["1"] }],
    ["zero amount", { amounts: ["1", "0"] }],
    ["negative amount", { amounts: ["1", "-5"] }],
    ["numeric amount", { amounts: [1, 5] }],
    ["decimal amount", { amounts: ["1.5", "5"] }],
    ["bad recipient", { recipient: undefined }],
    ["bad uuid", { uuid: "0x2a" }],
    ["missing uuid", { uuid: undefined }],
  ])("%s → 400 VALIDATION", (_n, over) => {
    const input = over === null ? null : intent(over as Record<string, unknown>);
    const e = caught(() => parseWithdrawIntent(input, NOW));
    expect(e.status).toBe(400);
    expect(e.code).toBe("VALIDATION");
  });

  it.each([
    ["past", String(NOW)],
    ["zero", "0"],
    ["missing", undefined],
    ["too far", String(NOW + EXPIRATION_MAX_AHEAD_SEC + 1)],
    ["huge", "1" + "0".repeat(70)],
  ])("deadline %s → 400 EXPIRATION_INVALID", (_n, deadline) => {
    const e = caught(() => parseWithdrawIntent(intent({ deadline }), NOW));
    expect(e.status).toBe(400);
    expect(e.code).toBe("EXPIRATION_INVALID");
    expect(e.extra.field).toBe("deadline");
  });
});

describe("WithdrawCoSigner", () => {
  it("co-signs the WithdrawIntent with the executor key over the exchange domain", async () => {
    const s = new WithdrawCoSigner({ executorPrivateKey: EXECUTOR_KEY, domain });
    const r = await s.coSign(intent(), ctx());
    expect(r.success).toBe(true);
    expect(r.error).toBeNull();
    expect(r.executor_address).toBe(executor.address.toLowerCase());
    const typed = withdrawTypedData(domain, parseWithdrawIntent(intent(), NOW));
    const signer = await recoverTypedDataAddress({ ...typed, signature: r.executor_signature! });
    expect(signer).toBe(executor.address);
  });

  it("the user's own signature over the same typed data is what the caller verifies", async () => {
    const user = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
    const typed = withdrawTypedData(domain, parseWithdrawIntent(intent({ user: user.address }), NOW));
    const sig = await user.signTypedData(typed);
    expect(await recoverTypedDataAddress({ ...typed, signature: sig })).toBe(user.address);
  });

  it("insufficient balance is success false with an error, amounts summed per token", async () => {
    const s = new WithdrawCoSigner({ executorPrivateKey: EXECUTOR_KEY, domain });
    const r = await s.coSign(intent({ amounts: ["2000001", "5"] }), ctx());
    expect(r).toEqual({
      success: false,
      executor_address: executor.address.toLowerCase(),
      executor_signature: null,
      error: expect.stringContaining("insufficient vault balance"),
    });
    // the same token twice: 1.5 + 1.5 > 2 available
    const twice = await s.coSign(intent({ tokens: [T1, T1], amounts: ["1500000", "1500000"], uuid: "43" }), ctx());
    expect(twice.success).toBe(false);
    const described = await s.coSign(
      intent({ amounts: ["3000000", "5"], uuid: "44" }),
      ctx(undefined, { describeToken: () => ({ symbol: "USDC", decimals: 6 }) }),
    );
    expect(described.error).toBe("insufficient vault balance for USDC: available 2 USDC, requested 3 USDC");
  });

  it("a uuid is bound to its first intent: identical retry gives the same signature, another intent is refused", async () => {
    const s = new WithdrawCoSigner({ executorPrivateKey: EXECUTOR_KEY, domain });
    const first = await s.coSign(intent(), ctx());
    const retry = await s.coSign(intent(), ctx());
    expect(retry).toEqual(first);
    const other = await s.coSign(intent({ amounts: ["1", "1"] }), ctx());
    expect(other.success).toBe(false);
    expect(other.error).toContain("already used");
    // another user may use the same uuid number
    const bobOk = await s.coSign(intent({ user: T2 }), ctx(undefined, { available: () => 10n ** 18n }));
    expect(bobOk.success).toBe(true);
  });

  it("an identical retry skips the balance check only while its hold stands", async () => {
    const s = new WithdrawCoSigner({ executorPrivateKey: EXECUTOR_KEY, domain });
    const held = new Set<string>();
    let holds = 0;
    const extra: Partial<WithdrawContext> = {
      hold: (user, uuid) => {
        held.add(`${user}|${uuid}`);
        holds++;
      },
      isHeld: (user, uuid) => held.has(`${user}|${uuid}`),
    };
    const first = await s.coSign(intent(), ctx(undefined, extra));
    expect(first.success).toBe(true);
    // The hold took the amounts out of available: the retry still gets the same signature, and is not held twice.
    const retry = await s.coSign(intent(), ctx({ [T1]: 0n, [T2]: 0n }, extra));
    expect(retry).toEqual(first);
    expect(holds).toBe(1);
    // Nothing holds the amounts any more (the uuid is still unused): the retry is checked against the balance again.
    held.clear();
    const unheld = await s.coSign(intent(), ctx({ [T1]: 0n, [T2]: 0n }, extra));
    expect(unheld.success).toBe(false);
    expect(unheld.error).toContain("insufficient vault balance");
  });

  it("refuses a uuid the chain already consumed, and unlisted tokens (400)", async () => {
    const s = new WithdrawCoSigner({ executorPrivateKey: EXECUTOR_KEY, domain });
    const used = await s.coSign(intent(), ctx(undefined, { isUuidUsed: (_u, id) => id === 42n }));
    expect(used.success).toBe(false);
    expect(used.error).toContain("already used");
    const e = await caughtAsync(s.coSign(intent(), ctx(undefined, { isListedToken: (t) => t === T1 })));
    expect(e.status).toBe(400);
    expect(e.code).toBe("VALIDATION");
  });

  it("403 when an API key accompanied the call and the user differs", async () => {
    const s = new WithdrawCoSigner({ executorPrivateKey: EXECUTOR_KEY, domain });
    const e = await caughtAsync(s.coSign(intent(), ctx(), T1 as Address));
    expect(e.status).toBe(403);
    expect(e.code).toBe("FORBIDDEN");
    expect((await s.coSign(intent(), ctx(), USER.toLowerCase() as Address)).success).toBe(true);
  });

  it("malformed intents throw before any balance lookup", async () => {
    const s = new WithdrawCoSigner({ executorPrivateKey: EXECUTOR_KEY, domain });
    let looked = false;
    const e = await caughtAsync(s.coSign(intent({ deadline: "1" }), ctx(undefined, { available: () => ((looked = true), 0n) })));
    expect(e.code).toBe("EXPIRATION_INVALID");
    expect(looked).toBe(false);
  });

  it("snapshot/restore forgets co-signatures made after the snapshot; the domain can move", async () => {
    const s = new WithdrawCoSigner({ executorPrivateKey: EXECUTOR_KEY, domain });
    const snap = s.snapshot();
    await s.coSign(intent(), ctx());
    s.restore(snap);
    expect((await s.coSign(intent({ amounts: ["1", "1"] }), ctx())).success).toBe(true);
    s.setDomain(exchangeDomain("fakex", 1, "0x5fbdb2315678afecb367f032d93f642f64180aa3"));
    const r = await s.coSign(intent({ uuid: "7" }), ctx());
    const typed = withdrawTypedData(domain, parseWithdrawIntent(intent({ uuid: "7" }), NOW));
    expect(await recoverTypedDataAddress({ ...typed, signature: r.executor_signature! })).not.toBe(executor.address);
  });
});
