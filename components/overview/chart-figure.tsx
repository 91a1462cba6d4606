"use client";

import { type ReactNode, useId, useState } from "react";

/**
 * A chart with its numbers: the chart is a picture for sighted users (aria-hidden, its summary
 * is the figure's caption); the table holds every number it draws. Screen readers always reach
 * the table; on screen it opens with "Show the numbers"; printed, it is always there.
 */
export function ChartFigure({ title, summary, chart, table, id }: { title: string; summary: string; chart: ReactNode; table: ReactNode; id: string }) {
  const [shown, setShown] = useState(false);
  const tableId = useId();
  return (
    <figure className="rounded-md border border-slate-300 bg-white p-3 break-inside-avoid" aria-labelledby={`${id}-title`} data-testid={`chart-${id}`}>
      <h2 id={`${id}-title`} className="text-base font-semibold">
        {title}
      </h2>
      <figcaption className="mb-2 text-sm text-slate-700">{summary}</figcaption>
      <div aria-hidden="true" className="h-64 w-full print:h-56">
        {chart}
      </div>
      <button type="button" aria-expanded={shown} aria-controls={tableId} onClick={() => setShown((s) => !s)} className="mt-2 text-sm text-blue-800 underline focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 print:hidden">
        {shown ? "Hide the numbers" : "Show the numbers"}
      </button>
      <div id={tableId} className={shown ? "mt-1 max-h-72 overflow-auto print:max-h-none" : "sr-only print:not-sr-only"}>
        {table}
      </div>
    </figure>
  );
}

/** A chart's place while its numbers are on the way: the same box and title, no picture yet. */
export function ChartLoading({ id, title }: { id: string; title: string }) {
  return (
    <figure className="h-80 animate-pulse rounded-md border border-slate-200 bg-slate-100 p-3" data-testid={`chart-${id}`}>
      <figcaption className="text-base font-semibold text-slate-600">{title}</figcaption>
    </figure>
  );
}

export function NumbersTable({ caption, head, rows }: { caption: string; head: string[]; rows: (string | number | ReactNode)[][] }) {
  return (
    <table className="w-full border-collapse text-left text-sm">
      <caption className="sr-only">{caption}</caption>
      <thead>
        <tr>
          {head.map((h, i) => (
            <th key={h} scope="col" className={`border-b border-slate-300 px-2 py-1 font-medium ${i ? "text-right" : ""}`}>
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, r) => (
          <tr key={r}>
            {row.map((cell, i) =>
              i === 0 ? (
                <th key={i} scope="row" className="border-b border-slate-100 px-2 py-1 font-normal">
                  {cell}
                </th>
              ) : (
                <td key={i} className="border-b border-slate-100 px-2 py-1 text-right tabular-nums">
                  {cell}
                </td>
              ),
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
