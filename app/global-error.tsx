"use client";

import { RouteError, type RouteErrorProps } from "@/components/route-error";
import "./globals.css";

/** The root layout itself failed: this replaces it, so it brings its own document and styles. */
export default function GlobalError(props: RouteErrorProps) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased">
        <title>Something went wrong · Dispute review</title>
        <main id="main" className="mx-auto max-w-xl px-3 py-10">
          <RouteError {...props} />
        </main>
      </body>
    </html>
  );
}
