import type { Metadata } from "next";
import { Suspense } from "react";
import { DisputesView } from "@/components/disputes/disputes-view";
import { requireUser } from "@/lib/auth/current-user";
import { KINDS } from "@/lib/domain/kinds";

export const metadata: Metadata = { title: KINDS.chargeback.navLabel };

export default async function Page() {
  const user = await requireUser();
  return (
    <>
      <h1 className="mb-3 text-xl font-semibold">{KINDS.chargeback.title}</h1>
      {/* The view reads the URL on the client; Suspense lets the server send the frame first. */}
      <Suspense fallback={<p className="text-sm text-slate-700">Loading…</p>}>
        <DisputesView kind="chargeback" shops={user.access} />
      </Suspense>
    </>
  );
}
