import crypto from "node:crypto";
import { webhookRetrySeconds } from "@/lib/config";
import { type Db, isDatabaseUnavailable, openDatabase } from "@/lib/data/connection/db";
import { freshnessWaitMs, replicasCaughtUp } from "@/lib/data/connection/replicas";
import { errorFields, log } from "@/lib/log";
import { countWebhookAttempt } from "@/lib/metrics";
import { decryptEndpointSecret } from "./endpoints";
import { SIGNATURE_HEADER, webhookSignature } from "./signature";
import { type AttemptOutcome, attemptResult, type ClaimedDelivery, claimDue, recordAttempt } from "./store";

/**
 * Sends the stored webhook events (docs/api.md, "Webhooks") from inside every `npm start` server. Each poll
 * claims the due deliveries through the database (store.ts), at most one per endpoint at a time
 * and a bounded number in all, and sends each on its own: a slow or dead endpoint holds one slot
 * for at most the timeout and never delays the others. Every attempt is recorded; an instance that
 * dies mid-attempt leaves a lease that expires, and the delivery is claimed again (at least once).
 */

/** A delivery succeeds on a 2xx answer within this time (docs/api.md, "Webhooks"). */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** A claim outlives the attempt's timeout by this much before another instance may take it over. */
const LEASE_MARGIN_MS = 5_000;
const POLL_MS = 1_000;
const MAX_IN_FLIGHT = 16;
const POOL_MAX = 2;

interface Sent {
  delivery: ClaimedDelivery;
  outcome: AttemptOutcome;
}

export class WebhookDispatcher {
  private db: Db | undefined;
  private opening: Promise<Db> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private ticking = false;
  private readonly inFlight = new Map<number, { endpointId: string; done: Promise<void>; abort: AbortController }>();
  /** outcomes not yet written (the database was busy or away): written before anything is claimed */
  private readonly unrecorded: Sent[] = [];
  private readonly token = crypto.randomUUID();
  private lastProblem = "";

  constructor(
    private readonly retrySeconds: readonly number[] = webhookRetrySeconds(),
    private readonly url?: string,
  ) {}

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
    // A small pool of its own on PostgreSQL: the server's pool stays the requests'.
    this.opening ??= openDatabase(this.url, { poolMax: POOL_MAX }).then(
      (db) => {
        // SQLite: an import holds the write lock for a whole file; a claim then fails at once and
        // is tried at the next poll, instead of blocking the server's event loop while it waits.
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
      const room = MAX_IN_FLIGHT - this.inFlight.size;
      if (room > 0 && !this.stopping) {
        const now = Date.now();
        const busy = [...new Set([...this.inFlight.values()].map((f) => f.endpointId).concat(this.unrecorded.map((s) => s.delivery.endpointId)))];
        const claimed = await claimDue(db.db, db.dialect, { now, leaseUntil: now + freshnessWaitMs() + ATTEMPT_TIMEOUT_MS + LEASE_MARGIN_MS, token: this.token, limit: room, busyEndpoints: busy });
        // With read replicas, an event goes out once every healthy one holds its import (docs/replicas.md, "Freshness").
        if (claimed.length > 0) await replicasCaughtUp();
        for (const delivery of claimed) this.launch(db, delivery);
      }
      this.noteProblem("");
    } catch (err) {
      // SQLite: an import holds the write lock; its events come once it commits.
      if ((err as { code?: unknown }).code === "SQLITE_BUSY") log.debug("webhook dispatcher: the database is locked by an import; trying again");
      else this.noteProblem(isDatabaseUnavailable(err) ? "database unavailable" : "error", err);
    } finally {
      this.ticking = false;
      this.schedule(POLL_MS);
    }
  }

  /** One log line when the dispatcher starts failing and one when it recovers, not one a second. */
  private noteProblem(problem: string, err?: unknown) {
    if (problem === this.lastProblem) return;
    if (problem === "") log.info("webhook dispatcher running again");
    else if (problem === "database unavailable") log.warn(errorFields(err), "webhook dispatcher: the database is unavailable; retrying every second");
    else log.error(errorFields(err), "webhook dispatcher failed; retrying every second");
    this.lastProblem = problem;
  }

  private launch(db: Db, delivery: ClaimedDelivery) {
    const abort = new AbortController();
    const done = this.attempt(db, delivery, abort.signal).finally(() => this.inFlight.delete(delivery.id));
    this.inFlight.set(delivery.id, { endpointId: delivery.endpointId, done, abort });
  }

  private async attempt(db: Db, delivery: ClaimedDelivery, shutdown: AbortSignal) {
    const at = Date.now();
    const started = performance.now();
    let status: number | null = null;
    let error: string | null = null;
    try {
      const endpoint = await db.db.selectFrom("webhook_endpoints").select(["id", "url", "secret_enc"]).where("id", "=", delivery.endpointId).executeTakeFirstOrThrow();
      const secret = decryptEndpointSecret(endpoint);
      const timeout = AbortSignal.timeout(ATTEMPT_TIMEOUT_MS);
      const res = await fetch(endpoint.url, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "User-Agent": "dispute-review-webhooks/1",
          [SIGNATURE_HEADER]: webhookSignature(secret, delivery.body, Math.floor(Date.now() / 1000)),
        },
        body: delivery.body,
        redirect: "manual",
        signal: AbortSignal.any([timeout, shutdown]),
      });
      status = res.status;
      // The status is the answer; the receiver's body is not read.
      await res.body?.cancel().catch(() => {});
    } catch (err) {
      if (shutdown.aborted) {
        // Cut short by the shutdown: the lease expires and the delivery is tried again.
        log.info({ webhook_endpoint: delivery.endpointId, event_id: delivery.eventId, attempt: delivery.attempt }, "webhook attempt cut short by the shutdown");
        return;
      }
      error = describeFailure(err);
    }
    const durationMs = performance.now() - started;
    const sent: Sent = { delivery, outcome: { at, status, error, durationMs } };
    // Counted and logged once per attempt, as it ends: delivered, retry (another attempt is
    // scheduled) or failed (that was the last) - docs/api.md, "Metrics".
    const result = attemptResult(status, delivery.attempt, this.retrySeconds);
    countWebhookAttempt(result);
    log.info(
      {
        webhook_endpoint: delivery.endpointId,
        event_id: delivery.eventId,
        attempt: delivery.attempt,
        status,
        ...(error ? { error } : {}),
        duration_ms: Math.round(durationMs),
        outcome: result,
      },
      "webhook attempt",
    );
    try {
      await recordAttempt(db.db, delivery, sent.outcome, this.retrySeconds);
    } catch {
      // Written at the next poll; until then the endpoint counts as busy here.
      this.unrecorded.push(sent);
    }
  }

  private async flushUnrecorded(db: Db) {
    while (this.unrecorded.length > 0) {
      const next = this.unrecorded[0];
      await recordAttempt(db.db, next.delivery, next.outcome, this.retrySeconds);
      this.unrecorded.shift();
    }
  }

  /**
   * Claims nothing more, waits for the attempts in flight (at most `timeoutMs`, then cuts them
   * short: their leases expire and they are sent again later), writes what it can and closes its
   * connection.
   */
  async stop(timeoutMs: number): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    const drained = (async () => {
      // A claim under way may still launch what it claimed: wait for it, then for the attempts.
      while (this.ticking) await sleep(10);
      await Promise.all([...this.inFlight.values()].map((f) => f.done));
    })();
    if (!(await within(drained, timeoutMs))) {
      for (const f of this.inFlight.values()) f.abort.abort();
      await within(drained, 1_000);
    }
    // Never holds the shutdown up for long, even when the database hangs.
    await within(this.close(), 2_000);
  }

  private async close() {
    const db = this.db ?? (await this.opening?.catch(() => undefined));
    if (!db) return;
    try {
      await this.flushUnrecorded(db);
    } catch (err) {
      log.warn({ unrecorded: this.unrecorded.length, ...errorFields(err) }, "webhook attempts not recorded at shutdown; they will be sent again");
    }
    await db.close().catch(() => {});
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** True when `work` settled within `ms`. */
const within = (work: Promise<unknown>, ms: number) => Promise.race([work.then(() => true), sleep(ms).then(() => false)]);

/** Why an attempt got no answer, without the URL's or the body's content. */
function describeFailure(err: unknown): string {
  if (err instanceof DOMException && (err.name === "TimeoutError" || err.name === "AbortError")) return `no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`;
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === "string") return cause.code;
  if (typeof cause?.message === "string") return cause.message.slice(0, 200);
  return (err instanceof Error ? err.message : String(err)).slice(0, 200);
}

const shared = globalThis as unknown as { __drWebhookDispatcher?: WebhookDispatcher };

/** Starts this process's dispatcher once (instrumentation.ts, in the production server only). */
export function startWebhookDispatcher(): WebhookDispatcher {
  if (!shared.__drWebhookDispatcher) {
    shared.__drWebhookDispatcher = new WebhookDispatcher();
    shared.__drWebhookDispatcher.start();
  }
  return shared.__drWebhookDispatcher;
}
