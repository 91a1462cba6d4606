import { addDays, daysBetween } from "@/lib/domain/deadlines";
import type { FilterDef } from "./dispute-view";
import { FILTERS } from "./dispute-view";
import { parseAsCalendarDate, parseAsIdentifierList } from "./parsers";

/**
 * The overview's view in the URL: a file-date range and shops, chosen like the grids' filters.
 * Without a range it shows the 90 days up to the user's today; every figure is compared with the
 * period of the same length just before.
 */
export const OVERVIEW_FILTERS: readonly FilterDef[] = FILTERS.chargeback.filter((d) => d.key === "from" || d.key === "to" || d.key === "shops");

export const overviewParsers = {
  from: parseAsCalendarDate,
  to: parseAsCalendarDate,
  shops: parseAsIdentifierList,
};

export const DEFAULT_PERIOD_DAYS = 90;

export interface Period {
  from: string;
  to: string;
  days: number;
}

/** The chosen period (or the default one) and the one of the same length before it. */
export function periods(view: { from?: string | null; to?: string | null }, today: string): { current: Period; previous: Period } {
  const to = view.to ?? (view.from && view.from > today ? addDays(view.from, DEFAULT_PERIOD_DAYS - 1)! : today);
  const from = view.from ?? addDays(to, -(DEFAULT_PERIOD_DAYS - 1))!;
  const days = (daysBetween(from, to) ?? 0) + 1;
  return { current: { from, to, days }, previous: { from: addDays(from, -days)!, to: addDays(from, -1)!, days } };
}
