"use client";

import Link from "next/link";
import { type ReactNode, useId, useMemo } from "react";
import { KINDS } from "@/lib/domain/kinds";
import { cellGridHref, isMoneyMeasure } from "@/lib/url-state/report";
import { DIMENSION_LABELS, recordNoun, valueLabel } from "./labels";
import { cellKey, cellValue, cellWords, type Column, type Index, type Pivot, tableColumns } from "./pivot";

const nf = new Intl.NumberFormat("en");

/**
 * The pivot table: a real table with a caption, a header row per column value (and, for amounts,
 * one column per currency under it), a header cell per row, the row totals on the right and the
 * column totals in the footer. A cell whose records the grid can list (month, file date, shop,
 * merchant, and the totals of those) links to the grid filtered to exactly those records; the
 * link's name says what it opens. The first column and the header stay in view while it scrolls.
 */
export function ReportTable({ pivot, body, caption }: { pivot: Pivot; body: Record<string, unknown>; caption: ReactNode }) {
  const { layout } = pivot;
  const captionId = useId();
  const columns = useMemo(() => tableColumns(pivot), [pivot]);
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
  const row = (ri: Index, label: string, key: string | number) => {
    // The grid's address of each cell of the row, once per column value (currencies share it).
    const hrefs = new Map<Index, string | undefined>();
    const hrefOf = (ci: Index) => {
      if (!hrefs.has(ci)) hrefs.set(ci, cellGridHref(layout.kind, body, cellKey(pivot, ri, ci)));
      return hrefs.get(ci);
    };
    return (
      <tr key={key} className={ri === "total" ? "font-semibold" : "hover:bg-slate-50"}>
        <th scope="row" className="sticky left-0 z-10 max-w-72 border-r border-b border-slate-200 bg-white px-2 py-1 text-left font-medium break-words">
          {label}
        </th>
        {columns.map((column, i) => (
          <td key={i} className={`border-b border-slate-200 px-2 py-1 text-right tabular-nums whitespace-nowrap ${column.ci === "total" ? "bg-slate-50 font-semibold" : ""}`}>
            <CellContent pivot={pivot} ri={ri} column={column} href={hrefOf(column.ci)} grid={grid} />
          </td>
        ))}
      </tr>
    );
  };

  return (
    <div className="rounded-md border border-slate-300 bg-white">
      {/* The caption, shown above the scrolling box so that it wraps on a phone; the table's own caption says the same to screen readers. */}
      <p aria-hidden="true" className="border-b border-slate-200 px-2 py-2 text-sm text-slate-800">
        {caption}
      </p>
      <div role="region" aria-labelledby={captionId} tabIndex={0} className="max-h-[70vh] overflow-auto rounded-b-md focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600" data-testid="report-scroll">
        <table className="min-w-full border-separate border-spacing-0 text-sm" data-testid="report-table" data-layout={`${layout.kind}/${layout.rows}/${layout.cols ?? ""}/${layout.measure}`}>
          <caption id={captionId} className="sr-only">
            {caption}
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
          <tbody>{pivot.rows.map((value, ri) => row(ri, valueLabel(layout.rows, value), ri))}</tbody>
          <tfoot className="bg-slate-50">{row("total", "Total", "total")}</tfoot>
        </table>
      </div>
    </div>
  );
}

function CellContent({ pivot, ri, column, href, grid }: { pivot: Pivot; ri: Index; column: Column; href: string | undefined; grid: string }) {
  const value = cellValue(pivot, ri, column, nf);
  // A cell without records has nothing to open.
  if (!href || value.records === 0 || value.text === "—") return <>{value.text}</>;
  const { kind, measure } = pivot.layout;
  const key = cellKey(pivot, ri, column.ci);
  const words = Object.keys(key).length ? `of ${cellWords(key)}` : "of this report";
  const noun = recordNoun(kind, value.records);
  const label =
    measure === "count"
      ? `${value.text} ${noun} ${words}: open ${value.records === 1 ? "it" : "them"} in the ${grid}`
      : `${value.text}${column.currency ? ` ${column.currency}` : " reversals"} ${words}: open the ${nf.format(value.records)} ${noun} in the ${grid}`;
  return (
    <Link href={href} prefetch={false} aria-label={label} className="text-blue-800 underline decoration-slate-400 underline-offset-2 hover:decoration-blue-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600">
      {value.text}
    </Link>
  );
}
