// The fault plan: which settlements revert, with what reason, which fills get a
// positive spread, how many blocks a confirmation takes. Plain data, so it can
// be loaded from a scenario file; choices "under the seed" draw from the
// engine's Rng, so a plan plus a seed replays identically.
import { ExchangeError } from "./errors.ts";

export interface FaultPlan {
  /** Revert these fills (by fill id, 1-based in execution order) with a reason. */
  revertFills?: { fill: number; reason: string }[];
  /**
   * Revert the nth settlement batch (1-based, in broadcast order). mode "legs":
   * every match reverts inside a successful transaction (fills → reverted);
   * "batch": the transaction itself fails (fills → failed).
   */
  revertSettlements?: { nth: number; reason: string; mode?: "legs" | "batch" }[];
  /** Each fill reverts with this probability, drawn from the seeded Rng at broadcast. */
  revertFraction?: { fraction: number; reason: string };
  /**
   * Maker price improvement: with probability `rate`, a taker bid that crosses
   * below its limit gives `sizeBps` of the fill's quote amount on top (capped by
   * what its signed price allows); the contract splits that spread 25/25/50.
   */
  spreadFills?: { rate: number; sizeBps: number };
  /** Blocks between a batch's inclusion and the engine treating it as confirmed. */
  confirmationDelayBlocks?: number;
  /**
   * Swap pricing time-outs: batch quote items at these 0-based positions answer
   * quote_timeout; `fraction` of items (and of single quotes, as 503) under the seed.
   */
  quoteTimeouts?: { items?: number[]; fraction?: number };
}

/** Blocks a confirmation may wait at most: settling everything mines them (Anvil mines ~2,000 empty blocks a second; a day of 12 s blocks is 7,200). */
export const MAX_CONFIRMATION_DELAY = 10_000;

function bad(detail: string): ExchangeError {
  return new ExchangeError("VALIDATION", 422, `fault plan: ${detail}`);
}

/** A misspelt key would silently change the fault (a `mdoe: "batch"` revert runs as legs), so every level refuses unknown ones. */
function onlyKeys(o: Record<string, unknown>, allowed: readonly string[], where: string): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) throw bad(`unknown key ${where}.${k}`);
}

const isProb = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x) && x >= 0 && x <= 1;
const isReason = (x: unknown): x is string => typeof x === "string" && x.length > 0 && x.length <= 256;

/** Check a plan loaded from JSON; returns a normalised copy. */
export function parseFaultPlan(input: unknown): FaultPlan {
  if (input === null || typeof input !== "object" || Array.isArray(input)) throw bad("must be an object");
  const p = input as Record<string, unknown>;
  const known = new Set(["revertFills", "revertSettlements", "revertFraction", "spreadFills", "confirmationDelayBlocks", "quoteTimeouts"]);
  for (const k of Object.keys(p)) if (!known.has(k)) throw bad(`unknown key ${k}`);
  const out: FaultPlan = {};
  if (p.revertFills !== undefined) {
    if (!Array.isArray(p.revertFills)) throw bad("revertFills must be an array");
    out.revertFills = p.revertFills.map((r: unknown, i) => {
      const o = r as Record<string, unknown>;
      if (!o || !Number.isSafeInteger(o.fill) || (o.fill as number) < 1 || !isReason(o.reason)) {
        throw bad(`revertFills[${i}] needs fill (integer >= 1) and reason (non-empty string)`);
      }
      onlyKeys(o, ["fill", "reason"], `revertFills[${i}]`);
      return { fill: o.fill as number, reason: o.reason };
    });
  }
  if (p.revertSettlements !== undefined) {
    if (!Array.isArray(p.revertSettlements)) throw bad("revertSettlements must be an array");
    out.revertSettlements = p.revertSettlements.map((r: unknown, i) => {
      const o = r as Record<string, unknown>;
      if (!o || !Number.isSafeInteger(o.nth) || (o.nth as number) < 1 || !isReason(o.reason)) {
        throw bad(`revertSettlements[${i}] needs nth (integer >= 1) and reason`);
      }
      onlyKeys(o, ["nth", "reason", "mode"], `revertSettlements[${i}]`);
      if (o.mode !== undefined && o.mode !== "legs" && o.mode !== "batch") throw bad(`revertSettlements[${i}].mode must be legs or batch`);
      return { nth: o.nth as number, reason: o.reason, mode: (o.mode as "legs" | "batch" | undefined) ?? "legs" };
    });
  }
  if (p.revertFraction !== undefined) {
    const o = p.revertFraction as Record<string, unknown>;
    if (!o || !isProb(o.fraction) || !isReason(o.reason)) throw bad("revertFraction needs fraction in [0,1] and reason");
    onlyKeys(o, ["fraction", "reason"], "revertFraction");
    out.revertFraction = { fraction: o.fraction, reason: o.reason };
  }
  if (p.spreadFills !== undefined) {
    const o = p.spreadFills as Record<string, unknown>;
    if (!o || !isProb(o.rate) || !Number.isSafeInteger(o.sizeBps) || (o.sizeBps as number) < 1 || (o.sizeBps as number) > 10_000) {
      throw bad("spreadFills needs rate in [0,1] and sizeBps an integer 1-10000");
    }
    onlyKeys(o, ["rate", "sizeBps"], "spreadFills");
    out.spreadFills = { rate: o.rate, sizeBps: o.sizeBps as number };
  }
  if (p.confirmationDelayBlocks !== undefined) {
    if (!Number.isSafeInteger(p.confirmationDelayBlocks) || (p.confirmationDelayBlocks as number) < 0 || (p.confirmationDelayBlocks as number) > MAX_CONFIRMATION_DELAY) {
      throw bad(`confirmationDelayBlocks must be an integer from 0 to ${MAX_CONFIRMATION_DELAY}`);
    }
    out.confirmationDelayBlocks = p.confirmationDelayBlocks as number;
  }
  if (p.quoteTimeouts !== undefined) {
    const o = p.quoteTimeouts as Record<string, unknown>;
    if (!o || typeof o !== "object" || Array.isArray(o)) throw bad("quoteTimeouts must be an object");
    onlyKeys(o, ["items", "fraction"], "quoteTimeouts");
    const qt: { items?: number[]; fraction?: number } = {};
    if (o.items !== undefined) {
      if (!Array.isArray(o.items) || !o.items.every((i) => Number.isSafeInteger(i) && (i as number) >= 0)) {
        throw bad("quoteTimeouts.items must be an array of non-negative integers");
      }
      qt.items = (o.items as number[]).slice();
    }
    if (o.fraction !== undefined) {
      if (!isProb(o.fraction)) throw bad("quoteTimeouts.fraction must be in [0,1]");
      qt.fraction = o.fraction;
    }
    out.quoteTimeouts = qt;
  }
  return out;
}

/** What the plan asks of one settlement batch about to be broadcast. */
export interface BatchFaults {
  atomic: boolean;
  /** Match index → revert reason to install with the fault hook. */
  reverts: Map<number, string>;
}
