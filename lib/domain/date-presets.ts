import { addDays, lastDayOfMonth, shiftMonth } from "./calendar";

/**
 * The file-date presets next to every file-date range (docs/architecture.md, "Date presets"):
 * named ranges counted in the user's calendar from "today", both ends inclusive, every one ending
 * today or earlier. A view keeps the preset's slug, not its dates, so a saved or shared
 * "Last 30 days" moves with the calendar.
 */

export const DATE_PRESETS = [
  { slug: "today", label: "Today" },
  { slug: "yesterday", label: "Yesterday" },
  { slug: "last-7-days", label: "Last 7 days" },
  { slug: "last-30-days", label: "Last 30 days" },
  { slug: "this-month", label: "This month" },
  { slug: "last-month", label: "Last month" },
  { slug: "this-quarter", label: "This quarter" },
  { slug: "last-quarter", label: "Last quarter" },
  { slug: "year-to-date", label: "Year to date" },
  { slug: "last-12-months", label: "Last 12 months" },
] as const;

export type DatePreset = (typeof DATE_PRESETS)[number]["slug"];

export interface DateRange {
  from: string;
  to: string;
}

const BY_SLUG = new Map<string, DatePreset>(DATE_PRESETS.map((p) => [p.slug, p.slug]));
const BY_LABEL = new Map<string, DatePreset>(DATE_PRESETS.map((p) => [p.label.toLowerCase(), p.slug]));

/** The preset a URL value names: its slug ("last-30-days") or its name ("Last 30 days", any case). */
export function parseDatePreset(value: string): DatePreset | null {
  return BY_SLUG.get(value) ?? BY_LABEL.get(value.trim().toLowerCase()) ?? null;
}

export function presetLabel(preset: DatePreset): string {
  return DATE_PRESETS.find((p) => p.slug === preset)!.label;
}

/** The first month ("YYYY-MM") of the quarter a month belongs to. */
function quarterStart(month: string): string {
  const m = Number(month.slice(5, 7));
  return `${month.slice(0, 4)}-${String(m - ((m - 1) % 3)).padStart(2, "0")}`;
}

/**
 * The dates a preset stands for on `today` ("YYYY-MM-DD" in the user's calendar); undefined only
 * where the range would begin before the year 0001.
 */
export function presetRange(preset: DatePreset, today: string): DateRange | undefined {
  const month = today.slice(0, 7);
  const range = (from: string | undefined, to: string | undefined) => (from === undefined || to === undefined ? undefined : { from, to });
  switch (preset) {
    case "today":
      return { from: today, to: today };
    case "yesterday": {
      const day = addDays(today, -1);
      return range(day, day);
    }
    case "last-7-days":
      return range(addDays(today, -6), today);
    case "last-30-days":
      return range(addDays(today, -29), today);
    case "this-month":
      return { from: `${month}-01`, to: today };
    case "last-month": {
      const previous = shiftMonth(month, -1);
      return previous === undefined ? undefined : { from: `${previous}-01`, to: lastDayOfMonth(previous) };
    }
    case "this-quarter":
      return { from: `${quarterStart(month)}-01`, to: today };
    case "last-quarter": {
      const start = shiftMonth(quarterStart(month), -3);
      return start === undefined ? undefined : { from: `${start}-01`, to: lastDayOfMonth(shiftMonth(start, 2)!) };
    }
    case "year-to-date":
      return { from: `${today.slice(0, 4)}-01-01`, to: today };
    case "last-12-months": {
      // The day after the same date a year earlier (29 February: the day after 28 February).
      const yearAgo = shiftMonth(month, -12);
      if (yearAgo === undefined) return undefined;
      const last = lastDayOfMonth(yearAgo);
      const sameDate = `${yearAgo}-${today.slice(8, 10)}`;
      return range(addDays(sameDate > last ? last : sameDate, 1), today);
    }
  }
}
