import { AppHeader } from "@/components/app-header";
import { DeadlineProvider } from "@/components/shared/deadline-context";
import { Providers } from "@/components/providers";
import { requireUser } from "@/lib/auth/current-user";
import { deadlineConfigFromEnv } from "@/lib/domain/deadlines";
import { signOut } from "../login/actions";

/** Every dashboard page: a valid, unexpired session or the way to /login?next=<this page>. */
export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  const user = await requireUser();
  // Answer-by windows are operator settings read on the server; the browser gets the numbers.
  const deadlines = deadlineConfigFromEnv();
  return (
    <Providers>
      <DeadlineProvider config={deadlines}>
        <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:shadow">
          Skip to the records
        </a>
        <AppHeader email={user.email} access={user.access} signOut={signOut} />
        <main id="main" className="mx-auto max-w-[1800px] px-3 py-3 sm:px-4">
          {children}
        </main>
      </DeadlineProvider>
    </Providers>
  );
}
