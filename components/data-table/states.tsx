import type { ReactNode } from "react";

/** A failure is a designed state: what went wrong and a way to try again, never an empty grid. */
export function ErrorState({
  title,
  detail,
  reference,
  onRetry,
  retrying,
  retryLabel = "Retry",
  children,
}: {
  title: string;
  detail?: string;
  reference?: string;
  onRetry?: () => void;
  retrying?: boolean;
  retryLabel?: string;
  /** another way on, after the retry button (e.g. a link away from a page that failed) */
  children?: ReactNode;
}) {
  return (
    <div role="alert" className="mx-auto max-w-xl rounded-md border border-red-300 bg-red-50 p-4 text-red-900" data-testid="error-state">
      <p className="font-semibold">{title}</p>
      {detail ? <p className="mt-1 text-sm">{detail}</p> : null}
      {reference ? (
        <p className="mt-1 text-sm">
          Reference for support: <code className="select-all rounded bg-red-100 px-1 font-mono text-xs" data-testid="error-reference">{reference}</code>
        </p>
      ) : null}
      {onRetry ? (
        <button
          type="button"
          onClick={onRetry}
          disabled={retrying}
          className="mt-3 rounded-md bg-red-800 px-3 py-1.5 text-sm font-medium text-white hover:bg-red-900 focus:outline-none focus-visible:ring-2 focus-visible:ring-red-700 focus-visible:ring-offset-2 disabled:opacity-60"
        >
          {retrying ? "Retrying…" : retryLabel}
        </button>
      ) : null}
      {children}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div role="status" className="mx-auto max-w-xl rounded-md border border-slate-300 bg-slate-50 p-4 text-slate-800" data-testid="empty-state">
      <p className="font-semibold">{title}</p>
      {children ? <div className="mt-1 text-sm">{children}</div> : null}
    </div>
  );
}
