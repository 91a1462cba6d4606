import type { FilterDef } from "./dispute-view";
import { FILTERS } from "./dispute-view";
import { parseAsCalendarDate, parseAsDatePreset, parseAsIdentifierList } from "./parsers";

/**
 * The overview's view in the URL: a file-date range and shops, chosen like the grids' filters.
 * Without a range it shows the 90 days up to the user's today; every figure is compared with the
 * period of the same length just before.
 */
export const OVERVIEW_FILTERS: readonly FilterDef[] = FILTERS.chargeback.filter((d) => d.key === "range" || d.key === "from" || d.key === "to" || d.key === "shops");

export const overviewParsers = {
  range: parseAsDatePreset,
  from: parseAsCalendarDate,
  to: parseAsCalendarDate,
  shops: parseAsIdentifierList,
};

export { DEFAULT_PERIOD_DAYS, type Period, periods } from "@/lib/domain/periods";
