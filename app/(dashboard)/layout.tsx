import { Suspense } from "react";
import { AppHeader } from "@/components/app-header";
import { DefaultViewGate } from "@/components/saved-views/default-view-gate";
import { SaveViewButton } from "@/components/saved-views/save-view-button";
import { SavedViewsProvider } from "@/components/saved-views/saved-views-context";
import { ViewNoticeBanner } from "@/components/saved-views/view-notice";
import { DeadlineProvider } from "@/components/shared/deadline-context";
import { ShopDirectoryProvider } from "@/components/shared/shop-directory";
import { Providers } from "@/components/providers";
import { requireUser } from "@/lib/auth/current-user";
import { savedViewsOf } from "@/lib/data/user-state/saved-views";
import { shopDirectory } from "@/lib/data/aggregates/shop-directory";
import { utcToday } from "@/lib/domain/calendar";
import { deadlineConfigFromEnv } from "@/lib/domain/deadlines";
import { signOut } from "../login/actions";

/**
 * Every dashboard page: a valid, unexpired session or the way to /login?next=<this page>. The
 * user's shop directory and saved views are read once here, with the first page, and shared by
 * every page of the session (the shop pickers, the "Saved views" menu, the default views).
 */
export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  const user = await requireUser();
  // Answer-by windows are operator settings read on the server; the browser gets the numbers.
  const deadlines = deadlineConfigFromEnv();
  const [directory, views] = await Promise.all([shopDirectory(user.access), savedViewsOf(user.userId)]);
  return (
    <Providers>
      <DeadlineProvider config={deadlines} serverToday={utcToday()}>
        <ShopDirectoryProvider shops={directory}>
          <SavedViewsProvider initial={views}>
            <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:shadow">
              Skip to the records
            </a>
            <AppHeader email={user.email} access={user.access} signOut={signOut} />
            <main id="main" className="mx-auto max-w-[1800px] px-3 py-3 sm:px-4">
              <div className="float-right ml-3">
                <SaveViewButton />
              </div>
              <ViewNoticeBanner />
              <Suspense fallback={<p className="text-sm text-slate-700">Loading…</p>}>
                <DefaultViewGate>{children}</DefaultViewGate>
              </Suspense>
            </main>
          </SavedViewsProvider>
        </ShopDirectoryProvider>
      </DeadlineProvider>
    </Providers>
  );
}
