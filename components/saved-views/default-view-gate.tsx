"use client";

import { usePathname, useSearchParams } from "next/navigation";
import { useEffect, useState } from "react";
import { viewPageOf } from "@/lib/url-state/saved-views";
import { useSavedViews } from "./saved-views-context";

/**
 * A page opens on the user's default view for it when its address has no state of its own
 * (docs/architecture.md, "Saved views"). Only on arriving at the page: clearing the filters later
 * leaves them cleared. Until the default's address is in place the page shows a line instead of
 * itself, so it never fetches or flashes the view the user did not want.
 */
export function DefaultViewGate({ children }: { children: React.ReactNode }) {
  const pathname = usePathname();
  const search = useSearchParams();
  const { views, open, takeExplicit } = useSavedViews();
  // The page whose arrival was handled, and the one waiting for its default's address.
  const [handled, setHandled] = useState<string | null>(null);
  const [awaiting, setAwaiting] = useState<string | null>(null);

  const arriving = handled !== pathname;
  const page = viewPageOf(pathname);
  const target = arriving && page && search.size === 0 ? views.find((v) => v.page === page && v.is_default) : undefined;

  useEffect(() => {
    if (!arriving) return;
    setHandled(pathname);
    // A view opened from the menu (even one without filters) is what the user asked for.
    if (takeExplicit(pathname) || !target) return;
    open(target, { replace: true });
    if (target.query) setAwaiting(pathname);
  }, [arriving, pathname, target, open, takeExplicit]);

  if (target || (awaiting === pathname && search.size === 0)) {
    return (
      <p role="status" className="text-sm text-slate-700">
        Opening your default view{target ? ` “${target.name}”` : ""}…
      </p>
    );
  }
  return children;
}
