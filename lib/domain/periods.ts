import { addDays, daysBetween, shiftMonth } from "./calendar";

/**
 * The overview's periods: a file-date range and the range of the same length just before it,
 * against which every figure is compared. Shared by the page (its URL state) and the API.
 */

export const DEFAULT_PERIOD_DAYS = 90;

/** The first day a date filter accepts. */
const FIRST_DAY = "0001-01-01";

export interface Period {
  from: string;
  to: string;
  days: number;
}

/**
 * The chosen period (or, without dates, the DEFAULT_PERIOD_DAYS up to `today`) and the one of the
 * same length before it; undefined when that one would begin before 0001-01-01.
 */
export function periods(view: { from?: string | null; to?: string | null }, today: string): { current: Period; previous: Period } | undefined {
  const to = view.to ?? (view.from && view.from > today ? addDays(view.from, DEFAULT_PERIOD_DAYS - 1) : today);
  const from = view.from ?? (to === undefined ? undefined : addDays(to, -(DEFAULT_PERIOD_DAYS - 1)));
  if (from === undefined || to === undefined) return undefined;
  const days = (daysBetween(from, to) ?? 0) + 1;
  const [previousFrom, previousTo] = [addDays(from, -days), addDays(from, -1)];
  // addDays goes below year 1 (to "0000-12-31"), which no date filter accepts and PostgreSQL refuses.
  if (previousFrom === undefined || previousTo === undefined || previousFrom < FIRST_DAY) return undefined;
  return { current: { from, to, days }, previous: { from: previousFrom, to: previousTo, days } };
}

/** The months ("YYYY-MM") a period touches, in order. */
export function monthsOf(p: Period): string[] {
  const out: string[] = [];
  const last = p.to.slice(0, 7);
  for (let month: string | undefined = p.from.slice(0, 7); month !== undefined && month <= last; month = shiftMonth(month, 1)) out.push(month);
  return out;
}

/** Mastercard's Excessive Chargeback Program floors, in chargebacks a month per merchant. */
export const ECP_FLOORS = { excessive: 100, highExcessive: 300 } as const;
