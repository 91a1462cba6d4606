"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { type ColumnDef, type ColumnVisibilityState, type SortingState, type Updater, useTable } from "@tanstack/react-table";
import { useQueryStates } from "nuqs";
import { useCallback, useEffect, useId, useMemo, useRef } from "react";
import { DataTable, type DataTableHandle, type DataTableStatus } from "@/components/data-table/data-table";
import { dataTableFeatures, type DataTableFeatures } from "@/components/data-table/features";
import { Pagination } from "@/components/data-table/pagination";
import { EmptyState, ErrorState } from "@/components/data-table/states";
import { useStoredVisibility } from "@/components/data-table/use-stored-visibility";
import { ViewOptions } from "@/components/data-table/view-options";
import { CHARGEBACK_FIELDS, PRE_ARBITRATION_FIELDS, type RecordKind } from "@/lib/domain/fields";
import { SORT_KEYS, type SortKey, type SortOrder } from "@/lib/schemas/search";
import { activeFilters, FILTERS, PAGE_SIZES, recordFingerprint, type RecordKey, selectionQuery, serializeRecordKey, toSearchBody, viewParsers } from "@/lib/url-state/disputes";
import { ApiProblem, fetchRecords } from "./api";
import { chargebackColumns, chargebackDefaultVisibility } from "./chargeback-columns";
import { FilterPanel } from "./filter-panel";
import { preArbitrationColumns, preArbitrationDefaultVisibility } from "./pre-arbitration-columns";
import { type DrawerState, RecordDrawer } from "./record-drawer";
import { type DisputeRecord, type Keyed, KIND_TITLES } from "./types";

type Row = Keyed<DisputeRecord>;

const PARSERS = { chargeback: viewParsers("chargeback"), pre_arbitration: viewParsers("pre_arbitration") };
const COLUMNS = { chargeback: chargebackColumns, pre_arbitration: preArbitrationColumns } as unknown as Record<RecordKind, ColumnDef<DataTableFeatures, Row, unknown>[]>;
const DEFAULT_VISIBILITY: Record<RecordKind, ColumnVisibilityState> = { chargeback: chargebackDefaultVisibility, pre_arbitration: preArbitrationDefaultVisibility };
const FIELD_NAMES: Record<RecordKind, string[]> = { chargeback: CHARGEBACK_FIELDS.map((d) => d.name), pre_arbitration: PRE_ARBITRATION_FIELDS.map((d) => d.name) };
const EMPTY: Row[] = [];

export const SORT_LABELS: Record<SortKey, string> = {
  ID: "Import order",
  SHOP_CODE: "Shop",
  MERCHANT_ID: "Merchant id",
  ACQ_REF_NR: "Acquirer reference number",
  PAYMENT_ORDER_NR: "Order number",
  FILE_DATE: "File date",
};

function keyOf(kind: RecordKind, record: DisputeRecord): string {
  const r = record as Record<string, unknown>;
  return serializeRecordKey({ fileDate: String(r.file_date), acqRefNr: String(r.acq_ref_nr), fingerprint: recordFingerprint(r, FIELD_NAMES[kind]) });
}

function problemText(error: unknown): { title: string; detail?: string; reference?: string } {
  if (error instanceof ApiProblem) {
    const reference = error.requestId;
    if (error.status === 503) return { title: "The database is not reachable right now", detail: "Nothing is wrong with your filters. Please retry in a few seconds.", reference };
    if (error.status >= 500) return { title: "The server could not load the records", detail: "An unexpected error occurred on the server. Please retry; if it persists, tell your acquirer's support and quote the reference below.", reference };
    return { title: error.title, detail: error.detail, reference };
  }
  return { title: "The records could not be loaded", detail: error instanceof Error ? error.message : undefined };
}

/**
 * One dispute grid (chargebacks or pre-arbitration cases): the URL holds the view, React Query
 * fetches the page from the API, the generic data table renders it, the drawer shows one record.
 */
export function DisputesView({ kind, shops }: { kind: RecordKind; shops: string[] }) {
  // Every change is a history entry, so Back and Forward walk through the views.
  const [view, setView] = useQueryStates(PARSERS[kind], { history: "push" });
  const tableHandle = useRef<DataTableHandle>(null);
  const lastOpenedIndex = useRef<number | null>(null);
  const sortId = useId();
  const dirId = useId();
  const values = view as unknown as Record<string, unknown>;
  const sort = view.sort as SortKey;
  const dir = view.dir as SortOrder;
  const page = view.page as number;
  const size = view.size as number;
  const open = view.open as RecordKey | null;

  // React Query hashes the key, so a body rebuilt on every render still names one cache entry.
  const body = toSearchBody(kind, values);

  const query = useQuery({
    queryKey: ["records", kind, body],
    queryFn: ({ signal }) => fetchRecords<DisputeRecord>(kind, body, signal),
    placeholderData: keepPreviousData,
    retry: (count, error) => error instanceof ApiProblem && (error.status === 0 || error.status === 503) && count < 2,
  });

  const rows = useMemo<Row[]>(() => (query.data && !query.isPlaceholderData ? query.data.content.map((r) => ({ ...r, __key: keyOf(kind, r) }) as Row) : EMPTY), [query.data, query.isPlaceholderData, kind]);

  const [columnVisibility, setColumnVisibility, resetVisibility] = useStoredVisibility(`disputes.columns.${kind}.v1`, DEFAULT_VISIBILITY[kind]);
  const columns = COLUMNS[kind];

  // The header of the column that sorts by the URL's sort key shows it; ID and SHOP_CODE have no column.
  const sorting = useMemo<SortingState>(() => {
    const column = columns.find((c) => c.meta?.sortKey === sort);
    const id = column ? (column.id ?? (column as { accessorKey?: string }).accessorKey) : undefined;
    return id ? [{ id, desc: dir === "desc" }] : [];
  }, [columns, sort, dir]);

  const onSortingChange = useCallback(
    (updater: Updater<SortingState>) => {
      const next = typeof updater === "function" ? updater(sorting) : updater;
      const first = next[0];
      const column = first ? columns.find((c) => (c.id ?? (c as { accessorKey?: string }).accessorKey) === first.id) : undefined;
      const key = column?.meta?.sortKey as SortKey | undefined;
      void setView({ sort: key ?? null, dir: key && first?.desc ? "desc" : null, page: null });
    },
    [columns, sorting, setView],
  );

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

  // --- the open record ---------------------------------------------------------------------
  const openKey = open ? serializeRecordKey(open) : null;
  const openIndex = openKey ? rows.findIndex((r) => r.__key === openKey) : -1;
  const onPage = openIndex >= 0;
  const recordQuery = useQuery({
    queryKey: ["record", kind, openKey],
    enabled: Boolean(open) && !onPage && query.isFetched && !query.isPlaceholderData,
    // A link to a record works whatever page or filter is active: find it by its key alone.
    queryFn: async ({ signal }) => {
      const page = await fetchRecords<DisputeRecord>(kind, { acq_ref_nrs: [open!.acqRefNr], file_date_from: open!.fileDate, file_date_to: open!.fileDate, per_page: 1000 }, signal);
      return page.content.find((r) => keyOf(kind, r) === openKey) ?? null;
    },
    retry: false,
  });

  // A drawer opened from a link still hands focus back to its row when it closes.
  useEffect(() => {
    if (onPage) lastOpenedIndex.current = openIndex;
  }, [onPage, openIndex]);

  let drawer: DrawerState = { status: "closed" };
  if (open) {
    if (onPage) drawer = { status: "ready", record: rows[openIndex] };
    else if (recordQuery.isError) drawer = { status: "error", message: problemText(recordQuery.error).title, retry: () => void recordQuery.refetch() };
    else if (recordQuery.data) drawer = { status: "ready", record: recordQuery.data };
    else if (recordQuery.data === null) drawer = { status: "missing" };
    else drawer = { status: "loading" };
  }

  const openRow = (index: number) => {
    lastOpenedIndex.current = index;
    void setView({ open: parseKey(rows[index].__key) });
  };

  const closeDrawer = () => void setView({ open: null });
  const focusAfterClose = () => {
    const index = lastOpenedIndex.current ?? (openIndex >= 0 ? openIndex : null);
    if (index !== null && index < rows.length) tableHandle.current?.focusRow(index);
  };

  // --- states --------------------------------------------------------------------------------
  const filters = activeFilters(kind, values);
  const data = query.data;
  const beyondLast = Boolean(data && !query.isPlaceholderData && data.totalElements > 0 && page > data.totalPages);
  let status: DataTableStatus;
  if (query.isError) status = "error";
  else if (query.isPending || query.isPlaceholderData) status = "loading";
  else status = rows.length ? "ready" : "empty";

  const clearFilters = () => void setView({ ...Object.fromEntries(FILTERS[kind].map((d) => [d.key, null])), page: null, open: null });
  const statusPanel =
    status === "error" ? (
      <ErrorState {...problemText(query.error)} onRetry={() => void query.refetch()} retrying={query.isFetching} />
    ) : beyondLast ? (
      <EmptyState title={`Page ${page} is past the last page (${data!.totalPages}).`}>
        <button type="button" onClick={() => void setView({ page: data!.totalPages })} className="text-blue-800 underline">
          Go to the last page
        </button>
      </EmptyState>
    ) : (
      <EmptyState title={filters.length ? `No ${KIND_TITLES[kind].toLowerCase()} match these filters:` : `There are no ${KIND_TITLES[kind].toLowerCase()} in your shops yet.`}>
        {filters.length ? (
          <>
            <ul className="my-1 list-disc pl-5">
              {filters.map(({ def, value }) => (
                <li key={def.key}>
                  <span className="font-medium">{def.label}:</span> {Array.isArray(value) ? listPreview(value) : value}
                </li>
              ))}
            </ul>
            <button type="button" onClick={clearFilters} className="text-blue-800 underline">
              Clear all filters
            </button>
          </>
        ) : null}
      </EmptyState>
    );

  const exportHref = `/api/export/${kind}${selectionQuery(kind, values)}`;
  const total = data?.totalElements ?? 0;

  return (
    <div className="space-y-3">
      <FilterPanel kind={kind} values={values} shops={shops} onChange={(patch) => void setView({ ...patch, page: null, open: null })} />
      <div className="flex flex-wrap items-end justify-between gap-2">
        <div className="flex flex-wrap items-end gap-2 text-sm">
          <div>
            <label htmlFor={sortId} className="block text-xs font-medium text-slate-800">
              Sort by
            </label>
            <select
              id={sortId}
              value={sort}
              onChange={(e) => void setView({ sort: e.target.value as SortKey, page: null })}
              className="h-9 rounded-md border border-slate-300 bg-white px-2 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600"
            >
              {SORT_KEYS[kind].map((key) => (
                <option key={key} value={key}>
                  {SORT_LABELS[key]}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor={dirId} className="block text-xs font-medium text-slate-800">
              Order
            </label>
            <select
              id={dirId}
              value={dir}
              onChange={(e) => void setView({ dir: e.target.value as SortOrder, page: null })}
              className="h-9 rounded-md border border-slate-300 bg-white px-2 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600"
            >
              <option value="asc">Ascending</option>
              <option value="desc">Descending</option>
            </select>
          </div>
        </div>
        <div className="flex items-center gap-2">
          <ViewOptions table={table} onReset={resetVisibility} />
          <a
            href={exportHref}
            download
            aria-disabled={!data || total === 0 ? true : undefined}
            onClick={(e) => {
              if (!data || total === 0) e.preventDefault();
            }}
            className={`inline-flex h-9 items-center rounded-md bg-blue-700 px-3 text-sm font-medium text-white hover:bg-blue-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:ring-offset-2 ${!data || total === 0 ? "opacity-50" : ""}`}
          >
            Export CSV{data ? ` (${new Intl.NumberFormat("en").format(total)} rows)` : ""}
          </a>
        </div>
      </div>
      <p role="status" className="sr-only">
        {status === "loading" ? "Loading records…" : status === "ready" ? `${rows.length} records shown of ${total}.` : ""}
      </p>
      <DataTable
        table={table}
        caption={`${KIND_TITLES[kind]}, sorted by ${SORT_LABELS[sort].toLowerCase()} ${dir === "desc" ? "descending" : "ascending"}`}
        status={beyondLast ? "empty" : status}
        loadingRows={Math.min(size, 12)}
        statusPanel={statusPanel}
        onOpenRow={(_row, index) => openRow(index)}
        openRowId={onPage ? String(openIndex) : null}
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
        state={drawer}
        onClose={closeDrawer}
        onAfterClose={focusAfterClose}
        onShowRelated={(arn) => void setView({ ...Object.fromEntries(FILTERS[kind].map((d) => [d.key, null])), arns: [arn], page: null, open: null })}
        onStep={
          onPage
            ? (delta) => {
                const next = openIndex + delta;
                if (next >= 0 && next < rows.length) openRow(next);
              }
            : undefined
        }
        canStep={{ prev: openIndex > 0, next: onPage && openIndex < rows.length - 1 }}
      />
    </div>
  );
}

function parseKey(key: string): RecordKey {
  const [fileDate, fingerprint, ...rest] = key.split("~");
  return { fileDate, fingerprint, acqRefNr: rest.join("~") };
}

function listPreview(values: string[]): string {
  return values.length <= 5 ? values.join(", ") : `${values.slice(0, 5).join(", ")} and ${values.length - 5} more`;
}
