import crypto from "node:crypto";
import { isSqliteBusy, LeasedDispatcher, type LeasedWork, OwnDatabase } from "@/lib/background/leased-dispatcher";
import { type Job, type Problem, startJob } from "@/lib/background/runner";
import { type MailConfig, mailConfig, mailLeaseSeconds, mailRetrySeconds } from "@/lib/config";
import { type Db, isDatabaseUnavailable } from "@/lib/data/connection/db";
import { errorFields, log } from "@/lib/log";
import { countMailAttempt } from "@/lib/metrics";
import { composeDueDigests } from "./digests";
import { mailTransport, SMTP_TIMEOUT_MS, sendClaimed, type Transport } from "./send";
import { type ClaimedMessage, claimMessages, recordSend, releaseMessages, type SendOutcome, sendResult } from "./store";

/**
 * Mail from inside every `npm start` server (docs/mail.md, "Delivery"), as two jobs of the
 * background runner: the dispatcher (lib/background/leased-dispatcher.ts) claims the due messages
 * each second and sends each on its own, so a slow or dead SMTP server holds a slot for at most its
 * timeout and never delays a request or an import; the digest job composes the digests that fell
 * due every half minute (lib/mail/digests.ts). Apart, so that a digest that cannot be composed
 * never holds up an alert. `digest run` uses `sendNow` below.
 */

/** Digests fall due at whole minutes; a server sends them within 2 minutes of their time. */
export const DIGEST_EVERY_MS = 30_000;
const MAX_IN_FLIGHT = 4;
/** A user whose digest failed to compose is tried again after this, doubled on each failure in a row up to DIGEST_RETRY_MAX_MS. */
const DIGEST_RETRY_MS = DIGEST_EVERY_MS;
const DIGEST_RETRY_MAX_MS = 30 * 60_000;

export const MAIL_DISPATCHER = "mail dispatcher";
export const MAIL_DIGESTS = "mail digests";

/** The time limit of each SMTP step under a lease of `leaseMs`: 30 s, or a quarter of a shorter lease. */
export const smtpTimeoutMs = (leaseMs: number) => Math.min(SMTP_TIMEOUT_MS, Math.floor(leaseMs / 4));

interface Sent {
  outcome: SendOutcome;
  /** when the attempt ended, in whole epoch ms: the times are BIGINT columns, and PostgreSQL refuses a fraction */
  endedAt: number;
}

/** Sends one claimed message, counts and logs the outcome (docs/api.md, "Metrics"); the caller records it. */
async function attempt(db: Db, transport: Transport, config: MailConfig, message: ClaimedMessage, retrySeconds: readonly number[]): Promise<Sent> {
  const at = Date.now();
  const started = performance.now();
  let outcome: SendOutcome;
  try {
    outcome = await sendClaimed(db.db, transport, config, message);
  } catch (err) {
    outcome = { delivered: false, permanent: false, error: err instanceof Error ? err.message.slice(0, 200) : String(err) };
  }
  const durationMs = performance.now() - started;
  const result = sendResult(outcome, message.attempt, retrySeconds);
  countMailAttempt(result);
  log.info(
    {
      mail_message: message.id,
      mail_kind: message.kind,
      attempt: message.attempt,
      outcome: result,
      ...(outcome.delivered ? {} : { error: outcome.error }),
      duration_ms: Math.round(durationMs),
    },
    "mail attempt",
  );
  return { outcome, endedAt: at + Math.round(durationMs) };
}

/** `work`'s value, or undefined as soon as `signal` aborts (work goes on unobserved). */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The mail rules the skeleton runs: claim due messages, send each over SMTP, record the outcome. */
export function mailWork(config: MailConfig, retrySeconds: readonly number[] = mailRetrySeconds(), leaseMs = mailLeaseSeconds() * 1000): LeasedWork<ClaimedMessage, Sent> {
  const transport = mailTransport(config, smtpTimeoutMs(leaseMs));
  return {
    name: MAIL_DISPATCHER,
    maxInFlight: MAX_IN_FLIGHT,
    leaseMs,
    claim: (db, { now, leaseUntil, token, limit }) => claimMessages(db.db, db.dialect, { now, leaseUntil, token, limit }),
    release: (db, messages) => releaseMessages(db.db, messages),
    attempt: async (db, message, shutdown) => {
      // SMTP cannot be called back mid-message: at the stop's bound the attempt is left to the
      // lease (the message is sent again later, at least once) and nothing is recorded.
      const sent = await unlessAborted(attempt(db, transport, config, message, retrySeconds), shutdown);
      if (sent === undefined) log.info({ mail_message: message.id, attempt: message.attempt }, "mail attempt cut short by the shutdown");
      return sent;
    },
    record: async (db, message, sent) => {
      await recordSend(db.db, message, sent.outcome, retrySeconds, sent.endedAt);
    },
    close: () => transport.close(),
  };
}

/**
 * Composes the digests that fell due (docs/mail.md, "When a digest is due"), apart from sending.
 * A user whose digest fails to compose is logged once and left out for a while, longer after
 * each failure in a row; every other user's digest goes on.
 */
export function digestJob(url?: string): Job {
  const database = new OwnDatabase({ url, poolMax: 1 });
  const failing = new Map<number, { failures: number; retryAt: number }>();
  return {
    name: MAIL_DIGESTS,
    everyMs: DIGEST_EVERY_MS,
    async run() {
      const db = await database.get();
      const now = Date.now();
      const run = await composeDueDigests(db.db, now, { skip: (userId) => (failing.get(userId)?.retryAt ?? 0) > now });
      if (run.claimed > 0) log.info({ digests_due: run.claimed, digests_stored: run.messages.length }, "digests composed");
      for (const userId of run.composed) {
        if (failing.delete(userId)) log.info({ user_id: userId }, "mail digests: a user's digest composed again");
      }
      for (const { userId, error } of run.failed) {
        const failures = (failing.get(userId)?.failures ?? 0) + 1;
        failing.set(userId, { failures, retryAt: now + Math.min(DIGEST_RETRY_MAX_MS, DIGEST_RETRY_MS * 2 ** (failures - 1)) });
        if (failures === 1) log.error({ user_id: userId, ...errorFields(error) }, "mail digests: a user's digest could not be composed; tried again later, the others go on");
      }
    },
    close: () => database.close(),
    problemOf: (err): Problem | null => (isSqliteBusy(err) ? null : isDatabaseUnavailable(err) ? { key: "database", level: "warn", message: "the database is unavailable" } : { key: "error", level: "error", message: "failed" }),
  };
}

/**
 * Sends these stored messages now, one after the other, and records each outcome (`digest run`):
 * true when every one was accepted by the SMTP server.
 */
export async function sendNow(db: Db, config: MailConfig, ids: readonly number[], retrySeconds: readonly number[] = mailRetrySeconds()): Promise<{ delivered: number; failed: number }> {
  const leaseMs = mailLeaseSeconds() * 1000;
  const transport = mailTransport(config, smtpTimeoutMs(leaseMs));
  const token = crypto.randomUUID();
  let delivered = 0;
  let failed = 0;
  try {
    const now = Date.now();
    const claimed = await claimMessages(db.db, db.dialect, { now, leaseUntil: now + leaseMs * Math.max(1, ids.length), token, limit: ids.length, only: ids });
    for (const message of claimed) {
      const sent = await attempt(db, transport, config, message, retrySeconds);
      await recordSend(db.db, message, sent.outcome, retrySeconds, sent.endedAt);
      if (sent.outcome.delivered) delivered++;
      else failed++;
    }
    // Claimed meanwhile by a running server: it sends them.
  } finally {
    transport.close();
  }
  return { delivered, failed };
}

/** Starts this process's mail jobs once when SMTP_URL is set (instrumentation.ts, production server only). */
export function startMailDispatcher(): void {
  const config = mailConfig();
  if (!config) return;
  startJob(MAIL_DISPATCHER, () => new LeasedDispatcher(mailWork(config)));
  startJob(MAIL_DIGESTS, () => digestJob());
}
