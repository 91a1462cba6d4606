"use client";

import { useEffect, useId, useState } from "react";
import { ApiProblem, postApi } from "@/components/shared/api";
import { problemText } from "@/components/shared/problem-text";
import { nextSlot } from "@/lib/mail/schedule";
import { DIGEST_FREQUENCIES, DIGEST_FREQUENCY_LABELS, type MailSettings } from "@/lib/schemas/mail-settings";
import { TimeZoneField } from "./time-zone-field";

const box = "rounded-lg border border-slate-300 bg-white p-4";

/**
 * The mail settings of the signed-in user (docs/mail.md, "Settings"): how often the digest comes
 * (daily, weekly on Mondays, off), at what time in which zone, and the new-dispute alerts. Until
 * the user first saves, the zone offered is the browser's. Saved with one POST of the whole form.
 */
export function MailSettingsForm({ email, initial, changed, mailEnabled, zones }: { email: string; initial: MailSettings; changed: boolean; mailEnabled: boolean; zones: readonly string[] }) {
  const [saved, setSaved] = useState(initial);
  const [form, setForm] = useState(initial);
  const [browserZone, setBrowserZone] = useState<string | null>(null);
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  const zoneHint = useId();
  const timeId = useId();
  const timeError = useId();

  useEffect(() => {
    if (changed) return;
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone && zones.includes(zone) && zone !== initial.zone) {
      // eslint-disable-next-line react-hooks/set-state-in-effect -- the browser's zone is only known here
      setBrowserZone(zone);
      setForm((f) => ({ ...f, zone }));
    }
  }, [changed, initial.zone, zones]);

  const dirty = JSON.stringify(form) !== JSON.stringify(saved);
  // Counted in the browser after it has drawn (the server's clock would differ from the page's).
  const [now, setNow] = useState<number | null>(null);
  // eslint-disable-next-line react-hooks/set-state-in-effect -- the browser's clock is only read here
  useEffect(() => setNow(Date.now()), [saved]);
  const next = now === null ? null : nextDigest(saved, now);
  const set = <K extends keyof MailSettings>(field: K, value: MailSettings[K]) => {
    setForm((f) => ({ ...f, [field]: value }));
    setStatus(null);
  };

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setSaving(true);
    setStatus(null);
    setFieldErrors({});
    try {
      const answer = await postApi<{ settings: MailSettings }>("/api/mail-settings", { ...form });
      setSaved(answer.settings);
      setForm(answer.settings);
      setBrowserZone(null);
      setStatus({ ok: true, text: `Saved. ${describe(answer.settings)}` });
    } catch (err) {
      if (err instanceof ApiProblem && err.fields.length) setFieldErrors(Object.fromEntries(err.fields.map((f) => [f.field, f.message])));
      const problem = problemText(err, "your settings");
      setStatus({ ok: false, text: `Not saved: ${problem.detail ?? problem.title}` });
    } finally {
      setSaving(false);
    }
  };

  return (
    <form onSubmit={submit} className="max-w-2xl space-y-4" aria-labelledby="mail-settings-heading">
      <section className={box}>
        <h2 id="mail-settings-heading" className="mb-1 text-lg font-semibold">
          E-mail
        </h2>
        <p className="mb-3 text-sm text-slate-700">
          Mail goes to <strong>{email}</strong> and covers your shops only.
        </p>
        {mailEnabled ? null : (
          <p className="mb-3 rounded-md border border-amber-400 bg-amber-50 px-3 py-2 text-sm text-amber-950" data-testid="mail-disabled">
            This server sends no e-mail: no mail server is set up (<code>SMTP_URL</code>). Your settings are kept and apply as soon as
            your operator sets one up.
          </p>
        )}

        <fieldset className="mb-4">
          <legend className="mb-1 text-sm font-medium">Digest of what is new and what is due</legend>
          <div className="flex flex-wrap gap-x-5 gap-y-1">
            {DIGEST_FREQUENCIES.map((frequency) => (
              <label key={frequency} className="flex items-center gap-2 text-sm">
                <input type="radio" name="digest" value={frequency} checked={form.digest === frequency} onChange={() => set("digest", frequency)} />
                {DIGEST_FREQUENCY_LABELS[frequency]}
              </label>
            ))}
          </div>
        </fieldset>

        <div className="mb-4">
          <label htmlFor={timeId} className="mb-1 block text-sm font-medium">
            Time of day
          </label>
          <input
            id={timeId}
            type="time"
            step={60}
            required
            value={form.at}
            onChange={(e) => set("at", e.target.value)}
            disabled={form.digest === "off"}
            aria-invalid={fieldErrors.at ? true : undefined}
            aria-describedby={fieldErrors.at ? timeError : undefined}
            className="rounded-md border border-slate-400 px-2 py-1.5 text-sm focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 disabled:bg-slate-100"
          />
          {fieldErrors.at ? (
            <p id={timeError} className="mt-1 text-sm text-red-800">
              {fieldErrors.at}
            </p>
          ) : null}
        </div>

        <div className="mb-4">
          <TimeZoneField zones={zones} value={form.zone} onChange={(zone) => set("zone", zone)} describedBy={zoneHint} />
          <p id={zoneHint} className="mt-1 text-sm text-slate-700">
            {browserZone ? "Your browser's time zone, kept when you save. " : ""}
            {fieldErrors.zone ?? "The digest comes at the time above in this zone, also across daylight-saving changes."}
          </p>
        </div>

        <fieldset>
          <legend className="mb-1 text-sm font-medium">New-dispute alerts</legend>
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={form.alerts} onChange={(e) => set("alerts", e.target.checked)} />
            E-mail me when a file brings records in my shops
          </label>
        </fieldset>
      </section>

      <div className="flex items-center gap-3">
        <button
          type="submit"
          disabled={saving}
          className="rounded-md bg-blue-700 px-4 py-2 text-sm font-medium text-white hover:bg-blue-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:ring-offset-2 disabled:opacity-60"
        >
          Save settings
        </button>
        {dirty && !status ? <span className="text-sm text-slate-700">Unsaved changes</span> : null}
      </div>
      {next ? (
        <p className="text-sm text-slate-700" data-testid="next-digest">
          Your next digest, if there is anything to say: {next}.
        </p>
      ) : null}
      <p role="status" className={`text-sm ${status?.ok === false ? "text-red-800" : "text-slate-900"}`}>
        {status?.text ?? ""}
      </p>
    </form>
  );
}

/**
 * When the next digest of saved settings comes, as the server's schedule counts it
 * (lib/mail/schedule.ts): the first of the coming days' times, Mondays only for a weekly one.
 */
function nextDigest(s: MailSettings, now: number): string | null {
  const next = nextSlot(s, now);
  if (!next) return null;
  const weekday = new Date(next.day).toLocaleDateString("en-GB", { weekday: "long", timeZone: "UTC" });
  return `${weekday} ${new Date(next.day).toISOString().slice(0, 10)} at ${s.at} (${s.zone})`;
}

/** The settings in one sentence, as the user will see them happen. */
function describe(s: MailSettings): string {
  const digest = s.digest === "off" ? "No digest" : `A digest ${s.digest === "daily" ? "every day" : "every Monday"} at ${s.at} (${s.zone})`;
  return `${digest}; new-dispute alerts ${s.alerts ? "on" : "off"}.`;
}
