// The check every EIP-712 route makes: the typed data was signed by the claimed
// wallet, by ECDSA or, for contract wallets, EIP-1271 through the chain port.
// A mismatch is the spec's 400 "signature mismatch".

import { ExchangeError } from "../core/errors.ts";
import type { HttpContext } from "./context.ts";
import { verifyTypedSignature, type VerifyTypedSignatureArgs, type VerifyTypedSignatureResult } from "../signing/signatures.ts";

export type SignedPayload = Omit<VerifyTypedSignatureArgs, "isContract" | "isValidSignature">;

/** Verify or throw 400 SIGNATURE_INVALID; returns how it verified. */
export async function requireTypedSignature(
  ctx: Pick<HttpContext, "contractSignatures">,
  payload: SignedPayload,
  detail = "Invalid signature",
): Promise<VerifyTypedSignatureResult> {
  const checker = ctx.contractSignatures;
  const result = await verifyTypedSignature({
    ...payload,
    ...(checker
      ? { isContract: (a) => checker.isContract(a), isValidSignature: (a, d, s) => checker.isValidSignature(a, d, s) }
      : {}),
  });
  if (!result.valid) throw new ExchangeError("SIGNATURE_INVALID", 400, detail);
  return result;
}
