"use client";

import { ErrorState } from "@/components/data-table/states";

/** What Next.js hands an error.tsx: the thrown value and a way to fetch and render the segment again. */
export interface RouteErrorProps {
  error: unknown;
  retry: () => void;
}

/**
 * A page that failed to render: a plain sentence, never the error's message or stack (a server's
 * error reaches the browser as a generic text with a digest, which is also in the server's log).
 * The digest is shown as the reference for support, as API problems show theirs.
 */
export function RouteError({ error, retry }: RouteErrorProps) {
  const digest = error instanceof Error && "digest" in error && typeof error.digest === "string" ? error.digest : undefined;
  return (
    <div className="py-6">
      <h1 className="mb-3 text-center text-xl font-semibold">Something went wrong</h1>
      <ErrorState title="This page could not be shown." detail="Something went wrong on our side. Try again, or go to the worklist." reference={digest} onRetry={retry} retryLabel="Try again">
        <p className="mt-3 text-sm">
          {/* A full page load, not a client navigation: the app around this page may be what failed. */}
          <a href="/worklist" className="text-blue-800 underline">
            Go to the worklist
          </a>
        </p>
      </ErrorState>
    </div>
  );
}
