import { createSerializer, parseAsStringLiteral } from "nuqs/server";
import { lastDayOfMonth } from "@/lib/domain/calendar";
import { KINDS, RECORD_KINDS, type RecordKind } from "@/lib/domain/kinds";
import { dimensionNames, type DimensionName } from "@/lib/schemas/summary";
import { FILTERS, filterBody, viewParsers } from "./dispute-view";

/**
 * The pivot report's view as it lives in the URL: which records (kind), the dimension of the
 * rows and, optionally, of the columns (the summary dimensions of docs/api.md, "Summaries", read
 * from lib/schemas/summary.ts), the measure, and the grids' own filters. One definition serves the
 * page's first read on the server (createLoader), the view (useQueryStates) and the links from a
 * cell to the grid, so a copied link shows the same table.
 */

/** What a cell counts or sums: records, amounts per currency, and for chargebacks reversals. */
export const MEASURES = ["count", "amount", "reversals", "reversal_amount"] as const;
export type Measure = (typeof MEASURES)[number];

export const MEASURES_OF: Record<RecordKind, readonly Measure[]> = {
  chargeback: MEASURES,
  pre_arbitration: ["count", "amount"],
};

/** Amount measures are sums per currency, never added across currencies. */
export const isMoneyMeasure = (measure: Measure) => measure === "amount" || measure === "reversal_amount";

/** Every dimension of either kind, in the schema's order; a kind's own are dimensionNames(kind). */
export const ALL_DIMENSIONS: readonly DimensionName[] = [...new Set(RECORD_KINDS.flatMap((kind) => dimensionNames(kind)))];

export const DEFAULT_ROWS: DimensionName = "month";

/** The filter keys of one grid's URL (viewParsers without its sort, page, size and open record). */
function filterParsersOf(kind: RecordKind) {
  const parsers: Partial<ReturnType<typeof viewParsers>> = viewParsers(kind);
  delete parsers.sort;
  delete parsers.dir;
  delete parsers.page;
  delete parsers.size;
  delete parsers.open;
  return parsers as Omit<ReturnType<typeof viewParsers>, "sort" | "dir" | "page" | "size" | "open">;
}

/**
 * The report's URL: the filters of both kinds (those the chosen kind lacks are ignored, and
 * cleared when the kind changes), then the layout. Defaults: chargebacks by month, no columns,
 * the count.
 */
export const reportParsers = {
  ...filterParsersOf("chargeback"),
  ...filterParsersOf("pre_arbitration"),
  kind: parseAsStringLiteral(RECORD_KINDS).withDefault("chargeback"),
  rows: parseAsStringLiteral(ALL_DIMENSIONS).withDefault(DEFAULT_ROWS),
  cols: parseAsStringLiteral(ALL_DIMENSIONS),
  measure: parseAsStringLiteral(MEASURES).withDefault("count"),
};

export interface ReportLayout {
  kind: RecordKind;
  rows: DimensionName;
  /** null: one column, the measure itself */
  cols: DimensionName | null;
  measure: Measure;
}

/**
 * The layout the table shows for a URL's values: a dimension the kind does not have is dropped
 * (rows fall back to the month), columns equal to the rows are dropped, and a measure the kind
 * does not have falls back to the count.
 */
export function reportLayout(view: { kind?: string | null; rows?: string | null; cols?: string | null; measure?: string | null }): ReportLayout {
  const kind: RecordKind = view.kind === "pre_arbitration" ? "pre_arbitration" : "chargeback";
  const dims = dimensionNames(kind) as readonly string[];
  const rows = (view.rows && dims.includes(view.rows) ? view.rows : DEFAULT_ROWS) as DimensionName;
  const cols = (view.cols && dims.includes(view.cols) && view.cols !== rows ? view.cols : null) as DimensionName | null;
  const measure = (MEASURES_OF[kind] as readonly string[]).includes(view.measure ?? "") ? (view.measure as Measure) : "count";
  return { kind, rows, cols, measure };
}

/**
 * The summary request of a report (docs/api.md, "Summaries"): the grids' filters (a date preset
 * counted from `today`, the user's own date) and the layout's dimensions.
 */
export function reportBody(layout: ReportLayout, view: Record<string, unknown>, today: string): Record<string, unknown> {
  return { ...filterBody(layout.kind, view, today), group_by: layout.cols ? [layout.rows, layout.cols] : [layout.rows] };
}

/**
 * The dimensions a grid can filter by, and how: a month is a file-date range, a file date one
 * day, a shop the shop list, a merchant the merchant id. The others (scheme, reason and function
 * codes, documents, case stage) have no grid filter.
 */
export const GRID_FILTERABLE: ReadonlySet<DimensionName> = new Set<DimensionName>(["month", "file_date", "shop_code", "merchant_id"]);

export type CellKey = Partial<Record<DimensionName, string | number | null>>;

/** Whether the grid can show exactly the records of a cell with these dimension values. */
export function cellLinkable(cell: CellKey): boolean {
  return Object.entries(cell).every(([dim, value]) => GRID_FILTERABLE.has(dim as DimensionName) && value !== null && value !== undefined);
}

const gridSerializers = {
  chargeback: createSerializer(viewParsers("chargeback")),
  pre_arbitration: createSerializer(viewParsers("pre_arbitration")),
};

/**
 * The grid's address (/chargebacks?... or /pre-arbitration?...) that lists exactly a cell's records:
 * the report's own filters, as its summary request states them (so a preset is already a range),
 * intersected with the cell's values. Undefined when a value cannot be filtered by the grid or
 * the intersection is empty.
 */
export function cellGridHref(kind: RecordKind, body: Record<string, unknown>, cell: CellKey): string | undefined {
  if (!cellLinkable(cell)) return undefined;
  const view: Record<string, unknown> = {};
  const seen = new Set<string>();
  for (const def of FILTERS[kind]) {
    if (seen.has(def.field)) continue;
    seen.add(def.field);
    const value = body[def.field];
    if (value !== undefined && value !== null) view[def.key] = value;
  }
  const keyOf = (field: string) => FILTERS[kind].find((def) => def.field === field)?.key ?? field;
  const [fromKey, toKey, shopsKey, merchantKey] = [keyOf("file_date_from"), keyOf("file_date_to"), keyOf("shop_codes"), keyOf("merchant_id")];
  const narrow = (from: string, to: string) => {
    const a = view[fromKey] as string | undefined;
    const b = view[toKey] as string | undefined;
    view[fromKey] = a && a > from ? a : from;
    view[toKey] = b && b < to ? b : to;
  };
  for (const [dim, raw] of Object.entries(cell) as [DimensionName, string | number][]) {
    const value = String(raw);
    if (dim === "month") narrow(`${value}-01`, lastDayOfMonth(value));
    else if (dim === "file_date") narrow(value, value);
    else if (dim === "shop_code") view[shopsKey] = [value];
    else if (dim === "merchant_id") view[merchantKey] = value;
  }
  if ((view[fromKey] as string) > (view[toKey] as string)) return undefined;
  return `${KINDS[kind].pagePath}${gridSerializers[kind](view as never)}`;
}
