"use client";

import type { ColumnVisibilityState } from "@tanstack/react-table";
import { useCallback, useEffect, useState } from "react";

/**
 * Column visibility kept in localStorage across visits. Only known column ids with boolean
 * values are read back, so a stale or hand-edited entry cannot break the grid.
 */
export function useStoredVisibility(storageKey: string, defaults: ColumnVisibilityState) {
  const [visibility, setVisibility] = useState<ColumnVisibilityState>(defaults);

  useEffect(() => {
    try {
      const raw = window.localStorage.getItem(storageKey);
      if (!raw) return;
      const stored: unknown = JSON.parse(raw);
      if (!stored || typeof stored !== "object") return;
      const next: ColumnVisibilityState = { ...defaults };
      for (const [id, value] of Object.entries(stored)) if (id in defaults && typeof value === "boolean") next[id] = value;
      setVisibility(next);
    } catch {
      // unreadable storage: the defaults stand
    }
    // defaults are a module constant per grid
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [storageKey]);

  const update = useCallback(
    (updater: ColumnVisibilityState | ((old: ColumnVisibilityState) => ColumnVisibilityState)) => {
      setVisibility((old) => {
        const next = typeof updater === "function" ? updater(old) : updater;
        try {
          window.localStorage.setItem(storageKey, JSON.stringify(next));
        } catch {
          // private mode or full storage: the choice lasts for this visit only
        }
        return next;
      });
    },
    [storageKey],
  );

  const reset = useCallback(() => {
    try {
      window.localStorage.removeItem(storageKey);
    } catch {
      // ignore
    }
    setVisibility(defaults);
  }, [storageKey, defaults]);

  return [visibility, update, reset] as const;
}
