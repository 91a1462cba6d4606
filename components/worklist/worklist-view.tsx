"use client";

import { keepPreviousData, useQueries, useQuery } from "@tanstack/react-query";
import { useTable } from "@tanstack/react-table";
import { createSerializer, useQueryStates } from "nuqs";
import { useMemo, useRef } from "react";
import { DataTable, type DataTableHandle } from "@/components/data-table/data-table";
import { dataTableFeatures } from "@/components/data-table/features";
import { Pagination } from "@/components/data-table/pagination";
import { postApi } from "@/components/disputes/api";
import { useDeadlines } from "@/components/disputes/deadline-context";
import { ExportLink } from "@/components/disputes/export-link";
import { FilterPanel } from "@/components/disputes/filter-panel";
import { GridStatusPanel, pageStatus } from "@/components/disputes/grid-status";
import { retryTransient } from "@/components/disputes/problem-text";
import { RecordDrawer } from "@/components/disputes/record-drawer";
import type { DisputeRecord, RecordPage } from "@/components/disputes/types";
import { recordKeyOf, useOpenRecord } from "@/components/disputes/use-open-record";
import type { RecordKind } from "@/lib/domain/fields";
import { activeFiltersOf } from "@/lib/url-state/dispute-view";
import { parseRecordKey } from "@/lib/url-state/record-key";
import { DUE_GROUPS, type DueGroupKey, toWorklistBody, WORKLIST_FILTERS, WORKLIST_PAGE_SIZES, worklistParsers } from "@/lib/url-state/worklist";
import { worklistColumns, type WorklistRow } from "./worklist-columns";

type WorklistItem = Omit<WorklistRow, "__key">;

export const fetchWorklist = (body: Record<string, unknown>, signal?: AbortSignal) => postApi<RecordPage<WorklistItem>>("/api/worklist", body, signal);

const EMPTY: WorklistRow[] = [];
const nf = new Intl.NumberFormat("en");
const exportQuery = createSerializer({ shops: worklistParsers.shops, kinds: worklistParsers.kinds, from: worklistParsers.from, to: worklistParsers.to });

/**
 * "Needs an answer": the open disputes of the user's shops, nearest answer-by date first (the
 * server orders and pages them, CONTRACT 10), in four due groups counted in the user's own
 * calendar. The tiles give each group's count and filter to it; a row opens the same drawer as
 * the grids; the list exports as CSV.
 */
export function WorklistView({ shops }: { shops: string[] }) {
  const [view, setView] = useQueryStates(worklistParsers, { history: "push" });
  const { today } = useDeadlines();
  const tableHandle = useRef<DataTableHandle>(null);
  const values = view as unknown as Record<string, unknown>;

  const body = toWorklistBody(values, today);
  const query = useQuery({
    queryKey: ["worklist", body],
    queryFn: ({ signal }) => fetchWorklist(body, signal),
    placeholderData: keepPreviousData,
    retry: retryTransient,
  });
  // Each due group's count, with the same filters but the group's own answer-by range.
  const groupCounts = useQueries({
    queries: DUE_GROUPS.map((group) => {
      const groupBody = { ...toWorklistBody(values, today, { due: group.key, paging: false }), per_page: 10 };
      return { queryKey: ["worklist", groupBody], queryFn: ({ signal }: { signal: AbortSignal }) => fetchWorklist(groupBody, signal), retry: retryTransient };
    }),
  });

  const settled = !query.isPlaceholderData;
  const rows = useMemo<WorklistRow[]>(
    () => (query.data && settled ? query.data.content.map((item) => ({ ...item, __key: `${item.kind}:${recordKeyOf(item.kind, item.record as DisputeRecord)}` })) : EMPTY),
    [query.data, settled],
  );
  const table = useTable({ features: dataTableFeatures, columns: worklistColumns, data: rows, state: {}, manualSorting: true, enableSorting: false });

  // The open record may be of either kind: the URL names its kind beside its key.
  const record = useOpenRecord({
    kind: view.openKind as RecordKind | null,
    open: view.open,
    rows,
    describe: (row) => ({ kind: row.kind, key: row.__key.slice(row.kind.length + 1), record: row.record as DisputeRecord }),
    pageSettled: settled && query.isFetched,
    setOpen: (row) => void setView(row ? { open: parseRecordKey(row.key), openKind: row.kind } : { open: null, openKind: null }),
    tableHandle,
  });

  const filters = activeFiltersOf(WORKLIST_FILTERS, values);
  const data = query.data;
  const page = view.page;
  const { status, beyondLast } = pageStatus({ query, settled, rows: rows.length, page, data });
  const due = view.due as DueGroupKey | null;
  const clearFilters = { ...Object.fromEntries(WORKLIST_FILTERS.map((d) => [d.key, null])), due: null, page: null, open: null, openKind: null };

  return (
    <div className="space-y-3">
      <nav aria-label="Due groups" className="grid grid-cols-2 gap-2 md:grid-cols-4">
        {DUE_GROUPS.map((group, i) => {
          const count = groupCounts[i].data?.totalElements;
          const pressed = due === group.key;
          return (
            <button
              key={group.key}
              type="button"
              aria-pressed={pressed}
              data-testid={`due-${group.key}`}
              onClick={() => void setView({ due: pressed ? null : group.key, page: null, open: null, openKind: null })}
              className={`rounded-md border px-3 py-2 text-left focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 ${pressed ? "border-blue-600 bg-blue-50" : "border-slate-300 bg-white hover:bg-slate-50"}`}
            >
              <span className="block text-sm text-slate-700">{group.label}</span>
              <span className={`block text-2xl font-semibold tabular-nums ${group.key === "overdue" && count ? "text-red-800" : "text-slate-900"}`}>{count === undefined ? "…" : nf.format(count)}</span>
            </button>
          );
        })}
      </nav>
      <FilterPanel defs={WORKLIST_FILTERS} values={values} shops={shops} onChange={(patch) => void setView({ ...patch, page: null, open: null, openKind: null })} />
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm text-slate-800">
          {due ? `${DUE_GROUPS.find((g) => g.key === due)!.label}: ` : "All open disputes, "}nearest answer-by date first. Days left count in your time zone (today is {today}).
        </p>
        {/* The export holds the list on screen: a chosen due group narrows its answer-by range. */}
        <ExportLink
          href={`/api/export/worklist${exportQuery({ shops: view.shops, kinds: view.kinds, from: (body.answer_by_from as string) ?? null, to: (body.answer_by_to as string) ?? null })}`}
          total={data ? data.totalElements : undefined}
        />
      </div>
      <p role="status" className="sr-only">
        {status === "loading" ? "Loading the worklist…" : status === "ready" ? `${rows.length} disputes shown of ${data?.totalElements ?? 0}.` : ""}
      </p>
      <DataTable
        table={table}
        caption="Disputes that need an answer, nearest answer-by date first"
        status={beyondLast ? "empty" : status}
        loadingRows={12}
        statusPanel={
          <GridStatusPanel
            error={status === "error" ? query.error : null}
            onRetry={() => void query.refetch()}
            retrying={query.isFetching}
            beyondLast={beyondLast ? { page, lastPage: data!.totalPages, goToLast: () => void setView({ page: data!.totalPages }) } : null}
            filters={due ? [...filters, { def: { key: "due", field: "answer_by_from", type: "date", label: "Due" }, value: DUE_GROUPS.find((g) => g.key === due)!.label }] : filters}
            onClearFilters={() => void setView(clearFilters)}
            noun="disputes that need an answer"
            nothingYet="Every dispute of your shops has been answered or needs no answer."
          />
        }
        onOpenRow={(_row, index) => record.openRow(index)}
        openRowId={record.onPage ? String(record.openIndex) : null}
        handleRef={tableHandle}
        className="max-h-[calc(100vh-20rem)] min-h-64"
      />
      {status !== "error" ? (
        <Pagination
          page={page}
          pageSize={view.size}
          pageSizes={WORKLIST_PAGE_SIZES}
          totalElements={data?.totalElements ?? 0}
          totalPages={data?.totalPages ?? 0}
          disabled={!data}
          onPageChange={(p) => void setView({ page: p === 1 ? null : p, open: null, openKind: null })}
          onPageSizeChange={(s) => void setView({ size: s, page: null, open: null, openKind: null })}
        />
      ) : null}
      <RecordDrawer
        kind={(view.openKind as RecordKind | null) ?? "chargeback"}
        state={record.drawer}
        onClose={record.close}
        onAfterClose={record.focusAfterClose}
        onStep={record.step}
        canStep={record.canStep}
      />
    </div>
  );
}
