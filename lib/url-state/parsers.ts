import { createParser } from "nuqs/server";
import { type DatePreset, parseDatePreset } from "@/lib/domain/date-presets";
import { isCalendarDate, LIMITS } from "@/lib/schemas/search";

/**
 * Strict parsers of URL values, shared by every view that lives in the URL (the dispute grids,
 * the worklist, the overview): a value that is not exactly valid (page=abc, size=5,
 * from=2026-02-30) is treated as absent, never coerced into something nearby.
 */

export const parseAsCalendarDate = createParser({
  parse: (value: string) => (isCalendarDate(value) ? value : null),
  serialize: (value: string) => value,
});

/** A file-date preset by its slug (or its name, as a person might type it): lib/domain/date-presets.ts. */
export const parseAsDatePreset = createParser<DatePreset>({
  parse: (value: string) => parseDatePreset(value),
  serialize: (value: DatePreset) => value,
});

export function parseAsIntegerIn(min: number, max: number) {
  return createParser({
    parse: (value: string) => {
      if (!/^\d{1,7}$/.test(value)) return null;
      const n = Number(value);
      return n >= min && n <= max ? n : null;
    },
    serialize: (value: number) => String(value),
  });
}

/** One identifier, as the API takes it: 1 to 100 characters. */
export const parseAsIdentifier = createParser({
  parse: (value: string) => (value.length >= 1 && value.length <= LIMITS.stringMax ? value : null),
  serialize: (value: string) => value,
});

/**
 * A list of identifiers, comma-separated in the URL. Pasted lists are split on commas, spaces and
 * newlines (splitList), so an item can never hold one of those and the comma is a safe separator.
 * One bad item drops the whole list rather than quietly widening the selection.
 */
export const parseAsIdentifierList = createParser<string[]>({
  parse: (value: string) => {
    const items = value.split(",");
    if (items.length > LIMITS.arrayItemsMax) return null;
    if (items.some((item) => item.length < 1 || item.length > LIMITS.stringMax || /\s/.test(item))) return null;
    return [...new Set(items)];
  },
  serialize: (items: string[]) => items.join(","),
  eq: (a: string[], b: string[]) => a.length === b.length && a.every((v, i) => v === b[i]),
});

/** "A1 A2,A3\nA4" -> ["A1","A2","A3","A4"]: newlines, commas, semicolons or spaces separate values. */
export function splitList(text: string): string[] {
  return [...new Set(text.split(/[\s,;]+/).filter(Boolean))];
}
