import { describe, expect, it } from "vitest";
import { ExchangeError } from "../../sim/core/errors.ts";
import { Ledger } from "../../sim/core/ledger.ts";
import { canTransition } from "../../sim/core/orders.ts";
import { canMoveFill } from "../../sim/core/fills.ts";

describe("ledger", () => {
  it("peek returns a copy: later moves do not change it, and changing it does not move the ledger", () => {
    const l = new Ledger();
    l.credit("a", "t", 100n);
    const seen = l.peek("a", "t");
    l.freeze("a", "t", 30n);
    expect(seen).toEqual({ available: 100n, frozen: 0n });
    seen.available = 0n;
    expect(l.peek("a", "t")).toEqual({ available: 70n, frozen: 30n });
    expect(l.available("a", "t")).toBe(70n);
    // An unknown account reads as zero and is not created.
    expect(l.peek("b", "t")).toEqual({ available: 0n, frozen: 0n });
    expect(l.rows().some((r) => r.owner === "b")).toBe(false);
  });

  it("freeze / release / burn keep available and frozen non-negative", () => {
    const l = new Ledger();
    l.credit("a", "t", 100n);
    l.freeze("a", "t", 60n);
    expect(l.peek("a", "t")).toEqual({ available: 40n, frozen: 60n });
    try {
      l.freeze("a", "t", 41n);
      throw new Error("froze more than available");
    } catch (e) {
      expect([(e as ExchangeError).status, (e as ExchangeError).code]).toEqual([400, "INSUFFICIENT_EQUITY"]);
    }
    l.release("a", "t", 10n);
    l.burnFrozen("a", "t", 50n);
    expect(l.peek("a", "t")).toEqual({ available: 50n, frozen: 0n });
    expect(() => l.release("a", "t", 1n)).toThrow(RangeError);
    expect(() => l.burnFrozen("a", "t", 1n)).toThrow(RangeError);
    expect(() => l.debitAvailable("a", "t", 51n)).toThrow(ExchangeError);
    expect(l.totalsByToken().get("t")).toBe(50n);
    const snap = l.snapshot();
    l.credit("b", "t", 5n);
    l.restore(snap);
    expect(l.rows()).toEqual([{ owner: "a", token: "t", available: 50n, frozen: 0n }]);
  });
});

describe("ledger guards and the last-account memo", () => {
  it("refuses negative credits and debits without moving anything", () => {
    const l = new Ledger();
    l.credit("a", "t", 100n);
    expect(() => l.credit("a", "t", -1n)).toThrow(RangeError);
    // A negative debit would mint equity: it is refused like an overdraft.
    expect(() => l.debitAvailable("a", "t", -5n)).toThrow(ExchangeError);
    expect(l.peek("a", "t")).toEqual({ available: 100n, frozen: 0n });
  });

  it("reads each owner's own account, whichever owner or token was touched last", () => {
    const l = new Ledger();
    l.credit("a", "t", 100n);
    l.credit("a", "u", 7n);
    expect(l.available("b", "t")).toBe(0n);
    expect(l.available("a", "t")).toBe(100n);
    l.credit("b", "u", 3n);
    expect(l.available("a", "u")).toBe(7n);
    expect(l.available("b", "t")).toBe(0n);
    expect(l.available("b", "u")).toBe(3n);
  });

  it("restore replaces the account last touched too: no write lands in a dropped account", () => {
    const l = new Ledger();
    l.credit("a", "t", 100n);
    const snap = l.snapshot();
    l.freeze("a", "t", 40n);
    l.restore(snap);
    expect(l.peek("a", "t")).toEqual({ available: 100n, frozen: 0n });
    l.freeze("a", "t", 10n);
    expect(l.rows()).toEqual([{ owner: "a", token: "t", available: 90n, frozen: 10n }]);
  });
});

describe("status machines", () => {
  it("orders move only along the spec's table: every one of the 25 pairs", () => {
    const statuses = ["pending", "matched", "settled", "failed", "cancelled"] as const;
    const allowed = new Set(["pending→matched", "pending→cancelled", "matched→settled", "matched→failed"]);
    for (const from of statuses) {
      for (const to of statuses) expect(canTransition(from, to), `${from}→${to}`).toBe(allowed.has(`${from}→${to}`));
    }
  });

  it("fills move only pending → confirming | failed and confirming → settled | reverted | failed: every one of the 25 pairs", () => {
    const statuses = ["pending", "confirming", "settled", "failed", "reverted"] as const;
    const allowed = new Set(["pending→confirming", "pending→failed", "confirming→settled", "confirming→reverted", "confirming→failed"]);
    for (const from of statuses) {
      for (const to of statuses) expect(canMoveFill(from, to), `${from}→${to}`).toBe(allowed.has(`${from}→${to}`));
    }
  });

  it("fills: pending → confirming → settled | reverted | failed", () => {
    expect(canMoveFill("pending", "confirming")).toBe(true);
    expect(canMoveFill("confirming", "settled")).toBe(true);
    expect(canMoveFill("confirming", "reverted")).toBe(true);
    expect(canMoveFill("confirming", "failed")).toBe(true);
    expect(canMoveFill("pending", "settled")).toBe(false);
    expect(canMoveFill("settled", "reverted")).toBe(false);
  });
});
