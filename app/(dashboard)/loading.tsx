/**
 * What a dashboard page shows while the server still renders it (the overview reads its figures
 * first): the layout's header stays, and the page's place says it is on its way.
 */
export default function DashboardLoading() {
  return (
    <div role="status" className="space-y-3" data-testid="page-loading">
      <p className="text-sm text-slate-700">Loading…</p>
      <div aria-hidden="true" className="h-9 w-full max-w-md animate-pulse rounded-md bg-slate-200" />
      <div aria-hidden="true" className="h-64 animate-pulse rounded-md bg-slate-200" />
    </div>
  );
}
