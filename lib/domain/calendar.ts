/**
 * Calendar dates as the product uses them: "YYYY-MM-DD" strings of the years 0001 to 9999, with
 * no time of day and no time zone, and "YYYY-MM" months. Every date calculation of the product
 * (answer-by and expiry dates, periods, presets, summaries' months, demo files) goes through here.
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;
const pad = (n: number, width: number) => String(n).padStart(width, "0");

/** Days since 1970-01-01 of a real calendar date (years 0001 to 9999); undefined for anything else. */
export function dayNumber(date: string): number | undefined {
  const m = DATE.exec(date);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0 to 99 as 1900 to 1999.
  const at = new Date(0);
  at.setUTCFullYear(y, mo - 1, d);
  if (y < 1 || at.getUTCFullYear() !== y || at.getUTCMonth() !== mo - 1 || at.getUTCDate() !== d) return undefined;
  return at.getTime() / DAY_MS;
}

/** The calendar date of a day number: dateOfDay(dayNumber(x)) === x. Before year 1 it sorts below "0001-01-01". */
export function dateOfDay(day: number): string {
  const at = new Date(day * DAY_MS);
  return `${pad(at.getUTCFullYear(), 4)}-${pad(at.getUTCMonth() + 1, 2)}-${pad(at.getUTCDate(), 2)}`;
}

/** "2026-01-30" + 3 -> "2026-02-02"; undefined for a date that is not a real calendar date. */
export function addDays(date: string, n: number): string | undefined {
  const day = dayNumber(date);
  return day === undefined ? undefined : dateOfDay(day + n);
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number | undefined {
  const a = dayNumber(from);
  const b = dayNumber(to);
  return a === undefined || b === undefined ? undefined : b - a;
}

/** Today's calendar date where the user is: deadlines are days in the merchant's own time zone. */
export function localToday(now = new Date()): string {
  return `${pad(now.getFullYear(), 4)}-${pad(now.getMonth() + 1, 2)}-${pad(now.getDate(), 2)}`;
}

/** Today's calendar date in UTC: the server's date, where no user's is known. */
export function utcToday(now = new Date()): string {
  return dateOfDay(Math.floor(now.getTime() / DAY_MS));
}

/** The month after (+1) or before (-1) "YYYY-MM"; undefined outside the years 0001 to 9999. */
export function shiftMonth(month: string, by: number): string | undefined {
  const [y, m] = month.split("-").map(Number);
  const index = y * 12 + (m - 1) + by;
  const year = Math.floor(index / 12);
  return year < 1 || year > 9999 ? undefined : `${pad(year, 4)}-${pad((index % 12) + 1, 2)}`;
}

/** The last day of a month "YYYY-MM" as "YYYY-MM-DD". */
export function lastDayOfMonth(month: string): string {
  const [y, m] = month.split("-").map(Number);
  const at = new Date(0);
  at.setUTCFullYear(y, m, 0);
  return `${month}-${pad(at.getUTCDate(), 2)}`;
}
