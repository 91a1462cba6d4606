"use client";

import type { ColumnDef, ColumnVisibilityState, RowData } from "@tanstack/react-table";
import type { DataColumnMeta, DataTableFeatures } from "@/components/data-table/features";
import type { FieldDef } from "@/lib/domain/fields";
import type { SortKey } from "@/lib/schemas/search";
import { formatAmount, formatDate, formatText } from "@/components/shared/format";

/**
 * Columns for the fields that need no special rendering, derived from the field definitions so
 * that every field of a record (docs/api.md, "Response body") is selectable in the column menu.
 */

// Each column has its own value type; like TanStack's helper.columns, a list of them holds `any`.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyColumn<TData extends RowData> = ColumnDef<DataTableFeatures, TData, any>;

const WIDTHS: Partial<Record<FieldDef["kind"], number>> = {
  date: 120,
  trDate: 150,
  datetime: 170,
  amount: 150,
  currency: 90,
  integer: 110,
  card: 140,
  cardType: 90,
};

export function plainFieldColumn<TData extends Record<string, unknown>>(def: FieldDef, opts: { currencyField?: string; sortKey?: SortKey } = {}): AnyColumn<TData> {
  const meta: DataColumnMeta = {
    label: def.label,
    width: WIDTHS[def.kind] ?? (def.name.includes("comment") ? 260 : 170),
    align: def.kind === "amount" || def.kind === "integer" ? "end" : "start",
    sortKey: opts.sortKey,
  };
  return {
    id: def.name,
    accessorFn: (row: TData) => row[def.name],
    header: def.label,
    enableSorting: Boolean(opts.sortKey),
    meta,
    cell: (info) => {
      const value = info.getValue();
      const text =
        def.kind === "amount"
          ? formatAmount(value, opts.currencyField ? info.row.original[opts.currencyField] : undefined)
          : def.kind === "date" || def.kind === "trDate"
            ? formatDate(value)
            : formatText(value);
      return <span title={text.length > 18 ? text : undefined}>{text}</span>;
    },
  } as AnyColumn<TData>;
}

/** The visibility state where exactly the columns marked defaultVisible show. */
export function defaultVisibility<TData extends RowData>(columns: readonly AnyColumn<TData>[]): ColumnVisibilityState {
  const state: ColumnVisibilityState = {};
  for (const column of columns) {
    const id = columnId(column);
    if (id) state[id] = Boolean(column.meta?.defaultVisible);
  }
  return state;
}

/** A definition's column id: its id, or the accessor key it was made from. */
export function columnId<TData extends RowData>(column: AnyColumn<TData>): string | undefined {
  return column.id ?? (column as { accessorKey?: string }).accessorKey;
}
