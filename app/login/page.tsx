import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getCurrentUser, safeNextPath } from "@/lib/auth/current-user";
import { LoginForm } from "./login-form";

export const metadata: Metadata = { title: "Sign in" };

const NOTICES: Record<string, string> = {
  expired: "Your session has ended. Please sign in again.",
  "signed-out": "You have signed out.",
};

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const next = safeNextPath(typeof params.next === "string" ? params.next : undefined);
  const reason = typeof params.reason === "string" ? params.reason : undefined;
  if (await getCurrentUser().catch(() => null)) redirect(next);
  // Own keys only: ?reason=__proto__ must not render Object.prototype.
  const notice = reason && Object.hasOwn(NOTICES, reason) ? NOTICES[reason] : undefined;
  return (
    <main className="flex min-h-screen items-center justify-center px-4">
      <div className="w-full max-w-sm rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <h1 className="mb-1 text-xl font-semibold">Dispute review</h1>
        <p className="mb-6 text-sm text-slate-700">Sign in to review your chargebacks and pre-arbitration cases.</p>
        {notice ? (
          <p role="status" className="mb-4 rounded-md border border-slate-300 bg-slate-50 px-3 py-2 text-sm text-slate-800">
            {notice}
          </p>
        ) : null}
        <LoginForm next={next} />
      </div>
    </main>
  );
}
