import os from "node:os";
import type { Kysely } from "kysely";
import nodemailer from "nodemailer";
import type { MailConfig } from "@/lib/config";
import type { Database } from "@/lib/data/connection/schema";
import { renderMessage } from "./render";
import { mailUser } from "./settings";
import type { ClaimedMessage, SendOutcome } from "./store";
import { unsubscribeUrl } from "./unsubscribe";

/**
 * Sending one claimed message over SMTP (docs/mail.md, "Delivery"). A 5xx answer is permanent; a
 * 4xx, no connection or no answer within 30 seconds is temporary and tried again later.
 */

/** No answer within this time is a temporary failure (or a quarter of a shorter MAIL_LEASE_SECONDS). */
export const SMTP_TIMEOUT_MS = 30_000;

export type Transport = ReturnType<typeof nodemailer.createTransport>;

export function mailTransport(config: MailConfig, timeoutMs = SMTP_TIMEOUT_MS): Transport {
  return nodemailer.createTransport({
    url: config.smtpUrl,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
  });
}

/** Why a send failed, and whether trying again can help; never the message's content or the password. */
export function failureOf(err: unknown): { permanent: boolean; error: string } {
  const e = err as { responseCode?: unknown; response?: unknown; code?: unknown; message?: unknown };
  const status = typeof e.responseCode === "number" ? e.responseCode : undefined;
  const response = typeof e.response === "string" ? e.response.replace(/\s+/g, " ").slice(0, 200) : undefined;
  const code = typeof e.code === "string" ? e.code : undefined;
  const message = typeof e.message === "string" ? e.message.replace(/\s+/g, " ").slice(0, 200) : String(err);
  const error = response ?? (code ? `${code}: ${message}` : message);
  return { permanent: status !== undefined && status >= 500 && status < 600, error };
}

const hostOf = (origin: string) => new URL(origin).hostname || os.hostname();

/** Sends a message unless its kind was turned off since it was stored; the outcome to record. */
export async function sendClaimed(db: Kysely<Database>, transport: Transport, config: MailConfig, message: ClaimedMessage): Promise<SendOutcome> {
  const user = await mailUser(db, message.userId);
  if (!user) return { delivered: false, permanent: true, error: "the user no longer exists" };
  const on = message.kind === "digest" ? user.settings.digest !== "off" : user.settings.alerts;
  if (!on) return { delivered: false, permanent: true, error: `${message.kind === "digest" ? "digests" : "alerts"} turned off before it was sent` };
  const unsubscribe = unsubscribeUrl(message.userId, message.kind);
  const rendered = renderMessage(message.facts, config.appUrl, unsubscribe);
  try {
    await transport.sendMail({
      from: config.from,
      to: user.email,
      subject: rendered.subject,
      text: rendered.text,
      html: rendered.html,
      // The same id on every attempt: a receiver that got a message twice can tell.
      messageId: `<mail-${message.id}-${message.createdAt}@${hostOf(config.appUrl)}>`,
      date: new Date(),
      headers: { "List-Unsubscribe": `<${unsubscribe}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click", "Auto-Submitted": "auto-generated" },
    });
    return { delivered: true };
  } catch (err) {
    return { delivered: false, ...failureOf(err) };
  }
}
