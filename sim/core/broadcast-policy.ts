// Which signed transactions the broadcast helpers relay (spec "Account and funds"
// rules). Each endpoint accepts a closed set of selector -> target pairs:
//   tx/send:       approve(spender in {vault, router}) on a registry token,
//                  depositFund / depositFundWithPermit on the exchange;
//   withdraw/send: executeInstantWithdrawDualSig on the exchange;
//   transfer/send: transfer on a registry token.
// An EIP-7702 (type 4) transaction passes only when every authorization delegates to
// an allowlisted contract. Everything else is 400 {"detail"}: the spec does not show
// the helpers' statuses, and a relayed transaction the service refuses is a bad
// request, not a validation-shape failure (422 stays for the JSON schema).
//
// Pure: decoding and signer recovery need no chain; the route broadcasts afterwards.
// The exchange's ABI comes in through the config (the core never reads contract
// artifacts), so the selector check uses whatever build the deployment runs.

import { decodeFunctionData, erc20Abi, parseTransaction, recoverTransactionAddress, type Abi, type TransactionSerialized } from "viem";
import { ExchangeError } from "./errors.ts";
import type { Address, Hex } from "./typed-data.ts";

export type BroadcastEndpoint = "tx" | "withdraw" | "transfer";

/** What the call does, once the policy accepted it. */
export type BroadcastKind = "approve" | "depositFund" | "depositFundWithPermit" | "executeInstantWithdrawDualSig" | "transfer";

export interface BroadcastPolicyConfig {
  chainId: number;
  exchange: Address;
  vault: Address;
  router: Address;
  /** The exchange contract's ABI; only the relayed functions are taken from it. */
  exchangeAbi: Abi;
  /** Token addresses (lowercase) of the registry. */
  isRegistryToken(token: Address): boolean;
  /** EIP-7702 delegate contracts a type-4 transaction may authorise (lowercase). Default: none. */
  delegateAllowlist?: readonly Address[];
}

export interface AcceptedBroadcast {
  kind: BroadcastKind;
  /** Recovered sender (lowercase). */
  from: Address;
  /** Target contract (lowercase). */
  to: Address;
  nonce: number;
  /** Decoded call arguments (viem's decoding: addresses checksummed, integers bigint). */
  args: readonly unknown[];
}

// Only the functions the helpers may relay; decoding against these lists is the selector
// check. Taken from the one source of each ABI (viem's ERC-20, the injected exchange ABI).
const ERC20_ABI: Abi = erc20Abi.filter((f) => f.type === "function" && (f.name === "approve" || f.name === "transfer"));
const RELAYED_EXCHANGE_CALLS = new Set(["depositFund", "depositFundWithPermit", "executeInstantWithdrawDualSig"]);
// Keyed by the injected ABI itself (a module constant in practice): filtered once.
const relayedCache = new WeakMap<Abi, Abi>();

function relayedExchangeAbi(exchangeAbi: Abi): Abi {
  let abi = relayedCache.get(exchangeAbi);
  if (abi === undefined) {
    abi = exchangeAbi.filter((f) => f.type === "function" && RELAYED_EXCHANGE_CALLS.has(f.name));
    relayedCache.set(exchangeAbi, abi);
  }
  return abi;
}

/** What each endpoint relays, for error texts. */
const ALLOWED_TEXT: Record<BroadcastEndpoint, string> = {
  tx: "approve (spender: vault or router) on a listed token, or depositFund / depositFundWithPermit on the exchange",
  withdraw: "executeInstantWithdrawDualSig on the exchange",
  transfer: "transfer on a listed token",
};

function reject(detail: string): ExchangeError {
  return new ExchangeError("VALIDATION", 400, detail);
}

const RAW_TX = /^0x([0-9a-fA-F]{2})+$/;

interface Decoded {
  functionName: string;
  args: readonly unknown[];
}

function decodeWith(abi: Abi, data: Hex): Decoded | null {
  try {
    const d = decodeFunctionData({ abi, data });
    return { functionName: d.functionName, args: d.args ?? [] };
  } catch {
    return null;
  }
}

/**
 * The least gas a transaction may carry on Prague, the hardfork fakex runs: what it uses
 * before any code runs (EIP-2028 calldata, EIP-2930 access list, EIP-7702 authorizations;
 * no creation, which is refused anyway), or EIP-7623's calldata floor when that is more.
 */
function intrinsicGas(tx: ReturnType<typeof parseTransaction>): bigint {
  const data = (tx.data ?? "0x").slice(2);
  let zeros = 0n;
  let others = 0n;
  for (let i = 0; i < data.length; i += 2) if (data.slice(i, i + 2) === "00") zeros++;
  else others++;
  let gas = 21_000n + 4n * zeros + 16n * others;
  for (const entry of (tx as { accessList?: readonly { storageKeys: readonly unknown[] }[] }).accessList ?? []) gas += 2_400n + 1_900n * BigInt(entry.storageKeys.length);
  gas += 25_000n * BigInt((tx as { authorizationList?: readonly unknown[] }).authorizationList?.length ?? 0);
  const floor = 21_000n + 10n * (zeros + 4n * others);
  return gas > floor ? gas : floor;
}

/**
 * Decode `rawTx`, recover its sender and check it against the endpoint's allowed calls.
 * Throws 400 for anything not relayable; returns what the call does otherwise.
 */
export async function checkBroadcast(endpoint: BroadcastEndpoint, rawTx: string, cfg: BroadcastPolicyConfig): Promise<AcceptedBroadcast> {
  if (!RAW_TX.test(rawTx)) throw reject("raw_tx must be a 0x-prefixed hex string of a signed transaction");
  let tx: ReturnType<typeof parseTransaction>;
  try {
    tx = parseTransaction(rawTx as TransactionSerialized);
  } catch {
    throw reject("raw_tx is not a valid serialized transaction");
  }
  if (tx.r === undefined || tx.s === undefined) throw reject("raw_tx is not signed");
  // Pre-EIP-155 legacy transactions carry no chain id and replay on any chain.
  if (tx.chainId === undefined) throw reject(`raw_tx has no chain id; sign it for chain ${cfg.chainId}`);
  if (tx.chainId !== cfg.chainId) throw reject(`raw_tx is signed for chain ${tx.chainId}, this deployment is chain ${cfg.chainId}`);

  if (tx.type === "eip7702") {
    // EIP-7702: a set-code transaction with no authorization is invalid (nodes refuse it).
    if ((tx.authorizationList ?? []).length === 0) throw reject("an EIP-7702 (type 4) transaction needs at least one authorization");
    const allowed = new Set((cfg.delegateAllowlist ?? []).map((a) => a.toLowerCase()));
    for (const auth of tx.authorizationList ?? []) {
      const delegate = auth.address.toLowerCase();
      if (!allowed.has(delegate)) throw reject(`EIP-7702 authorization delegates to ${delegate}, which is not on the delegate allowlist`);
    }
  }

  if (!tx.to) throw reject("contract creation transactions are not accepted");
  // Below its intrinsic gas a transaction cannot even start: a node refuses it ("intrinsic gas
  // too low"), and Anvil drops it after answering a hash the client would wait on for good.
  const intrinsic = intrinsicGas(tx);
  if (tx.gas !== undefined && tx.gas < intrinsic) throw reject(`raw_tx gas limit ${tx.gas} is below its intrinsic gas ${intrinsic} (21000 plus its calldata, access list and authorizations, or Prague's calldata floor when more)`);
  if ((tx.value ?? 0n) !== 0n) throw reject("raw_tx must not transfer ether (value must be 0)");
  const to = tx.to.toLowerCase() as Address;
  const data = (tx.data ?? "0x") as Hex;
  const notAllowed = () => reject(`raw_tx is not an allowed call for this endpoint; allowed: ${ALLOWED_TEXT[endpoint]}`);

  let kind: BroadcastKind;
  let args: readonly unknown[];
  const tokenCall = decodeWith(ERC20_ABI, data);
  const exchangeCall = tokenCall ? null : decodeWith(relayedExchangeAbi(cfg.exchangeAbi), data);
  if (endpoint === "tx") {
    if (tokenCall?.functionName === "approve") {
      if (!cfg.isRegistryToken(to)) throw reject(`approve target ${to} is not a listed token`);
      const spender = String(tokenCall.args[0]).toLowerCase();
      if (spender !== cfg.vault && spender !== cfg.router) {
        throw reject(`approve spender ${spender} is neither the vault (${cfg.vault}) nor the router (${cfg.router})`);
      }
      kind = "approve";
      args = tokenCall.args;
    } else if (exchangeCall?.functionName === "depositFund" || exchangeCall?.functionName === "depositFundWithPermit") {
      if (to !== cfg.exchange) throw reject(`${exchangeCall.functionName} must be sent to the exchange (${cfg.exchange}), not ${to}`);
      kind = exchangeCall.functionName;
      args = exchangeCall.args;
    } else throw notAllowed();
  } else if (endpoint === "withdraw") {
    if (exchangeCall?.functionName !== "executeInstantWithdrawDualSig") throw notAllowed();
    if (to !== cfg.exchange) throw reject(`executeInstantWithdrawDualSig must be sent to the exchange (${cfg.exchange}), not ${to}`);
    kind = "executeInstantWithdrawDualSig";
    args = exchangeCall.args;
  } else {
    if (tokenCall?.functionName !== "transfer") throw notAllowed();
    if (!cfg.isRegistryToken(to)) throw reject(`transfer target ${to} is not a listed token`);
    kind = "transfer";
    args = tokenCall.args;
  }

  let from: Address;
  try {
    from = (await recoverTransactionAddress({ serializedTransaction: rawTx as TransactionSerialized })).toLowerCase() as Address;
  } catch {
    throw reject("raw_tx signature does not recover a sender");
  }
  return { kind, from, to, nonce: tx.nonce ?? 0, args };
}
