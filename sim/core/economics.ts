// Who pays and receives what when a match settles, computed once and shared by
// the engine (its ledger and the owner-perspective settlement_economics) and the
// memory chain (which must move exactly the same amounts as the contract).

export const FEE_DENOMINATOR = 10_000n;

/** Positive spread shares in basis points of the spread; protocol keeps the rest (live: 25/25/50). */
export interface SpreadSplit {
  makerBps: number;
  takerBps: number;
}

export const DEFAULT_SPREAD_SPLIT: SpreadSplit = { makerBps: 2500, takerBps: 2500 };

/** The parts of a signed order the per-match rules read. */
export interface OrderRate {
  fromAmount: bigint;
  toAmount: bigint;
  feeBps: number | bigint;
}

export interface MatchMoves {
  /** What the maker's signed rate demands for makerGive: mulDiv(makerGive, to, from) rounded up. */
  makerNeed: bigint;
  /** takerGive − makerNeed, in the taker's from-token (= maker's to-token). */
  spread: bigint;
  makerSpread: bigint;
  takerRefund: bigint;
  protocolSpread: bigint;
  /** Gross to-token each side receives before fees. */
  makerGross: bigint;
  takerGross: bigint;
  makerFee: bigint;
  takerFee: bigint;
  /** Net to-token credited to each side. */
  makerCredit: bigint;
  takerCredit: bigint;
  /** From-token leaving each side (taker's is net of its spread refund). */
  makerDebit: bigint;
  takerDebit: bigint;
}

export function ceilDiv(n: bigint, d: bigint): bigint {
  return n === 0n ? 0n : (n + d - 1n) / d;
}

/** mulDiv(amount, toAmount, fromAmount) rounded up: the least an order accepts for `amount` given. */
export function minReceive(order: OrderRate, amount: bigint): bigint {
  return ceilDiv(amount * order.toAmount, order.fromAmount);
}

/** The most an order may give for `receive` of its to-token and still meet its own rate. */
export function maxGiveFor(order: OrderRate, receive: bigint): bigint {
  return (receive * order.fromAmount) / order.toAmount;
}

/**
 * Balance movements of one match. Assumes the per-order rules already hold
 * (takerGive >= makerNeed and makerGive >= the taker's minimum).
 */
export function matchMoves(
  maker: OrderRate,
  taker: OrderRate,
  makerGive: bigint,
  takerGive: bigint,
  split: SpreadSplit = DEFAULT_SPREAD_SPLIT,
): MatchMoves {
  const makerNeed = minReceive(maker, makerGive);
  const spread = takerGive > makerNeed ? takerGive - makerNeed : 0n;
  const makerSpread = (spread * BigInt(split.makerBps)) / FEE_DENOMINATOR;
  const takerRefund = (spread * BigInt(split.takerBps)) / FEE_DENOMINATOR;
  const protocolSpread = spread - makerSpread - takerRefund;
  const makerGross = takerGive - spread + makerSpread;
  const takerGross = makerGive;
  const makerFee = (makerGross * BigInt(maker.feeBps)) / FEE_DENOMINATOR;
  const takerFee = (takerGross * BigInt(taker.feeBps)) / FEE_DENOMINATOR;
  return {
    makerNeed,
    spread,
    makerSpread,
    takerRefund,
    protocolSpread,
    makerGross,
    takerGross,
    makerFee,
    takerFee,
    makerCredit: makerGross - makerFee,
    takerCredit: takerGross - takerFee,
    makerDebit: makerGive,
    takerDebit: takerGive - takerRefund,
  };
}

/** A settlement_economics line item. */
export interface EconomicsLine {
  token: string;
  token_address: string;
  amount: string;
  amount_raw: string;
}

export interface FeeLine extends EconomicsLine {
  type: string;
}

export interface TokenRef {
  symbol: string;
  address: string;
  decimals: number;
}

/** Zero amounts produce no line: an empty list means "nothing moved". */
export function line(t: TokenRef, raw: bigint, format: (raw: bigint, decimals: number) => string): EconomicsLine[] {
  return raw === 0n ? [] : [{ token: t.symbol, token_address: t.address, amount: format(raw, t.decimals), amount_raw: raw.toString() }];
}
