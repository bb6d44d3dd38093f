// The POST /orders (and /orders/preview) body of a standalone limit order, as a
// client sends it: the one place tests, benches and helpers build one, so the
// field list and the uuid_int encoding are not repeated at every call site.
import { standaloneUuidInt } from "./uuid-int.ts";

export interface LimitOrderBodyOptions {
  /** Sent as given (the API lowercases; pass a checksummed address to test that). */
  owner: string;
  side: "bid" | "ask";
  /** Decimal strings in the market's units. */
  amount: string;
  price: string;
  /** The market's base and quote token addresses (from_address / to_address). */
  market: { readonly base: string; readonly quote: string };
  /** A uuid4; uuid_int is `uuidInt` when given, else its standalone encoding for `executorId`. */
  orderId: string;
  executorId?: number;
  uuidInt?: string;
  /** Unix seconds. */
  expiration: number;
}

/** (A type alias, so it is assignable to Record<string, unknown> where callers expect a JSON body.) */
export type LimitOrderBody = {
  owner_address: string;
  side: "bid" | "ask";
  amount: string;
  price: string;
  order_type: "limit";
  from_address: string;
  to_address: string;
  order_id: string;
  uuid_int: string;
  expiration: number;
};

export function limitOrderBody(o: LimitOrderBodyOptions): LimitOrderBody {
  if (o.uuidInt === undefined && o.executorId === undefined) throw new TypeError("limitOrderBody needs uuidInt or the executorId to encode it with");
  return {
    owner_address: o.owner,
    side: o.side,
    amount: o.amount,
    price: o.price,
    order_type: "limit",
    from_address: o.market.base,
    to_address: o.market.quote,
    order_id: o.orderId,
    uuid_int: o.uuidInt ?? standaloneUuidInt(o.orderId, o.executorId!).toString(),
    expiration: o.expiration,
  };
}
