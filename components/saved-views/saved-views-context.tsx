"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { usePathname, useRouter } from "next/navigation";
import { createContext, useCallback, useContext, useMemo, useState } from "react";
import { readStoredColumns, storeColumns } from "@/components/data-table/use-stored-visibility";
import { columnsKeyOfPage } from "@/components/disputes/columns-key";
import { getApi, postApi } from "@/components/shared/api";
import type { SavedView, ViewPage } from "@/lib/schemas/saved-views";
import { cleanViewQuery, viewQueryOf } from "@/lib/url-state/saved-views";

const VIEWS_KEY = ["saved-views"] as const;

/** A view that opened without some of what it stored: what the banner tells the user. */
export interface ViewNotice {
  name: string;
  page: ViewPage;
  dropped: string[];
}

interface SavedViewsApi {
  views: SavedView[];
  /** Stores the page's current state as a view named `name` (and makes it the page's default). */
  save(page: ViewPage, name: string, makeDefault: boolean): Promise<SavedView>;
  rename(view: SavedView, name: string): Promise<void>;
  setDefault(view: SavedView, isDefault: boolean): Promise<void>;
  remove(view: SavedView): Promise<void>;
  /** Opens a view with its whole state; `replace` for the page's default (no extra history entry). */
  open(view: SavedView, options?: { replace?: boolean }): void;
  notice: ViewNotice | null;
  dismissNotice(): void;
  /** The last view opened from the menu: its page, and when (the default-view gate honours it once). */
  lastOpened: { page: string; at: number } | null;
}

const SavedViewsContext = createContext<SavedViewsApi | null>(null);

export function useSavedViews(): SavedViewsApi {
  const api = useContext(SavedViewsContext);
  if (!api) throw new Error("useSavedViews needs a SavedViewsProvider");
  return api;
}

/**
 * The signed-in user's saved views (docs/api.md, "Saved views"): read with the page by the
 * layout, then kept fresh through the API; saving, renaming, marking the default and deleting go
 * through the same-origin POST routes. Opening a view restores its columns (grids) and its address,
 * minus what this version no longer knows (lib/url-state/saved-views.ts), which the notice names.
 */
export function SavedViewsProvider({ initial, children }: { initial: SavedView[]; children: React.ReactNode }) {
  const client = useQueryClient();
  const router = useRouter();
  const pathname = usePathname();
  const [initialAt] = useState(() => Date.now());
  const query = useQuery({
    queryKey: VIEWS_KEY,
    queryFn: ({ signal }) => getApi<{ views: SavedView[] }>("/api/views", signal).then((r) => r.views),
    initialData: initial,
    initialDataUpdatedAt: initialAt,
    staleTime: 30_000,
  });
  const [notice, setNotice] = useState<ViewNotice | null>(null);
  const [lastOpened, setLastOpened] = useState<{ page: string; at: number } | null>(null);
  const refresh = useCallback(() => client.invalidateQueries({ queryKey: VIEWS_KEY }), [client]);

  // A notice belongs to the page its view opened; leaving that page ends it.
  const [seenPath, setSeenPath] = useState(pathname);
  if (seenPath !== pathname) {
    setSeenPath(pathname);
    if (notice && notice.page !== pathname) setNotice(null);
  }

  // Stable, so the default-view gate opens a view once per arrival.
  const open = useCallback<SavedViewsApi["open"]>(
    (view, options) => {
      const { query: cleaned, dropped } = cleanViewQuery(view.page, view.query);
      const key = columnsKeyOfPage(view.page);
      if (key) storeColumns(key, view.columns);
      setNotice(dropped.length ? { name: view.name, page: view.page, dropped } : null);
      if (!options?.replace) setLastOpened({ page: view.page, at: Date.now() });
      const href = `${view.page}${cleaned}`;
      if (options?.replace) router.replace(href);
      else router.push(href);
    },
    [router],
  );

  const api = useMemo<SavedViewsApi>(
    () => ({
      views: query.data,
      async save(page, name, makeDefault) {
        const key = columnsKeyOfPage(page);
        const body = { name, page, query: viewQueryOf(window.location.search), columns: key ? readStoredColumns(key) : null };
        let { view } = await postApi<{ view: SavedView }>("/api/views", body);
        try {
          if (makeDefault) view = (await postApi<{ view: SavedView }>(`/api/views/${view.id}`, { is_default: true })).view;
        } finally {
          await refresh();
        }
        return view;
      },
      async rename(view, name) {
        await postApi(`/api/views/${view.id}`, { name });
        await refresh();
      },
      async setDefault(view, isDefault) {
        await postApi(`/api/views/${view.id}`, { is_default: isDefault });
        await refresh();
      },
      async remove(view) {
        await postApi(`/api/views/${view.id}/delete`, {});
        await refresh();
      },
      open,
      notice,
      dismissNotice: () => setNotice(null),
      lastOpened,
    }),
    [query.data, notice, refresh, open, lastOpened],
  );
  return <SavedViewsContext.Provider value={api}>{children}</SavedViewsContext.Provider>;
}
