import type { Metadata } from "next";
import { Suspense } from "react";
import { OverviewView } from "@/components/overview/overview-view";
import { requireUser } from "@/lib/auth/current-user";

export const metadata: Metadata = { title: "Overview" };

export default async function Page() {
  const user = await requireUser();
  return (
    <>
      <h1 className="mb-3 text-xl font-semibold">Overview</h1>
      <Suspense fallback={<p className="text-sm text-slate-700">Loading…</p>}>
        <OverviewView shops={user.access} />
      </Suspense>
    </>
  );
}
