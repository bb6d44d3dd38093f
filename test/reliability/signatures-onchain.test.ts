// Signature forms cross-checked on chain: for every form (valid, EIP-2098 compact,
// malleable high-s, v 0/1 and 29, wrong lengths, zero and out-of-range r/s, bit flips,
// foreign domains, an EIP-1271 smart wallet) ask both the server's verifier (the
// requireTypedSignature every EIP-712 route calls, with the Anvil port as its EIP-1271
// checker) and the deployed contracts, and require the same verdict. The contract side
// is probed with eth_call through the real entry points, built so that the only
// signature under test decides which revert comes back:
//   Order           Exchange.matchOrders: the maker is under test, the taker's amount is
//                   0, so "ZERO_AMOUNT" (taker checked next) = maker signature accepted;
//   Intent          Router.executeIntent with a leg that cannot route: "BAD_ROUTE" = accepted;
//   WithdrawIntent  executeInstantWithdrawDualSig with a junk executor signature:
//                   "BAD_EXECUTOR_SIGNATURE" = user signature accepted; and, for the
//                   executor's co-signature, a valid user signature over a funded vault:
//                   success = accepted.
// Every probe answers "BAD_SIGNATURE" / "BAD_EXECUTOR_SIGNATURE" for a rejected signature;
// any other outcome fails the test (the probe itself would be broken).

import { BaseError, ContractFunctionRevertedError, type TypedDataDomain } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANVIL_ADDRESSES, DEPLOYER_KEY, EXECUTOR_KEY } from "../../fixtures/accounts.ts";
import { createAnvilChainPort } from "../../sim/chain/anvil.ts";
import { Exchange, Router, SmartWallet1271, TestToken } from "../../sim/chain/artifacts.ts";
import { ExchangeError } from "../../sim/core/errors.ts";
import { INTENT_TYPE, ORDER_TYPE, WITHDRAW_INTENT_TYPE, type Address, type Hex } from "../../sim/core/typed-data.ts";
import type { ContractSignatureChecker } from "../../sim/http/context.ts";
import { requireTypedSignature } from "../../sim/http/signed.ts";
import { startFundsChain, walletOf, type FundsChain } from "../funds/harness.ts";
import { N, compact, flipBit, highS, otherDomains, withV } from "./sig-mutations.ts";

const ORDER_TYPES = { Order: ORDER_TYPE } as const;
const INTENT_TYPES = { Intent: INTENT_TYPE } as const;
const WITHDRAW_TYPES = { WithdrawIntent: WITHDRAW_INTENT_TYPE } as const;
const EXECUTOR = ANVIL_ADDRESSES[1] as Address;
const ZERO = "0x0000000000000000000000000000000000000000" as Address;
const VAULT_FUNDING = 1_000_000n;

let c: FundsChain;
let checker: ContractSignatureChecker;
let alice: PrivateKeyAccount; // an EOA signer
let walletOwner: PrivateKeyAccount; // owns the smart wallet
let wallet: Address; // SmartWallet1271
const DELEGATED = privateKeyToAccount(`0x${"77".repeat(32)}`); // an EOA delegated (EIP-7702) to the wallet's code
let tokenA: Address;
let tokenB: Address;
let nowSec: bigint;

beforeAll(async () => {
  c = await startFundsChain();
  checker = await createAnvilChainPort({ rpcUrl: c.running.info.rpcUrl, chainId: c.chainId, deployment: c.running.info.deployment, executorKey: EXECUTOR_KEY });
  alice = c.traders[0]!;
  walletOwner = c.traders[2]!;
  [tokenA, tokenB] = Object.values(c.tokens).sort() as [Address, Address];
  const admin = walletOf(c, privateKeyToAccount(DEPLOYER_KEY));
  const deployed = await admin.deployContract({ abi: SmartWallet1271.abi, bytecode: SmartWallet1271.bytecode, args: [walletOwner.address] });
  wallet = (await c.pub.waitForTransactionReceipt({ hash: deployed })).contractAddress!.toLowerCase() as Address;
  // A real type-4 transaction (sponsored by the deployer): DELEGATED's code becomes
  // 0xef0100 || wallet, so its isValidSignature is the wallet's (owner = walletOwner).
  const authorization = await DELEGATED.signAuthorization({ address: wallet, chainId: c.chainId, nonce: 0 });
  // Sent to a plain EOA: calling DELEGATED itself would run the wallet code, which has no fallback.
  const delegation = await admin.sendTransaction({ to: ANVIL_ADDRESSES[9] as Address, data: "0x", authorizationList: [authorization] });
  expect((await c.pub.waitForTransactionReceipt({ hash: delegation })).status).toBe("success");
  // Alice's vault balance, so the executor-signature probe can succeed outright.
  const w = walletOf(c, alice);
  await c.pub.waitForTransactionReceipt({ hash: await w.writeContract({ address: tokenA, abi: TestToken.abi, functionName: "approve", args: [c.vault, VAULT_FUNDING] }) });
  await c.pub.waitForTransactionReceipt({
    hash: await w.writeContract({ address: c.exchange, abi: Exchange.abi, functionName: "depositFund", args: [tokenA, alice.address, VAULT_FUNDING] }),
  });
  // Bob's, so a whole first fill (alice's tokenA for bob's tokenB) can settle.
  const b = walletOf(c, c.traders[1]!);
  await c.pub.waitForTransactionReceipt({ hash: await b.writeContract({ address: tokenB, abi: TestToken.abi, functionName: "approve", args: [c.vault, VAULT_FUNDING] }) });
  await c.pub.waitForTransactionReceipt({
    hash: await b.writeContract({ address: c.exchange, abi: Exchange.abi, functionName: "depositFund", args: [tokenB, c.traders[1]!.address, VAULT_FUNDING] }),
  });
  nowSec = (await c.pub.getBlock({ blockTag: "latest" })).timestamp;
}, 60_000);
afterAll(async () => {
  await c?.stop();
});

// ---------------------------------------------------------------------------
// The two judges

type Verdict = "accepted" | "rejected";

/** The server: the check every EIP-712 route makes (400 SIGNATURE_INVALID = rejected). */
async function serverVerdict(types: Record<string, readonly { name: string; type: string }[]>, primaryType: string, message: Record<string, unknown>, signature: Hex, expected: Address): Promise<Verdict> {
  try {
    await requireTypedSignature({ contractSignatures: checker }, { domain: c.domain, types, primaryType, message, signature, expected });
    return "accepted";
  } catch (err) {
    if (err instanceof ExchangeError && err.status === 400 && err.code === "SIGNATURE_INVALID") return "rejected";
    throw err;
  }
}

/** "OK" when the eth_call succeeds, else the revert string. */
async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "OK";
  } catch (err) {
    const reverted = err instanceof BaseError ? err.walk((e) => e instanceof ContractFunctionRevertedError) : null;
    if (reverted instanceof ContractFunctionRevertedError && reverted.reason) return reverted.reason;
    throw err;
  }
}

function judge(result: string, accepted: string, rejected: string): Verdict {
  if (result === accepted) return "accepted";
  if (result === rejected) return "rejected";
  throw new Error(`probe answered ${result}, expected ${accepted} or ${rejected}`);
}

// ---------------------------------------------------------------------------
// The three signed payloads the contracts check, each with its probe

let uuidSeq = 1000n;

function orderOf(user: Address) {
  return {
    user,
    expiration: Number(nowSec + 3600n),
    feeBps: 0,
    recipient: ZERO,
    fromToken: tokenA,
    toToken: tokenB,
    fromAmount: 1000n,
    toAmount: 1000n,
    initialDepositAmount: 0n,
    uuid: (1n << 252n) | uuidSeq++,
  };
}

async function orderOnChain(order: ReturnType<typeof orderOf>, signature: Hex): Promise<Verdict> {
  const taker = { ...orderOf(c.traders[1]!.address.toLowerCase() as Address), fromToken: tokenB, toToken: tokenA };
  const m = { maker: order, makerSignature: signature, taker, takerSignature: "0x" as Hex, makerAmount: 10n, takerAmount: 0n };
  const result = await outcome(c.pub.simulateContract({ address: c.exchange, abi: Exchange.abi, functionName: "matchOrders", args: [m], account: EXECUTOR }));
  return judge(result, "ZERO_AMOUNT", "BAD_SIGNATURE");
}

function intentOf(taker: Address) {
  return {
    taker,
    inputToken: tokenA,
    outputToken: tokenB,
    maxInputAmount: 1000n,
    minOutputAmount: 1n,
    recipient: ZERO,
    initialDepositAmount: 0n,
    uuid: (1n << 252n) | uuidSeq++,
    deadline: Number(nowSec + 3600n),
  };
}

async function intentOnChain(intent: ReturnType<typeof intentOf>, signature: Hex): Promise<Verdict> {
  // The maker gives the input token for the output token: no route, "BAD_ROUTE" after the taker's signature check.
  const leg = { order: { ...orderOf(ANVIL_ADDRESSES[3] as Address), fromToken: tokenA, toToken: tokenB }, signature: "0x" as Hex, makerAmount: 1n, takerAmount: 1n };
  const permit = { value: 0n, deadline: 0n, signature: "0x" as Hex };
  const result = await outcome(
    c.pub.simulateContract({ address: c.router, abi: Router.abi, functionName: "executeIntent", args: [intent, signature, [leg], permit, { token: tokenB, amount: 0n }], account: EXECUTOR }),
  );
  return judge(result, "BAD_ROUTE", "BAD_SIGNATURE");
}

function withdrawOf(user: Address) {
  return { user, tokens: [tokenA], amounts: [100n], recipient: ZERO, deadline: nowSec + 3600n, uuid: uuidSeq++ };
}

async function withdrawUserOnChain(intent: ReturnType<typeof withdrawOf>, signature: Hex): Promise<Verdict> {
  const junk = `0x${"11".repeat(65)}` as Hex;
  const result = await outcome(
    c.pub.simulateContract({ address: c.exchange, abi: Exchange.abi, functionName: "executeInstantWithdrawDualSig", args: [intent, signature, EXECUTOR, junk], account: alice.address }),
  );
  return judge(result, "BAD_EXECUTOR_SIGNATURE", "BAD_SIGNATURE");
}

async function withdrawExecutorOnChain(intent: ReturnType<typeof withdrawOf>, userSignature: Hex, executorSignature: Hex): Promise<Verdict> {
  const result = await outcome(
    c.pub.simulateContract({
      address: c.exchange,
      abi: Exchange.abi,
      functionName: "executeInstantWithdrawDualSig",
      args: [intent, userSignature, EXECUTOR, executorSignature],
      account: alice.address,
    }),
  );
  return judge(result, "OK", "BAD_EXECUTOR_SIGNATURE");
}

// ---------------------------------------------------------------------------
// The forms

/** How a case signs: the key, the domain, and what it does to the 65-byte result. */
interface SignatureForm {
  label: string;
  /** The signing key: the claimed signer's own (EOA), the wallet owner's (for the wallet), or another key. */
  key: "own" | "stranger";
  domain?: (d: TypedDataDomain) => TypedDataDomain;
  mutate: (sig: Hex) => Hex;
  expected: Verdict;
}

const yParityOf = (sig: Hex) => Number.parseInt(sig.slice(130), 16) - 27;
const same = (s: Hex) => s;

const EOA_FORMS: readonly SignatureForm[] = [
  { label: "65-byte, v 27/28", key: "own", mutate: same, expected: "accepted" },
  { label: "64-byte EIP-2098 compact", key: "own", mutate: compact, expected: "accepted" },
  { label: "65-byte, v 0/1", key: "own", mutate: (s) => withV(s, yParityOf(s)), expected: "rejected" },
  { label: "65-byte, v 27 <-> 28 swapped", key: "own", mutate: (s) => withV(s, 55 - Number.parseInt(s.slice(130), 16)), expected: "rejected" },
  { label: "65-byte, v 29", key: "own", mutate: (s) => withV(s, 29), expected: "rejected" },
  { label: "65-byte, v 0x80", key: "own", mutate: (s) => withV(s, 0x80), expected: "rejected" },
  { label: "high-s twin, 65-byte (s' = n - s, v flipped)", key: "own", mutate: highS, expected: "rejected" },
  { label: "high-s twin, 65-byte with v 0/1", key: "own", mutate: (s) => withV(highS(s), yParityOf(highS(s))), expected: "rejected" },
  // s' > n/2 has its top bit set, which EIP-2098 reads as the parity: the twin is not expressible in 64 bytes.
  { label: "high-s twin squeezed into 64 bytes", key: "own", mutate: (s) => compact(highS(s)), expected: "rejected" },
  { label: "63 bytes", key: "own", mutate: (s) => s.slice(0, 128) as Hex, expected: "rejected" },
  { label: "66 bytes", key: "own", mutate: (s) => `${s}00` as Hex, expected: "rejected" },
  { label: "empty", key: "own", mutate: () => "0x" as Hex, expected: "rejected" },
  { label: "r = 0", key: "own", mutate: (s) => `0x${"0".repeat(64)}${s.slice(66)}` as Hex, expected: "rejected" },
  { label: "s = 0", key: "own", mutate: (s) => `0x${s.slice(2, 66)}${"0".repeat(64)}${s.slice(130)}` as Hex, expected: "rejected" },
  { label: "r = n", key: "own", mutate: (s) => `0x${N.toString(16)}${s.slice(66)}` as Hex, expected: "rejected" },
  { label: "s = n", key: "own", mutate: (s) => `0x${s.slice(2, 66)}${N.toString(16)}${s.slice(130)}` as Hex, expected: "rejected" },
  { label: "bit flipped in r", key: "own", mutate: (s) => flipBit(s, 5), expected: "rejected" },
  { label: "bit flipped in s", key: "own", mutate: (s) => flipBit(s, 40, 3), expected: "rejected" },
  { label: "64-byte with the parity bit flipped", key: "own", mutate: (s) => flipBit(compact(s), 32, 7), expected: "rejected" },
  { label: "64-byte with a bit flipped in s", key: "own", mutate: (s) => flipBit(compact(s), 60, 1), expected: "rejected" },
  { label: "signed by another key", key: "stranger", mutate: same, expected: "rejected" },
  ...foreignDomainForms(),
];

function foreignDomainForms(): SignatureForm[] {
  const labels = ["wrong chain id", "wrong verifying contract", "wrong domain name", "wrong version"];
  return labels.map((label, i) => ({ label, key: "own" as const, domain: (d: TypedDataDomain) => otherDomains(d)[i]![1], mutate: same, expected: "rejected" as const }));
}

// The smart wallet: its isValidSignature accepts the owner's 65-byte ECDSA signature of
// the digest (OpenZeppelin tryRecover: 65 bytes only, low s, v 27/28).
const WALLET_FORMS: readonly SignatureForm[] = [
  { label: "wallet: owner's 65-byte signature (EIP-1271)", key: "own", mutate: same, expected: "accepted" },
  { label: "wallet: owner's 64-byte compact (the wallet takes 65 bytes only)", key: "own", mutate: compact, expected: "rejected" },
  { label: "wallet: owner's signature with v 0/1", key: "own", mutate: (s) => withV(s, yParityOf(s)), expected: "rejected" },
  { label: "wallet: owner's high-s twin", key: "own", mutate: highS, expected: "rejected" },
  { label: "wallet: owner's signature with a bit flipped in s", key: "own", mutate: (s) => flipBit(s, 40, 3), expected: "rejected" },
  { label: "wallet: owner's signature, 66 bytes", key: "own", mutate: (s) => `${s}00` as Hex, expected: "rejected" },
  { label: "wallet: signed by a non-owner", key: "stranger", mutate: same, expected: "rejected" },
  { label: "wallet: owner's signature over a foreign chain id", key: "own", domain: (d) => otherDomains(d)[0]![1], mutate: same, expected: "rejected" },
];

// An EIP-7702-delegated EOA: ECDSA by its own key first (FACTS: "EIP-7702-delegated EOAs
// pass the ECDSA path"), then EIP-1271 through the delegated code, which here accepts
// the wallet owner's signature.
const DELEGATED_FORMS: readonly SignatureForm[] = [
  { label: "7702 EOA: own 65-byte signature (ECDSA)", key: "own", mutate: same, expected: "accepted" },
  { label: "7702 EOA: own 64-byte compact (ECDSA)", key: "own", mutate: compact, expected: "accepted" },
  { label: "7702 EOA: own signature with v 0/1", key: "own", mutate: (s) => withV(s, yParityOf(s)), expected: "rejected" },
  { label: "7702 EOA: own high-s twin", key: "own", mutate: highS, expected: "rejected" },
  { label: "7702 EOA: signed by a stranger", key: "stranger", mutate: same, expected: "rejected" },
];
const DELEGATE_OWNER_FORMS: readonly SignatureForm[] = [
  { label: "7702 EOA: the delegated code's owner signs (EIP-1271 through the delegation)", key: "own", mutate: same, expected: "accepted" },
  { label: "7702 EOA: the delegated code's owner, 64-byte compact", key: "own", mutate: compact, expected: "rejected" },
];

const STRANGER = privateKeyToAccount(`0x${"42".repeat(32)}`);

/** Sign `message` for `signer` (an EOA, or the wallet through its owner) in the form's way. */
async function signAs(form: SignatureForm, signerKey: PrivateKeyAccount, types: Record<string, readonly { name: string; type: string }[]>, primaryType: string, message: Record<string, unknown>): Promise<Hex> {
  const domain = form.domain ? form.domain(c.domain) : c.domain;
  const key = form.key === "stranger" ? STRANGER : signerKey;
  const sig = (await key.signTypedData({ domain, types, primaryType, message } as Parameters<PrivateKeyAccount["signTypedData"]>[0])) as Hex;
  return form.mutate(sig);
}

interface Party {
  address: Address;
  key: PrivateKeyAccount;
}
const eoa = (): Party => ({ address: alice.address.toLowerCase() as Address, key: alice });
// The wallet's "signature" is its owner's ECDSA signature over the same EIP-712 digest.
const smartWallet = (): Party => ({ address: wallet, key: walletOwner });
const delegated = (): Party => ({ address: DELEGATED.address.toLowerCase() as Address, key: DELEGATED });
const delegatedViaOwner = (): Party => ({ address: DELEGATED.address.toLowerCase() as Address, key: walletOwner });

const CASES: readonly [string, SignatureForm, () => Party][] = [
  ...EOA_FORMS.map((f) => [`EOA: ${f.label}`, f, eoa] as [string, SignatureForm, () => Party]),
  ...WALLET_FORMS.map((f) => [f.label, f, smartWallet] as [string, SignatureForm, () => Party]),
  ...DELEGATED_FORMS.map((f) => [f.label, f, delegated] as [string, SignatureForm, () => Party]),
  ...DELEGATE_OWNER_FORMS.map((f) => [f.label, f, delegatedViaOwner] as [string, SignatureForm, () => Party]),
];

// ---------------------------------------------------------------------------

describe("server verifier and contracts agree on every signature form", () => {
  it("the smart wallet has code and the probes tell accepted from rejected", async () => {
    expect(await checker.isContract(wallet)).toBe(true);
    expect(await checker.isContract(alice.address.toLowerCase() as Address)).toBe(false);
    expect(await c.pub.getCode({ address: DELEGATED.address })).toBe(`0xef0100${wallet.slice(2)}`);
    expect(await checker.isContract(DELEGATED.address.toLowerCase() as Address)).toBe(true);
  });

  it.each(CASES)("Order (Exchange.matchOrders first fill): %s", async (_label, form, party) => {
    const p = party();
    const order = orderOf(p.address);
    const sig = await signAs(form, p.key, ORDER_TYPES, "Order", order);
    const server = await serverVerdict(ORDER_TYPES, "Order", order, sig, p.address);
    const chain = await orderOnChain(order, sig);
    expect({ server, chain }).toEqual({ server: form.expected, chain: form.expected });
  });

  it.each(CASES)("Intent (Router.executeIntent): %s", async (_label, form, party) => {
    const p = party();
    const intent = intentOf(p.address);
    const sig = await signAs(form, p.key, INTENT_TYPES, "Intent", intent);
    const server = await serverVerdict(INTENT_TYPES, "Intent", intent, sig, p.address);
    const chain = await intentOnChain(intent, sig);
    expect({ server, chain }).toEqual({ server: form.expected, chain: form.expected });
  });

  it.each(CASES)("WithdrawIntent user_signature (executeInstantWithdrawDualSig): %s", async (_label, form, party) => {
    const p = party();
    const intent = withdrawOf(p.address);
    const sig = await signAs(form, p.key, WITHDRAW_TYPES, "WithdrawIntent", intent);
    const server = await serverVerdict(WITHDRAW_TYPES, "WithdrawIntent", intent, sig, p.address);
    const chain = await withdrawUserOnChain(intent, sig);
    expect({ server, chain }).toEqual({ server: form.expected, chain: form.expected });
  });

  it.each(EOA_FORMS.map((f) => [f.label, f] as const))("WithdrawIntent executor co-signature (executeInstantWithdrawDualSig): %s", async (_label, form) => {
    const intent = withdrawOf(alice.address.toLowerCase() as Address);
    const userSig = (await alice.signTypedData({ domain: c.domain, types: WITHDRAW_TYPES, primaryType: "WithdrawIntent", message: intent })) as Hex;
    const executor = privateKeyToAccount(EXECUTOR_KEY);
    const sig = await signAs(form, executor, WITHDRAW_TYPES, "WithdrawIntent", intent);
    // /withdraw/build checks the co-signature against the service's executor.
    const server = await serverVerdict(WITHDRAW_TYPES, "WithdrawIntent", intent, sig, EXECUTOR);
    const chain = await withdrawExecutorOnChain(intent, userSig, sig);
    expect({ server, chain }).toEqual({ server: form.expected, chain: form.expected });
  });

  // The probe above stops right after the maker's check; this one settles a whole first
  // fill (both orders new, both vaults funded), so whichever settlement path the
  // contract takes for an all-ECDSA fill is the one judging the signature.
  it.each(EOA_FORMS.map((f) => [f.label, f] as const))("a whole first fill through Exchange.matchOrders: %s", async (_label, form) => {
    const maker = orderOf(alice.address.toLowerCase() as Address);
    const bob = c.traders[1]!;
    const taker = { ...orderOf(bob.address.toLowerCase() as Address), fromToken: tokenB, toToken: tokenA };
    const makerSignature = await signAs(form, alice, ORDER_TYPES, "Order", maker);
    const takerSignature = (await bob.signTypedData({ domain: c.domain, types: ORDER_TYPES, primaryType: "Order", message: taker })) as Hex;
    const m = { maker, makerSignature, taker, takerSignature, makerAmount: 10n, takerAmount: 10n };
    const result = await outcome(c.pub.simulateContract({ address: c.exchange, abi: Exchange.abi, functionName: "matchOrders", args: [m], account: EXECUTOR }));
    const server = await serverVerdict(ORDER_TYPES, "Order", maker, makerSignature, maker.user);
    expect({ server, chain: judge(result, "OK", "BAD_SIGNATURE") }).toEqual({ server: form.expected, chain: form.expected });
  });

  it("an order signed for one executor's uuid does not authorise the same order under another executor's uuid", async () => {
    const order = orderOf(alice.address.toLowerCase() as Address);
    const sig = (await alice.signTypedData({ domain: c.domain, types: ORDER_TYPES, primaryType: "Order", message: order })) as Hex;
    // Same order, executor_id bits (255..252) moved from 1 to 2.
    const replayed = { ...order, uuid: (order.uuid & ((1n << 252n) - 1n)) | (2n << 252n) };
    expect(await serverVerdict(ORDER_TYPES, "Order", order, sig, order.user)).toBe("accepted");
    expect(await orderOnChain(order, sig)).toBe("accepted");
    expect(await serverVerdict(ORDER_TYPES, "Order", replayed, sig, order.user)).toBe("rejected");
    expect(await orderOnChain(replayed, sig)).toBe("rejected");
  });

  it("a co-signature by a key without the executor role is refused by the contract before any signature check", async () => {
    const intent = withdrawOf(alice.address.toLowerCase() as Address);
    const userSig = (await alice.signTypedData({ domain: c.domain, types: WITHDRAW_TYPES, primaryType: "WithdrawIntent", message: intent })) as Hex;
    const coSig = (await STRANGER.signTypedData({ domain: c.domain, types: WITHDRAW_TYPES, primaryType: "WithdrawIntent", message: intent })) as Hex;
    const result = await outcome(
      c.pub.simulateContract({ address: c.exchange, abi: Exchange.abi, functionName: "executeInstantWithdrawDualSig", args: [intent, userSig, STRANGER.address, coSig], account: alice.address }),
    );
    expect(result).toBe("NOT_EXECUTOR");
    // The server only co-signs and builds for its own executor (the /withdraw/build 400 is in signatures-funds).
    expect(await serverVerdict(WITHDRAW_TYPES, "WithdrawIntent", intent, coSig, EXECUTOR)).toBe("rejected");
  });
});

// Contract wallets whose isValidSignature answers the same bytes whatever it is asked (code
// set with anvil_setCode): OpenZeppelin's SignatureChecker in the contracts accepts an answer
// of at least 32 bytes whose first word is the selector followed by zeros, nothing else.
const MAGIC = "1626ba7e";
/** Runtime code returning `answer` (hex, no prefix; a whole number of 32-byte words, or fewer bytes cut from one). */
function constantAnswer(words: string[], bytes: number): Hex {
  let code = "";
  words.forEach((w, i) => (code += `7f${w}60${(i * 32).toString(16).padStart(2, "0")}52`));
  return `0x${code}60${bytes.toString(16).padStart(2, "0")}6000f3` as Hex;
}
const WORD = (lead: string) => lead.padEnd(64, "0");
const ANSWERS: readonly [string, Hex, Verdict][] = [
  ["the selector in a full word (right-padded with zeros)", constantAnswer([WORD(MAGIC)], 32), "accepted"],
  ["the selector word followed by a second word", constantAnswer([WORD(MAGIC), "ff".repeat(32)], 64), "accepted"],
  ["the selector followed by non-zero bytes in the same word", constantAnswer([`${MAGIC}${"ff".repeat(28)}`], 32), "rejected"],
  ["the selector alone (4 bytes, not a word)", constantAnswer([WORD(MAGIC)], 4), "rejected"],
  ["31 bytes of the selector word", constantAnswer([WORD(MAGIC)], 31), "rejected"],
  ["nothing at all", constantAnswer([], 0), "rejected"],
];

describe("contract wallets whose isValidSignature answers oddly: the server's verdict is the contracts'", () => {
  it.each(ANSWERS.map(([label, code, expected], i) => [label, code, expected, i] as const))("%s", async (_label, code, expected, i) => {
    const address = `0x${(0xabc000 + i).toString(16).padStart(40, "0")}` as Address;
    await (c.pub as unknown as { request(a: { method: string; params: unknown[] }): Promise<unknown> }).request({ method: "anvil_setCode", params: [address, code] });
    expect(await checker.isContract(address)).toBe(true);
    const junk = `0x${"11".repeat(65)}` as Hex;
    const order = orderOf(address);
    const intent = intentOf(address);
    const withdrawal = withdrawOf(address);
    const verdicts = {
      order: [await serverVerdict(ORDER_TYPES, "Order", order, junk, address), await orderOnChain(order, junk)],
      intent: [await serverVerdict(INTENT_TYPES, "Intent", intent, junk, address), await intentOnChain(intent, junk)],
      withdrawal: [await serverVerdict(WITHDRAW_TYPES, "WithdrawIntent", withdrawal, junk, address), await withdrawUserOnChain(withdrawal, junk)],
    };
    expect(verdicts).toEqual({ order: [expected, expected], intent: [expected, expected], withdrawal: [expected, expected] });
  });
});
