import type { RecordKind } from "@/lib/domain/fields";
import { type FieldError, parseSearchRequest, type SearchRequest } from "@/lib/schemas/search";
import { FILTERS, selectionParsers, toSearchBody } from "./dispute-view";

export type ExportQueryResult = { ok: true; request: SearchRequest } | { ok: false; errors: FieldError[] };

/**
 * The export route's query string, parsed like the grid's URL but refusing instead of ignoring:
 * an unknown or repeated parameter, or a value the grid would drop, is an error, because an
 * export that silently widens its selection would leak more than the user asked for.
 */
export function parseExportQuery(kind: RecordKind, params: URLSearchParams): ExportQueryResult {
  const parsers = selectionParsers(kind) as Record<string, { parse: (v: string) => unknown }>;
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
  if (errors.length) return { ok: false, errors };
  const body = toSearchBody(kind, view, false);
  const result = parseSearchRequest(kind, body);
  if (!result.ok) {
    // Name the URL parameter the user can see, not the API field.
    const byField = new Map<string, string>(FILTERS[kind].map((d) => [d.field, d.key]));
    return { ok: false, errors: result.errors.map((e) => ({ ...e, field: byField.get(e.field.replace(/\[\d+\]$/, "")) ?? e.field })) };
  }
  return { ok: true, request: result.request };
}
