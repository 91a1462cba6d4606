"use client";

import { RouteError, type RouteErrorProps } from "@/components/route-error";

/**
 * A page that failed outside the dashboard's own boundary: the sign-in page, or the dashboard's
 * layout itself (e.g. when the session store cannot be read), so there is no header here.
 */
export default function RootError(props: RouteErrorProps) {
  return (
    <main id="main" className="mx-auto max-w-xl px-3 py-10">
      <RouteError {...props} />
    </main>
  );
}
