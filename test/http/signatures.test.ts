import { afterEach, describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  domainSeparator as viemDomainSeparator,
  getAddress,
  hashTypedData,
  parseSignature,
  recoverTypedDataAddress,
  serializeCompactSignature,
  serializeSignature,
  signatureToCompactSignature,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import {
  CONTRACT_CHECKED_TYPES,
  domainSeparator,
  hashTyped,
  nativeSignaturesAvailable,
  recoverDigestSigner,
  signatureBackend,
  toContractSignature,
  useSignatureBackend,
  verifyTypedSignature,
  type SignatureBackend,
  type TypedField,
} from "../../sim/signing/signatures.ts";
import { EXCHANGE_TYPES, PERMIT_TYPE, exchangeDomain, type Address, type Hex } from "../../sim/core/typed-data.ts";

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const ALL_TYPES = { ...EXCHANGE_TYPES, Permit: PERMIT_TYPE } as const;
type PrimaryType = keyof typeof ALL_TYPES;
const PRIMARY_TYPES = Object.keys(ALL_TYPES) as PrimaryType[];
const DOMAIN = exchangeDomain("fakex", 11155111, "0x5FbDB2315678afecb367f032d93F642f64180aa3");

const hex = (bytes: number) =>
  fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => `0x${Buffer.from(b).toString("hex")}` as Hex);
const privateKey = fc.bigInt(1n, N - 1n).map((k) => `0x${k.toString(16).padStart(64, "0")}` as Hex);
// Signed payloads accept EIP-55 as well as lowercase, so generate both spellings.
const address = fc.tuple(hex(20), fc.boolean()).map(([a, eip55]) => (eip55 ? getAddress(a) : a));

function valueArb(type: string): fc.Arbitrary<unknown> {
  if (type.endsWith("[]")) return fc.array(valueArb(type.slice(0, -2)), { maxLength: 4 });
  if (type === "address") return address;
  if (type === "string") return fc.string({ unit: "grapheme", maxLength: 24 });
  const bits = BigInt(type.replace("uint", ""));
  return fc.bigInt(0n, (1n << bits) - 1n);
}

function messageArb(fields: readonly TypedField[]): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(Object.fromEntries(fields.map((f) => [f.name, valueArb(f.type)])));
}

const anyTyped = fc.constantFrom(...PRIMARY_TYPES).chain((primaryType) =>
  messageArb(ALL_TYPES[primaryType]).map((message) => ({ primaryType, message })),
);

function viemDigest(primaryType: PrimaryType, message: Record<string, unknown>): Hex {
  return hashTypedData({ domain: DOMAIN, types: { [primaryType]: ALL_TYPES[primaryType] }, primaryType, message } as never);
}

async function sign(key: Hex, primaryType: PrimaryType, message: Record<string, unknown>): Promise<Hex> {
  return privateKeyToAccount(key).signTypedData({ domain: DOMAIN, types: { [primaryType]: ALL_TYPES[primaryType] }, primaryType, message } as never);
}

/** The malleable twin (r, n - s, flipped parity) that ecrecover accepts but OpenZeppelin refuses. */
function highSTwin(sig: Hex): Hex {
  const p = parseSignature(sig);
  const s = N - BigInt(p.s);
  const yParity = p.yParity === 0 ? 1 : 0;
  return serializeSignature({ r: p.r, s: `0x${s.toString(16).padStart(64, "0")}`, yParity });
}

function withV(sig: Hex, v: number): Hex {
  return `${sig.slice(0, 130)}${v.toString(16).padStart(2, "0")}` as Hex;
}

const BACKENDS: SignatureBackend[] = ["native", "js"];

afterEach(() => useSignatureBackend(nativeSignaturesAvailable() ? "native" : "js"));

describe("hashTyped", () => {
  it("equals viem's hashTypedData for every exchange type, arrays and unicode strings included", () => {
    fc.assert(
      fc.property(anyTyped, ({ primaryType, message }) => {
        expect(hashTyped(DOMAIN, ALL_TYPES, primaryType, message)).toBe(viemDigest(primaryType, message));
      }),
      { numRuns: 300 },
    );
  });

  it("hashes empty and single-element arrays as viem does", () => {
    const base = { user: DOMAIN.verifyingContract, recipient: DOMAIN.verifyingContract, deadline: 1n, uuid: 2n };
    for (const [tokens, amounts] of [[[], []], [[DOMAIN.verifyingContract], [5n]]] as const) {
      const message = { ...base, tokens, amounts };
      expect(hashTyped(DOMAIN, EXCHANGE_TYPES, "WithdrawIntent", message)).toBe(viemDigest("WithdrawIntent", message));
    }
  });

  it("accepts decimal-string numerics (wire form) with the same digest as bigint", () => {
    const message = { owner: DOMAIN.verifyingContract, orderId: 123456789012345678901234567890n };
    const asString = { ...message, orderId: message.orderId.toString() };
    expect(hashTyped(DOMAIN, EXCHANGE_TYPES, "CancelOrder", asString)).toBe(viemDigest("CancelOrder", message));
  });

  it("computes the domain separator like viem, for other chains and contracts too", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.integer({ min: 1, max: 2 ** 40 }), hex(20), (name, chainId, vc) => {
        const domain = exchangeDomain(name, chainId, vc);
        expect(domainSeparator(domain)).toBe(viemDomainSeparator({ domain }));
      }),
      { numRuns: 50 },
    );
  });

  it("throws on values that do not fit their type instead of hashing something else", () => {
    const message = { owner: DOMAIN.verifyingContract, orderId: 1n << 256n };
    expect(() => hashTyped(DOMAIN, EXCHANGE_TYPES, "CancelOrder", message)).toThrow(RangeError);
    expect(() => hashTyped(DOMAIN, EXCHANGE_TYPES, "CancelOrder", { owner: "0x1234", orderId: 1n })).toThrow(TypeError);
    expect(() => hashTyped(DOMAIN, EXCHANGE_TYPES, "CancelOrder", { owner: DOMAIN.verifyingContract, orderId: -1n })).toThrow(RangeError);
    expect(() => hashTyped(DOMAIN, EXCHANGE_TYPES, "Nope", {})).toThrow(TypeError);
  });
});

describe("signature backends", () => {
  it("loads the native libsecp256k1 binding on this platform and uses it by default", () => {
    expect(nativeSignaturesAvailable()).toBe(true);
    expect(signatureBackend()).toBe("native");
  });

  it("can be forced onto the JS path and back", () => {
    useSignatureBackend("js");
    expect(signatureBackend()).toBe("js");
    useSignatureBackend("native");
    expect(signatureBackend()).toBe("native");
  });
});

describe.each(BACKENDS)("recoverDigestSigner (%s)", (backend) => {
  it("agrees with viem's recoverTypedDataAddress on random keys and messages of every type", async () => {
    useSignatureBackend(backend);
    await fc.assert(
      fc.asyncProperty(privateKey, anyTyped, async (key, { primaryType, message }) => {
        const sig = await sign(key, primaryType, message);
        const expected = await recoverTypedDataAddress({
          domain: DOMAIN,
          types: { [primaryType]: ALL_TYPES[primaryType] },
          primaryType,
          message,
          signature: sig,
        } as never);
        const digest = hashTyped(DOMAIN, ALL_TYPES, primaryType, message);
        expect(recoverDigestSigner(digest, sig)).toBe(expected.toLowerCase());
        expect(expected.toLowerCase()).toBe(privateKeyToAccount(key).address.toLowerCase());
      }),
      { numRuns: 60 },
    );
  });

  it("accepts v 27/28 and the 64-byte EIP-2098 form; v 0/1 only in the lenient form (contracts' ecrecover refuses it)", async () => {
    useSignatureBackend(backend);
    await fc.assert(
      fc.asyncProperty(privateKey, messageArb(EXCHANGE_TYPES.Order), async (key, message) => {
        const sig = await sign(key, "Order", message);
        const digest = hashTyped(DOMAIN, EXCHANGE_TYPES, "Order", message);
        const signer = privateKeyToAccount(key).address.toLowerCase();
        const v = parseInt(sig.slice(130), 16);
        const compact = serializeCompactSignature(signatureToCompactSignature(parseSignature(sig)));
        expect(compact.length).toBe(2 + 128);
        expect(recoverDigestSigner(digest, sig)).toBe(signer);
        expect(recoverDigestSigner(digest, withV(sig, v - 27))).toBeNull();
        expect(recoverDigestSigner(digest, withV(sig, v - 27), "contract")).toBeNull();
        expect(recoverDigestSigner(digest, withV(sig, v - 27), "lenient")).toBe(signer);
        expect(recoverDigestSigner(digest, sig, "lenient")).toBe(signer);
        expect(recoverDigestSigner(digest, compact)).toBe(signer);
        expect(recoverDigestSigner(digest, compact.toUpperCase().replace("0X", "0x"))).toBe(signer);
        expect(recoverDigestSigner(Buffer.from(digest.slice(2), "hex"), sig)).toBe(signer);
      }),
      { numRuns: 40 },
    );
  });

  it("rejects the high-s malleable twin that plain ecrecover (viem) would accept", async () => {
    useSignatureBackend(backend);
    await fc.assert(
      fc.asyncProperty(privateKey, messageArb(EXCHANGE_TYPES.CancelOrder), async (key, message) => {
        const sig = await sign(key, "CancelOrder", message);
        const twin = highSTwin(sig);
        const digest = hashTyped(DOMAIN, EXCHANGE_TYPES, "CancelOrder", message);
        // The twin really is a valid ECDSA signature by the same key...
        const viemRecovered = await recoverTypedDataAddress({
          domain: DOMAIN,
          types: { CancelOrder: EXCHANGE_TYPES.CancelOrder },
          primaryType: "CancelOrder",
          message,
          signature: twin,
        } as never);
        expect(viemRecovered.toLowerCase()).toBe(privateKeyToAccount(key).address.toLowerCase());
        // ...but OpenZeppelin's ECDSA refuses it, and so do we (also with v as 0/1 in the lenient form).
        expect(recoverDigestSigner(digest, twin)).toBeNull();
        expect(recoverDigestSigner(digest, withV(twin, parseInt(twin.slice(130), 16) - 27), "lenient")).toBeNull();
      }),
      { numRuns: 25 },
    );
  });

  it("returns null for junk and never throws", () => {
    useSignatureBackend(backend);
    const digest = `0x${"11".repeat(32)}` as Hex;
    const r = "22".repeat(32);
    const s = "33".repeat(32);
    const junk: unknown[] = [
      undefined,
      null,
      42,
      {},
      "",
      "0x",
      `${r}${s}1b`, // no 0x
      `0x${r}${s}`.slice(0, -2), // 63 bytes
      `0x${r}${s}1b00`, // 66 bytes
      `0x${r}${s}1g`, // not hex
      `0x${"00".repeat(32)}${s}1b`, // r = 0
      `0x${r}${"00".repeat(32)}1b`, // s = 0
      `0x${N.toString(16)}${s}1b`, // r = n
      `0x${"ff".repeat(32)}${s}1b`, // r > n
      `0x${r}${s}1d`, // v = 29
      `0x${r}${s}02`, // v = 2
    ];
    for (const sig of junk) expect(recoverDigestSigner(digest, sig)).toBeNull();
    const good = `0x${r}${s}1b`;
    for (const d of [undefined, "0x1234", `0x${"zz".repeat(32)}`, new Uint8Array(31), 7]) {
      expect(recoverDigestSigner(d, good)).toBeNull();
    }
  });

  it("returns null (not a throw) for random 65-byte strings whose r is not on the curve", () => {
    useSignatureBackend(backend);
    fc.assert(
      fc.property(hex(32), hex(64), fc.constantFrom(27, 28), (digest, rs, v) => {
        const got = recoverDigestSigner(digest, withV(`${rs}00` as Hex, v));
        expect(got === null || /^0x[0-9a-f]{40}$/.test(got)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe("toContractSignature", () => {
  it("hands the contracts exactly the signed bytes (lowercased): no v rewriting, compact and other blobs unchanged", async () => {
    const key = `0x${"ef".repeat(32)}` as Hex;
    const message = { owner: DOMAIN.verifyingContract, orderId: 5n };
    const sig = await sign(key, "CancelOrder", message);
    const v = parseInt(sig.slice(130), 16);
    const zeroOne = withV(sig, v - 27);
    // A Safe reads v 0/1 as its own signature kinds: rewriting would change what the wallet is asked on chain.
    expect(toContractSignature(zeroOne)).toBe(zeroOne.toLowerCase());
    expect(toContractSignature(sig.toUpperCase().replace("0X", "0x") as Hex)).toBe(sig.toLowerCase());
    const compact = serializeCompactSignature(signatureToCompactSignature(parseSignature(sig)));
    expect(toContractSignature(compact)).toBe(compact.toLowerCase());
    expect(toContractSignature("0xABCD")).toBe("0xabcd");
  });
});

describe("verifyTypedSignature", () => {
  const key = `0x${"ab".repeat(32)}` as Hex;
  const account = privateKeyToAccount(key);
  const message = {
    user: account.address,
    expiration: 1_800_000_000n,
    feeBps: 0n,
    recipient: "0x0000000000000000000000000000000000000000",
    fromToken: "0x1111111111111111111111111111111111111111",
    toToken: "0x2222222222222222222222222222222222222222",
    fromAmount: 10n ** 18n,
    toAmount: 2500n * 10n ** 6n,
    initialDepositAmount: 0n,
    uuid: 77n,
  };
  const base = { domain: DOMAIN, types: EXCHANGE_TYPES, primaryType: "Order" };

  it.each(BACKENDS)("accepts the signer in EIP-55 or lowercase spelling (%s)", async (backend) => {
    useSignatureBackend(backend);
    const signature = await sign(key, "Order", message);
    for (const expected of [account.address, account.address.toLowerCase()]) {
      const res = await verifyTypedSignature({ ...base, message, signature, expected });
      expect(res).toEqual({ valid: true, recovered: account.address.toLowerCase(), via: "ecdsa" });
    }
  });

  it("reports the recovered address when it is not the expected signer", async () => {
    const signature = await sign(key, "Order", message);
    const other = "0x9999999999999999999999999999999999999999";
    const res = await verifyTypedSignature({ ...base, message: { ...message, user: other }, signature, expected: other });
    expect(res.valid).toBe(false);
    expect(res.via).toBeNull();
    expect(res.recovered).toMatch(/^0x[0-9a-f]{40}$/);
    expect(res.recovered).not.toBe(other);
  });

  it("is invalid for a bad expected address or junk signature without calling the chain", async () => {
    let calls = 0;
    const isContract = () => {
      calls++;
      return true;
    };
    const isValidSignature = () => {
      calls++;
      return true;
    };
    const signature = await sign(key, "Order", message);
    expect(await verifyTypedSignature({ ...base, message, signature, expected: "0x12", isContract, isValidSignature })).toEqual({
      valid: false,
      recovered: null,
      via: null,
    });
    expect(await verifyTypedSignature({ ...base, message, signature: "nothex", expected: account.address, isContract, isValidSignature })).toEqual({
      valid: false,
      recovered: null,
      via: null,
    });
    expect(calls).toBe(0);
  });

  it("falls back to EIP-1271 for a contract signer, passing the typed-data digest and the signature", async () => {
    const wallet = "0xC0fFeE0000000000000000000000000000000001";
    const walletMessage = { ...message, user: wallet };
    const digest = hashTyped(DOMAIN, EXCHANGE_TYPES, "Order", walletMessage);
    // Contract wallets may use any layout, e.g. two concatenated 65-byte signatures.
    const multisig = `0x${"5a".repeat(130)}` as Hex;
    const seen: Array<[Address, Hex, Hex]> = [];
    const res = await verifyTypedSignature({
      ...base,
      message: walletMessage,
      signature: multisig,
      expected: wallet,
      isContract: (a) => a === wallet.toLowerCase(),
      isValidSignature: async (a, d, s) => {
        seen.push([a, d, s]);
        return d === digest && s === multisig;
      },
    });
    expect(res).toEqual({ valid: true, recovered: null, via: "eip1271" });
    expect(seen).toEqual([[wallet.toLowerCase(), digest, multisig]]);
  });

  it("is invalid when the contract wallet says no, and never asks an EOA", async () => {
    const signature = `0x${"5a".repeat(65)}` as Hex;
    const no = await verifyTypedSignature({
      ...base,
      message,
      signature,
      expected: account.address,
      isContract: () => true,
      isValidSignature: () => false,
    });
    expect(no.valid).toBe(false);
    let asked = false;
    const eoa = await verifyTypedSignature({
      ...base,
      message,
      signature,
      expected: account.address,
      isContract: async () => false,
      isValidSignature: () => (asked = true),
    });
    expect(eoa.valid).toBe(false);
    expect(asked).toBe(false);
  });

  it("propagates chain errors from the callbacks (service trouble, not a bad signature)", async () => {
    await expect(
      verifyTypedSignature({
        ...base,
        message,
        signature: "0x00",
        expected: account.address,
        isContract: async () => {
          throw new Error("rpc down");
        },
        isValidSignature: () => true,
      }),
    ).rejects.toThrow("rpc down");
  });

  // Regression (test/reliability/signatures-onchain.test.ts): v 0/1 was accepted for
  // orders, intents and withdraw intents, which the contracts' ecrecover then refuses.
  it.each(BACKENDS)("refuses v 0/1 for the types the contracts check (Order, Intent, WithdrawIntent), takes it for the off-chain ones (%s)", async (backend) => {
    useSignatureBackend(backend);
    const zeroOne = (sig: Hex) => withV(sig, parseInt(sig.slice(130), 16) - 27);
    const onChain: [PrimaryType, Record<string, unknown>][] = [
      ["Order", message],
      ["Intent", { taker: account.address, inputToken: message.fromToken, outputToken: message.toToken, maxInputAmount: 5n, minOutputAmount: 1n, recipient: message.recipient, initialDepositAmount: 0n, uuid: 9n, deadline: 1_800_000_000n }],
      ["WithdrawIntent", { user: account.address, tokens: [message.fromToken], amounts: [5n], recipient: message.recipient, deadline: 1_800_000_000n, uuid: 3n }],
    ];
    for (const [primaryType, m] of onChain) {
      const signature = await sign(key, primaryType, m);
      const args = { domain: DOMAIN, types: EXCHANGE_TYPES, primaryType, message: m, expected: account.address };
      expect((await verifyTypedSignature({ ...args, signature })).valid, primaryType).toBe(true);
      expect(await verifyTypedSignature({ ...args, signature: zeroOne(signature) }), primaryType).toEqual({ valid: false, recovered: null, via: null });
    }
    const offChain: [PrimaryType, Record<string, unknown>][] = [
      ["CancelOrder", { owner: account.address, orderId: 5n }],
      ["ManageApiKey", { owner: account.address, action: "list", timestamp: 1_800_000_000n }],
      ["CancelVLBatch", { owner: account.address, vlBatchId: "c0ffee00-0000-4000-8000-000000000000" }],
    ];
    for (const [primaryType, m] of offChain) {
      const signature = await sign(key, primaryType, m);
      const res = await verifyTypedSignature({ domain: DOMAIN, types: EXCHANGE_TYPES, primaryType, message: m, expected: account.address, signature: zeroOne(signature) });
      expect(res, primaryType).toEqual({ valid: true, recovered: account.address.toLowerCase(), via: "ecdsa" });
    }
    expect([...CONTRACT_CHECKED_TYPES].sort()).toEqual(["Intent", "Order", "WithdrawIntent"]);
  });

  it("asks an EIP-1271 wallet with the v 0/1 signature bytes unchanged (the same bytes the contract will pass it)", async () => {
    const wallet = "0xc0ffee0000000000000000000000000000000002";
    const walletMessage = { ...message, user: wallet };
    const signature = withV(await sign(key, "Order", walletMessage), 0);
    const seen: Hex[] = [];
    const res = await verifyTypedSignature({
      ...base,
      message: walletMessage,
      signature,
      expected: wallet,
      isContract: () => true,
      isValidSignature: (_a, _d, s) => {
        seen.push(s);
        return true;
      },
    });
    expect(res).toEqual({ valid: true, recovered: null, via: "eip1271" });
    expect(seen).toEqual([signature]);
    expect(toContractSignature(signature)).toBe(signature.toLowerCase());
  });

  it("uses the ECDSA result first even when the signer has code (EIP-7702 delegated EOAs)", async () => {
    const signature = await sign(key, "Order", message);
    let asked = false;
    const res = await verifyTypedSignature({
      ...base,
      message,
      signature,
      expected: account.address,
      isContract: () => true,
      isValidSignature: () => (asked = true),
    });
    expect(res.via).toBe("ecdsa");
    expect(asked).toBe(false);
  });
});
