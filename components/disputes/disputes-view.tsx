"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { type ColumnDef, type ColumnVisibilityState, useTable } from "@tanstack/react-table";
import { useQueryStates } from "nuqs";
import { useMemo, useRef } from "react";
import { DataTable, type DataTableHandle } from "@/components/data-table/data-table";
import { dataTableFeatures, type DataTableFeatures } from "@/components/data-table/features";
import { Pagination } from "@/components/data-table/pagination";
import { useStoredVisibility } from "@/components/data-table/use-stored-visibility";
import { ViewOptions } from "@/components/data-table/view-options";
import { KINDS, type RecordKind } from "@/lib/domain/kinds";
import { SORT_KEY_LABELS, type SortKey, type SortOrder } from "@/lib/schemas/search";
import { activeFilters, FILTERS, PAGE_SIZES, selectionQuery, toSearchBody, viewParsers } from "@/lib/url-state/dispute-view";
import { parseRecordKey, type RecordKey } from "@/lib/url-state/record-key";
import { fetchRecords } from "@/components/shared/api";
import { chargebackColumns, chargebackDefaultVisibility } from "./chargeback-columns";
import { gridColumnsKey } from "./columns-key";
import { ExportLink } from "@/components/shared/export-link";
import { useDeadlines } from "@/components/shared/deadline-context";
import { FilterPanel } from "@/components/shared/filter-panel";
import { GridStatusPanel, pageStatus } from "@/components/shared/grid-status";
import { preArbitrationColumns, preArbitrationDefaultVisibility } from "./pre-arbitration-columns";
import { retryTransient } from "@/components/shared/problem-text";
import { RecordDrawer } from "./record-drawer";
import { SortControls } from "./sort-controls";
import type { DisputeRecord, Keyed } from "./types";
import { recordKeyOf, useOpenRecord } from "./use-open-record";
import { useUrlSorting } from "./use-url-sorting";

type Row = Keyed<DisputeRecord>;

const PARSERS = { chargeback: viewParsers("chargeback"), pre_arbitration: viewParsers("pre_arbitration") };
const COLUMNS = { chargeback: chargebackColumns, pre_arbitration: preArbitrationColumns } as unknown as Record<RecordKind, ColumnDef<DataTableFeatures, Row, unknown>[]>;
const DEFAULT_VISIBILITY: Record<RecordKind, ColumnVisibilityState> = { chargeback: chargebackDefaultVisibility, pre_arbitration: preArbitrationDefaultVisibility };
const EMPTY: Row[] = [];

/**
 * One dispute grid (chargebacks or pre-arbitration cases). The pieces, each readable on its own:
 * the URL holds the view (lib/url-state/dispute-view.ts), React Query fetches the page from the
 * API, useUrlSorting maps header clicks to the URL's sort key, the generic data table renders the
 * rows, useOpenRecord finds the record the drawer shows, GridStatusPanel says why there are no rows.
 */
export function DisputesView({ kind, shops }: { kind: RecordKind; shops: string[] }) {
  // Every change is a history entry, so Back and Forward walk through the views.
  const [view, setView] = useQueryStates(PARSERS[kind], { history: "push" });
  const tableHandle = useRef<DataTableHandle>(null);
  const values = view as unknown as Record<string, unknown>;
  const sort = view.sort as SortKey;
  const dir = view.dir as SortOrder;
  const page = view.page as number;
  const size = view.size as number;

  // React Query hashes the key, so a body rebuilt on every render still names one cache entry.
  const { today } = useDeadlines();
  const body = toSearchBody(kind, values, today);
  const query = useQuery({
    queryKey: ["records", kind, body],
    queryFn: ({ signal }) => fetchRecords<DisputeRecord>(kind, body, signal),
    placeholderData: keepPreviousData,
    retry: retryTransient,
  });
  const settled = !query.isPlaceholderData;
  const rows = useMemo<Row[]>(() => (query.data && settled ? query.data.content.map((r) => ({ ...r, __key: recordKeyOf(kind, r) }) as Row) : EMPTY), [query.data, settled, kind]);

  const [columnVisibility, setColumnVisibility, resetVisibility] = useStoredVisibility(gridColumnsKey(kind), DEFAULT_VISIBILITY[kind]);
  const columns = COLUMNS[kind];
  const { sorting, onSortingChange } = useUrlSorting(columns, sort, dir, (key, order) => void setView({ sort: key, dir: order, page: null }));
  const table = useTable({
    features: dataTableFeatures,
    columns,
    data: rows,
    state: { sorting, columnVisibility },
    onSortingChange,
    onColumnVisibilityChange: setColumnVisibility,
    manualSorting: true,
    enableMultiSort: false,
    enableSortingRemoval: false,
  });

  const record = useOpenRecord({
    kind,
    open: view.open as RecordKey | null,
    rows,
    describe: (row) => ({ kind, key: row.__key, record: row }),
    pageSettled: query.isFetched && settled,
    setOpen: (row) => void setView({ open: row ? parseRecordKey(row.key) : null }),
    tableHandle,
  });

  const filters = activeFilters(kind, values);
  const data = query.data;
  const total = data?.totalElements ?? 0;
  const { status, beyondLast } = pageStatus({ query, settled, rows: rows.length, page, data });
  const clearFilters = { ...Object.fromEntries(FILTERS[kind].map((d) => [d.key, null])), page: null, open: null };

  return (
    <div className="space-y-3">
      <FilterPanel defs={FILTERS[kind]} values={values} shops={shops} onChange={(patch) => void setView({ ...patch, page: null, open: null })} />
      <div className="flex flex-wrap items-end justify-between gap-2">
        <SortControls kind={kind} sort={sort} dir={dir} onSort={(key) => void setView({ sort: key, page: null })} onDir={(order) => void setView({ dir: order, page: null })} />
        <div className="flex items-center gap-2">
          <ViewOptions table={table} onReset={resetVisibility} />
          <ExportLink href={`/api/export/${kind}${selectionQuery(kind, values, today)}`} total={data ? total : undefined} />
        </div>
      </div>
      <p role="status" className="sr-only">
        {status === "loading" ? "Loading records…" : status === "ready" ? `${rows.length} records shown of ${total}.` : ""}
      </p>
      <DataTable
        table={table}
        caption={`${KINDS[kind].title}, sorted by ${SORT_KEY_LABELS[sort].toLowerCase()} ${dir === "desc" ? "descending" : "ascending"}`}
        status={beyondLast ? "empty" : status}
        loadingRows={Math.min(size, 12)}
        statusPanel={
          <GridStatusPanel
            error={status === "error" ? query.error : null}
            onRetry={() => void query.refetch()}
            retrying={query.isFetching}
            beyondLast={beyondLast ? { page, lastPage: data!.totalPages, goToLast: () => void setView({ page: data!.totalPages }) } : null}
            filters={filters}
            onClearFilters={() => void setView(clearFilters)}
            noun={KINDS[kind].title.toLowerCase()}
          />
        }
        onOpenRow={(_row, index) => record.openRow(index)}
        openRowId={record.onPage ? String(record.openIndex) : null}
        handleRef={tableHandle}
        className="max-h-[calc(100vh-16rem)] min-h-64"
      />
      {status !== "error" ? (
        <Pagination
          page={page}
          pageSize={size}
          pageSizes={PAGE_SIZES}
          totalElements={total}
          totalPages={data?.totalPages ?? 0}
          disabled={!data}
          onPageChange={(p) => void setView({ page: p === 1 ? null : p, open: null })}
          onPageSizeChange={(s) => void setView({ size: s, page: null, open: null })}
        />
      ) : null}
      <RecordDrawer
        kind={kind}
        state={record.drawer}
        onClose={record.close}
        onAfterClose={record.focusAfterClose}
        onShowRelated={(arn) => void setView({ ...clearFilters, arns: [arn] })}
        onStep={record.step}
        canStep={record.canStep}
      />
    </div>
  );
}
