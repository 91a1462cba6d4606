import { z } from "zod";
import { type FieldError, toFieldErrors } from "./search";

/**
 * A dashboard user's mail settings (docs/mail.md, "Settings"): declared once here and used by the
 * admin command, the settings page and its route, and the digest schedule (lib/mail/schedule.ts).
 */

export const DIGEST_FREQUENCIES = ["daily", "weekly", "off"] as const;
export type DigestFrequency = (typeof DIGEST_FREQUENCIES)[number];

/** The kinds of message, which are also what an unsubscribe link turns off. */
export const MAIL_KINDS = ["alert", "digest"] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

/** How a kind of mail is named to people (the unsubscribe page, the settings page). */
export const MAIL_KIND_LABELS: Record<MailKind, string> = { digest: "digest e-mails", alert: "new-dispute alerts" };

/** How a digest frequency is named to people. */
export const DIGEST_FREQUENCY_LABELS: Record<DigestFrequency, string> = { daily: "Daily", weekly: "Weekly, on Mondays", off: "Off" };

export const MAIL_STATES = ["pending", "retry", "delivered", "failed"] as const;
export type MailState = (typeof MAIL_STATES)[number];

export interface MailSettings {
  digest: DigestFrequency;
  /** "HH:MM", 24-hour, in `zone` */
  at: string;
  /** an IANA time zone */
  zone: string;
  alerts: boolean;
}

export const DEFAULT_MAIL_SETTINGS: MailSettings = { digest: "daily", at: "08:00", zone: "UTC", alerts: false };

const TIME = /^([01]?\d|2[0-3]):([0-5]\d)$/;

/** "8:05" -> "08:05"; null for anything that is not a 24-hour time of day. */
export function normaliseTime(text: string): string | null {
  const m = TIME.exec(text);
  return m ? `${m[1].padStart(2, "0")}:${m[2]}` : null;
}

/** An IANA zone name as the runtime knows it ("europe/berlin" -> "Europe/Berlin"); null when unknown. */
export function canonicalZone(text: string): string | null {
  // Offsets ("+01:00") and abbreviations the runtime may accept are no IANA names.
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(text) || text.length > 64) return null;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: text }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** The zones a person picks from: the runtime's canonical IANA names, with UTC. */
export function timeZoneNames(): string[] {
  const names = Intl.supportedValuesOf("timeZone");
  return names.includes("UTC") ? names : ["UTC", ...names];
}

export const MailSettingsPatch = z
  .object({
    digest: z.enum(DIGEST_FREQUENCIES, { message: `must be one of ${DIGEST_FREQUENCIES.join(", ")}` }).optional(),
    at: z
      .string({ message: "must be a time HH:MM" })
      .transform((s, ctx) => normaliseTime(s) ?? (ctx.addIssue({ code: "custom", message: "must be a 24-hour time HH:MM, 00:00 to 23:59" }), z.NEVER))
      .optional(),
    zone: z
      .string({ message: "must be an IANA time zone" })
      .transform((s, ctx) => canonicalZone(s) ?? (ctx.addIssue({ code: "custom", message: "must be an IANA time zone such as Europe/Berlin" }), z.NEVER))
      .optional(),
    alerts: z.boolean({ message: "must be true or false" }).optional(),
  })
  .strict();
export type MailSettingsPatch = z.infer<typeof MailSettingsPatch>;

export function parseMailSettingsPatch(body: unknown): { ok: true; request: MailSettingsPatch } | { ok: false; errors: FieldError[] } {
  const parsed = MailSettingsPatch.safeParse(body);
  return parsed.success ? { ok: true, request: parsed.data } : { ok: false, errors: toFieldErrors(parsed.error) };
}
