// POST /orders/preview as a pure function: validate a POST /orders body (minus
// the signature) against public market metadata only and return the exact Order
// to sign. POST /orders reuses `validateOrderFields` so both routes reject the
// same input with the same code, in the same order.

import {
  checkPrecision,
  formatDecimal,
  formatUnits,
  mulDecimal,
  parseCanonicalDecimal,
  type Decimal,
} from "./amounts.ts";
import { ExchangeError } from "./errors.ts";
import { checkExpiration } from "./expiration.ts";
import { buildOrderToSign, checkFloor, isSide, orderMessageToStrings, orderTerms, type OrderTerms, type Side } from "./order-terms.ts";
import type { MarketInfo, Registry } from "./registry.ts";
import { ORDER_TYPE, type Address, type OrderMessage } from "./typed-data.ts";
import { checkPreviewUuidInt, checkStandaloneUuidInt, checkVlLegUuidInt, isUuid4, parseUint256 } from "./uuid-int.ts";

export interface PreviewContext {
  registry: Registry;
  nowSec: number;
  /** The CURRENT executor id (GET /health); uuid_int must carry it. */
  executorId: number;
}

export interface ValidatedOrder {
  owner: Address; // lowercase
  side: Side;
  market: MarketInfo;
  amount: Decimal;
  price: Decimal;
  expiration: number;
  orderId: string; // lowercase
  uuidInt: bigint;
  terms: OrderTerms;
  /** The Order the owner must have signed. */
  message: OrderMessage;
  /** True when amount or price was not already in its shortest form ("1.50"). */
  canonicalizationRequired: boolean;
}

/** Position of a VL sibling: its uuid_int must carry the batch's group_id and this leg id. */
export interface VlLegPosition {
  groupId: bigint;
  legId: number;
}

/**
 * Which uuid_int encodings an order body may carry: a standalone order's (POST /orders,
 * /verify-signature), a known VL position's (POST /orders/vl/batch), or, for
 * POST /orders/preview, the standalone one or any VL leg >= 1 of this order_id
 * (uuid-int.ts checkPreviewUuidInt).
 */
export type UuidIntRule = "standalone" | "preview" | VlLegPosition;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The spec: "client_id and fee_bps are not accepted" on POST /orders (and so on preview). */
export const UNACCEPTED_ORDER_FIELDS = ["client_id", "fee_bps"] as const;

const MAX_UINT256 = (1n << 256n) - 1n;

function field(detail: string, name: string): ExchangeError {
  return new ExchangeError("VALIDATION", 400, detail, { field: name });
}

function addressField(body: Record<string, unknown>, name: string): Address {
  const v = body[name];
  if (typeof v !== "string" || !ADDRESS.test(v)) throw field(`${name} must be a 0x-prefixed 20-byte hex address`, name);
  return v.toLowerCase() as Address;
}

/**
 * Validate the fields of a limit-order body. Order of checks (the first failure
 * wins): body shape (owner, side, order_type, addresses, order_id present and
 * well-formed; VALIDATION) → decimal format (amount, then price) → precision →
 * pair / market → floors → expiration → uuid_int.
 *
 * Precision needs the market's grid, so the market is resolved (silently) before
 * precision; when no market exists for the two addresses at all, the precision
 * step is skipped and the pair step reports PAIR_INACTIVE.
 *
 * A body carrying `client_id` or `fee_bps` is refused (VALIDATION) in the shape
 * step. Addresses are accepted in any letter case (checksums are not verified).
 * `rule` says which uuid_int encodings are accepted (default: standalone).
 */
export function validateOrderFields(body: unknown, ctx: PreviewContext, rule: UuidIntRule = "standalone"): ValidatedOrder {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new ExchangeError("VALIDATION", 400, "request body must be a JSON object");
  }
  const b = body as Record<string, unknown>;
  for (const name of UNACCEPTED_ORDER_FIELDS) {
    if (b[name] !== undefined) throw field(`${name} is not accepted`, name);
  }
  const owner = addressField(b, "owner_address");
  if (!isSide(b.side)) throw field("side must be 'bid' or 'ask'", "side");
  const side = b.side;
  if (b.order_type !== "limit") throw field("order_type must be 'limit'", "order_type");
  const fromAddr = addressField(b, "from_address");
  const toAddr = addressField(b, "to_address");
  if (fromAddr === toAddr) throw field("to_address must differ from from_address", "to_address");
  if (!isUuid4(b.order_id)) throw field("order_id must be a UUID version 4", "order_id");
  const orderId = b.order_id.toLowerCase();

  // 1. canonical decimal format
  const amount = parseCanonicalDecimal(b.amount, "amount");
  const price = parseCanonicalDecimal(b.price, "price");

  // 2. precision on the market grid
  const market = ctx.registry.market(fromAddr, toAddr);
  if (market) {
    checkPrecision(amount, market.quantityPrecision, "amount");
    checkPrecision(price, market.tickPrecision, "price");
  }

  // 3. pair: an active market, named base first
  if (!market || !market.active) {
    throw new ExchangeError("PAIR_INACTIVE", 400, "pair is not an active market; see GET /markets");
  }
  if (fromAddr !== market.base || toAddr !== market.quote) {
    throw new ExchangeError(
      "PAIR_INACTIVE",
      400,
      `pair is not an active market in this orientation: from_address must be the base token (${market.baseSymbol}) and to_address the quote token (${market.quoteSymbol}) of ${market.symbol}`,
    );
  }

  // 4. floors
  checkFloor(market, side, amount, price);

  // 5. expiration window
  const expiration = checkExpiration(b.expiration, ctx.nowSec, "expiration");

  // 6. composite id against the current executor id
  const uuidInt = parseUint256(b.uuid_int, "uuid_int");
  if (rule === "standalone") checkStandaloneUuidInt(orderId, uuidInt, ctx.executorId);
  else if (rule === "preview") checkPreviewUuidInt(orderId, uuidInt, ctx.executorId);
  else checkVlLegUuidInt(orderId, uuidInt, ctx.executorId, rule.groupId, rule.legId);

  const terms = orderTerms(market, side, amount, price);
  // The signed Order carries both legs as uint256: a quantity or price so large that a
  // raw leg overflows cannot be signed or settled, so it is a field error here (before
  // any hashing, which would otherwise throw and surface as a 503).
  if (terms.baseRaw > MAX_UINT256) throw field("amount is too large: its raw value exceeds uint256", "amount");
  if (terms.quoteRaw > MAX_UINT256) throw field("amount × price is too large: the raw quote amount exceeds uint256", "price");
  const message = buildOrderToSign({
    user: owner,
    market,
    side,
    amount,
    price,
    expiration,
    uuidInt,
    feeBps: ctx.registry.feeBps,
  });
  return {
    owner,
    side,
    market,
    amount,
    price,
    expiration,
    orderId,
    uuidInt,
    terms,
    message,
    canonicalizationRequired: formatDecimal(amount) !== b.amount || formatDecimal(price) !== b.price,
  };
}

export interface PreviewResponse {
  ok: true;
  symbol: string;
  side: Side;
  normalized_amount: string;
  normalized_price: string;
  amount_step: string;
  price_step: string;
  rounding_mode: "reject_extra_precision";
  canonicalization_required: boolean;
  from_token: string;
  to_token: string;
  from_amount: string;
  to_amount: string;
  notional: string;
  eip712_order: Record<string, string>;
  eip712_types: { Order: { name: string; type: string }[] };
}

/**
 * The 200 body of POST /orders/preview. Failures throw ExchangeError (mapped to
 * {error_code, detail}). A VL leg's own uuid_int (leg_id >= 1) is accepted as a client
 * building a batch sends it, and eip712_order.uuid echoes it.
 */
export function previewOrder(body: unknown, ctx: PreviewContext): PreviewResponse {
  const v = validateOrderFields(body, ctx, "preview");
  return {
    ok: true,
    symbol: v.market.symbol,
    side: v.side,
    normalized_amount: formatDecimal(v.amount),
    normalized_price: formatDecimal(v.price),
    amount_step: formatUnits(1n, v.market.quantityPrecision),
    price_step: formatUnits(1n, v.market.tickPrecision),
    rounding_mode: "reject_extra_precision",
    canonicalization_required: v.canonicalizationRequired,
    from_token: v.terms.fromToken,
    to_token: v.terms.toToken,
    from_amount: v.terms.fromAmount.toString(),
    to_amount: v.terms.toAmount.toString(),
    notional: formatDecimal(mulDecimal(v.amount, v.price)),
    eip712_order: orderMessageToStrings(v.message),
    eip712_types: { Order: ORDER_TYPE.map((m) => ({ name: m.name, type: m.type })) },
  };
}
