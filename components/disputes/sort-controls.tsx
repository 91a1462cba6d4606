"use client";

import { useId } from "react";
import type { RecordKind } from "@/lib/domain/fields";
import { SORT_KEY_LABELS, SORT_KEYS, type SortKey, type SortOrder } from "@/lib/schemas/search";

const SELECT = "h-9 rounded-md border border-slate-300 bg-white px-2 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600";

/** Sort key and order as two labelled selects: every key, including those without a column. */
export function SortControls({ kind, sort, dir, onSort, onDir }: { kind: RecordKind; sort: SortKey; dir: SortOrder; onSort: (key: SortKey) => void; onDir: (dir: SortOrder) => void }) {
  const sortId = useId();
  const dirId = useId();
  return (
    <div className="flex flex-wrap items-end gap-2 text-sm">
      <div>
        <label htmlFor={sortId} className="block text-xs font-medium text-slate-800">
          Sort by
        </label>
        <select id={sortId} value={sort} onChange={(e) => onSort(e.target.value as SortKey)} className={SELECT}>
          {SORT_KEYS[kind].map((key) => (
            <option key={key} value={key}>
              {SORT_KEY_LABELS[key]}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor={dirId} className="block text-xs font-medium text-slate-800">
          Order
        </label>
        <select id={dirId} value={dir} onChange={(e) => onDir(e.target.value as SortOrder)} className={SELECT}>
          <option value="asc">Ascending</option>
          <option value="desc">Descending</option>
        </select>
      </div>
    </div>
  );
}
