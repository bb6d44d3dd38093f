// GET /config. The endpoint must answer during partial start-up: whatever is not
// known yet (chain id before the RPC answers, addresses before deployment) is
// null, and so is anything derived from it (the domain separator).
// `sera_address` repeats `exchange_address`: the live service names the exchange
// contract so, and its clients read that name (FACTS); the spec's name stays.

import { domainSeparator } from "viem";
import type { Address, Hex } from "./typed-data.ts";

export interface ConfigInputs {
  chainId?: number | null;
  exchangeAddress?: string | null;
  vaultAddress?: string | null;
  sorAddress?: string | null;
  /** EIP-712 domain name (the service display name). */
  domainName?: string | null;
  vlBatch?: { min: number; max: number };
}

export interface ConfigResponse {
  chain_id: number | null;
  exchange_address: Address | null;
  /** The live service's name for exchange_address; always equal to it. */
  sera_address: Address | null;
  vault_address: Address | null;
  sor_address: Address | null;
  domain_separator: Hex | null;
  eip712_domain: {
    name: string | null;
    version: "1";
    chainId: number | null;
    verifyingContract: Address | null;
  };
  limits: { vl_batch: { min: number; max: number } };
}

/** The spec's default VL batch size range. */
export const DEFAULT_VL_BATCH_LIMITS = { min: 2, max: 50 } as const;

export function configView(inputs: ConfigInputs): ConfigResponse {
  const chainId = inputs.chainId ?? null;
  const exchange = lowerAddress(inputs.exchangeAddress);
  const name = inputs.domainName ?? null;
  const vl = inputs.vlBatch ?? DEFAULT_VL_BATCH_LIMITS;
  if (!Number.isInteger(vl.min) || !Number.isInteger(vl.max) || vl.min < 1 || vl.max < vl.min) {
    throw new RangeError(`vl_batch limits must be integers with 1 <= min <= max, got ${vl.min}..${vl.max}`);
  }
  const separator =
    chainId !== null && exchange !== null && name !== null
      ? domainSeparator({ domain: { name, version: "1", chainId, verifyingContract: exchange } })
      : null;
  return {
    chain_id: chainId,
    exchange_address: exchange,
    sera_address: exchange,
    vault_address: lowerAddress(inputs.vaultAddress),
    sor_address: lowerAddress(inputs.sorAddress),
    domain_separator: separator,
    eip712_domain: { name, version: "1", chainId, verifyingContract: exchange },
    limits: { vl_batch: { min: vl.min, max: vl.max } },
  };
}

function lowerAddress(a: string | null | undefined): Address | null {
  if (a === null || a === undefined) return null;
  if (!/^0x[0-9a-fA-F]{40}$/.test(a)) throw new RangeError(`not an address: ${a}`);
  return a.toLowerCase() as Address;
}
