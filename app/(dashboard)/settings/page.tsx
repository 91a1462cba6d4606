import type { Metadata } from "next";
import { MailSettingsForm } from "@/components/settings/mail-settings-form";
import { requireUser } from "@/lib/auth/current-user";
import { mailEnabled } from "@/lib/config";
import { getDb } from "@/lib/data/connection/db";
import { mailUser } from "@/lib/mail/settings";
import { DEFAULT_MAIL_SETTINGS, timeZoneNames } from "@/lib/schemas/mail-settings";

export const metadata: Metadata = { title: "Settings" };

/**
 * The signed-in user's own settings (docs/mail.md, "Settings"): the digest's frequency, time and
 * time zone, and the new-dispute alerts. Saved through /api/mail-settings (docs/api.md, "Mail settings").
 */
export default async function SettingsPage() {
  const user = await requireUser();
  const mail = await mailUser((await getDb()).db, user.userId);
  return (
    <>
      <h1 className="mb-3 text-xl font-semibold">Settings</h1>
      <MailSettingsForm
        email={user.email}
        initial={mail?.settings ?? DEFAULT_MAIL_SETTINGS}
        changed={mail?.changed ?? false}
        mailEnabled={mailEnabled()}
        zones={timeZoneNames()}
      />
    </>
  );
}
