// Time bounds in query strings (GET /orders' created_/updated_ after/before, the journal's
// since): ISO 8601 or Unix seconds, read the same on every machine. A date-time without a
// zone is UTC (server times are UTC; Date.parse would read it as the machine's local time).

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?(?:Z|[+-]\d{2}:?\d{2})?$/i;
const TIMESTAMP = /^\d{1,12}(?:\.\d{1,9})?$/;

/**
 * Half a millisecond when the written seconds have digits past the millisecond: times are
 * whole milliseconds, so it stands for any such fraction (a bound 1 ns after an order's
 * millisecond is after that order), and a double keeps it at this magnitude.
 */
function pastMillisecond(s: string): number {
  const fraction = /\.(\d+)/.exec(s)?.[1] ?? "";
  return /[1-9]/.test(fraction.slice(3)) ? 0.5 : 0;
}

/** A calendar day the month has (Date.parse rolls 02-31 over to 03-03). */
function realDay(y: number, month: number, d: number): boolean {
  // setUTCFullYear, not Date.UTC: that maps years 0-99 to 1900-1999.
  const day = new Date(0);
  day.setUTCFullYear(y, month - 1, d);
  return day.getUTCFullYear() === y && day.getUTCMonth() === month - 1 && day.getUTCDate() === d;
}

/** ISO 8601 (a date, or a date and time; `T` or a space) or Unix seconds → epoch milliseconds (possibly fractional); null when neither. */
export function instantMs(s: string): number | null {
  if (TIMESTAMP.test(s)) {
    const [whole, fraction = ""] = s.split(".");
    return Number(whole) * 1000 + Number(fraction.slice(0, 3).padEnd(3, "0")) + pastMillisecond(s);
  }
  if (ISO_DATE.test(s)) {
    const hasZone = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(s) || s.length === 10;
    const ms = Date.parse(hasZone ? s.replace(" ", "T") : `${s.replace(" ", "T")}Z`);
    const [y, month, d] = s.slice(0, 10).split("-").map(Number) as [number, number, number];
    if (!Number.isNaN(ms) && realDay(y, month, d)) return ms + pastMillisecond(s);
  }
  return null;
}
