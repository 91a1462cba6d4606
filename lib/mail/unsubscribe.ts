import crypto from "node:crypto";
import { derivedKey } from "@/lib/auth/secrets";
import { appOrigin } from "@/lib/config";
import { MAIL_KINDS, type MailKind } from "@/lib/schemas/mail-settings";

/**
 * One-click unsubscribe tokens (docs/mail.md, "Unsubscribing"): `<user id>.<kind>.<mac>`, the MAC
 * an HMAC-SHA256 of the user and the kind under a key derived from the app's secret, so every
 * instance reads it. It names one user and one kind of mail and can only turn that off (or back
 * on); it signs nobody in. Nothing about it is stored.
 */

const PURPOSE = "mail-unsubscribe";

function mac(userId: number, kind: MailKind): string {
  return crypto.createHmac("sha256", derivedKey(PURPOSE)).update(`unsubscribe:v1:${userId}:${kind}`).digest("base64url");
}

export function unsubscribeToken(userId: number, kind: MailKind): string {
  return `${userId}.${kind}.${mac(userId, kind)}`;
}

/** The user and kind a token names, or null when it was not made here or was altered. */
export function readUnsubscribeToken(token: string): { userId: number; kind: MailKind } | null {
  const m = /^([1-9]\d{0,14})\.([a-z]+)\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m || !(MAIL_KINDS as readonly string[]).includes(m[2])) return null;
  const userId = Number(m[1]);
  const kind = m[2] as MailKind;
  const expected = Buffer.from(mac(userId, kind));
  const given = Buffer.from(m[3]);
  return given.length === expected.length && crypto.timingSafeEqual(given, expected) ? { userId, kind } : null;
}

/** The link of a message's List-Unsubscribe header and its footer. */
export function unsubscribeUrl(userId: number, kind: MailKind): string {
  return `${appOrigin()}/unsubscribe/${unsubscribeToken(userId, kind)}`;
}
