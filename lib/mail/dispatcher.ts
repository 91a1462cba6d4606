import crypto from "node:crypto";
import { type MailConfig, mailConfig, mailRetrySeconds } from "@/lib/config";
import { type Db, isDatabaseUnavailable, openDatabase } from "@/lib/data/connection/db";
import { freshnessWaitMs, replicasCaughtUp } from "@/lib/data/connection/replicas";
import { errorFields, log } from "@/lib/log";
import { countMailAttempt } from "@/lib/metrics";
import { composeDueDigests } from "./digests";
import { mailTransport, SMTP_TIMEOUT_MS, sendClaimed, type Transport } from "./send";
import { type ClaimedMessage, claimMessages, recordSend, type SendOutcome, sendResult } from "./store";

/**
 * Mail from inside every `npm start` server (docs/mail.md, "Delivery"): each poll claims the due
 * messages through the database and sends each on its own, so a slow or dead SMTP server holds a
 * slot for at most its timeout and never delays a request or an import; every half minute it
 * composes the digests that fell due (lib/mail/digests.ts). `digest run` uses `sendNow` below.
 */

/** A claim outlives one attempt (connection, greeting and data, each up to the timeout) by this much. */
const LEASE_MS = 4 * SMTP_TIMEOUT_MS;
const POLL_MS = 1_000;
/** Digests fall due at whole minutes; a server sends them within 2 minutes of their time. */
export const DIGEST_EVERY_MS = 30_000;
const MAX_IN_FLIGHT = 4;
const POOL_MAX = 2;

/** Polls that try to record an attempt's outcome before giving it up (flushUnrecorded). */
const MAX_RECORD_TRIES = 30;

interface Sent {
  /** failed tries to record it */
  tries?: number;
  message: ClaimedMessage;
  outcome: SendOutcome;
  at: number;
  durationMs: number;
}

/** When an attempt ended, in whole epoch ms: the times are BIGINT columns, and PostgreSQL refuses a fraction. */
const endedAt = (sent: Sent) => sent.at + Math.round(sent.durationMs);

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
  return { message, outcome, at, durationMs };
}

export class MailDispatcher {
  private db: Db | undefined;
  private opening: Promise<Db> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private ticking = false;
  private lastDigestRun = 0;
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly unrecorded: Sent[] = [];
  private readonly token = crypto.randomUUID();
  private readonly transport: Transport;
  private lastProblem = "";

  constructor(
    private readonly config: MailConfig,
    private readonly retrySeconds: readonly number[] = mailRetrySeconds(),
  ) {
    this.transport = mailTransport(config);
  }

  start(): void {
    this.schedule(0);
  }

  private schedule(ms: number) {
    if (this.stopping) return;
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  private async database(): Promise<Db> {
    if (this.db) return this.db;
    this.opening ??= openDatabase(undefined, { poolMax: POOL_MAX }).then(
      (db) => {
        // SQLite: an import holds the write lock for a whole file; a claim then fails at once and
        // is tried at the next poll instead of blocking the server's event loop.
        db.sqlite?.pragma("busy_timeout = 0");
        this.db = db;
        return db;
      },
      (err: unknown) => {
        this.opening = undefined;
        throw err;
      },
    );
    return this.opening;
  }

  private async tick() {
    if (this.ticking || this.stopping) return;
    this.ticking = true;
    try {
      const db = await this.database();
      await this.flushUnrecorded(db);
      const now = Date.now();
      if (now - this.lastDigestRun >= DIGEST_EVERY_MS) {
        const run = await composeDueDigests(db.db, now);
        this.lastDigestRun = now;
        if (run.claimed > 0) log.info({ digests_due: run.claimed, digests_stored: run.messages.length }, "digests composed");
      }
      const room = MAX_IN_FLIGHT - this.inFlight.size;
      if (room > 0 && !this.stopping) {
        const claimed = await claimMessages(db.db, db.dialect, { now, leaseUntil: now + freshnessWaitMs() + LEASE_MS, token: this.token, limit: room });
        // With read replicas, mail about an import goes out once every healthy one holds it (docs/replicas.md, "Freshness").
        if (claimed.length > 0) await replicasCaughtUp();
        for (const message of claimed) this.launch(db, message);
      }
      this.noteProblem("");
    } catch (err) {
      if ((err as { code?: unknown }).code === "SQLITE_BUSY") log.debug("mail dispatcher: the database is locked by an import; trying again");
      else this.noteProblem(isDatabaseUnavailable(err) ? "database unavailable" : "error", err);
    } finally {
      this.ticking = false;
      this.schedule(POLL_MS);
    }
  }

  private noteProblem(problem: string, err?: unknown) {
    if (problem === this.lastProblem) return;
    if (problem === "") log.info("mail dispatcher running again");
    else if (problem === "database unavailable") log.warn(errorFields(err), "mail dispatcher: the database is unavailable; retrying every second");
    else log.error(errorFields(err), "mail dispatcher failed; retrying every second");
    this.lastProblem = problem;
  }

  private launch(db: Db, message: ClaimedMessage) {
    const done = attempt(db, this.transport, this.config, message, this.retrySeconds)
      .then(async (sent) => {
        try {
          await recordSend(db.db, sent.message, sent.outcome, this.retrySeconds, endedAt(sent));
        } catch {
          // Written at the next poll.
          this.unrecorded.push(sent);
        }
      })
      .finally(() => this.inFlight.delete(message.id));
    this.inFlight.set(message.id, done);
  }

  /**
   * Records the outcomes a poll could not. One that still cannot be recorded after
   * MAX_RECORD_TRIES polls is given up with a warning, so that it never stops the sending of
   * everything else: its lease then expires and the message is sent again (at-least-once).
   */
  private async flushUnrecorded(db: Db) {
    while (this.unrecorded.length > 0) {
      const next = this.unrecorded[0];
      try {
        await recordSend(db.db, next.message, next.outcome, this.retrySeconds, endedAt(next));
      } catch (err) {
        next.tries = (next.tries ?? 0) + 1;
        if (next.tries < MAX_RECORD_TRIES) throw err;
        log.warn({ mail_message: next.message.id, ...errorFields(err) }, "mail attempt not recorded; the message is sent again once its lease expires");
      }
      this.unrecorded.shift();
    }
  }

  /** Claims nothing more, waits for the messages in flight (at most `timeoutMs`), records them and closes. */
  async stop(timeoutMs: number): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    const drained = (async () => {
      while (this.ticking) await sleep(10);
      await Promise.all(this.inFlight.values());
    })();
    await within(drained, timeoutMs);
    this.transport.close();
    await within(this.close(), 2_000);
  }

  private async close() {
    const db = this.db ?? (await this.opening?.catch(() => undefined));
    if (!db) return;
    try {
      await this.flushUnrecorded(db);
    } catch (err) {
      log.warn({ unrecorded: this.unrecorded.length, ...errorFields(err) }, "mail attempts not recorded at shutdown; they will be sent again");
    }
    await db.close().catch(() => {});
  }
}

/**
 * Sends these stored messages now, one after the other, and records each outcome (`digest run`):
 * true when every one was accepted by the SMTP server.
 */
export async function sendNow(db: Db, config: MailConfig, ids: readonly number[], retrySeconds: readonly number[] = mailRetrySeconds()): Promise<{ delivered: number; failed: number }> {
  const transport = mailTransport(config);
  const token = crypto.randomUUID();
  let delivered = 0;
  let failed = 0;
  try {
    const now = Date.now();
    const claimed = await claimMessages(db.db, db.dialect, { now, leaseUntil: now + LEASE_MS * Math.max(1, ids.length), token, limit: ids.length, only: ids });
    for (const message of claimed) {
      const sent = await attempt(db, transport, config, message, retrySeconds);
      await recordSend(db.db, sent.message, sent.outcome, retrySeconds, endedAt(sent));
      if (sent.outcome.delivered) delivered++;
      else failed++;
    }
    // Claimed meanwhile by a running server: it sends them.
  } finally {
    transport.close();
  }
  return { delivered, failed };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
const within = (work: Promise<unknown>, ms: number) => Promise.race([work.then(() => true), sleep(ms).then(() => false)]);

const shared = globalThis as unknown as { __drMailDispatcher?: MailDispatcher };

/** Starts this process's dispatcher once when SMTP_URL is set (instrumentation.ts, production server only). */
export function startMailDispatcher(): MailDispatcher | undefined {
  const config = mailConfig();
  if (!config) return undefined;
  if (!shared.__drMailDispatcher) {
    shared.__drMailDispatcher = new MailDispatcher(config);
    shared.__drMailDispatcher.start();
  }
  return shared.__drMailDispatcher;
}
