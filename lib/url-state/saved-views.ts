import { KINDS, RECORD_KINDS } from "@/lib/domain/kinds";
import type { ViewPage } from "@/lib/schemas/saved-views";
import { viewParsers } from "./dispute-view";
import { overviewParsers } from "./overview";
import { reportParsers } from "./report";
import { worklistParsers } from "./worklist";

/**
 * What a saved view (docs/api.md, "Saved views") keeps of a page's address, and how a stored one
 * is opened again: every page's URL parameters are declared once, by the page's own parsers, so a
 * view stored by an older version that names a parameter no longer known (or a value no longer
 * valid) opens without it, and the user is told which, instead of an error page.
 */

type Parser = { parse: (value: string) => unknown };

const PAGE_PARSERS: Record<string, Record<string, Parser>> = { "/worklist": worklistParsers, "/overview": overviewParsers, "/report": reportParsers };
for (const kind of RECORD_KINDS) PAGE_PARSERS[KINDS[kind].pagePath] = viewParsers(kind);

/** Parameters of a page that describe a moment, not a view: the open record and the page number. */
const TRANSIENT = new Set(["open", "page"]);

/** The part of a page's query string a view keeps: "" or "?..." without the transient parameters. */
export function viewQueryOf(search: string): string {
  const params = new URLSearchParams(search);
  for (const key of TRANSIENT) params.delete(key);
  const query = params.toString();
  return query ? `?${query}` : "";
}

/**
 * A stored query string as this version reads it for `page`: parameters the page does not know,
 * or whose value its parser refuses, are dropped and named in `dropped`.
 */
export function cleanViewQuery(page: ViewPage, query: string): { query: string; dropped: string[] } {
  const parsers = PAGE_PARSERS[page];
  const kept = new URLSearchParams();
  const dropped: string[] = [];
  for (const [key, value] of new URLSearchParams(query)) {
    const parser = Object.hasOwn(parsers, key) ? parsers[key] : undefined;
    if (!parser || TRANSIENT.has(key) || parser.parse(value) === null) {
      if (!dropped.includes(key)) dropped.push(key);
      continue;
    }
    kept.append(key, value);
  }
  const text = kept.toString();
  return { query: text ? `?${text}` : "", dropped };
}

/** The page a pathname is, when views can be saved of it. */
export function viewPageOf(pathname: string): ViewPage | undefined {
  return Object.hasOwn(PAGE_PARSERS, pathname) ? (pathname as ViewPage) : undefined;
}

/** What the saved-views menu calls each page. */
const labels: Record<string, string> = { "/worklist": "Needs an answer", "/overview": "Overview", "/report": "Report" };
for (const kind of RECORD_KINDS) labels[KINDS[kind].pagePath] = KINDS[kind].navLabel;
export const VIEW_PAGE_LABELS = labels as Record<ViewPage, string>;
