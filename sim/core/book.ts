// Resting orders of one market, price-time priority. Levels are kept in a
// sorted array with the best level LAST, so the hot path (peek / drop the best
// level) is O(1); finding an order's level is a binary search over the levels
// (cheaper than hashing a bigint price), and a new level costs one splice.
// Removal is lazy: a cancelled or filled order clears `inBook` and is skipped.
import type { OrderRecord } from "./orders.ts";

export class PriceLevel {
  readonly ticks: bigint;
  readonly orders: OrderRecord[] = [];
  /** Index of the first entry that may still be live (FIFO head). */
  head = 0;

  constructor(ticks: bigint) {
    this.ticks = ticks;
  }

  /** Drop dead entries at the head; true when the level has a live order. */
  settleHead(): boolean {
    const orders = this.orders;
    let h = this.head;
    while (h < orders.length && !orders[h]!.inBook) h++;
    if (h > 64 && h * 2 > orders.length) {
      orders.splice(0, h);
      h = 0;
    }
    this.head = h;
    return h < orders.length;
  }

  liveOrders(): OrderRecord[] {
    const out: OrderRecord[] = [];
    for (let i = this.head; i < this.orders.length; i++) if (this.orders[i]!.inBook) out.push(this.orders[i]!);
    return out;
  }
}

export class BookSide {
  /** Sorted so the best price is last: bids ascending, asks descending. */
  private readonly levels: PriceLevel[] = [];
  readonly isBid: boolean;

  constructor(isBid: boolean) {
    this.isBid = isBid;
  }

  add(order: OrderRecord): void {
    const levels = this.levels;
    const t = order.priceTicks;
    // The first level that does not sort before the price (worse prices come first): its level, or where it goes.
    let lo = 0;
    let hi = levels.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const m = levels[mid]!.ticks;
      if (this.isBid ? m < t : m > t) lo = mid + 1;
      else hi = mid;
    }
    let level = levels[lo];
    if (level === undefined || level.ticks !== t) {
      level = new PriceLevel(t);
      if (lo === levels.length) levels.push(level);
      else levels.splice(lo, 0, level);
    }
    level.orders.push(order);
    order.inBook = true;
  }

  /** The best level with at least one live order, dropping exhausted levels on the way. */
  best(): PriceLevel | undefined {
    const levels = this.levels;
    while (levels.length > 0) {
      const top = levels[levels.length - 1]!;
      if (top.settleHead()) return top;
      levels.pop();
    }
    return undefined;
  }

  /** Levels best-first (live orders only); for depth views and tests, not the hot path. */
  depth(): { ticks: bigint; orders: OrderRecord[] }[] {
    const out: { ticks: bigint; orders: OrderRecord[] }[] = [];
    for (let i = this.levels.length - 1; i >= 0; i--) {
      const lvl = this.levels[i]!;
      const live = lvl.liveOrders();
      if (live.length > 0) out.push({ ticks: lvl.ticks, orders: live });
    }
    return out;
  }

  /** Levels best-first including ones that only hold dead entries (walked by the matcher). */
  levelAt(indexFromBest: number): PriceLevel | undefined {
    return this.levels[this.levels.length - 1 - indexFromBest];
  }

  get levelCount(): number {
    return this.levels.length;
  }
}

export class MarketBook {
  readonly bids = new BookSide(true);
  readonly asks = new BookSide(false);

  /** The side a new order of `side` rests on. */
  restingSide(side: "bid" | "ask"): BookSide {
    return side === "bid" ? this.bids : this.asks;
  }

  /** The side a new order of `side` matches against. */
  oppositeSide(side: "bid" | "ask"): BookSide {
    return side === "bid" ? this.asks : this.bids;
  }
}
