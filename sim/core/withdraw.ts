// POST /withdraw: check a user's WithdrawIntent and return the executor's
// co-signature for executeInstantWithdrawDualSig. The user's own signature is
// verified by the caller (it may need the chain for EIP-1271 wallets); this
// module owns the intent rules, the balance check and the executor signature.
//
// Outcomes:
// - malformed intent → throws 400 VALIDATION; deadline outside the window →
//   throws 400 EXPIRATION_INVALID (spec rule 7: rejected before anything else);
//   intent.user not the API-key owner (when a key accompanied the call) → 403.
// - well-formed but not payable → 200 data with success false and `error`:
//   insufficient vault balance (amounts summed per token), uuid already used.
// - success → { success: true, executor_address, executor_signature, error: null }.
// A uuid co-signed once stays bound to that exact intent: asking again with the
// identical intent returns the same signature (a safe retry after a lost
// response); a different intent under the same uuid is refused. Uuids already
// consumed on chain are refused through the `isUuidUsed` callback.

import { hashTypedData } from "viem";
import { privateKeyToAccount, signTypedData } from "viem/accounts";
import { ExchangeError } from "./errors.ts";
import { checkExpiration } from "./expiration.ts";
import { formatRaw } from "./amounts.ts";
import {
  WITHDRAW_INTENT_TYPE,
  type Address,
  type ExchangeDomain,
  type Hex,
  type WithdrawIntentMessage,
} from "./typed-data.ts";
import { parseUint256 } from "./uuid-int.ts";

export const MAX_WITHDRAW_TOKENS = 20;

export interface WithdrawContext {
  nowSec: number;
  /** Vault balance the user can withdraw now (raw). */
  available(owner: Address, token: Address): bigint;
  /** When given, tokens must be listed. */
  isListedToken?(token: Address): boolean;
  /** When given, uuids the contract has already consumed. */
  isUuidUsed?(user: Address, uuid: bigint): boolean;
  /** Token display (symbol, decimals) for error texts. */
  describeToken?(token: Address): { symbol: string; decimals: number } | undefined;
  /** When given, sets a co-signed intent's amounts aside until it is mined or its deadline passes (Engine.holdWithdrawal). */
  hold?(user: Address, uuid: bigint, amounts: ReadonlyMap<Address, bigint>, deadlineSec: number): void;
  /** Whether hold() still holds the amounts of the user's intent under this uuid. */
  isHeld?(user: Address, uuid: bigint): boolean;
}

export interface WithdrawCoSignResult {
  success: boolean;
  executor_address: Address;
  executor_signature: Hex | null;
  error: string | null;
}

export interface WithdrawState {
  /** `${user}|${uuid}` → EIP-712 hash of the intent co-signed under it. */
  cosigned: [string, Hex][];
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function invalid(detail: string): ExchangeError {
  return new ExchangeError("VALIDATION", 400, `invalid withdraw intent: ${detail}`);
}

function address(v: unknown, name: string): Address {
  if (typeof v !== "string" || !ADDRESS.test(v)) throw invalid(`${name} must be a 0x-prefixed 20-byte hex address`);
  return v.toLowerCase() as Address;
}

/**
 * Parse and check the intent fields: user, tokens (1-20 addresses), amounts
 * (same length, each a positive uint256 decimal string), recipient, deadline
 * (bounded-expiration rule), uuid (uint256 decimal string). Addresses lowercase.
 */
export function parseWithdrawIntent(intent: unknown, nowSec: number): WithdrawIntentMessage {
  if (intent === null || typeof intent !== "object" || Array.isArray(intent)) throw invalid("intent must be an object");
  const i = intent as Record<string, unknown>;
  const user = address(i.user, "user");
  if (!Array.isArray(i.tokens) || i.tokens.length < 1 || i.tokens.length > MAX_WITHDRAW_TOKENS) {
    throw invalid(`tokens must be an array of 1 to ${MAX_WITHDRAW_TOKENS} addresses`);
  }
  const tokens = i.tokens.map((t, k) => address(t, `tokens[${k}]`));
  if (!Array.isArray(i.amounts) || i.amounts.length !== tokens.length) {
    throw invalid("amounts must be an array with one entry per token");
  }
  const amounts = i.amounts.map((a, k) => {
    let v: bigint;
    try {
      v = parseUint256(typeof a === "bigint" ? a.toString() : a, `amounts[${k}]`);
    } catch {
      throw invalid(`amounts[${k}] must be a raw uint256 decimal string`);
    }
    if (v === 0n) throw invalid(`amounts[${k}] must be positive`);
    return v;
  });
  const recipient = address(i.recipient, "recipient");
  let uuid: bigint;
  try {
    uuid = parseUint256(typeof i.uuid === "bigint" ? i.uuid.toString() : i.uuid, "uuid");
  } catch {
    throw invalid("uuid must be a uint256 decimal string");
  }
  // A uint256 string on the wire, as amounts and uuid are (a JSON number is refused alike).
  if (typeof i.deadline === "number") throw invalid("deadline must be a uint256 decimal string (Unix seconds), not a JSON number");
  const deadline = BigInt(checkExpiration(i.deadline, nowSec, "deadline"));
  return { user, tokens, amounts, recipient, deadline, uuid };
}

/** The typed-data parameters of a WithdrawIntent (what the user and executor sign). */
export function withdrawTypedData(domain: ExchangeDomain, message: WithdrawIntentMessage) {
  return {
    domain,
    types: { WithdrawIntent: WITHDRAW_INTENT_TYPE },
    primaryType: "WithdrawIntent" as const,
    message,
  };
}

export class WithdrawCoSigner {
  private readonly privateKey: Hex;
  readonly executorAddress: Address;
  private domain: ExchangeDomain;
  private cosigned = new Map<string, Hex>();

  constructor(opts: { executorPrivateKey: Hex; domain: ExchangeDomain }) {
    this.privateKey = opts.executorPrivateKey;
    this.executorAddress = privateKeyToAccount(opts.executorPrivateKey).address.toLowerCase() as Address;
    this.domain = opts.domain;
  }

  /** Re-point at a new deployment (chain id / exchange address). */
  setDomain(domain: ExchangeDomain): void {
    this.domain = domain;
  }

  /**
   * Check `intent` and co-sign it. `apiKeyOwner` is the authenticated key owner
   * when the optional API key accompanied the request.
   */
  async coSign(intent: unknown, ctx: WithdrawContext, apiKeyOwner?: Address): Promise<WithdrawCoSignResult> {
    const m = parseWithdrawIntent(intent, ctx.nowSec);
    if (apiKeyOwner !== undefined && m.user !== apiKeyOwner.toLowerCase()) {
      throw new ExchangeError("FORBIDDEN", 403, "intent.user does not match the API key owner");
    }
    if (ctx.isListedToken) {
      const unlisted = m.tokens.find((t) => !ctx.isListedToken!(t));
      if (unlisted) throw invalid(`token ${unlisted} is not listed`);
    }
    const fail = (error: string): WithdrawCoSignResult => ({
      success: false,
      executor_address: this.executorAddress,
      executor_signature: null,
      error,
    });

    const key = `${m.user}|${m.uuid}`;
    const typed = withdrawTypedData(this.domain, m);
    const hash = hashTypedData(typed);
    const earlier = this.cosigned.get(key);
    if ((earlier !== undefined && earlier !== hash) || ctx.isUuidUsed?.(m.user, m.uuid)) {
      return fail(`uuid ${m.uuid} was already used for this user; sign a new intent with a fresh uuid`);
    }

    // The same intent co-signed again while its hold stands: its funds are set aside already.
    if (earlier !== hash || !(ctx.isHeld?.(m.user, m.uuid) ?? false)) {
      // Amounts summed per token: listing a token twice cannot overdraw it.
      const wanted = new Map<Address, bigint>();
      m.tokens.forEach((t, k) => wanted.set(t, (wanted.get(t) ?? 0n) + m.amounts[k]!));
      for (const [token, amount] of wanted) {
        const have = ctx.available(m.user, token);
        if (amount > have) {
          const info = ctx.describeToken?.(token);
          const show = (v: bigint) => (info ? `${formatRaw(v, info.decimals)} ${info.symbol}` : `${v} (raw)`);
          return fail(`insufficient vault balance for ${info?.symbol ?? token}: available ${show(have)}, requested ${show(amount)}`);
        }
      }
      // In the same synchronous step as the check: a concurrent co-signature sees the funds gone.
      ctx.hold?.(m.user, m.uuid, wanted, Number(m.deadline));
    }
    this.cosigned.set(key, hash);

    const signature = await signTypedData({ privateKey: this.privateKey, ...typed });
    return { success: true, executor_address: this.executorAddress, executor_signature: signature, error: null };
  }

  snapshot(): WithdrawState {
    return { cosigned: [...this.cosigned.entries()] };
  }

  restore(state: WithdrawState): void {
    this.cosigned = new Map(state.cosigned);
  }
}
