// The Order record a POST /swap creates (order_type "swap"), as terms the engine
// turns into its OrderRecord and fills. Choices, since the spec's Order table is
// written for market orders:
//   - market: the direct market of the pair; for a two-hop swap (no direct
//     market) a display pair of the two tokens in canonical orientation (lower
//     address = base), with the token decimals as precisions;
//   - side: ask when the swap spends the base token, bid when it spends the quote;
//   - from_token / to_token: input / output; from_amount / to_amount: the signed
//     bounds maxInputAmount / minOutputAmount; expiration: the Intent deadline;
//   - amount / price: the routed base quantity and quote-per-base of the route
//     (floored onto the market grid), what the swap executes at;
//   - ledger: the Router first pulls initialDepositAmount from the wallet into the
//     vault, then the legs spend route.input from the vault, then it charges the gas
//     (pay_more: in the input token, on top). So acceptance freezes only the vault
//     equity the legs and that gas need beyond the deposit; a deposit larger than
//     the spend (lot dust) stays in the vault as available equity once the swap settles.
import { pow10 } from "./amounts.ts";
import type { Side } from "./order-terms.ts";
import { swapGasCharge, type PreparedSwap } from "./quotes.ts";
import type { IntentGas } from "./swap-intent.ts";
import type { MarketInfo, Registry } from "./registry.ts";

export interface SwapOrderTerms {
  tradeId: string;
  owner: string;
  uuidInt: bigint;
  market: MarketInfo;
  side: Side;
  fromToken: string;
  toToken: string;
  fromAmount: bigint;
  toAmount: bigint;
  expiration: number;
  priceTicks: bigint;
  amountLots: bigint;
  /** Vault equity of the input token to freeze at acceptance. */
  freeze: bigint;
  /** Pulled from the wallet into the vault when the swap's transaction runs. */
  deposit: bigint;
  /** The gas the Router charges (quotes.swapGasCharge). */
  gas: IntentGas;
}

/** The market a swap order displays under: the direct one, or a canonical display pair. */
export function swapMarket(registry: Registry, input: string, output: string): MarketInfo {
  const direct = registry.market(input, output);
  if (direct !== undefined && direct.active) return direct;
  const a = registry.token(input)!;
  const b = registry.token(output)!;
  const [base, quote] = a.address < b.address ? [a, b] : [b, a];
  return {
    symbol: `${base.symbol}/${quote.symbol}`,
    base: base.address,
    quote: quote.address,
    baseSymbol: base.symbol,
    quoteSymbol: quote.symbol,
    baseDecimals: base.decimals,
    quoteDecimals: quote.decimals,
    tickPrecision: Math.max(quote.decimals, 8),
    quantityPrecision: base.decimals,
    minAskAmountRaw: 0n,
    minBidQuoteAmountRaw: 0n,
    active: true,
    reoriented: false,
  };
}

export function swapOrderTerms(p: PreparedSwap, registry: Registry): SwapOrderTerms {
  const i = p.quote.intent;
  const market = swapMarket(registry, i.inputToken, i.outputToken);
  const side: Side = i.inputToken === market.base ? "ask" : "bid";
  const baseRaw = side === "ask" ? p.route.input : p.route.output;
  const quoteRaw = side === "ask" ? p.route.output : p.route.input;
  const lotUnit = pow10(market.baseDecimals - market.quantityPrecision);
  // price = (quoteRaw / 10^qd) / (baseRaw / 10^bd), in ticks of 10^-tickPrecision, floored.
  const priceTicks = baseRaw === 0n ? 0n : (quoteRaw * pow10(market.tickPrecision + market.baseDecimals)) / (baseRaw * pow10(market.quoteDecimals));
  const deposit = i.initialDepositAmount;
  const gas = swapGasCharge(p.quote);
  // pay_more: the gas is spent from the input token's equity too, on top of the route.
  const spend = p.route.input + (gas.token === i.inputToken ? gas.amount : 0n);
  return {
    tradeId: p.quote.tradeId,
    owner: p.quote.owner,
    uuidInt: i.uuid,
    market,
    side,
    fromToken: i.inputToken,
    toToken: i.outputToken,
    fromAmount: i.maxInputAmount,
    toAmount: i.minOutputAmount,
    expiration: Number(i.deadline),
    priceTicks,
    amountLots: baseRaw / lotUnit,
    freeze: spend > deposit ? spend - deposit : 0n,
    deposit,
    gas,
  };
}
