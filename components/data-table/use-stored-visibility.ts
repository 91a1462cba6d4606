"use client";

import type { ColumnVisibilityState } from "@tanstack/react-table";
import { useCallback, useMemo, useSyncExternalStore } from "react";

const CHANGE_EVENT = "data-table-visibility-change";

function subscribe(onChange: () => void) {
  // "storage" covers other tabs; the custom event covers this one.
  window.addEventListener("storage", onChange);
  window.addEventListener(CHANGE_EVENT, onChange);
  return () => {
    window.removeEventListener("storage", onChange);
    window.removeEventListener(CHANGE_EVENT, onChange);
  };
}

function read(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null; // storage disabled: the defaults stand
  }
}

function write(key: string, value: string | null) {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // private mode or full storage: the choice lasts until the page reloads
  }
  window.dispatchEvent(new Event(CHANGE_EVENT));
}

/** The column choice stored under `key` (for a saved view), or null when the defaults stand. */
export function readStoredColumns(key: string): Record<string, boolean> | null {
  const raw = read(key);
  if (!raw) return null;
  try {
    const stored: unknown = JSON.parse(raw);
    if (!stored || typeof stored !== "object") return null;
    return Object.fromEntries(Object.entries(stored).filter((entry): entry is [string, boolean] => typeof entry[1] === "boolean"));
  } catch {
    return null;
  }
}

/** Stores a column choice under `key` (null: back to the defaults); open grids follow at once. */
export function storeColumns(key: string, columns: Record<string, boolean> | null): void {
  write(key, columns === null ? null : JSON.stringify(columns));
}

/**
 * Column visibility kept in localStorage across visits. Only known column ids with boolean
 * values are read back, so a stale or hand-edited entry cannot break the grid.
 */
export function useStoredVisibility(storageKey: string, defaults: ColumnVisibilityState) {
  const raw = useSyncExternalStore(
    subscribe,
    () => read(storageKey),
    () => null,
  );

  const visibility = useMemo<ColumnVisibilityState>(() => {
    const next: ColumnVisibilityState = { ...defaults };
    if (!raw) return next;
    try {
      const stored: unknown = JSON.parse(raw);
      if (stored && typeof stored === "object") {
        for (const [id, value] of Object.entries(stored)) if (id in defaults && typeof value === "boolean") next[id] = value;
      }
    } catch {
      // unreadable entry: the defaults stand
    }
    return next;
  }, [raw, defaults]);

  const update = useCallback(
    (updater: ColumnVisibilityState | ((old: ColumnVisibilityState) => ColumnVisibilityState)) => {
      const next = typeof updater === "function" ? updater(visibility) : updater;
      write(storageKey, JSON.stringify(next));
    },
    [storageKey, visibility],
  );

  const reset = useCallback(() => write(storageKey, null), [storageKey]);

  return [visibility, update, reset] as const;
}
