// Cancelling orders: POST /orders/cancel, DELETE /orders/cancel-all and
// POST /orders/vl/cancel, and the per-order cancel cooldown they share. Every
// check runs before the first cancel, so a rejected command changes nothing.
// The engine supplies the records and performs the cancel itself (status move,
// reservation release, event) through CancelHost.
import { ExchangeError, notFound } from "./errors.ts";
import type { OrderRecord } from "./orders.ts";
import { parseUint256 } from "./uuid-int.ts";
import type { VlBatchRecord } from "./vl.ts";

export const DEFAULT_CANCEL_COOLDOWN_SEC = 300;

/**
 * Why an order was cancelled (the order_cancel event's reason). vault_withdrawn: the
 * engine's own cancel of an order whose funds an emergency withdrawal took (Engine.coverVaultDebts).
 */
export type CancelReason = "user" | "cancel_all" | "vl_cancel" | "quota_exceeded" | "agent_requote" | "vault_withdrawn";

export interface CancelAllResult {
  cancelled: string[];
  failed: string[];
  skipped_cooldown: string[];
  total: number;
}

/** What the cancel commands read from, and do through, the engine. */
export interface CancelHost {
  /** Per-order cooldown from creation, seconds (0 disables). */
  readonly cancelCooldownSec: number;
  nowMs(): number;
  /** Order by id as stored (lowercase). */
  order(id: string): OrderRecord | undefined;
  /** An owner's orders in placement order (owner lowercase). */
  ordersOf(owner: string): readonly OrderRecord[];
  vlBatch(id: string): VlBatchRecord | undefined;
  /** Cancel a pending order now (no checks). */
  cancelNow(o: OrderRecord, reason: CancelReason): void;
}

/** Whole seconds left of the order's cancel cooldown (counted from creation on the virtual clock); 0 when over. */
export function cooldownLeftSec(o: Readonly<OrderRecord>, cooldownSec: number, nowMs: number): number {
  const left = o.createdAt.ms + cooldownSec * 1000 - nowMs;
  return left > 0 ? Math.ceil(left / 1000) : 0;
}

function ownedOrder(host: CancelHost, owner: string, orderId: unknown): OrderRecord {
  if (typeof orderId !== "string") throw new ExchangeError("VALIDATION", 400, "order_id must be a string");
  const o = host.order(orderId.toLowerCase());
  if (!o) throw notFound(`order ${orderId} not found`);
  if (o.owner !== owner.toLowerCase()) throw new ExchangeError("FORBIDDEN", 403, "order belongs to another owner");
  return o;
}

/** POST /orders/cancel (signature over CancelOrder verified by the caller). */
export function cancelOrder(host: CancelHost, p: { owner: string; orderId: unknown; uuidInt: unknown }): { status: "ok" } {
  const o = ownedOrder(host, p.owner, p.orderId);
  const uuidInt = parseUint256(p.uuidInt, "uuid_int");
  if (uuidInt !== o.uuidInt) throw new ExchangeError("UUID_INT_MISMATCH", 400, "uuid_int is not the composite id of this order");
  if (o.status !== "pending") throw new ExchangeError("CONFLICT", 409, `order is ${o.status}; only pending orders can be cancelled`);
  const left = cooldownLeftSec(o, host.cancelCooldownSec, host.nowMs());
  if (left > 0) {
    throw new ExchangeError("CANCEL_COOLDOWN", 429, `order is inside its cancel cooldown; retry in ${left} s`, { retry_after: left });
  }
  host.cancelNow(o, "user");
  return { status: "ok" };
}

/** DELETE /orders/cancel-all: every pending order past its cooldown; the others are listed as skipped. */
export function cancelAll(host: CancelHost, owner: string): CancelAllResult {
  const out: CancelAllResult = { cancelled: [], failed: [], skipped_cooldown: [], total: 0 };
  for (const o of host.ordersOf(owner.toLowerCase())) {
    if (o.status !== "pending") continue;
    if (cooldownLeftSec(o, host.cancelCooldownSec, host.nowMs()) > 0) out.skipped_cooldown.push(o.id);
    else {
      host.cancelNow(o, "cancel_all");
      out.cancelled.push(o.id);
    }
  }
  out.total = out.cancelled.length;
  return out;
}

/** POST /orders/vl/cancel: every pending leg, or 429 (nothing changes) if any is in its cooldown. */
export function cancelVlBatch(host: CancelHost, p: { owner: string; vlBatchId: unknown }): { status: "ok" } {
  if (typeof p.vlBatchId !== "string") throw new ExchangeError("VALIDATION", 400, "vl_batch_id must be a string");
  const b = host.vlBatch(p.vlBatchId.toLowerCase());
  if (!b) throw notFound(`VL batch ${p.vlBatchId} not found`);
  if (b.owner !== p.owner.toLowerCase()) throw new ExchangeError("FORBIDDEN", 403, "VL batch belongs to another owner");
  const open = b.legIds.map((id) => host.order(id)!).filter((o) => o.status === "pending");
  const wait = Math.max(0, ...open.map((o) => cooldownLeftSec(o, host.cancelCooldownSec, host.nowMs())));
  if (wait > 0) throw new ExchangeError("CANCEL_COOLDOWN", 429, `a leg is inside its cancel cooldown; retry in ${wait} s`, { retry_after: wait });
  for (const o of open) host.cancelNow(o, "vl_cancel");
  return { status: "ok" };
}
