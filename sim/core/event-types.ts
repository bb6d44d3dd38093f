// Every type of event the engine writes to its log, in the order a run meets them. The
// control API's event pages filter by these names (an unknown one is refused, not an
// empty page), and the run viewer's timeline offers them; a test keeps this list equal
// to the types the sources append.
export const EVENT_TYPES = [
  "order_placed",
  "fill",
  "order_cancel",
  "order_status",
  "vl_batch",
  "swap_accepted",
  "swap_settled",
  "settlement_broadcast",
  "settlement_receipt",
  "fill_status",
  "deposit",
  "withdrawal",
  "withdraw_hold",
  "withdraw_hold_released",
  "withdrawal_debt_paid",
  "executor_changed",
  "fault_plan",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

const KNOWN: ReadonlySet<string> = new Set(EVENT_TYPES);

export function isEventType(s: string): s is EventType {
  return KNOWN.has(s);
}
