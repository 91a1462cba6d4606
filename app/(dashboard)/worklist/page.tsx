import type { Metadata } from "next";
import { Suspense } from "react";
import { WorklistView } from "@/components/worklist/worklist-view";
import { requireUser } from "@/lib/auth/current-user";

export const metadata: Metadata = { title: "Needs an answer" };

/** The landing page after sign-in: what must be answered, and by when. */
export default async function Page() {
  const user = await requireUser();
  return (
    <>
      <h1 className="mb-3 text-xl font-semibold">Needs an answer</h1>
      <Suspense fallback={<p className="text-sm text-slate-700">Loading…</p>}>
        <WorklistView shops={user.access} />
      </Suspense>
    </>
  );
}
