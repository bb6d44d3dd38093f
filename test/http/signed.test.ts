import { describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { ExchangeError } from "../../sim/core/errors.ts";
import { EXCHANGE_TYPES, exchangeDomain, type Hex } from "../../sim/core/typed-data.ts";
import { hashTyped } from "../../sim/signing/signatures.ts";
import { requireTypedSignature } from "../../sim/http/signed.ts";

const domain = exchangeDomain("fakex", 31337, "0x5fbdb2315678afecb367f032d93f642f64180aa3");
const account = privateKeyToAccount(`0x${"cd".repeat(32)}`);
const types = { CancelOrder: EXCHANGE_TYPES.CancelOrder };

async function rejection(p: Promise<unknown>): Promise<ExchangeError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ExchangeError) return e;
    throw e;
  }
  throw new Error("resolved");
}

describe("requireTypedSignature", () => {
  it("passes an ECDSA signature by the claimed wallet", async () => {
    const message = { owner: account.address, orderId: 42n };
    const signature = await account.signTypedData({ domain, types, primaryType: "CancelOrder", message });
    const res = await requireTypedSignature({}, { domain, types, primaryType: "CancelOrder", message, signature, expected: account.address });
    expect(res).toEqual({ valid: true, recovered: account.address.toLowerCase(), via: "ecdsa" });
  });

  it("throws 400 SIGNATURE_INVALID with the route's detail on a mismatch", async () => {
    const message = { owner: account.address, orderId: 42n };
    const signature = await account.signTypedData({ domain, types, primaryType: "CancelOrder", message });
    const e = await rejection(
      requireTypedSignature({}, { domain, types, primaryType: "CancelOrder", message: { ...message, orderId: 43n }, signature, expected: account.address }, "bad cancel signature"),
    );
    expect([e.status, e.code, e.detail]).toEqual([400, "SIGNATURE_INVALID", "bad cancel signature"]);
  });

  it("accepts a contract wallet through the context's EIP-1271 checker, and only with it", async () => {
    const wallet = "0x00000000000000000000000000000000000c0ffe";
    const message = { owner: wallet, orderId: 7n };
    const digest = hashTyped(domain, types, "CancelOrder", message);
    const signature = "0x1234" as Hex;
    const contractSignatures = {
      isContract: (a: string) => a === wallet,
      isValidSignature: (a: string, d: Hex, s: Hex) => a === wallet && d === digest && s === signature,
    };
    const payload = { domain, types, primaryType: "CancelOrder", message, signature, expected: wallet };
    expect((await requireTypedSignature({ contractSignatures }, payload)).via).toBe("eip1271");
    expect((await rejection(requireTypedSignature({}, payload))).status).toBe(400);
  });
});
