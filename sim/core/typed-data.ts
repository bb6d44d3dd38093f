// EIP-712 types of the exchange, defined once. Contracts, engine, HTTP layer,
// fixtures and tests all import these; member order matches the live service.

export const ORDER_TYPE = [
  { name: "user", type: "address" },
  { name: "expiration", type: "uint48" },
  { name: "feeBps", type: "uint48" },
  { name: "recipient", type: "address" },
  { name: "fromToken", type: "address" },
  { name: "toToken", type: "address" },
  { name: "fromAmount", type: "uint256" },
  { name: "toAmount", type: "uint256" },
  { name: "initialDepositAmount", type: "uint256" },
  { name: "uuid", type: "uint256" },
] as const;

export const CANCEL_ORDER_TYPE = [
  { name: "owner", type: "address" },
  { name: "orderId", type: "uint256" },
] as const;

export const INTENT_TYPE = [
  { name: "taker", type: "address" },
  { name: "inputToken", type: "address" },
  { name: "outputToken", type: "address" },
  { name: "maxInputAmount", type: "uint256" },
  { name: "minOutputAmount", type: "uint256" },
  { name: "recipient", type: "address" },
  { name: "initialDepositAmount", type: "uint256" },
  { name: "uuid", type: "uint256" },
  { name: "deadline", type: "uint48" },
] as const;

export const MANAGE_API_KEY_TYPE = [
  { name: "owner", type: "address" },
  { name: "action", type: "string" },
  { name: "timestamp", type: "uint256" },
] as const;

export const WITHDRAW_INTENT_TYPE = [
  { name: "user", type: "address" },
  { name: "tokens", type: "address[]" },
  { name: "amounts", type: "uint256[]" },
  { name: "recipient", type: "address" },
  { name: "deadline", type: "uint256" },
  { name: "uuid", type: "uint256" },
] as const;

export const CANCEL_VL_BATCH_TYPE = [
  { name: "owner", type: "address" },
  { name: "vlBatchId", type: "string" },
] as const;

export const PERMIT_TYPE = [
  { name: "owner", type: "address" },
  { name: "spender", type: "address" },
  { name: "value", type: "uint256" },
  { name: "nonce", type: "uint256" },
  { name: "deadline", type: "uint256" },
] as const;

/** All exchange-domain types, keyed by primary type, in viem's `types` shape. */
export const EXCHANGE_TYPES = {
  Order: ORDER_TYPE,
  CancelOrder: CANCEL_ORDER_TYPE,
  Intent: INTENT_TYPE,
  ManageApiKey: MANAGE_API_KEY_TYPE,
  WithdrawIntent: WITHDRAW_INTENT_TYPE,
  CancelVLBatch: CANCEL_VL_BATCH_TYPE,
} as const;

export type Address = `0x${string}`;
export type Hex = `0x${string}`;

export interface ExchangeDomain {
  name: string;
  version: "1";
  chainId: number;
  verifyingContract: Address;
}

/** The default display name used for the EIP-712 domain when none is configured. */
export const DEFAULT_DOMAIN_NAME = "fakex";

/** An EIP-712 domain name fakex takes: non-empty text. */
export function isDomainName(v: unknown): v is string {
  return typeof v === "string" && v.trim() !== "";
}

export function exchangeDomain(name: string, chainId: number, exchange: Address): ExchangeDomain {
  return { name, version: "1", chainId, verifyingContract: exchange };
}

/** The signed Order, with bigint numerics (what a signer and the contract see). */
export interface OrderMessage {
  user: Address;
  expiration: bigint;
  feeBps: bigint;
  recipient: Address;
  fromToken: Address;
  toToken: Address;
  fromAmount: bigint;
  toAmount: bigint;
  initialDepositAmount: bigint;
  uuid: bigint;
}

export interface IntentMessage {
  taker: Address;
  inputToken: Address;
  outputToken: Address;
  maxInputAmount: bigint;
  minOutputAmount: bigint;
  recipient: Address;
  initialDepositAmount: bigint;
  uuid: bigint;
  deadline: bigint;
}

export interface WithdrawIntentMessage {
  user: Address;
  tokens: Address[];
  amounts: bigint[];
  recipient: Address;
  deadline: bigint;
  uuid: bigint;
}

export const ZERO_ADDRESS: Address = "0x0000000000000000000000000000000000000000";
