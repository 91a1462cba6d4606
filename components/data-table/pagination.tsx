"use client";

import { useId } from "react";

interface PaginationProps {
  /** 1-based */
  page: number;
  pageSize: number;
  pageSizes: readonly number[];
  totalElements: number;
  totalPages: number;
  onPageChange: (page: number) => void;
  onPageSizeChange: (size: number) => void;
  disabled?: boolean;
}

const nf = new Intl.NumberFormat("en");

/** "Rows 51–100 of 1,234", a page size menu and first / previous / next / last. */
export function Pagination({ page, pageSize, pageSizes, totalElements, totalPages, onPageChange, onPageSizeChange, disabled }: PaginationProps) {
  const sizeId = useId();
  const first = totalElements === 0 ? 0 : Math.min(totalElements, (page - 1) * pageSize + 1);
  const last = Math.min(totalElements, page * pageSize);
  // A size from a pasted link that is not in the menu still shows as the current choice.
  const sizes = pageSizes.includes(pageSize) ? pageSizes : [...pageSizes, pageSize].sort((a, b) => a - b);
  const button =
    "inline-flex h-9 min-w-9 items-center justify-center rounded-md border border-slate-300 bg-white px-2 text-slate-800 hover:bg-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 disabled:cursor-not-allowed disabled:opacity-40";
  return (
    <nav aria-label="Pagination" className="flex flex-wrap items-center justify-between gap-3 text-sm">
      <p aria-live="polite" data-testid="row-range">
        {first > last || totalElements === 0 ? `Rows 0 of ${nf.format(totalElements)}` : `Rows ${nf.format(first)}–${nf.format(last)} of ${nf.format(totalElements)}`}
      </p>
      <div className="flex flex-wrap items-center gap-3">
        <div className="flex items-center gap-2">
          <label htmlFor={sizeId}>Rows per page</label>
          <select
            id={sizeId}
            value={pageSize}
            disabled={disabled}
            onChange={(e) => onPageSizeChange(Number(e.target.value))}
            className="h-9 rounded-md border border-slate-300 bg-white px-2 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600"
          >
            {sizes.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </div>
        <span>
          Page {nf.format(page)} of {nf.format(Math.max(totalPages, 1))}
        </span>
        <div className="flex items-center gap-1">
          <button type="button" className={button} aria-label="First page" disabled={disabled || page <= 1} onClick={() => onPageChange(1)}>
            <span aria-hidden="true">«</span>
          </button>
          <button type="button" className={button} aria-label="Previous page" disabled={disabled || page <= 1} onClick={() => onPageChange(Math.min(page - 1, Math.max(totalPages, 1)))}>
            <span aria-hidden="true">‹</span>
          </button>
          <button type="button" className={button} aria-label="Next page" disabled={disabled || page >= totalPages} onClick={() => onPageChange(page + 1)}>
            <span aria-hidden="true">›</span>
          </button>
          <button type="button" className={button} aria-label="Last page" disabled={disabled || page >= totalPages} onClick={() => onPageChange(totalPages)}>
            <span aria-hidden="true">»</span>
          </button>
        </div>
      </div>
    </nav>
  );
}
