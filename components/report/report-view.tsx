"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useQueryStates } from "nuqs";
import { type ReactNode, startTransition, useEffect, useId, useMemo, useState } from "react";
import { EmptyState, ErrorState } from "@/components/data-table/states";
import { ApiProblem } from "@/components/shared/api";
import { useDeadlines } from "@/components/shared/deadline-context";
import { FilterPanel } from "@/components/shared/filter-panel";
import { GridStatusPanel } from "@/components/shared/grid-status";
import { problemText, retryTransient } from "@/components/shared/problem-text";
import { KINDS, RECORD_KINDS, type RecordKind } from "@/lib/domain/kinds";
import { dimensionNames, type DimensionName } from "@/lib/schemas/summary";
import { activeFilters, FILTERS } from "@/lib/url-state/dispute-view";
import { DEFAULT_ROWS, isMoneyMeasure, MEASURES_OF, type Measure, type ReportLayout, reportBody, reportLayout, reportParsers } from "@/lib/url-state/report";
import { DIMENSION_LABELS, measureOption } from "./labels";
import { buildPivot, type Pivot, pivotCsv } from "./pivot";
import { fetchSummary, type ReportAnswer, type Summary } from "./report-api";
import { ReportChart } from "./report-chart";
import { ReportTable } from "./report-table";

const nf = new Intl.NumberFormat("en");

/** Beyond this many cells the table is not drawn (the file still has it): no page stays usable. */
const MAX_DRAWN_CELLS = 40_000;

/**
 * The pivot report: chargebacks or pre-arbitration cases counted or summed by one or two summary
 * dimensions (docs/api.md, "Summaries"), with the grids' filters. The address holds the whole
 * layout (lib/url-state/report.ts). The numbers are the summary endpoint's own; totals are added
 * exactly (pivot.ts); a cell opens the grid filtered to its records where the grid can filter by
 * its dimensions; "Export CSV" writes the table as shown.
 */
export function ReportView({ shops, first }: { shops: string[]; first?: ReportAnswer }) {
  // Every change is a history entry, so Back and Forward walk through the layouts.
  const [view, setView] = useQueryStates(reportParsers, { history: "push" });
  const values = view as unknown as Record<string, unknown>;
  const layout = reportLayout(view);
  const { kind } = layout;
  const { today } = useDeadlines();
  const body = reportBody(layout, values, today);
  const requestText = JSON.stringify(body);

  // The page's own answer, when it was read for this very request.
  const [initial] = useState(() => (first ? { request: JSON.stringify(first.request), data: JSON.parse(first.json) as Summary, at: Date.now() } : undefined));
  const matches = initial?.request === requestText;
  const query = useQuery({
    queryKey: ["summary", kind, body],
    // The answer keeps the layout and request it was asked for, so that while the next one is on
    // its way the table on screen stays whole and its links stay true to it.
    queryFn: async ({ signal }) => ({ layout, body, summary: await fetchSummary(kind, body, signal) }),
    placeholderData: keepPreviousData,
    retry: retryTransient,
    initialData: matches ? { layout, body, summary: initial.data } : undefined,
    initialDataUpdatedAt: matches ? initial.at : undefined,
  });
  const shown = query.data;
  // The measure is not part of the request: the answer on screen takes the chosen one at once.
  const shownMeasure: Measure | undefined = shown ? (JSON.stringify(shown.body) === requestText ? layout.measure : shown.layout.measure) : undefined;
  const pivot = usePivot(shown, shownMeasure);
  // Current: the answer on screen is the address's own (not the previous one standing in).
  const current = Boolean(shown) && !query.isPlaceholderData && !query.isError;
  const live = useLive();
  // Settled: and drawn whole.
  const settled = current && live;

  const onKind = (next: RecordKind) => {
    const nextLayout = reportLayout({ ...view, kind: next });
    // Filters the other kind does not have are cleared, not carried along unseen.
    const keep = new Set(FILTERS[next].map((d) => d.key));
    const dropped = Object.fromEntries(FILTERS[kind].filter((d) => !keep.has(d.key)).map((d) => [d.key, null]));
    void setView({ ...dropped, ...layoutPatch(nextLayout) });
  };
  const onRows = (rows: DimensionName) => void setView(layoutPatch({ ...layout, rows, cols: layout.cols === rows ? layout.rows : layout.cols }));
  const onCols = (cols: DimensionName | null) => void setView(layoutPatch({ ...layout, cols }));
  const onMeasure = (measure: Measure) => void setView(layoutPatch({ ...layout, measure }));
  const filters = activeFilters(kind, values);
  const clearFilters = Object.fromEntries(FILTERS[kind].map((d) => [d.key, null]));

  let content: ReactNode;
  if (query.isError) {
    const error = query.error;
    // A request the server refuses (too many groups, a bad range) is not cured by trying again.
    const refused = error instanceof ApiProblem && error.status >= 400 && error.status < 500;
    const text = problemText(error, "the report");
    // More than 10,000 groups (docs/api.md, "Summaries"): what it means for this page, and the server's words.
    if (error instanceof ApiProblem && error.status === 400 && error.fields.some((f) => f.field === "group_by")) {
      text.title = "Too many groups for one table";
      text.detail = `${text.detail}. Choose other or fewer rows and columns, or narrow the filters.`;
    }
    content = <ErrorState {...text} onRetry={refused ? undefined : () => void query.refetch()} retrying={query.isFetching} />;
  } else if (!shown || !pivot) {
    content = <ReportLoading />;
  } else if (pivot.totalElements === 0) {
    content = (
      <GridStatusPanel error={null} onRetry={() => {}} retrying={false} beyondLast={null} filters={filters} onClearFilters={() => void setView(clearFilters)} noun="records" />
    );
  } else {
    const cells = pivot.rows.length * pivot.cols.length * (isMoneyMeasure(pivot.layout.measure) ? pivot.currencies.length : 1);
    content = (
      <div className="space-y-4">
        {cells > MAX_DRAWN_CELLS ? (
          <EmptyState title={`This table would have ${nf.format(cells)} cells, too many to draw here.`}>
            Choose fewer rows or columns, narrow the filters, or use Export CSV for the whole table.
          </EmptyState>
        ) : (
          <ReportTable pivot={pivot} body={shown.body} firstScreen={!live} />
        )}
        <ReportChart pivot={pivot} />
      </div>
    );
  }

  return (
    <div className="space-y-3" data-testid="report" data-settled={settled ? "true" : "false"}>
      <FilterPanel defs={FILTERS[kind]} values={values} shops={shops} onChange={(patch) => void setView(patch as never)} />
      <LayoutControls layout={layout} onKind={onKind} onRows={onRows} onCols={onCols} onMeasure={onMeasure} pivot={current ? pivot : undefined} />
      <p role="status" className="sr-only">
        {query.isError ? "" : !settled ? "Loading the report…" : pivot ? `Report of ${nf.format(pivot.totalElements)} records in ${nf.format(pivot.rows.length)} rows.` : ""}
      </p>
      <div aria-busy={!settled && !query.isError} className={!current && shown && !query.isError ? "opacity-60 transition-opacity" : undefined}>
        {content}
      </div>
    </div>
  );
}

/**
 * False while the page renders on the server and hydrates, true from then on: the server's HTML
 * carries the first screenful of a large table, and the browser draws the rest right after, as a
 * transition that input can interrupt.
 */
function useLive(): boolean {
  const [live, setLive] = useState(false);
  useEffect(() => startTransition(() => setLive(true)), []);
  return live;
}

/** The table of an answer, built once per answer and measure. */
function usePivot(answer: { layout: ReportLayout; summary: Summary } | undefined, measure: Measure | undefined): Pivot | undefined {
  return useMemo(() => (answer && measure ? buildPivot({ ...answer.layout, measure }, answer.summary) : undefined), [answer, measure]);
}

/** The URL values of a layout: a default is left out of the address. */
function layoutPatch(layout: ReportLayout) {
  return {
    kind: layout.kind === "chargeback" ? null : layout.kind,
    rows: layout.rows === DEFAULT_ROWS ? null : layout.rows,
    cols: layout.cols,
    measure: layout.measure === "count" ? null : layout.measure,
  };
}

const selectClass =
  "block w-full rounded-md border border-slate-400 bg-white px-2 py-1.5 text-sm text-slate-900 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600";

function LayoutControls({
  layout,
  onKind,
  onRows,
  onCols,
  onMeasure,
  pivot,
}: {
  layout: ReportLayout;
  onKind: (kind: RecordKind) => void;
  onRows: (rows: DimensionName) => void;
  onCols: (cols: DimensionName | null) => void;
  onMeasure: (measure: Measure) => void;
  pivot: Pivot | undefined;
}) {
  const dims = dimensionNames(layout.kind);
  const dimOption = (d: DimensionName) => ({ value: d, label: DIMENSION_LABELS[d] });
  return (
    <section aria-label="Layout" className="flex flex-wrap items-end gap-3 rounded-md border border-slate-300 bg-white p-3">
      <LabelledSelect label="Records" value={layout.kind} onChange={(v) => onKind(v as RecordKind)} options={RECORD_KINDS.map((k) => ({ value: k, label: KINDS[k].title }))} />
      <LabelledSelect label="Rows" value={layout.rows} onChange={(v) => onRows(v as DimensionName)} options={dims.map(dimOption)} />
      <LabelledSelect
        label="Columns"
        value={layout.cols ?? ""}
        onChange={(v) => onCols((v || null) as DimensionName | null)}
        options={[{ value: "", label: "None" }, ...dims.filter((d) => d !== layout.rows).map(dimOption)]}
      />
      <LabelledSelect label="Measure" value={layout.measure} onChange={(v) => onMeasure(v as Measure)} options={MEASURES_OF[layout.kind].map((m) => ({ value: m, label: measureOption(layout.kind, m) }))} />
      <ExportButton pivot={pivot} />
    </section>
  );
}

/** One of the layout's choices: a label above its select. */
function LabelledSelect({ label, value, onChange, options }: { label: string; value: string; onChange: (value: string) => void; options: readonly { value: string; label: string }[] }) {
  const id = useId();
  return (
    <div className="min-w-40 flex-1 space-y-1 sm:flex-none">
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        {label}
      </label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)} className={selectClass}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The table as shown, written in the browser: nothing is asked of the server again. */
function ExportButton({ pivot }: { pivot: Pivot | undefined }) {
  const { today } = useDeadlines();
  const empty = !pivot || pivot.totalElements === 0;
  const download = () => {
    if (!pivot || empty) return;
    const { layout } = pivot;
    const name = `${KINDS[layout.kind].exportName}-report-${layout.rows}${layout.cols ? `-by-${layout.cols}` : ""}-${layout.measure}-${today}.csv`;
    const url = URL.createObjectURL(new Blob([pivotCsv(pivot, nf)], { type: "text/csv;charset=utf-8" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    // The download has started from the URL; it can go once the click's task is over.
    window.setTimeout(() => URL.revokeObjectURL(url), 0);
  };
  return (
    <button
      type="button"
      onClick={download}
      aria-disabled={empty ? true : undefined}
      className={`ml-auto inline-flex h-9 items-center rounded-md bg-blue-700 px-3 text-sm font-medium text-white hover:bg-blue-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:ring-offset-2 ${empty ? "opacity-50" : ""}`}
    >
      Export CSV
    </button>
  );
}

function ReportLoading() {
  return (
    <div className="space-y-2" data-testid="report-loading">
      <div aria-hidden="true" className="h-8 w-full max-w-lg animate-pulse rounded-md bg-slate-200" />
      <div aria-hidden="true" className="h-64 animate-pulse rounded-md bg-slate-200" />
    </div>
  );
}
