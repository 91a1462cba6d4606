"use client";

import { useRouter } from "next/navigation";
import { memo, type MouseEvent, useId, useMemo } from "react";
import { KINDS } from "@/lib/domain/kinds";
import { cellGridHref, GRID_FILTERABLE, isMoneyMeasure } from "@/lib/url-state/report";
import { FIRST_COLUMNS, FIRST_ROWS } from "./first-screen";
import { DIMENSION_LABELS, measureLabel, recordNoun, valueLabel } from "./labels";
import { cellKey, cellValue, cellWords, type Column, type Index, type Pivot, tableColumns } from "./pivot";

const nf = new Intl.NumberFormat("en");
const linkClass = "text-blue-800 underline decoration-slate-400 underline-offset-2 hover:decoration-blue-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600";
const cellClass = "border-b border-slate-200 px-2 py-1 text-right tabular-nums whitespace-nowrap";
const totalCellClass = `${cellClass} bg-slate-50 font-semibold`;

/** A row's height (text-sm, py-1 and a border), to keep the table's place while it is partly drawn. */
const ROW_REM = 1.875;

/**
 * The pivot table: a real table with a caption, a header row per column value (and, for amounts,
 * one column per currency under it), a header cell per row, the row totals on the right and the
 * column totals in the footer. A cell whose records the grid can list (month, file date, shop,
 * merchant, and the totals of those) links to the grid filtered to exactly those records; the
 * link's name says what it opens. The first column and the header stay in view while it scrolls.
 *
 * A table can hold tens of thousands of cells, so a cell is plain markup: an empty one is only its
 * text, and the links are plain anchors whose clicks one handler turns into client navigation.
 * With `firstScreen` (the server's render and hydration) only the rows and columns a screen shows
 * are drawn, in a box already as tall as the whole table's.
 */
export const ReportTable = memo(function ReportTable({ pivot, body, firstScreen = false }: { pivot: Pivot; body: Record<string, unknown>; firstScreen?: boolean }) {
  const { layout } = pivot;
  const router = useRouter();
  const captionId = useId();
  const allColumns = useMemo(() => tableColumns(pivot), [pivot]);
  // The page's HTML holds the top-left corner of a large table (first-screen.ts).
  const columns = firstScreen && allColumns.length > FIRST_COLUMNS ? allColumns.slice(0, FIRST_COLUMNS) : allColumns;
  const rows = firstScreen && pivot.rows.length > FIRST_ROWS ? pivot.rows.slice(0, FIRST_ROWS) : pivot.rows;
  const money = isMoneyMeasure(layout.measure);
  // One header cell per column value (over its currencies, for an amount).
  const groups = useMemo(() => {
    const out: { ci: Index; label: string; span: number }[] = [];
    for (const c of columns) {
      const last = out[out.length - 1];
      if (last && last.ci === c.ci) last.span++;
      else out.push({ ci: c.ci, label: c.group, span: 1 });
    }
    return out;
  }, [columns]);

  const grid = `${KINDS[layout.kind].navLabel} grid`;
  const rowsLinkable = GRID_FILTERABLE.has(layout.rows);
  const colsLinkable = !layout.cols || GRID_FILTERABLE.has(layout.cols);

  const row = (ri: Index, label: string, key: string | number) => {
    // The grid's address of a cell, once per column value (its currencies share it).
    const hrefs = new Map<Index, string | undefined>();
    const hrefOf = (ci: Index) => {
      if (!hrefs.has(ci)) hrefs.set(ci, cellGridHref(layout.kind, body, cellKey(pivot, ri, ci)));
      return hrefs.get(ci);
    };
    const linkable = (ci: Index) => (ri === "total" || rowsLinkable) && (ci === "total" || colsLinkable);
    return (
      <tr key={key} className={ri === "total" ? "font-semibold" : "hover:bg-slate-50"}>
        <th scope="row" className="sticky left-0 z-10 max-w-72 border-r border-b border-slate-200 bg-white px-2 py-1 text-left font-medium break-words">
          {label}
        </th>
        {columns.map((column, i) => {
          const value = cellValue(pivot, ri, column, nf);
          // A cell without records has nothing to open.
          const href = value.records > 0 && value.text !== "—" && linkable(column.ci) ? hrefOf(column.ci) : undefined;
          return (
            <td key={i} className={column.ci === "total" ? totalCellClass : cellClass}>
              {href ? (
                <a href={href} aria-label={linkName(pivot, ri, column, value.text, value.records, grid)} className={linkClass} data-grid-link="">
                  {value.text}
                </a>
              ) : (
                value.text
              )}
            </td>
          );
        })}
      </tr>
    );
  };

  // A plain click on a cell's link navigates inside the app; a click with a modifier opens a tab as usual.
  const onClick = (e: MouseEvent<HTMLTableElement>) => {
    const link = (e.target as HTMLElement).closest("a[data-grid-link]");
    if (!link || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    router.push(link.getAttribute("href")!);
  };

  return (
    <div className="rounded-md border border-slate-300 bg-white">
      {/* The caption, shown above the scrolling box so that it wraps on a phone; the table's own caption says the same to screen readers. */}
      <p aria-hidden="true" className="border-b border-slate-200 px-2 py-2 text-sm text-slate-800">
        <Caption pivot={pivot} />
      </p>
      <div
        role="region"
        aria-labelledby={captionId}
        tabIndex={0}
        className="max-h-[70vh] overflow-auto rounded-b-md focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600"
        // The whole table's height, up to the box's own, so that nothing below moves when the rest is drawn.
        style={rows.length < pivot.rows.length ? { minHeight: `min(70vh, ${(pivot.rows.length + (money ? 3 : 2)) * ROW_REM}rem)` } : undefined}
        data-testid="report-scroll"
      >
        {/* The click handler only refines the links' own navigation (Enter on a link is a click too); every link works without it. */}
        <table onClick={onClick} className="min-w-full border-separate border-spacing-0 text-sm" data-testid="report-table" data-layout={`${layout.kind}/${layout.rows}/${layout.cols ?? ""}/${layout.measure}`}>
          <caption id={captionId} className="sr-only">
            <Caption pivot={pivot} />
          </caption>
          <colgroup span={1} />
          {groups.map((g, i) => (
            <colgroup key={i} span={g.span} />
          ))}
          <thead className="sticky top-0 z-20 bg-slate-100">
            <tr>
              <th scope="col" rowSpan={money ? 2 : 1} className="sticky left-0 z-30 border-r border-b border-slate-300 bg-slate-100 px-2 py-1 text-left align-bottom font-semibold">
                {DIMENSION_LABELS[layout.rows]}
              </th>
              {groups.map((g, i) => (
                <th key={i} scope={money ? "colgroup" : "col"} colSpan={g.span} className={`border-b border-slate-300 px-2 py-1 font-semibold ${money ? "text-center" : "text-right"}`}>
                  {g.label}
                </th>
              ))}
            </tr>
            {money ? (
              <tr>
                {columns.map((c, i) => (
                  <th key={i} scope="col" className="border-b border-slate-300 px-2 py-1 text-right text-xs font-medium">
                    {c.currency}
                  </th>
                ))}
              </tr>
            ) : null}
          </thead>
          <tbody>{rows.map((value, ri) => row(ri, valueLabel(layout.rows, value), ri))}</tbody>
          <tfoot className="bg-slate-50">{row("total", "Total", "total")}</tfoot>
        </table>
      </div>
    </div>
  );
});

/** What the table shows: "Chargebacks: count by shop (rows) and file date (columns) · 1,191 chargebacks". */
function Caption({ pivot }: { pivot: Pivot }) {
  const { layout } = pivot;
  const what = `${KINDS[layout.kind].title}: ${measureLabel(layout.kind, layout.measure).toLowerCase()} by ${DIMENSION_LABELS[layout.rows].toLowerCase()}${layout.cols ? ` (rows) and ${DIMENSION_LABELS[layout.cols].toLowerCase()} (columns)` : ""}`;
  return (
    <>
      <span className="font-semibold">{what}</span>
      <span className="text-slate-700">
        {" "}
        · {nf.format(pivot.totalElements)} {recordNoun(layout.kind, pivot.totalElements)}
        {isMoneyMeasure(layout.measure) ? ", amounts per currency, never added across currencies" : ""}
      </span>
    </>
  );
}

/** What a cell's link opens, in words: "12 chargebacks of Shop SHOP_A, File date 2026-01-02: open them in the Chargebacks grid". */
function linkName(pivot: Pivot, ri: Index, column: Column, text: string, records: number, grid: string): string {
  const { kind, measure } = pivot.layout;
  const key = cellKey(pivot, ri, column.ci);
  const words = Object.keys(key).length ? `of ${cellWords(key)}` : "of this report";
  const noun = recordNoun(kind, records);
  if (measure === "count") return `${text} ${noun} ${words}: open ${records === 1 ? "it" : "them"} in the ${grid}`;
  return `${text}${column.currency ? ` ${column.currency}` : " reversals"} ${words}: open the ${nf.format(records)} ${noun} in the ${grid}`;
}
