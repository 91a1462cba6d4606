"use client";

import type { ReactTable, RowData } from "@tanstack/react-table";
import { useEffect, useId, useRef, useState } from "react";
import type { DataTableFeatures } from "./features";

/** The "Columns" menu: a disclosure with one checkbox per column that may be hidden. */
export function ViewOptions<TData extends RowData>({ table, onReset }: { table: ReactTable<DataTableFeatures, TData, unknown>; onReset: () => void }) {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    const onPointer = (e: PointerEvent) => {
      if (!rootRef.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", onPointer);
    return () => document.removeEventListener("pointerdown", onPointer);
  }, [open]);

  const columns = table.getAllLeafColumns().filter((c) => c.getCanHide());
  const visible = table.getVisibleLeafColumns().length;

  return (
    <div
      ref={rootRef}
      className="relative"
      onKeyDown={(e) => {
        if (e.key === "Escape" && open) {
          e.stopPropagation();
          setOpen(false);
          buttonRef.current?.focus();
        }
      }}
      onBlur={(e) => {
        if (open && !rootRef.current?.contains(e.relatedTarget as Node)) setOpen(false);
      }}
    >
      <button
        ref={buttonRef}
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((o) => !o)}
        className="inline-flex h-9 items-center gap-1 rounded-md border border-slate-300 bg-white px-3 text-sm text-slate-800 hover:bg-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600"
      >
        Columns <span className="text-slate-600">({visible})</span>
      </button>
      {open ? (
        <div id={panelId} className="absolute right-0 z-30 mt-1 max-h-[60vh] w-72 overflow-auto rounded-md border border-slate-300 bg-white p-2 shadow-lg">
          <fieldset>
            <legend className="px-1 pb-1 text-xs font-semibold tracking-wide text-slate-700 uppercase">Shown columns</legend>
            {columns.map((column) => (
              <label key={column.id} className="flex cursor-pointer items-center gap-2 rounded px-1 py-1 text-sm hover:bg-slate-100">
                <input
                  type="checkbox"
                  checked={column.getIsVisible()}
                  // The last visible column stays: an empty grid would look like an error.
                  disabled={column.getIsVisible() && visible <= 1}
                  onChange={(e) => column.toggleVisibility(e.target.checked)}
                  className="h-4 w-4 accent-blue-700"
                />
                {column.columnDef.meta?.label ?? column.id}
              </label>
            ))}
          </fieldset>
          <button type="button" onClick={onReset} className="mt-2 w-full rounded-md border border-slate-300 px-2 py-1 text-sm hover:bg-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600">
            Reset to default columns
          </button>
        </div>
      ) : null}
    </div>
  );
}
