"use client";

import { usePathname, useSearchParams } from "next/navigation";
import { useEffect, useState } from "react";
import type { SavedView } from "@/lib/schemas/saved-views";
import { cleanViewQuery, viewPageOf } from "@/lib/url-state/saved-views";
import { useSavedViews } from "./saved-views-context";

interface Arrival {
  /** the page whose arrival was handled */
  path: string | null;
  /** the last explicit opening (from the menu) that arrival honoured */
  consumed: number | null;
  /** the default view to open on this arrival */
  opening: SavedView | null;
  /** that view, until its address is in place */
  pending: SavedView | null;
}

/**
 * A page opens on the user's default view for it when its address has no state of its own
 * (docs/architecture.md, "Saved views"). Only on arriving at the page, and not when a view was
 * just opened from the menu: clearing the filters later leaves them cleared. Until the default's
 * address is in place the page shows a line instead of itself, so it never fetches or flashes
 * the view the user did not want.
 */
export function DefaultViewGate({ children }: { children: React.ReactNode }) {
  const pathname = usePathname();
  const search = useSearchParams();
  const { views, open, lastOpened } = useSavedViews();
  const [arrival, setArrival] = useState<Arrival>({ path: null, consumed: null, opening: null, pending: null });

  if (arrival.path !== pathname) {
    const token = lastOpened?.page === pathname ? lastOpened.at : null;
    const explicit = token !== null && token !== arrival.consumed;
    const page = viewPageOf(pathname);
    const target = !explicit && page && search.size === 0 ? views.find((v) => v.page === page && v.is_default) : undefined;
    // Only a default with an address of its own is waited for; one of columns alone opens at once.
    const waits = target !== undefined && cleanViewQuery(target.page, target.query).query !== "";
    setArrival({ path: pathname, consumed: explicit ? token : arrival.consumed, opening: target ?? null, pending: waits ? target : null });
  } else if (arrival.pending && search.size > 0) {
    setArrival({ ...arrival, pending: null });
  }

  useEffect(() => {
    if (arrival.opening) open(arrival.opening, { replace: true });
  }, [arrival.opening, open]);

  if (arrival.path !== pathname || arrival.pending) {
    return (
      <p role="status" className="text-sm text-slate-700">
        {arrival.pending ? `Opening your default view “${arrival.pending.name}”…` : "Loading…"}
      </p>
    );
  }
  return children;
}
