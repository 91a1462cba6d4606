import type { RecordKind } from "@/lib/domain/fields";
import { type FieldError, parseSearchRequest, type SearchRequest } from "@/lib/schemas/search";
import { FILTERS, type FilterDef, selectionParsers, toSearchBody } from "./dispute-view";

export type ExportQueryResult = { ok: true; request: SearchRequest } | { ok: false; errors: FieldError[] };

/**
 * The export route's query string, parsed like the grid's URL but refusing instead of ignoring:
 * an unknown or repeated parameter, or a value the grid would drop, is an error, because an
 * export that silently widens its selection would leak more than the user asked for.
 */
export function parseExportQuery(kind: RecordKind, params: URLSearchParams): ExportQueryResult {
  const strict = parseStrictQuery(selectionParsers(kind) as Record<string, QueryParser>, params);
  if (!strict.ok) return strict;
  // The export's parameters hold no preset (selectionQuery sends its dates), so no "today" is needed.
  const result = parseSearchRequest(kind, toSearchBody(kind, strict.view, "", false));
  return result.ok ? result : { ok: false, errors: renameFields(result.errors, FILTERS[kind]) };
}

type QueryParser = { parse: (v: string) => unknown };

/**
 * Every parameter parsed by its URL parser; an unknown or repeated parameter, or a value the page
 * would drop, is an error (the worklist's export shares this).
 */
export function parseStrictQuery(parsers: Record<string, QueryParser>, params: URLSearchParams): { ok: true; view: Record<string, unknown> } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const view: Record<string, unknown> = {};
  const seen = new Set<string>();
  for (const [key, value] of params) {
    if (seen.has(key)) {
      errors.push({ field: key, message: "is given more than once" });
      continue;
    }
    seen.add(key);
    // Own keys only: "__proto__", "constructor" or "toString" name no parser.
    const parser = Object.hasOwn(parsers, key) ? parsers[key] : undefined;
    if (!parser) {
      errors.push({ field: key, message: "is not a parameter of this export" });
      continue;
    }
    const parsed = parser.parse(value);
    if (parsed === null) errors.push({ field: key, message: "is not a valid value" });
    else view[key] = parsed;
  }
  return errors.length ? { ok: false, errors } : { ok: true, view };
}

/** Field errors named by the URL parameter the user can see, not the API field. */
export function renameFields(errors: FieldError[], defs: readonly FilterDef[]): FieldError[] {
  const byField = new Map<string, string>(defs.map((d) => [d.field, d.key]));
  return errors.map((e) => ({ ...e, field: byField.get(e.field.replace(/\[\d+\]$/, "")) ?? e.field }));
}
