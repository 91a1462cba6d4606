"use client";

import { useState } from "react";
import { MAIL_KIND_LABELS, type DigestFrequency, type MailKind } from "@/lib/schemas/mail-settings";

const button =
  "rounded-md px-4 py-2 text-sm font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:ring-offset-2 disabled:opacity-60";

/**
 * The unsubscribe page's one button (docs/mail.md, "Unsubscribing"): it sends the same POST a mail
 * client sends for one-click unsubscribe, to the page's own address, then says what was turned off
 * and offers to undo it. Without JavaScript the form posts the same fields.
 */
export function UnsubscribePanel({ kind, email, initiallyOn, frequency }: { kind: MailKind; email: string; initiallyOn: boolean; frequency: Exclude<DigestFrequency, "off"> }) {
  const [on, setOn] = useState(initiallyOn);
  const [changed, setChanged] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const label = MAIL_KIND_LABELS[kind];
  const undoValue = kind === "digest" ? frequency : "on";

  const send = async (fields: Record<string, string>) => {
    setBusy(true);
    setError(null);
    try {
      const response = await fetch(window.location.pathname, { method: "POST", body: new URLSearchParams(fields), credentials: "omit" });
      if (!response.ok) throw new Error(`the server answered ${response.status}`);
      const answer = (await response.json()) as { on: boolean };
      setOn(answer.on);
      setChanged(true);
    } catch (err) {
      setError(`That did not work (${err instanceof Error ? err.message : "no answer"}). Please try again.`);
    } finally {
      setBusy(false);
    }
  };

  const submit = (e: React.FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    void send(on ? { "List-Unsubscribe": "One-Click" } : { undo: undoValue });
  };

  return (
    <form method="post" onSubmit={submit} className="space-y-4">
      {on ? (
        <>
          <p>
            Stop {label} to <strong>{email}</strong>?
          </p>
          {changed ? (
            <p role="status" className="rounded-md border border-green-300 bg-green-50 px-3 py-2 text-sm text-green-900">
              {cap(label)} are on again for {email}.
            </p>
          ) : null}
          <input type="hidden" name="List-Unsubscribe" value="One-Click" />
          <button type="submit" disabled={busy} className={`${button} bg-blue-700 text-white hover:bg-blue-800`}>
            Unsubscribe
          </button>
        </>
      ) : (
        <>
          <p role="status" className="rounded-md border border-slate-300 bg-slate-50 px-3 py-2 text-sm text-slate-900">
            {changed ? `${cap(label)} are turned off for ${email}.` : `${cap(label)} are already off for ${email}.`} Messages of this kind not yet sent
            will not be sent. {kind === "digest" ? "New-dispute alerts, if you have them, are unchanged." : "Digests, if you have them, are unchanged."}
          </p>
          <input type="hidden" name="undo" value={undoValue} />
          <button type="submit" disabled={busy} className={`${button} border border-slate-300 bg-white text-slate-900 hover:bg-slate-100`}>
            {changed ? "Undo" : `Turn ${label} back on`}
          </button>
        </>
      )}
      {error ? (
        <p role="alert" className="text-sm text-red-800">
          {error}
        </p>
      ) : null}
      <p className="text-sm text-slate-700">
        You can change every e-mail setting on the dashboard&apos;s <a className="text-blue-800 underline" href="/settings">Settings</a> page.
      </p>
    </form>
  );
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
