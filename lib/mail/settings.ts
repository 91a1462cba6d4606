import type { Kysely } from "kysely";
import { AccountError, normaliseEmail } from "@/lib/auth/accounts";
import { parseAccessList } from "@/lib/auth/access";
import type { Db } from "@/lib/data/connection/db";
import type { Database } from "@/lib/data/connection/schema";
import { changingUser } from "@/lib/data/user-state/user-write";
import { DEFAULT_MAIL_SETTINGS, DIGEST_FREQUENCIES, type DigestFrequency, type MailKind, type MailSettings, type MailSettingsPatch } from "@/lib/schemas/mail-settings";

/**
 * Reading and changing a user's mail settings (docs/mail.md, "Settings"). A user without a row has
 * the defaults. Turning a kind of mail off also stops that kind's messages not yet sent.
 */

export interface MailUser {
  userId: number;
  email: string;
  access: string[];
  createdAt: number;
  settings: MailSettings;
  /** false until the settings were first changed (the settings page then offers the browser's zone) */
  changed: boolean;
}

type SettingsRow = { digest: string | null; digest_at: string | null; zone: string | null; alerts: number | string | null; updated_at: number | string | null };

function settingsOf(row: SettingsRow): MailSettings {
  if (row.digest === null) return { ...DEFAULT_MAIL_SETTINGS };
  return {
    digest: (DIGEST_FREQUENCIES as readonly string[]).includes(row.digest) ? (row.digest as DigestFrequency) : DEFAULT_MAIL_SETTINGS.digest,
    at: row.digest_at ?? DEFAULT_MAIL_SETTINGS.at,
    zone: row.zone ?? DEFAULT_MAIL_SETTINGS.zone,
    alerts: Number(row.alerts) === 1,
  };
}

const userColumns = ["users.id", "users.email", "users.access_list", "users.created_at", "mail_settings.digest", "mail_settings.digest_at", "mail_settings.zone", "mail_settings.alerts", "mail_settings.updated_at"] as const;

function usersQuery(db: Kysely<Database>) {
  return db.selectFrom("users").leftJoin("mail_settings", "mail_settings.user_id", "users.id").select(userColumns);
}

function mailUserOf(row: Awaited<ReturnType<ReturnType<typeof usersQuery>["executeTakeFirstOrThrow"]>>): MailUser {
  return {
    userId: Number(row.id),
    email: row.email,
    access: parseAccessList(row.access_list),
    createdAt: Number(row.created_at),
    settings: settingsOf(row),
    changed: row.updated_at !== null,
  };
}

/** Every user with their settings, by e-mail address. */
export async function mailUsers(db: Kysely<Database>): Promise<MailUser[]> {
  return (await usersQuery(db).orderBy("users.email").execute()).map(mailUserOf);
}

export async function mailUser(db: Kysely<Database>, userId: number): Promise<MailUser | null> {
  const row = await usersQuery(db).where("users.id", "=", userId).executeTakeFirst();
  return row ? mailUserOf(row) : null;
}

/** The user of an e-mail address; AccountError when there is none. */
export async function mailUserByEmail(db: Kysely<Database>, email: string): Promise<MailUser> {
  const normalised = normaliseEmail(email);
  const row = await usersQuery(db).where("users.email", "=", normalised).executeTakeFirst();
  if (!row) throw new AccountError(`no user ${normalised}`);
  return mailUserOf(row);
}

/** Messages of a kind turned off that were not sent yet are not sent (docs/mail.md, "Unsubscribing"). */
async function dropUnsent(trx: Kysely<Database>, userId: number, kind: MailKind, now: number): Promise<void> {
  await trx
    .updateTable("mail_messages")
    .set({ state: "failed", last_error: `${kind === "digest" ? "digests" : "alerts"} turned off before it was sent`, next_attempt_at: now, claimed_until: null, claim_token: null })
    .where("user_id", "=", userId)
    .where("kind", "=", kind)
    .where("state", "in", ["pending", "retry"])
    .execute();
}

/**
 * Applies a change to a user's settings in one transaction, serialised with the user's other
 * changes (a settings page and an unsubscribe link at once, or an import's write lock on SQLite:
 * lib/data/user-state/user-write.ts), and answers the settings now.
 */
export async function changeMailSettings(database: Pick<Db, "db" | "dialect" | "sqlite">, userId: number, patch: MailSettingsPatch): Promise<MailSettings> {
  return changingUser(database, userId, async (trx) => {
    const user = await mailUser(trx, userId);
    if (!user) throw new AccountError("no such user");
    const next: MailSettings = {
      digest: patch.digest ?? user.settings.digest,
      at: patch.at ?? user.settings.at,
      zone: patch.zone ?? user.settings.zone,
      alerts: patch.alerts ?? user.settings.alerts,
    };
    const now = Date.now();
    const values = { digest: next.digest, digest_at: next.at, zone: next.zone, alerts: next.alerts ? 1 : 0, updated_at: now };
    await trx
      .insertInto("mail_settings")
      .values({ user_id: userId, ...values })
      .onConflict((oc) => oc.column("user_id").doUpdateSet(values))
      .execute();
    if (next.digest === "off") await dropUnsent(trx, userId, "digest", now);
    if (!next.alerts) await dropUnsent(trx, userId, "alert", now);
    return next;
  });
}

/** What turning one kind of mail off means for the settings. */
export const OFF: Record<MailKind, MailSettingsPatch> = { digest: { digest: "off" }, alert: { alerts: false } };
