import { createParser, createSerializer, parseAsStringLiteral } from "nuqs/server";
import type { RecordKind } from "@/lib/domain/fields";
import { isCalendarDate, LIMITS, parseSearchRequest, SORT_KEYS, SORT_ORDERS, type FieldError, type SearchRequest, type SortKey, type SortOrder } from "@/lib/schemas/search";

/**
 * The view a dispute grid shows, as it lives in the URL: filters, sort, page, page size and the
 * open record. One definition serves the grid (nuqs useQueryStates), the export link
 * (createSerializer) and the export route (parseExportQuery), so a copied link, the grid and the
 * CSV always describe the same selection.
 *
 * Values are parsed strictly: a value that is not exactly valid (page=abc, size=5, sort=NAME,
 * from=2026-02-30) is treated as absent, never coerced into something nearby.
 */

// --- strict parsers ---------------------------------------------------------------------------

const parseAsCalendarDate = createParser({
  parse: (value: string) => (isCalendarDate(value) ? value : null),
  serialize: (value: string) => value,
});

function parseAsIntegerIn(min: number, max: number) {
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
const parseAsIdentifier = createParser({
  parse: (value: string) => (value.length >= 1 && value.length <= LIMITS.stringMax ? value : null),
  serialize: (value: string) => value,
});

/**
 * A list of identifiers, comma-separated in the URL. Pasted lists are split on commas, spaces and
 * newlines (splitList), so an item can never hold one of those and the comma is a safe separator.
 * One bad item drops the whole list rather than quietly widening the selection.
 */
const parseAsIdentifierList = createParser<string[]>({
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

// --- the open record ---------------------------------------------------------------------------

/**
 * A record has no id in the API response, so the URL names it by content:
 * `<file_date>~<fingerprint>~<acq_ref_nr>`. The file date and the acquirer reference number let
 * the drawer fetch the record on its own (POST with acq_ref_nrs and a one-day file date range,
 * inside the user's scope), whatever page, filter or sort is active; the fingerprint (a hash of
 * every field) picks the exact record among the few that share both. A loaded file never changes
 * (CONTRACT 6: a file loads whole, a changed resend is refused), so the key stays valid for good,
 * unlike a page position that shifts with every import, filter or sort.
 */
export interface RecordKey {
  fileDate: string;
  fingerprint: string;
  acqRefNr: string;
}

export function serializeRecordKey(key: RecordKey): string {
  return `${key.fileDate}~${key.fingerprint}~${key.acqRefNr}`;
}

export function parseRecordKey(value: string): RecordKey | null {
  const m = /^(\d{4}-\d{2}-\d{2})~([0-9a-z]{1,13})~(.{1,100})$/s.exec(value);
  if (!m || !isCalendarDate(m[1])) return null;
  return { fileDate: m[1], fingerprint: m[2], acqRefNr: m[3] };
}

const parseAsRecordKey = createParser<RecordKey>({
  parse: parseRecordKey,
  serialize: serializeRecordKey,
  eq: (a, b) => serializeRecordKey(a) === serializeRecordKey(b),
});

/** FNV-1a (32 bit) over the record's fields in their fixed order: short, stable, no crypto needed. */
export function recordFingerprint(record: Record<string, unknown>, fieldNames: readonly string[]): string {
  let hash = 0x811c9dc5;
  const text = fieldNames.map((name) => JSON.stringify(record[name] ?? null)).join("\u0001");
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

// --- filters -----------------------------------------------------------------------------------

export type FilterType = "date" | "text" | "list" | "shops";

type ListField = "shop_codes" | "acq_ref_nrs" | "transaction_ids" | "payment_ids" | "payment_order_nrs";
type TextField = "merchant_id" | "parent_merchant_id";
type DateField = "file_date_from" | "file_date_to";

export interface FilterDef {
  /** name in the URL */
  key: string;
  /** request field of CONTRACT 1.1 */
  field: DateField | TextField | ListField;
  type: FilterType;
  label: string;
  hint?: string;
}

const FROM: FilterDef = { key: "from", field: "file_date_from", type: "date", label: "File date from" };
const TO: FilterDef = { key: "to", field: "file_date_to", type: "date", label: "File date to" };
const SHOPS: FilterDef = { key: "shops", field: "shop_codes", type: "shops", label: "Shops" };
const MERCHANT: FilterDef = { key: "merchant", field: "merchant_id", type: "text", label: "Merchant id" };
const ARNS: FilterDef = { key: "arns", field: "acq_ref_nrs", type: "list", label: "Acquirer reference numbers", hint: "Paste many: new lines, commas or spaces between." };
const ORDERS: FilterDef = { key: "orders", field: "payment_order_nrs", type: "list", label: "Order numbers", hint: "Paste many: new lines, commas or spaces between." };

/** Every request field of the endpoint, in the order the filter panel shows them. */
export const FILTERS: Record<RecordKind, readonly FilterDef[]> = {
  chargeback: [
    FROM,
    TO,
    SHOPS,
    MERCHANT,
    { key: "parent", field: "parent_merchant_id", type: "text", label: "Parent merchant id" },
    ARNS,
    { key: "txns", field: "transaction_ids", type: "list", label: "Transaction ids", hint: "Paste many: new lines, commas or spaces between." },
    ORDERS,
  ],
  pre_arbitration: [
    FROM,
    TO,
    SHOPS,
    MERCHANT,
    ARNS,
    { key: "payments", field: "payment_ids", type: "list", label: "Payment ids", hint: "Paste many: new lines, commas or spaces between." },
    ORDERS,
  ],
};

export const PAGE_SIZES = [10, 25, 50, 100, 250, 500, 1000] as const;
export const DEFAULT_PAGE_SIZE = 50;

function filterParser(def: FilterDef) {
  switch (def.type) {
    case "date":
      return parseAsCalendarDate;
    case "text":
      return parseAsIdentifier;
    default:
      return parseAsIdentifierList;
  }
}

/** Every filter key of either endpoint, with its parser type. */
type FilterParsers = {
  from: typeof parseAsCalendarDate;
  to: typeof parseAsCalendarDate;
  shops: typeof parseAsIdentifierList;
  merchant: typeof parseAsIdentifier;
  parent: typeof parseAsIdentifier;
  arns: typeof parseAsIdentifierList;
  txns: typeof parseAsIdentifierList;
  payments: typeof parseAsIdentifierList;
  orders: typeof parseAsIdentifierList;
};

/**
 * The nuqs parsers of one grid's URL: that endpoint's filters only (a pre-arbitration link has
 * no `parent`), then sort, page (1-based in the URL, for people), page size and open record.
 * Typed with every filter key so both grids share one view type.
 */
export function viewParsers(kind: RecordKind) {
  const filters: Record<string, unknown> = {};
  for (const def of FILTERS[kind]) filters[def.key] = filterParser(def);
  return {
    ...(filters as FilterParsers),
    sort: parseAsStringLiteral(SORT_KEYS[kind] as readonly SortKey[]).withDefault("ID"),
    dir: parseAsStringLiteral(SORT_ORDERS).withDefault("asc"),
    page: parseAsIntegerIn(1, LIMITS.pageMax + 1).withDefault(1),
    size: parseAsIntegerIn(LIMITS.perPageMin, LIMITS.perPageMax).withDefault(DEFAULT_PAGE_SIZE),
    open: parseAsRecordKey,
  };
}

/** The view as plain values (what useQueryStates returns for viewParsers). */
export interface ViewState {
  [filterKey: string]: unknown;
  sort: SortKey;
  dir: SortOrder;
  page: number;
  size: number;
  open: RecordKey | null;
}

/** The filter values of a view that are set, keyed by their filter definition. */
export function activeFilters(kind: RecordKind, view: Record<string, unknown>): { def: FilterDef; value: string | string[] }[] {
  const out: { def: FilterDef; value: string | string[] }[] = [];
  for (const def of FILTERS[kind]) {
    const value = view[def.key];
    if (value === null || value === undefined) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    out.push({ def, value: value as string | string[] });
  }
  return out;
}

/** The API request body (CONTRACT 1.1) for a view: page is 0-based there. */
export function toSearchBody(kind: RecordKind, view: Record<string, unknown>, paging = true): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const { def, value } of activeFilters(kind, view)) body[def.field] = value;
  body.sortKey = view.sort ?? "ID";
  body.sortOrder = view.dir ?? "asc";
  if (paging) {
    body.page = Math.max(0, Number(view.page ?? 1) - 1);
    body.per_page = view.size ?? DEFAULT_PAGE_SIZE;
  }
  return body;
}

/** The keys of the export link: the filters and the order, not the page or the open record. */
export function selectionParsers(kind: RecordKind) {
  const parsers: Partial<ReturnType<typeof viewParsers>> = viewParsers(kind);
  delete parsers.page;
  delete parsers.size;
  delete parsers.open;
  return parsers as Omit<ReturnType<typeof viewParsers>, "page" | "size" | "open">;
}

/** `?from=...&shops=...&sort=...` for the export of a view's whole selection. */
export function selectionQuery(kind: RecordKind, view: Record<string, unknown>): string {
  const serialize = createSerializer(selectionParsers(kind));
  // The view holds exactly the values these parsers produce.
  return serialize(view as never);
}

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
