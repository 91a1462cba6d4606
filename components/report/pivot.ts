import { csvLines, guardedText } from "@/lib/domain/csv";
import { formatMinor } from "@/lib/domain/money";
import { dimensionOf, type DimensionName } from "@/lib/schemas/summary";
import { isMoneyMeasure, type CellKey, type Measure, type ReportLayout } from "@/lib/url-state/report";
import { type DimValue, DIMENSION_LABELS, measureLabel, valueLabel } from "./labels";
import type { Summary, SummaryGroup } from "./report-api";

/**
 * The report's table from a summary's groups: the row and column values, each cell's tally, and
 * the row, column and grand totals. Counts are integers; amounts are integer minor units (BigInt)
 * from the JSON's two-decimal numbers, added per currency and never across currencies, so every
 * total is exact. The same model draws the table and writes the CSV, so the file is the table.
 */

export interface Tally {
  count: number;
  reversals: number;
  /** minor units per currency: chb_amount (without reversals) or a case's amount */
  amount: Map<string, bigint>;
  /** minor units per currency of the reversals (chargebacks) */
  reversal: Map<string, bigint>;
}

const emptyTally = (): Tally => ({ count: 0, reversals: 0, amount: new Map(), reversal: new Map() });

function addMap(into: Map<string, bigint>, from: Map<string, bigint>) {
  for (const [ccy, minor] of from) into.set(ccy, (into.get(ccy) ?? 0n) + minor);
}

function addTally(into: Tally, from: Tally) {
  into.count += from.count;
  into.reversals += from.reversals;
  addMap(into.amount, from.amount);
  addMap(into.reversal, from.reversal);
}

const AMOUNT = /^(-)?(\d+)\.(\d{2})$/;

/**
 * An amount of the JSON (written with exactly two decimals) as minor units. JSON.parse hands it
 * over as a number; toFixed(2) gives back the written text exactly for any amount below 10^13
 * (the nearest double is within a thousandth), and the text is read as a BigInt.
 */
export function toMinor(value: number | string): bigint {
  const text = typeof value === "number" ? value.toFixed(2) : value.trim();
  const m = AMOUNT.exec(text);
  if (!m) throw new Error(`not an amount with two decimals: ${text}`);
  const minor = BigInt(m[2]) * 100n + BigInt(m[3]);
  return m[1] ? -minor : minor;
}

/** 123456789n -> "1,234,567.89": exact, grouped like the other numbers on screen. */
export function formatMinorGrouped(minor: bigint): string {
  const [whole, cents] = formatMinor(minor).split(".");
  const negative = whole.startsWith("-");
  const digits = negative ? whole.slice(1) : whole;
  return `${negative ? "-" : ""}${digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}.${cents}`;
}

/** A group's tally; amounts are read only for an amount measure (a count of 10,000 groups needs none). */
function tallyOf(group: SummaryGroup, measure: Measure): Tally {
  const tally = emptyTally();
  tally.count = group.count;
  tally.reversals = "reversals" in group ? group.reversals : 0;
  if (!isMoneyMeasure(measure)) return tally;
  for (const a of group.amounts) {
    if ("chb_amount" in a) {
      if (measure === "amount") tally.amount.set(a.currency, (tally.amount.get(a.currency) ?? 0n) + toMinor(a.chb_amount));
      else tally.reversal.set(a.currency, (tally.reversal.get(a.currency) ?? 0n) + toMinor(a.reversal_amount));
    } else {
      tally.amount.set(a.currency, (tally.amount.get(a.currency) ?? 0n) + toMinor(a.amount));
    }
  }
  return tally;
}

/** Strings compare by code point, which is the bytewise (UTF-8) order of the API. */
function codePointCompare(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    if (sx !== sy) return sx ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** The order of the summary's keys (docs/api.md, "Summaries"): integers as numbers, the rest bytewise. */
export function compareValues(integer: boolean, a: DimValue, b: DimValue): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  if (integer) return Number(a) - Number(b);
  return codePointCompare(String(a), String(b));
}

export interface Pivot {
  layout: ReportLayout;
  rows: DimValue[];
  /** [null] without a column dimension: one column, the measure */
  cols: DimValue[];
  cells: Map<number, Tally>;
  rowTotals: Tally[];
  colTotals: Tally[];
  total: Tally;
  /** every currency of the selection, in order */
  currencies: string[];
  totalElements: number;
}

const keyValue = (group: SummaryGroup, dim: DimensionName): DimValue => {
  const value = (group.key as Record<string, string | number | undefined>)[dim];
  return value === undefined ? null : value;
};

function ordered(layout: ReportLayout, dim: DimensionName, values: Iterable<DimValue>): DimValue[] {
  const integer = dimensionOf(layout.kind, dim).key === "integer";
  return [...values].sort((a, b) => compareValues(integer, a, b));
}

export function buildPivot(layout: ReportLayout, summary: Summary): Pivot {
  const rowSet = new Set<DimValue>();
  const colSet = new Set<DimValue>();
  for (const g of summary.groups) {
    rowSet.add(keyValue(g, layout.rows));
    colSet.add(layout.cols ? keyValue(g, layout.cols) : null);
  }
  const rows = ordered(layout, layout.rows, rowSet);
  const cols = layout.cols ? ordered(layout, layout.cols, colSet) : [null];
  const rowIndex = new Map(rows.map((v, i) => [v, i]));
  const colIndex = new Map(cols.map((v, i) => [v, i]));
  const cells = new Map<number, Tally>();
  const rowTotals = rows.map(emptyTally);
  const colTotals = cols.map(emptyTally);
  const total = emptyTally();
  const currencies = new Set<string>();
  for (const g of summary.groups) {
    const ri = rowIndex.get(keyValue(g, layout.rows))!;
    const ci = colIndex.get(layout.cols ? keyValue(g, layout.cols) : null)!;
    const tally = tallyOf(g, layout.measure);
    const at = ri * cols.length + ci;
    const cell = cells.get(at);
    if (cell) addTally(cell, tally);
    else cells.set(at, tally);
    addTally(rowTotals[ri], tally);
    addTally(colTotals[ci], tally);
    addTally(total, tally);
    for (const a of g.amounts) currencies.add(a.currency);
  }
  return { layout, rows, cols, cells, rowTotals, colTotals, total, currencies: [...currencies].sort(codePointCompare), totalElements: summary.totalElements };
}

/** A row or column of the table: an index, or the totals. */
export type Index = number | "total";

export function tallyAt(pivot: Pivot, ri: Index, ci: Index): Tally | undefined {
  if (ri === "total") return ci === "total" ? pivot.total : pivot.colTotals[ci];
  if (ci === "total") return pivot.rowTotals[ri];
  return pivot.cells.get(ri * pivot.cols.length + ci);
}

/** A column of numbers: a column value (or the totals) and, for an amount, one currency. */
export interface Column {
  ci: Index;
  currency?: string;
  /** the header above it: the column value, "Total", or the measure without a column dimension */
  group: string;
  /** its header in the CSV: the group and the currency */
  header: string;
}

export function tableColumns(pivot: Pivot): Column[] {
  const { layout } = pivot;
  const money = isMoneyMeasure(layout.measure);
  const per = (ci: Index, group: string): Column[] =>
    money ? pivot.currencies.map((currency) => ({ ci, currency, group, header: `${group} (${currency})` })) : [{ ci, group, header: group }];
  if (!layout.cols) return per(0, measureLabel(layout.kind, layout.measure));
  const dim = layout.cols;
  return [...pivot.cols.flatMap((value, ci) => per(ci, valueLabel(dim, value))), ...per("total", "Total")];
}

export interface CellValue {
  /** as shown: "1,234", "12,345.60", "—" for no amount in that currency */
  text: string;
  /** as written to the CSV: "1234", "12345.60", "" */
  csv: string;
  /** the records of the cell (what a link to the grid lists) */
  records: number;
}

export function cellValue(pivot: Pivot, ri: Index, column: Column, nf: Intl.NumberFormat): CellValue {
  const tally = tallyAt(pivot, ri, column.ci);
  const records = tally?.count ?? 0;
  const measure: Measure = pivot.layout.measure;
  if (isMoneyMeasure(measure)) {
    const minor = (measure === "amount" ? tally?.amount : tally?.reversal)?.get(column.currency!);
    return minor === undefined ? { text: "—", csv: "", records } : { text: formatMinorGrouped(minor), csv: formatMinor(minor), records };
  }
  const n = measure === "reversals" ? (tally?.reversals ?? 0) : records;
  return { text: nf.format(n), csv: String(n), records };
}

/** The dimension values that single out a cell's records: its row's and its column's (none for a total). */
export function cellKey(pivot: Pivot, ri: Index, ci: Index): CellKey {
  const { layout } = pivot;
  const key: CellKey = {};
  if (ri !== "total") key[layout.rows] = pivot.rows[ri];
  if (ci !== "total" && layout.cols) key[layout.cols] = pivot.cols[ci];
  return key;
}

/** The cell's dimension values in words: "Shop SHOP_A, File date 2026-01-02". */
export function cellWords(key: CellKey): string {
  return (Object.entries(key) as [DimensionName, DimValue][]).map(([dim, value]) => `${DIMENSION_LABELS[dim]} ${valueLabel(dim, value)}`).join(", ");
}

// ---- CSV -------------------------------------------------------------------------------------

/**
 * The table as shown: the header, a line per row with its total, and the totals line, written as
 * the server's exports are (lib/domain/csv.ts). Labels are guarded, numbers never.
 */
export function pivotCsv(pivot: Pivot, nf: Intl.NumberFormat): string {
  const columns = tableColumns(pivot);
  const lines: string[][] = [[guardedText(DIMENSION_LABELS[pivot.layout.rows]), ...columns.map((c) => guardedText(c.header))]];
  const line = (ri: Index, label: string) => [guardedText(label), ...columns.map((c) => cellValue(pivot, ri, c, nf).csv)];
  pivot.rows.forEach((value, ri) => lines.push(line(ri, valueLabel(pivot.layout.rows, value))));
  lines.push(line("total", "Total"));
  // A BOM, so that spreadsheet programs read the file as UTF-8.
  return "\uFEFF" + csvLines(lines);
}
