"use client";

import type { ReactTable, Row, RowData } from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import { type KeyboardEvent, type ReactNode, type Ref, useCallback, useEffect, useId, useImperativeHandle, useRef, useState } from "react";
import type { DataTableFeatures } from "./features";

export interface DataTableHandle {
  /** scrolls the row into view and moves keyboard focus to it */
  focusRow(index: number): void;
}

export type DataTableStatus = "loading" | "error" | "empty" | "ready";

interface DataTableProps<TData extends RowData> {
  table: ReactTable<DataTableFeatures, TData, unknown>;
  /** accessible name of the table */
  caption: string;
  status: DataTableStatus;
  /** how many skeleton rows to show while loading */
  loadingRows?: number;
  /** shown instead of the rows when status is "error" or "empty" */
  statusPanel?: ReactNode;
  onOpenRow?: (row: Row<DataTableFeatures, TData>, index: number) => void;
  /** the row shown in the detail view, highlighted */
  openRowId?: string | null;
  handleRef?: Ref<DataTableHandle>;
  /** tailwind max-height of the scroll area */
  className?: string;
}

const ROW_HEIGHT = 40;

/**
 * A server-driven grid: a real <table> (headers, aria-sort, row and column counts for screen
 * readers) whose body is virtualized, so a page of 1000 rows renders only the rows in view.
 * Rows have a fixed height and the table a fixed layout, so widths never jump while scrolling.
 *
 * Keyboard: one row is in the tab order at a time (roving tabindex); arrow keys, Page Up/Down,
 * Home and End move between rows; Enter or Space opens the focused row.
 */
export function DataTable<TData extends RowData>({ table, caption, status, loadingRows = 10, statusPanel, onOpenRow, openRowId, handleRef, className }: DataTableProps<TData>) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const headRef = useRef<HTMLTableSectionElement>(null);
  const hintId = useId();
  const rows = table.getRowModel().rows;
  const columns = table.getVisibleLeafColumns();
  const [activeIndex, setActiveIndex] = useState(0);
  const active = Math.min(activeIndex, Math.max(0, rows.length - 1));

  const virtualizer = useVirtualizer({
    count: status === "ready" ? rows.length : 0,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    // The sticky header covers the top of the scroll area: keep scrolled-to rows below it.
    scrollPaddingStart: ROW_HEIGHT,
    getItemKey: (index) => rows[index]?.id ?? index,
  });

  const focusRow = useCallback(
    (index: number) => {
      if (index < 0 || index >= rows.length) return;
      setActiveIndex(index);
      virtualizer.scrollToIndex(index, { align: "auto" });
      // At once when the row is rendered, so that the next key (a fast second ArrowDown) starts
      // from it; otherwise it appears once the virtualizer has scrolled: try for a few frames.
      let tries = 0;
      const attempt = () => {
        const el = scrollRef.current?.querySelector<HTMLElement>(`tr[data-row-index="${index}"]`);
        if (el) el.focus({ preventScroll: false });
        else if (tries++ < 10) requestAnimationFrame(attempt);
      };
      attempt();
    },
    [rows.length, virtualizer],
  );

  useImperativeHandle(handleRef, () => ({ focusRow }), [focusRow]);

  // A new page starts at its first row.
  useEffect(() => {
    setActiveIndex(0);
    scrollRef.current?.scrollTo({ top: 0 });
  }, [table.options.data]);

  const onKeyDown = (event: KeyboardEvent<HTMLTableSectionElement>) => {
    const target = (event.target as HTMLElement).closest<HTMLElement>("tr[data-row-index]");
    if (!target) return;
    const index = Number(target.dataset.rowIndex);
    const pageStep = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 400) / ROW_HEIGHT) - 2);
    const moves: Record<string, number> = {
      ArrowDown: index + 1,
      ArrowUp: index - 1,
      PageDown: Math.min(rows.length - 1, index + pageStep),
      PageUp: Math.max(0, index - pageStep),
      Home: 0,
      End: rows.length - 1,
    };
    if (event.key in moves) {
      event.preventDefault();
      focusRow(moves[event.key]);
    } else if ((event.key === "Enter" || event.key === " ") && event.target === target) {
      event.preventDefault();
      onOpenRow?.(rows[index], index);
    }
  };

  const totalWidth = columns.reduce((sum, c) => sum + (c.columnDef.meta?.width ?? 120), 0);
  const items = virtualizer.getVirtualItems();
  const padTop = items.length ? items[0].start : 0;
  const padBottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1].end : 0;

  return (
    <div
      ref={scrollRef}
      className={`relative overflow-auto rounded-md border border-slate-300 bg-white ${className ?? "max-h-[70vh]"}`}
      aria-busy={status === "loading"}
    >
      <p id={hintId} className="sr-only">
        Press Enter to open the details of a row; use the arrow keys to move between rows.
      </p>
      <table
        className="table-fixed border-separate border-spacing-0 text-sm"
        style={{ width: totalWidth, minWidth: "100%" }}
        aria-rowcount={status === "ready" ? rows.length + 1 : -1}
        aria-colcount={columns.length}
      >
        <caption className="sr-only">{caption}</caption>
        <colgroup>
          {columns.map((column) => (
            <col key={column.id} style={{ width: column.columnDef.meta?.width ?? 120 }} />
          ))}
        </colgroup>
        <thead ref={headRef} className="sticky top-0 z-10 bg-slate-100">
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id} aria-rowindex={1}>
              {group.headers.map((header) => {
                const meta = header.column.columnDef.meta;
                const sorted = header.column.getIsSorted();
                const canSort = header.column.getCanSort();
                return (
                  <th
                    key={header.id}
                    scope="col"
                    aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : canSort ? "none" : undefined}
                    className={`h-10 border-b border-slate-300 px-3 text-left font-semibold whitespace-nowrap text-slate-800 ${meta?.align === "end" ? "text-right" : ""}`}
                  >
                    {header.isPlaceholder ? null : canSort ? (
                      <button
                        type="button"
                        onClick={header.column.getToggleSortingHandler()}
                        className={`inline-flex max-w-full items-center gap-1 rounded px-1 py-0.5 -mx-1 hover:bg-slate-200 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 ${meta?.align === "end" ? "flex-row-reverse" : ""}`}
                        title={`Sort by ${meta?.label ?? header.column.id}`}
                      >
                        <span className="truncate">
                          <table.FlexRender header={header} />
                        </span>
                        <SortIcon direction={sorted} />
                      </button>
                    ) : (
                      <span className="block truncate">
                        <table.FlexRender header={header} />
                      </span>
                    )}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        {status === "loading" ? (
          <tbody aria-hidden="true">
            {Array.from({ length: loadingRows }, (_, i) => (
              <tr key={i} className="h-10" data-testid="skeleton-row">
                {columns.map((column) => (
                  <td key={column.id} className="border-b border-slate-100 px-3">
                    <span className="block h-3 animate-pulse rounded bg-slate-200" style={{ width: `${50 + ((i * 7 + column.id.length * 13) % 45)}%` }} />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        ) : status === "ready" ? (
          <tbody onKeyDown={onKeyDown}>
            {padTop > 0 ? (
              <tr aria-hidden="true" style={{ height: padTop }}>
                <td colSpan={columns.length} />
              </tr>
            ) : null}
            {items.map((item) => {
              const row = rows[item.index];
              const isOpen = openRowId != null && row.id === openRowId;
              return (
                <tr
                  key={row.id}
                  data-row-index={item.index}
                  data-state={isOpen ? "open" : undefined}
                  aria-rowindex={item.index + 2}
                  aria-describedby={item.index === active ? hintId : undefined}
                  tabIndex={item.index === active ? 0 : -1}
                  onFocus={() => setActiveIndex(item.index)}
                  onClick={() => onOpenRow?.(row, item.index)}
                  className="h-10 cursor-pointer odd:bg-white even:bg-slate-50 hover:bg-blue-50 focus:outline-none focus-visible:bg-blue-50 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-blue-600 data-[state=open]:bg-blue-100"
                >
                  {row.getVisibleCells().map((cell) => (
                    <td
                      key={cell.id}
                      className={`overflow-hidden border-b border-slate-100 px-3 text-ellipsis whitespace-nowrap ${cell.column.columnDef.meta?.align === "end" ? "text-right tabular-nums" : ""}`}
                    >
                      <table.FlexRender cell={cell} />
                    </td>
                  ))}
                </tr>
              );
            })}
            {padBottom > 0 ? (
              <tr aria-hidden="true" style={{ height: padBottom }}>
                <td colSpan={columns.length} />
              </tr>
            ) : null}
          </tbody>
        ) : null}
      </table>
      {status === "error" || status === "empty" ? <div className="sticky left-0 w-full max-w-[100vw] p-6">{statusPanel}</div> : null}
    </div>
  );
}

function SortIcon({ direction }: { direction: false | "asc" | "desc" }) {
  return (
    <svg aria-hidden="true" viewBox="0 0 12 16" className={`h-3.5 w-3 shrink-0 ${direction ? "text-blue-700" : "text-slate-400"}`}>
      <path d="M6 1 L10.5 6.5 H1.5 Z" fill="currentColor" opacity={direction === "desc" ? 0.25 : 1} />
      <path d="M6 15 L1.5 9.5 H10.5 Z" fill="currentColor" opacity={direction === "asc" ? 0.25 : 1} />
    </svg>
  );
}
