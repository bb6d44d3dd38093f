// The check every EIP-712 route makes: the typed data was signed by the claimed
// wallet, by ECDSA or, for contract wallets, EIP-1271 through the chain port.
// A mismatch is the spec's 400 "signature mismatch".

import { ExchangeError } from "../core/errors.ts";
import type { HttpContext } from "./context.ts";
import { noteSignatureMismatch, noteWallet } from "./journal-notes.ts";
import { verifyTypedSignature, type VerifyTypedSignatureArgs, type VerifyTypedSignatureResult } from "../signing/signatures.ts";

export type SignedPayload = Omit<VerifyTypedSignatureArgs, "isContract" | "isValidSignature">;

/** Verify or throw 400 SIGNATURE_INVALID; returns how it verified. */
export async function requireTypedSignature(
  ctx: Pick<HttpContext, "contractSignatures">,
  payload: SignedPayload,
  detail = "Invalid signature",
): Promise<VerifyTypedSignatureResult> {
  // Not hex at all: no signer to recover, and the reason is the bytes' form (same status and code).
  if (typeof payload.signature !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(payload.signature)) {
    throw new ExchangeError("SIGNATURE_INVALID", 400, `${detail} (the signature is not 0x-prefixed hex)`);
  }
  const checker = ctx.contractSignatures;
  const result = await verifyTypedSignature({
    ...payload,
    ...(checker
      ? { isContract: (a) => checker.isContract(a), isValidSignature: (a, d, s) => checker.isValidSignature(a, d, s) }
      : {}),
  });
  if (!result.valid) {
    // For the request journal: what was expected, and who the bytes actually name.
    noteSignatureMismatch({
      field: "signature",
      expected_signer: typeof payload.expected === "string" ? payload.expected.toLowerCase() : null,
      recovered_signer: result.recovered,
      typed_data: { domain: payload.domain, primaryType: payload.primaryType, types: payload.types, message: payload.message },
    });
    throw new ExchangeError("SIGNATURE_INVALID", 400, detail);
  }
  if (typeof payload.expected === "string") noteWallet(payload.expected);
  return result;
}
