"use client";

import type { SortingState, Updater } from "@tanstack/react-table";
import type { DataColumnMeta } from "@/components/data-table/features";
import { useCallback, useMemo } from "react";
import type { SortKey, SortOrder } from "@/lib/schemas/search";

/** What this needs of a column definition: its id (or accessor key) and the sort key it stands for. */
interface SortableColumn {
  id?: string;
  accessorKey?: unknown;
  meta?: Pick<DataColumnMeta, "sortKey">;
}

const columnId = (column: SortableColumn) => column.id ?? (typeof column.accessorKey === "string" ? column.accessorKey : undefined);

/**
 * The table's sorting state as a view of the URL's sort key and order: the header of the column
 * that sorts by the key shows it (ID and SHOP_CODE have no column), and clicking a header writes
 * the key back to the URL. Sorting always happens on the server.
 */
export function useUrlSorting(
  columns: readonly SortableColumn[],
  sort: SortKey,
  dir: SortOrder,
  setSort: (key: SortKey | null, dir: SortOrder | null) => void,
): { sorting: SortingState; onSortingChange: (updater: Updater<SortingState>) => void } {
  const sorting = useMemo<SortingState>(() => {
    const column = columns.find((c) => c.meta?.sortKey === sort);
    const id = column ? columnId(column) : undefined;
    return id ? [{ id, desc: dir === "desc" }] : [];
  }, [columns, sort, dir]);

  const onSortingChange = useCallback(
    (updater: Updater<SortingState>) => {
      const next = typeof updater === "function" ? updater(sorting) : updater;
      const first = next[0];
      const column = first ? columns.find((c) => columnId(c) === first.id) : undefined;
      const key = column?.meta?.sortKey;
      // The order is always named: the grid's default order differs per kind (DEFAULT_SORT).
      setSort(key ?? null, key ? (first?.desc ? "desc" : "asc") : null);
    },
    [columns, sorting, setSort],
  );
  return { sorting, onSortingChange };
}
