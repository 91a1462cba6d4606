"use client";

import { useSavedViews } from "./saved-views-context";

/** Says which parts of a saved view this version could not restore (an older version's filters). */
export function ViewNoticeBanner() {
  const { notice, dismissNotice } = useSavedViews();
  if (!notice) return null;
  const names = notice.dropped.map((d) => `“${d}”`).join(", ");
  return (
    <div role="status" className="mb-3 flex flex-wrap items-start justify-between gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950" data-testid="view-notice">
      <p>
        The view “{notice.name}” was saved with {notice.dropped.length === 1 ? "a setting" : "settings"} this version no longer knows ({names}):{" "}
        {notice.dropped.length === 1 ? "it was" : "they were"} left out. Save the view again to keep it as it is now.
      </p>
      <button type="button" onClick={dismissNotice} className="rounded-md px-2 py-0.5 text-amber-950 underline hover:bg-amber-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600">
        Dismiss
      </button>
    </div>
  );
}
