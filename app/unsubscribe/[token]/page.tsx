import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { UnsubscribePanel } from "@/components/mail/unsubscribe-panel";
import { getDb } from "@/lib/data/connection/db";
import { mailUser } from "@/lib/mail/settings";
import { readUnsubscribeToken } from "@/lib/mail/unsubscribe";

export const metadata: Metadata = { title: "Unsubscribe", robots: { index: false, follow: false } };

/**
 * The page an unsubscribe link opens (docs/mail.md, "Unsubscribing"). Opening it changes nothing,
 * so a link scanner that follows the link turns nothing off: its button makes the one-click POST.
 * No sign-in: the token names the user and the kind, and can do nothing else.
 */
export default async function UnsubscribePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const link = readUnsubscribeToken(token);
  const user = link ? await mailUser((await getDb()).db, link.userId) : null;
  if (!link || !user) notFound();
  const on = link.kind === "digest" ? user.settings.digest !== "off" : user.settings.alerts;
  return (
    <main className="flex min-h-screen items-center justify-center px-4">
      <div className="w-full max-w-md rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <h1 className="mb-4 text-xl font-semibold">Dispute review e-mail</h1>
        <UnsubscribePanel kind={link.kind} email={user.email} initiallyOn={on} frequency={user.settings.digest === "off" ? "daily" : user.settings.digest} />
      </div>
    </main>
  );
}
