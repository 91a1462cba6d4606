import { createSerializer, parseAsStringLiteral } from "nuqs/server";
import { presetRange, type DatePreset } from "@/lib/domain/date-presets";
import type { RecordKind } from "@/lib/domain/fields";
import { LIMITS, SORT_KEYS, SORT_ORDERS, type SortKey, type SortOrder } from "@/lib/schemas/search";
import { parseAsCalendarDate, parseAsDatePreset, parseAsIdentifier, parseAsIdentifierList, parseAsIntegerIn } from "./parsers";
import { parseAsRecordKey, type RecordKey } from "./record-key";

/**
 * The view a dispute grid shows, as it lives in the URL: filters, sort, page, page size and the
 * open record. One definition serves the grid (nuqs useQueryStates), the export link
 * (createSerializer) and the export route (export-query.ts), so a copied link, the grid and the
 * CSV always describe the same selection.
 */

export type FilterType = "preset" | "date" | "text" | "list" | "shops" | "choice";

type ListField = "shop_codes" | "acq_ref_nrs" | "transaction_ids" | "payment_ids" | "payment_order_nrs";
type TextField = "merchant_id" | "parent_merchant_id";
type DateField = "file_date_from" | "file_date_to";

export interface FilterDef {
  /** name in the URL */
  key: string;
  /**
   * request field of the API (docs/api.md, "Request body"; the worklist's in "Worklist"); a
   * "preset" filter stands for both file-date fields (withPresetDates)
   */
  field: DateField | TextField | ListField | "kinds" | "statuses" | "answer_by_from" | "answer_by_to" | "expiry_from" | "expiry_to" | "file_date_preset";
  type: FilterType;
  label: string;
  hint?: string;
  /** the values a "choice" filter offers */
  options?: readonly { value: string; label: string }[];
  /** the values a "choice" filter stands for when none is chosen (default: every option) */
  defaults?: readonly string[];
}

/** A named file-date range (lib/domain/date-presets.ts) in place of the two dates. */
export const RANGE: FilterDef = { key: "range", field: "file_date_preset", type: "preset", label: "File dates" };
const FROM: FilterDef = { key: "from", field: "file_date_from", type: "date", label: "File date from" };
const TO: FilterDef = { key: "to", field: "file_date_to", type: "date", label: "File date to" };
const SHOPS: FilterDef = { key: "shops", field: "shop_codes", type: "shops", label: "Shops" };
const MERCHANT: FilterDef = { key: "merchant", field: "merchant_id", type: "text", label: "Merchant id" };
const ARNS: FilterDef = { key: "arns", field: "acq_ref_nrs", type: "list", label: "Acquirer reference numbers", hint: "Paste many: new lines, commas or spaces between." };
const ORDERS: FilterDef = { key: "orders", field: "payment_order_nrs", type: "list", label: "Order numbers", hint: "Paste many: new lines, commas or spaces between." };

/** Every request field of the endpoint, in the order the filter panel shows them. */
export const FILTERS: Record<RecordKind, readonly FilterDef[]> = {
  chargeback: [
    RANGE,
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
    RANGE,
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

/**
 * The order a grid opens in without one in its URL: the newest records first (chargebacks by file
 * date, cases by import order). The API's own default (docs/api.md, "Selection and order") stays
 * ID ascending; the grid always sends its order.
 */
export const DEFAULT_SORT: Record<RecordKind, { sort: SortKey; dir: SortOrder }> = {
  chargeback: { sort: "FILE_DATE", dir: "desc" },
  pre_arbitration: { sort: "ID", dir: "desc" },
};

function filterParser(def: FilterDef) {
  switch (def.type) {
    case "preset":
      return parseAsDatePreset;
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
  range: typeof parseAsDatePreset;
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
    sort: parseAsStringLiteral(SORT_KEYS[kind] as readonly SortKey[]).withDefault(DEFAULT_SORT[kind].sort),
    dir: parseAsStringLiteral(SORT_ORDERS).withDefault(DEFAULT_SORT[kind].dir),
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
  return activeFiltersOf(FILTERS[kind], view);
}

/** The same for any list of filter definitions (the worklist has its own). */
export function activeFiltersOf(defs: readonly FilterDef[], view: Record<string, unknown>): { def: FilterDef; value: string | string[] }[] {
  const out: { def: FilterDef; value: string | string[] }[] = [];
  for (const def of defs) {
    const value = view[def.key];
    if (value === null || value === undefined) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    out.push({ def, value: value as string | string[] });
  }
  return out;
}

/**
 * The request fields of a view's filters (docs/api.md, "Request body"): what a search, a summary
 * (docs/api.md, "Summaries") and an export of the view share.
 */
export function filterBody(kind: RecordKind, view: Record<string, unknown>, today: string): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const { def, value } of activeFilters(kind, withPresetDates(view, today))) body[def.field] = value;
  return body;
}

/**
 * The view with its preset (`range`) replaced by the dates it stands for on `today`: a preset
 * wins over dates beside it in the same URL. Every view with file dates goes through here
 * before it becomes a request, a link or a chart's period.
 */
export function withPresetDates<T extends Record<string, unknown>>(view: T, today: string): T {
  const preset = view.range as DatePreset | null | undefined;
  if (!preset) return view;
  const range = presetRange(preset, today);
  return { ...view, range: null, from: range?.from ?? null, to: range?.to ?? null };
}

/** The API request body (docs/api.md, "Request body") for a view: page is 0-based there. */
export function toSearchBody(kind: RecordKind, view: Record<string, unknown>, today: string, paging = true): Record<string, unknown> {
  const body = filterBody(kind, view, today);
  body.sortKey = view.sort ?? DEFAULT_SORT[kind].sort;
  body.sortOrder = view.dir ?? DEFAULT_SORT[kind].dir;
  if (paging) {
    body.page = Math.max(0, Number(view.page ?? 1) - 1);
    body.per_page = view.size ?? DEFAULT_PAGE_SIZE;
  }
  return body;
}

/**
 * The keys of the export link: the filters and the order, not the page or the open record. A
 * preset is sent as the dates it stands for in the user's calendar, which the server cannot know.
 */
export function selectionParsers(kind: RecordKind) {
  const parsers: Partial<ReturnType<typeof viewParsers>> = viewParsers(kind);
  delete parsers.range;
  delete parsers.page;
  delete parsers.size;
  delete parsers.open;
  return parsers as Omit<ReturnType<typeof viewParsers>, "range" | "page" | "size" | "open">;
}

/** `?from=...&shops=...&sort=...` for the export of a view's whole selection on `today`. */
export function selectionQuery(kind: RecordKind, view: Record<string, unknown>, today: string): string {
  const serialize = createSerializer(selectionParsers(kind));
  // The view holds exactly the values these parsers produce.
  return serialize(withPresetDates(view, today) as never);
}
