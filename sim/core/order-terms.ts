// From a market order (side, base quantity, price) to the Order the wallet signs:
// which token is spent, which received, and the raw amounts of each.

import { decimalToRaw, formatRaw, pow10, quoteRaw, type Decimal } from "./amounts.ts";
import { ExchangeError } from "./errors.ts";
import type { MarketInfo } from "./registry.ts";
import { ZERO_ADDRESS, type Address, type OrderMessage } from "./typed-data.ts";

export type Side = "bid" | "ask";

export function isSide(s: unknown): s is Side {
  return s === "bid" || s === "ask";
}

export interface OrderTerms {
  fromToken: Address;
  toToken: Address;
  fromAmount: bigint;
  toAmount: bigint;
  /** floor(amount * 10^base_decimals) */
  baseRaw: bigint;
  /** floor(amount * price * 10^quote_decimals), floored once after the exact product */
  quoteRaw: bigint;
}

/** An ask spends base and receives quote; a bid spends quote and receives base. */
export function orderTerms(market: MarketInfo, side: Side, amount: Decimal, price: Decimal): OrderTerms {
  const baseRaw = decimalToRaw(amount, market.baseDecimals);
  const quote = quoteRaw(amount, price, market.quoteDecimals);
  return side === "ask"
    ? { fromToken: market.base, toToken: market.quote, fromAmount: baseRaw, toAmount: quote, baseRaw, quoteRaw: quote }
    : { fromToken: market.quote, toToken: market.base, fromAmount: quote, toAmount: baseRaw, baseRaw, quoteRaw: quote };
}

/**
 * The market floors, compared exactly (no flooring): an ask needs
 * qty * 10^base_decimals >= min_ask_amount_raw, a bid needs
 * qty * price * 10^quote_decimals >= min_bid_quote_amount_raw.
 * AMOUNT_BELOW_MIN (400) carries the floor in raw and decimal form.
 */
export function checkFloor(market: MarketInfo, side: Side, amount: Decimal, price: Decimal): void {
  // The quote leg is floored to the quote token's decimals; at zero the contract refuses the
  // order on its first fill (amounts non-zero), so it could never settle.
  if (amount.units * price.units * pow10(market.quoteDecimals) < pow10(amount.scale + price.scale)) {
    throw belowMin(
      `amount * price is below one raw unit of ${market.quoteSymbol} (${market.quoteDecimals} decimals): the order's ${market.quoteSymbol} amount would be 0, which the contract refuses`,
      1n,
      market.quoteDecimals,
    );
  }
  if (side === "ask") {
    // amount.units * 10^bd / 10^scale < min  <=>  amount.units * 10^bd < min * 10^scale
    if (amount.units * pow10(market.baseDecimals) < market.minAskAmountRaw * pow10(amount.scale)) {
      throw belowMin(
        `ask amount is below the market minimum of ${formatRaw(market.minAskAmountRaw, market.baseDecimals)} ${market.baseSymbol}`,
        market.minAskAmountRaw,
        market.baseDecimals,
      );
    }
  } else {
    if (amount.units * price.units * pow10(market.quoteDecimals) < market.minBidQuoteAmountRaw * pow10(amount.scale + price.scale)) {
      throw belowMin(
        `bid value (amount * price) is below the market minimum of ${formatRaw(market.minBidQuoteAmountRaw, market.quoteDecimals)} ${market.quoteSymbol}`,
        market.minBidQuoteAmountRaw,
        market.quoteDecimals,
      );
    }
  }
}

function belowMin(detail: string, minRaw: bigint, decimals: number): ExchangeError {
  return new ExchangeError("AMOUNT_BELOW_MIN", 400, detail, {
    min_amount_raw: minRaw.toString(),
    min_amount: formatRaw(minRaw, decimals),
  });
}

/** What a limit order's signed Order is made of: an order record or an intake result has these. */
export interface LimitOrderFields {
  owner: string;
  expiration: number;
  fromToken: string;
  toToken: string;
  fromAmount: bigint;
  toAmount: bigint;
  uuidInt: bigint;
}

/**
 * The Order message a wallet signs for a limit order. recipient is the zero
 * address (proceeds credit the owner's vault balance) and initialDepositAmount 0
 * (limit orders trade from vault equity). The one place that rule lives.
 */
export function limitOrderMessage(o: LimitOrderFields, feeBps: number): OrderMessage {
  return {
    user: o.owner as Address,
    expiration: BigInt(o.expiration),
    feeBps: BigInt(feeBps),
    recipient: ZERO_ADDRESS,
    fromToken: o.fromToken as Address,
    toToken: o.toToken as Address,
    fromAmount: o.fromAmount,
    toAmount: o.toAmount,
    initialDepositAmount: 0n,
    uuid: o.uuidInt,
  };
}

/** The Order message for a limit order given by its market terms (POST /orders/preview's eip712_order). Addresses lowercase. */
export function buildOrderToSign(p: {
  user: Address;
  market: MarketInfo;
  side: Side;
  amount: Decimal;
  price: Decimal;
  expiration: number;
  uuidInt: bigint;
  feeBps: number;
}): OrderMessage {
  const t = orderTerms(p.market, p.side, p.amount, p.price);
  return limitOrderMessage({ ...t, owner: p.user.toLowerCase(), expiration: p.expiration, uuidInt: p.uuidInt }, p.feeBps);
}

/** Preview's eip712_order: numerics as decimal strings, addresses lowercase. */
export function orderMessageToStrings(m: OrderMessage): Record<string, string> {
  return {
    user: m.user.toLowerCase(),
    expiration: m.expiration.toString(),
    feeBps: m.feeBps.toString(),
    recipient: m.recipient.toLowerCase(),
    fromToken: m.fromToken.toLowerCase(),
    toToken: m.toToken.toLowerCase(),
    fromAmount: m.fromAmount.toString(),
    toAmount: m.toAmount.toString(),
    initialDepositAmount: m.initialDepositAmount.toString(),
    uuid: m.uuid.toString(),
  };
}
