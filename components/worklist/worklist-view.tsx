"use client";

import { keepPreviousData, useQueries, useQuery } from "@tanstack/react-query";
import { useTable } from "@tanstack/react-table";
import { createSerializer, useQueryStates } from "nuqs";
import { useMemo, useRef } from "react";
import { DataTable, type DataTableHandle } from "@/components/data-table/data-table";
import { dataTableFeatures } from "@/components/data-table/features";
import { Pagination } from "@/components/data-table/pagination";
import { postApi, type RecordPage } from "@/components/shared/api";
import { useDeadlines } from "@/components/shared/deadline-context";
import { ExportLink } from "@/components/shared/export-link";
import { FilterPanel } from "@/components/shared/filter-panel";
import { GridStatusPanel, pageStatus } from "@/components/shared/grid-status";
import { retryTransient } from "@/components/shared/problem-text";
import { RecordDrawer } from "@/components/disputes/record-drawer";
import type { DisputeRecord } from "@/components/disputes/types";
import { recordKeyOf, useOpenRecord } from "@/components/disputes/use-open-record";
import type { RecordKind } from "@/lib/domain/fields";
import { activeFiltersOf } from "@/lib/url-state/dispute-view";
import { parseRecordKey } from "@/lib/url-state/record-key";
import {
  DUE_GROUPS,
  exportParamsOf,
  type GroupKey,
  groupLabel,
  RECENTLY_EXPIRED,
  toWorklistBody,
  WORKLIST_FILTERS,
  WORKLIST_PAGE_SIZES,
  worklistExportParsers,
  worklistParsers,
} from "@/lib/url-state/worklist";
import { worklistColumns, type WorklistRow } from "./worklist-columns";

type WorklistItem = Omit<WorklistRow, "__key">;

export const fetchWorklist = (body: Record<string, unknown>, signal?: AbortSignal) => postApi<RecordPage<WorklistItem>>("/api/worklist", body, signal);

const EMPTY: WorklistRow[] = [];
const nf = new Intl.NumberFormat("en");
const exportQuery = createSerializer(worklistExportParsers);

/** Tiles in the order shown: what can still be answered, then, apart, what expired recently. */
const TILE_GROUPS: readonly GroupKey[] = [...DUE_GROUPS.map((g) => g.key), RECENTLY_EXPIRED.key];

/**
 * "Needs an answer": the disputes of the user's shops that can still be answered, nearest
 * answer-by date first (the server orders, pages and gives each its status on the user's own
 * date, docs/api.md "Worklist"), in four due groups counted in the user's calendar, and apart
 * what expired in the last 30 days. The tiles give each group's count and filter to it; a status
 * filter lists expired disputes on request; a row opens the same drawer as the grids; the list
 * exports as CSV.
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
  // Each group's count, with the same filters but the group's own statuses and date range.
  const groupCounts = useQueries({
    queries: TILE_GROUPS.map((group) => {
      const groupBody = { ...toWorklistBody(values, today, { group, paging: false }), per_page: 10 };
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
  const group = view.due as GroupKey | null;
  const clearFilters = { ...Object.fromEntries(WORKLIST_FILTERS.map((d) => [d.key, null])), due: null, page: null, open: null, openKind: null };
  const countOf = (key: GroupKey) => groupCounts[TILE_GROUPS.indexOf(key)].data?.totalElements;
  // A group fixes the statuses it lists: choosing one clears the status filter, and the other way round.
  const choose = (key: GroupKey) => void setView({ due: group === key ? null : key, statuses: null, page: null, open: null, openKind: null });
  const expiredCount = countOf(RECENTLY_EXPIRED.key);
  const expiredPressed = group === RECENTLY_EXPIRED.key;
  const statusFilter = view.statuses?.length ? view.statuses.join(" and ") : null;

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-stretch gap-2">
        <nav aria-label="Due groups" className="grid min-w-0 flex-[4_1_32rem] grid-cols-2 gap-2 md:grid-cols-4">
          {DUE_GROUPS.map((g) => {
            const count = countOf(g.key);
            const pressed = group === g.key;
            return (
              <button
                key={g.key}
                type="button"
                aria-pressed={pressed}
                data-testid={`due-${g.key}`}
                onClick={() => choose(g.key)}
                className={`rounded-md border px-3 py-2 text-left focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 ${pressed ? "border-blue-600 bg-blue-50" : "border-slate-300 bg-white hover:bg-slate-50"}`}
              >
                <span className="block text-sm text-slate-700">
                  {g.label}
                  {g.note ? <small className="text-sm text-slate-600">, {g.note}</small> : null}
                </span>
                <span className={`block text-2xl font-semibold tabular-nums ${g.key === "overdue" && count ? "text-red-800" : "text-slate-900"}`}>{count === undefined ? "…" : nf.format(count)}</span>
              </button>
            );
          })}
        </nav>
        {/* Apart and quieter: what was missed recently can no longer be answered, so it is not work to do. */}
        <a
          href={`?due=${RECENTLY_EXPIRED.key}`}
          aria-current={expiredPressed ? "true" : undefined}
          data-testid="expired-recently"
          onClick={(e) => {
            e.preventDefault();
            choose(RECENTLY_EXPIRED.key);
          }}
          className={`flex flex-[1_1_10rem] flex-col justify-center rounded-md border border-dashed px-3 py-2 text-sm focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 ${expiredPressed ? "border-blue-600 bg-blue-50" : "border-slate-300 bg-slate-50 hover:bg-slate-100"}`}
        >
          <span className="text-slate-700">{RECENTLY_EXPIRED.label}</span>
          <span className="font-semibold text-slate-800 tabular-nums underline">{expiredCount === undefined ? "…" : nf.format(expiredCount)}</span>
        </a>
      </div>
      <FilterPanel
        defs={WORKLIST_FILTERS}
        values={values}
        shops={shops}
        onChange={(patch) => void setView({ ...patch, ...("statuses" in patch ? { due: null } : {}), page: null, open: null, openKind: null })}
      />
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm text-slate-800">
          {group ? `${groupLabel(group)}: ` : statusFilter ? `Disputes ${statusFilter}, ` : "Every dispute that can still be answered, "}
          nearest answer-by date first. Dates count in your time zone (today is {today}).
        </p>
        {/* The export holds the list on screen: a chosen group's statuses and dates, and the user's date. */}
        <ExportLink href={`/api/export/worklist${exportQuery(exportParamsOf(body) as never)}`} total={data ? data.totalElements : undefined} />
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
            filters={group ? [...filters, { def: { key: "due", field: "answer_by_from", type: "date", label: "Group" }, value: groupLabel(group) }] : filters}
            onClearFilters={() => void setView(clearFilters)}
            noun="disputes that need an answer"
            nothingYet="Nothing of your shops can still be answered: every dispute has been answered, needs no answer, or has expired."
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
