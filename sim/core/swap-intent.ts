// What a swap hands to the chain: Router.executeIntent(intent, takerSignature,
// legs, permit), and the contract's semantics of it as a pure function so the
// memory chain moves exactly what the Router + Exchange.settleRouterLeg would:
//   1. deadline > now, intent uuid unused for the taker, 1..20 legs, distinct tokens;
//   2. initialDepositAmount pulled from the taker's wallet into the vault (the
//      permit, when given, is what allows it; a failing permit is not fatal);
//   3. legs in order: per maker order the first-fill / filled + amount <= fromAmount
//      rules, takerAmount >= mulDiv(makerAmount, toAmount, fromAmount) rounded up;
//      the maker gives makerAmount, the taker pays takerAmount from its vault; the
//      maker receives takerAmount − fee (all of any spread: settleRouterLeg gives
//      the maker the whole spread), the protocol the fee;
//   4. intermediate nets to zero, input <= maxInputAmount, output >= minOutputAmount;
//   5. recipient non-zero: the output leaves the taker's vault to the recipient's wallet.
// Any failure reverts the whole transaction (no per-leg try/catch in the Router).
import { FEE_DENOMINATOR, minReceive } from "./economics.ts";
import { limitOrderMessage } from "./order-terms.ts";
import type { OrderRecord } from "./orders.ts";
import type { Route } from "./routing.ts";
import type { Address, Hex, IntentMessage, OrderMessage } from "./typed-data.ts";
import { ZERO_ADDRESS } from "./typed-data.ts";
import { sameClassAcrossBuilds } from "../platform/cross-build.ts";

export const MAX_INTENT_LEGS = 20;
export const MAX_ORDER_LIFETIME_SEC = 365n * 86400n;

/** Router.MakerLeg */
export interface IntentLeg {
  order: OrderMessage;
  signature: Hex;
  makerAmount: bigint;
  takerAmount: bigint;
}

/** Router.PermitData (value 0: none). */
export interface IntentPermit {
  value: bigint;
  deadline: bigint;
  signature: Hex;
}

/** The swap's gas the Router charges the taker in the vault (Router.GasFee): off the output or on top of the input. */
export interface IntentGas {
  token: Address;
  amount: bigint;
}

export const NO_GAS: IntentGas = { token: ZERO_ADDRESS, amount: 0n };

export interface ChainIntent {
  intent: IntentMessage;
  takerSignature: Hex;
  legs: IntentLeg[];
  permit: IntentPermit | null;
  gas: IntentGas;
}

/** The signed Order of a resting limit order, under the fee it was placed with. */
export function orderMessageOf(o: OrderRecord): OrderMessage {
  return limitOrderMessage(o, o.feeBps);
}

export function intentLegs(route: Route, orderMessage: (o: OrderRecord) => OrderMessage = orderMessageOf): IntentLeg[] {
  return route.legs.map((l) => ({
    order: orderMessage(l.maker),
    signature: l.maker.signature ?? "0x",
    makerAmount: l.makerAmount,
    takerAmount: l.takerAmount,
  }));
}

/** Revert of executeIntent, carrying the contract's reason string. */
export class IntentRevert extends Error {
  override readonly name = "IntentRevert";
  constructor(readonly reason: string) {
    super(reason);
  }
}
sameClassAcrossBuilds(IntentRevert, "IntentRevert");

/** Read access to chain state; keys are lowercase. */
export interface IntentChainView {
  nowSec: bigint;
  vault(owner: string, token: string): bigint;
  wallet(owner: string, token: string): bigint;
  filled(order: OrderMessage): bigint;
  intentUsed(taker: string, uuid: bigint): boolean;
  whitelisted(token: string): boolean;
  feeRecipient: string;
  maxFeeBps: bigint;
}

export interface IntentEffects {
  /** Net change per `owner|token`, vault and wallet (both lowercase). */
  vault: Map<string, bigint>;
  wallet: Map<string, bigint>;
  /** Amount to add to each maker order's filled counter, in leg order. */
  filled: { order: OrderMessage; amount: bigint }[];
  input: bigint;
  output: bigint;
}

const k = (owner: string, token: string) => `${owner.toLowerCase()}|${token.toLowerCase()}`;

/** Run executeIntent against a view; throws IntentRevert, never half-applies (effects are returned, not written). */
export function simulateIntent(ci: ChainIntent, chain: IntentChainView): IntentEffects {
  const i = ci.intent;
  const taker = i.taker.toLowerCase();
  const input = i.inputToken.toLowerCase();
  const output = i.outputToken.toLowerCase();
  if (i.deadline <= chain.nowSec) throw new IntentRevert("INTENT_EXPIRED");
  if (chain.intentUsed(taker, i.uuid)) throw new IntentRevert("INTENT_UUID_USED");
  if (ci.legs.length === 0 || ci.legs.length > MAX_INTENT_LEGS) throw new IntentRevert("BAD_LEG_COUNT");
  if (input === output) throw new IntentRevert("SAME_TOKEN");

  const vault = new Map<string, bigint>();
  const wallet = new Map<string, bigint>();
  const vaultOf = (o: string, t: string) => chain.vault(o, t) + (vault.get(k(o, t)) ?? 0n);
  const add = (m: Map<string, bigint>, o: string, t: string, d: bigint) => m.set(k(o, t), (m.get(k(o, t)) ?? 0n) + d);
  const debitVault = (o: string, t: string, amt: bigint) => {
    if (vaultOf(o, t) < amt) throw new IntentRevert("INSUFFICIENT_VAULT_BALANCE");
    add(vault, o, t, -amt);
  };

  if (i.initialDepositAmount > 0n) {
    if (!chain.whitelisted(input)) throw new IntentRevert("TOKEN_NOT_WHITELISTED");
    // A wallet short of the deposit fails the pull exactly as a missing allowance would.
    if (chain.wallet(taker, input) < i.initialDepositAmount) throw new IntentRevert("ALLOWANCE_INSUFFICIENT");
    add(wallet, taker, input, -i.initialDepositAmount);
    add(vault, taker, input, i.initialDepositAmount);
  }

  let totalIn = 0n;
  let totalOut = 0n;
  let intermediate: string | null = null;
  let iIn = 0n;
  let iOut = 0n;
  const filled: IntentEffects["filled"] = [];
  const filledSoFar = new Map<string, bigint>();
  for (const leg of ci.legs) {
    const o = leg.order;
    const gives = o.fromToken.toLowerCase();
    const wants = o.toToken.toLowerCase();
    if (wants === input) {
      totalIn += leg.takerAmount;
      if (gives === output) totalOut += leg.makerAmount;
      else {
        intermediate ??= gives;
        if (gives !== intermediate) throw new IntentRevert("BAD_ROUTE");
        iIn += leg.makerAmount;
      }
    } else if (gives === output) {
      intermediate ??= wants;
      if (wants !== intermediate) throw new IntentRevert("BAD_ROUTE");
      iOut += leg.takerAmount;
      totalOut += leg.makerAmount;
    } else throw new IntentRevert("BAD_ROUTE");

    // Exchange._takeOrder
    const ok = `${o.user.toLowerCase()}|${o.uuid}`;
    const done = chain.filled(o) + (filledSoFar.get(ok) ?? 0n);
    if (leg.makerAmount <= 0n) throw new IntentRevert("ZERO_AMOUNT");
    if (o.expiration <= chain.nowSec) throw new IntentRevert("ORDER_EXPIRED");
    if (done + leg.makerAmount > o.fromAmount) throw new IntentRevert("OVERFILL");
    if (done === 0n) {
      if (o.toAmount <= 0n || o.fromAmount <= 0n) throw new IntentRevert("ZERO_ORDER_AMOUNT");
      if (o.expiration > chain.nowSec + MAX_ORDER_LIFETIME_SEC) throw new IntentRevert("EXPIRATION_TOO_FAR");
      if (o.feeBps > chain.maxFeeBps) throw new IntentRevert("FEE_TOO_HIGH");
      if (gives === wants) throw new IntentRevert("SAME_TOKEN");
      if (!chain.whitelisted(gives) || !chain.whitelisted(wants)) throw new IntentRevert("TOKEN_NOT_WHITELISTED");
    }
    filledSoFar.set(ok, (filledSoFar.get(ok) ?? 0n) + leg.makerAmount);
    filled.push({ order: o, amount: leg.makerAmount });
    if (leg.takerAmount < minReceive(o, leg.makerAmount)) throw new IntentRevert("PRICE_MISMATCH");

    const makerFee = (leg.takerAmount * o.feeBps) / FEE_DENOMINATOR;
    const maker = o.user.toLowerCase();
    debitVault(maker, gives, leg.makerAmount);
    debitVault(taker, wants, leg.takerAmount);
    if (o.recipient.toLowerCase() === ZERO_ADDRESS) add(vault, maker, wants, leg.takerAmount - makerFee);
    else add(wallet, o.recipient, wants, leg.takerAmount - makerFee);
    add(vault, taker, gives, leg.makerAmount);
    if (makerFee > 0n) add(vault, chain.feeRecipient, wants, makerFee);
  }
  if (iIn !== iOut) throw new IntentRevert("INTERMEDIATE_NOT_NETTED");
  // Router._chargeAndPay: the gas comes off the output or goes on top of the input.
  const gas = ci.gas.amount;
  const gasToken = ci.gas.token.toLowerCase();
  if (gas > 0n) {
    if (gasToken === output) {
      if (totalOut < gas) throw new IntentRevert("MIN_OUTPUT_NOT_MET");
      totalOut -= gas;
    } else {
      if (gasToken !== input) throw new IntentRevert("BAD_GAS_TOKEN");
      totalIn += gas;
    }
  }
  if (totalIn > i.maxInputAmount) throw new IntentRevert("MAX_INPUT_EXCEEDED");
  if (totalOut < i.minOutputAmount) throw new IntentRevert("MIN_OUTPUT_NOT_MET");
  if (gas > 0n) {
    debitVault(taker, gasToken, gas);
    add(vault, chain.feeRecipient, gasToken, gas);
  }
  if (i.recipient.toLowerCase() !== ZERO_ADDRESS) {
    debitVault(taker, output, totalOut);
    add(wallet, i.recipient, output, totalOut);
  }
  return { vault, wallet, filled, input: totalIn, output: totalOut };
}
