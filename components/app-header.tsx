"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { SavedViewsMenu } from "@/components/saved-views/saved-views-menu";
import { DueThisWeek } from "@/components/worklist/due-this-week";
import { KINDS, RECORD_KINDS } from "@/lib/domain/kinds";
import type { ViewPage } from "@/lib/schemas/saved-views";
import { VIEW_PAGE_LABELS } from "@/lib/url-state/saved-views";

// The pages' names are declared once (VIEW_PAGE_LABELS), for the navigation and the saved views.
const NAV = [
  { href: "/worklist", label: VIEW_PAGE_LABELS["/worklist"], badge: true },
  { href: "/overview", label: VIEW_PAGE_LABELS["/overview"] },
  { href: "/report", label: VIEW_PAGE_LABELS["/report"] },
  ...RECORD_KINDS.map((kind) => ({ href: KINDS[kind].pagePath, label: VIEW_PAGE_LABELS[KINDS[kind].pagePath as ViewPage] })),
];

/** Top bar: where you are, who you are, which shops you see, your settings, and the way out. */
export function AppHeader({ email, access, signOut }: { email: string; access: string[]; signOut: () => Promise<void> }) {
  const pathname = usePathname();
  return (
    <header className="border-b border-slate-300 bg-white">
      <div className="mx-auto flex max-w-[1800px] flex-wrap items-center justify-between gap-x-6 gap-y-2 px-4 py-2">
        <div className="flex flex-wrap items-center gap-x-6 gap-y-1">
          <span className="font-semibold text-slate-900">Dispute review</span>
          <nav aria-label="Main">
            <ul className="flex flex-wrap gap-1">
              {NAV.map((item) => {
                const current = pathname === item.href;
                return (
                  <li key={item.href}>
                    <Link
                      href={item.href}
                      aria-current={current ? "page" : undefined}
                      className={`rounded-md px-3 py-1.5 text-sm font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 ${current ? "bg-blue-100 text-blue-950" : "text-slate-800 hover:bg-slate-100"}`}
                    >
                      {item.label}
                      {item.badge ? <DueThisWeek /> : null}
                    </Link>
                  </li>
                );
              })}
            </ul>
          </nav>
        </div>
        <div className="flex min-w-0 flex-wrap items-center gap-x-4 gap-y-1 text-sm">
          <div className="min-w-0" data-testid="signed-in-user">
            <span className="sr-only">Signed in as </span>
            <span className="font-medium">{email}</span>
            <span className="text-slate-700" title={access.join(", ")}>
              {" "}
              · shops: {access.length > 4 ? `${access.slice(0, 4).join(", ")} +${access.length - 4} more` : access.join(", ")}
            </span>
          </div>
          <SavedViewsMenu />
          <Link
            href="/settings"
            aria-current={pathname === "/settings" ? "page" : undefined}
            className={`rounded-md px-3 py-1 text-sm focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 ${pathname === "/settings" ? "bg-blue-100 text-blue-950" : "text-slate-800 hover:bg-slate-100"}`}
          >
            Settings
          </Link>
          <form action={signOut}>
            <button type="submit" className="rounded-md border border-slate-300 px-3 py-1 text-sm hover:bg-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600">
              Sign out
            </button>
          </form>
        </div>
      </div>
    </header>
  );
}
