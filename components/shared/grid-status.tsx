import { type DatePreset, presetLabel } from "@/lib/domain/date-presets";
import type { ReactNode } from "react";
import type { DataTableStatus } from "@/components/data-table/data-table";
import { EmptyState, ErrorState } from "@/components/data-table/states";
import type { FilterDef } from "@/lib/url-state/dispute-view";
import { problemText } from "./problem-text";

/**
 * What a grid shows instead of rows: the error with Retry and a reference, a page past the last
 * with a way back, or an empty result that names the filters that matched nothing.
 */
export function GridStatusPanel(props: {
  error: unknown;
  onRetry: () => void;
  retrying: boolean;
  beyondLast: { page: number; lastPage: number; goToLast: () => void } | null;
  filters: { def: FilterDef; value: string | string[] }[];
  onClearFilters: () => void;
  /** "chargebacks", "disputes that need an answer", ... */
  noun: string;
  /** the text when there are no records at all */
  nothingYet?: ReactNode;
}): ReactNode {
  const { error, beyondLast, filters, noun } = props;
  if (error) return <ErrorState {...problemText(error)} onRetry={props.onRetry} retrying={props.retrying} />;
  if (beyondLast) {
    return (
      <EmptyState title={`Page ${beyondLast.page} is past the last page (${beyondLast.lastPage}).`}>
        <button type="button" onClick={beyondLast.goToLast} className="text-blue-800 underline">
          Go to the last page
        </button>
      </EmptyState>
    );
  }
  if (!filters.length) return <EmptyState title={`There are no ${noun} in your shops yet.`}>{props.nothingYet}</EmptyState>;
  return (
    <EmptyState title={`No ${noun} match these filters:`}>
      <ul className="my-1 list-disc pl-5">
        {filters.map(({ def, value }) => (
          <li key={def.key}>
            <span className="font-medium">{def.label}:</span> {Array.isArray(value) ? listPreview(value) : def.type === "preset" ? presetLabel(value as DatePreset) : value}
          </li>
        ))}
      </ul>
      <button type="button" onClick={props.onClearFilters} className="text-blue-800 underline">
        Clear all filters
      </button>
    </EmptyState>
  );
}

function listPreview(values: string[]): string {
  return values.length <= 5 ? values.join(", ") : `${values.slice(0, 5).join(", ")} and ${values.length - 5} more`;
}

/**
 * What a server-paged grid shows for its query: the table's status, and whether the URL's page is
 * past the last one (a page that shrank after an import, or a hand-edited link).
 */
export function pageStatus(opts: {
  query: { isError: boolean; isPending: boolean };
  /** false while the previous page stands in for the next one */
  settled: boolean;
  rows: number;
  page: number;
  data?: { totalElements: number; totalPages: number };
}): { status: DataTableStatus; beyondLast: boolean } {
  const { query, settled, rows, page, data } = opts;
  const status: DataTableStatus = query.isError ? "error" : query.isPending || !settled ? "loading" : rows ? "ready" : "empty";
  return { status, beyondLast: Boolean(data && settled && data.totalElements > 0 && page > data.totalPages) };
}
