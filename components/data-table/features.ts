import { columnVisibilityFeature, createColumnHelper, rowSortingFeature, tableFeatures, type RowData } from "@tanstack/react-table";
import type { SortKey } from "@/lib/schemas/search";

/**
 * What every column of a server-driven grid tells the kit. The kit renders headers, the column
 * menu and widths from this alone; it knows nothing about what the rows are.
 */
export interface DataColumnMeta {
  /** the column's name in the column menu and the accessible name of its header */
  label: string;
  /** the server's sort key for this column (docs/api.md, "Request body"); absent when the server cannot sort by it */
  sortKey?: SortKey;
  /** shown until the user chooses otherwise */
  defaultVisible?: boolean;
  /** CSS width in px: the table uses a fixed layout so virtualized rows never change widths */
  width: number;
  /** numbers read best right-aligned */
  align?: "start" | "end";
}

/**
 * Sorting and paging happen on the server, so the table only needs sorting state (for headers
 * and aria-sort) and column visibility; no client row models are registered.
 */
export const dataTableFeatures = tableFeatures({
  rowSortingFeature,
  columnVisibilityFeature,
  columnMeta: {} as DataColumnMeta,
});

export type DataTableFeatures = typeof dataTableFeatures;

export function dataColumnHelper<TData extends RowData>() {
  return createColumnHelper<DataTableFeatures, TData>();
}
