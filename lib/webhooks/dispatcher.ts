import { LeasedDispatcher, type LeasedWork } from "@/lib/background/leased-dispatcher";
import { type Runner, startJob } from "@/lib/background/runner";
import { webhookLeaseSeconds, webhookRetrySeconds } from "@/lib/config";
import type { Db } from "@/lib/data/connection/db";
import { log } from "@/lib/log";
import { countWebhookAttempt } from "@/lib/metrics";
import { decryptEndpointSecret } from "./endpoints";
import { SIGNATURE_HEADER, webhookSignature } from "./signature";
import { type AttemptOutcome, attemptResult, type ClaimedDelivery, claimDue, recordAttempt, releaseClaims } from "./store";

/**
 * Sends the stored webhook events (docs/api.md, "Webhooks") from inside every `npm start` server,
 * on the leased dispatcher (lib/background/leased-dispatcher.ts). Each round claims the due
 * deliveries through the database (store.ts), at most one per endpoint at a time and a bounded
 * number in all, and sends each on its own: a slow or dead endpoint holds one slot for at most the
 * timeout and never delays the others. Every attempt is recorded; an instance that dies
 * mid-attempt leaves a lease that expires, and the delivery is claimed again (at least once).
 */

/** A delivery succeeds on a 2xx answer within this time (docs/api.md, "Webhooks"), or two thirds of a shorter lease. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
const MAX_IN_FLIGHT = 16;

export const WEBHOOK_DISPATCHER = "webhook dispatcher";

/** The time limit of one attempt under a lease of `leaseMs`: it ends, and is recorded, within the lease. */
export const attemptTimeoutMs = (leaseMs: number) => Math.min(ATTEMPT_TIMEOUT_MS, Math.floor((leaseMs * 2) / 3));

/** The webhook rules the skeleton runs: claim one delivery per endpoint, send it signed, record the attempt. */
export function webhookWork(retrySeconds: readonly number[] = webhookRetrySeconds(), leaseMs = webhookLeaseSeconds() * 1000): LeasedWork<ClaimedDelivery, AttemptOutcome> {
  const timeoutMs = attemptTimeoutMs(leaseMs);
  return {
    name: WEBHOOK_DISPATCHER,
    maxInFlight: MAX_IN_FLIGHT,
    leaseMs,
    claim: (db, { now, leaseUntil, token, limit, busy }) => claimDue(db.db, db.dialect, { now, leaseUntil, token, limit, busyEndpoints: [...new Set(busy.map((d) => d.endpointId))] }),
    release: (db, deliveries) => releaseClaims(db.db, deliveries),
    attempt: (db, delivery, shutdown) => attempt(db, delivery, shutdown, timeoutMs, retrySeconds),
    record: async (db, delivery, outcome) => {
      await recordAttempt(db.db, delivery, outcome, retrySeconds);
    },
  };
}

async function attempt(db: Db, delivery: ClaimedDelivery, shutdown: AbortSignal, timeoutMs: number, retrySeconds: readonly number[]): Promise<AttemptOutcome | undefined> {
  const at = Date.now();
  const started = performance.now();
  let status: number | null = null;
  let error: string | null = null;
  try {
    const endpoint = await db.db.selectFrom("webhook_endpoints").select(["id", "url", "secret_enc"]).where("id", "=", delivery.endpointId).executeTakeFirstOrThrow();
    const secret = decryptEndpointSecret(endpoint);
    const res = await fetch(endpoint.url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "User-Agent": "dispute-review-webhooks/1",
        [SIGNATURE_HEADER]: webhookSignature(secret, delivery.body, Math.floor(Date.now() / 1000)),
      },
      body: delivery.body,
      redirect: "manual",
      signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), shutdown]),
    });
    status = res.status;
    // The status is the answer; the receiver's body is not read.
    await res.body?.cancel().catch(() => {});
  } catch (err) {
    if (shutdown.aborted) {
      // Cut short by the shutdown: the lease expires and the delivery is tried again.
      log.info({ webhook_endpoint: delivery.endpointId, event_id: delivery.eventId, attempt: delivery.attempt }, "webhook attempt cut short by the shutdown");
      return undefined;
    }
    error = describeFailure(err, timeoutMs);
  }
  const durationMs = performance.now() - started;
  // Counted and logged once per attempt, as it ends: delivered, retry (another attempt is
  // scheduled) or failed (that was the last) - docs/api.md, "Metrics".
  const result = attemptResult(status, delivery.attempt, retrySeconds);
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
  return { at, status, error, durationMs };
}

/** The dispatcher as a job of the background runner, for `url`'s database (default DATABASE_URL). */
export const webhookDispatcher = (url?: string) => new LeasedDispatcher(webhookWork(), url);

/** Why an attempt got no answer, without the URL's or the body's content. */
function describeFailure(err: unknown, timeoutMs: number): string {
  if (err instanceof DOMException && (err.name === "TimeoutError" || err.name === "AbortError")) return `no answer within ${timeoutMs / 1000} s`;
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === "string") return cause.code;
  if (typeof cause?.message === "string") return cause.message.slice(0, 200);
  return (err instanceof Error ? err.message : String(err)).slice(0, 200);
}

/** Starts this process's dispatcher once (instrumentation.ts, in the production server only). */
export function startWebhookDispatcher(): Runner {
  return startJob(WEBHOOK_DISPATCHER, () => webhookDispatcher());
}
