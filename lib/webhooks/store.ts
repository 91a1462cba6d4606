import { type Kysely, sql } from "kysely";
import type { Dialect } from "@/lib/data/connection/dialect";
import type { Database } from "@/lib/data/connection/schema";
import { notInList, releaseLeased } from "@/lib/data/connection/sql";

/**
 * The dispatcher's statements (lib/webhooks/dispatcher.ts): claiming due deliveries with a lease,
 * and recording an attempt's outcome. Several instances may run them on one database at once.
 */

export interface ClaimedDelivery {
  id: number;
  eventId: string;
  endpointId: string;
  body: string;
  /** the number of this attempt (1 for the first) */
  attempt: number;
  token: string;
}

interface ClaimRow {
  id: number | string;
  event_id: string;
  endpoint_id: string;
  body: string;
  attempts: number | string;
}

/**
 * Claims up to `limit` due deliveries in one statement: pending, due, not leased, of an endpoint
 * that is not removed, has no delivery leased right now and is not in `busyEndpoints` (this
 * instance's own), the earliest of each endpoint. The claim counts the attempt and leases the
 * delivery until `leaseUntil`; a lease left by a crashed instance expires and the delivery is
 * claimed again. On PostgreSQL `FOR UPDATE SKIP LOCKED` keeps two instances from claiming the
 * same row; on SQLite the statement runs under the one write lock.
 */
export async function claimDue(db: Kysely<Database>, dialect: Dialect, opts: { now: number; leaseUntil: number; token: string; limit: number; busyEndpoints: readonly string[] }): Promise<ClaimedDelivery[]> {
  const { now, leaseUntil, token, limit } = opts;
  // Most polls find nothing due: a read answers that without taking SQLite's write lock.
  const due = await db.selectFrom("webhook_deliveries").select("id").where("state", "=", "pending").where("next_attempt_at", "<=", now).limit(1).executeTakeFirst();
  if (!due) return [];
  const busy = [...opts.busyEndpoints];
  // The earliest claimable delivery of each endpoint that may be sent to now (rn = 1).
  const notBusy = notInList(dialect, sql`endpoint_id`, busy);
  const firstOfEach = sql`select id, next_attempt_at, row_number() over (partition by endpoint_id order by next_attempt_at, id) as rn
    from webhook_deliveries
    where state = 'pending' and next_attempt_at <= ${now} and (claimed_until is null or claimed_until < ${now})
      and ${notBusy}
      and endpoint_id not in (select endpoint_id from webhook_deliveries where state = 'pending' and claimed_until >= ${now})
      and endpoint_id in (select id from webhook_endpoints where removed_at is null)`;
  const query =
    dialect === "postgres"
      ? sql<ClaimRow>`with candidates as (${firstOfEach}), due as (
            select d.id from webhook_deliveries d join candidates c on c.id = d.id
            where c.rn = 1 and d.state = 'pending' and (d.claimed_until is null or d.claimed_until < ${now})
            order by d.next_attempt_at, d.id
            limit ${limit}
            for update of d skip locked
          )
          update webhook_deliveries w set attempts = w.attempts + 1, claimed_until = ${leaseUntil}, claim_token = ${token}
          from due where w.id = due.id
          returning w.id, w.event_id, w.endpoint_id, w.body, w.attempts`
      : sql<ClaimRow>`update webhook_deliveries set attempts = attempts + 1, claimed_until = ${leaseUntil}, claim_token = ${token}
          where id in (select id from (${firstOfEach}) where rn = 1 order by next_attempt_at, id limit ${limit})
          returning id, event_id, endpoint_id, body, attempts`;
  const { rows } = await query.execute(db);
  return rows
    .map((r) => ({ id: Number(r.id), eventId: r.event_id, endpointId: r.endpoint_id, body: r.body, attempt: Number(r.attempts), token }))
    .sort((a, b) => a.id - b.id);
}

/**
 * Gives claimed deliveries back untouched (lib/background/leased-dispatcher.ts): the lease
 * cleared and the attempt the claim counted taken back, so that a claim whose freshness wait
 * failed spends nothing of the retry schedule. Only while the claim is still this one's.
 */
export function releaseClaims(db: Kysely<Database>, deliveries: readonly ClaimedDelivery[]): Promise<void> {
  return releaseLeased(db, "webhook_deliveries", ["pending"], deliveries);
}

export interface AttemptOutcome {
  at: number;
  status: number | null;
  error: string | null;
  durationMs: number;
}

export const isDelivered = (status: number | null) => status !== null && status >= 200 && status < 300;

/** What an attempt's outcome makes of its delivery: accepted, another attempt scheduled, or given up after the last. */
export function attemptResult(status: number | null, attempt: number, retrySeconds: readonly number[]): "delivered" | "retry" | "failed" {
  if (isDelivered(status)) return "delivered";
  return retrySeconds[attempt - 1] === undefined ? "failed" : "retry";
}

/**
 * The deliveries neither delivered nor given up, due now or waiting for a retry (the metrics'
 * webhook_backlog): a count over the partial index of pending deliveries, so it costs what the
 * backlog holds, never what the history holds. The bound on next_attempt_at (every value is an
 * epoch ms) makes that index the planner's choice: without statistics SQLite otherwise counted
 * through the endpoint index, every delivery ever made (48 ms at a million against 0.1 ms).
 */
export async function webhookBacklog(db: Kysely<Database>): Promise<number> {
  // Literal values, not bound ones: SQLite uses a partial index only for terms it can see at prepare time.
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from webhook_deliveries where state = 'pending' and next_attempt_at >= 0`.execute(db);
  const row = rows[0];
  return Number(row.n);
}

/**
 * Records the attempt and the delivery's next state, in one transaction: delivered on a 2xx,
 * else pending again after the schedule's delay for this attempt, or failed after the last.
 * A delivery whose lease was lost meanwhile (claimed again elsewhere) keeps its newer state.
 */
export async function recordAttempt(db: Kysely<Database>, delivery: ClaimedDelivery, outcome: AttemptOutcome, retrySeconds: readonly number[]): Promise<"delivered" | "pending" | "failed"> {
  const delay = retrySeconds[delivery.attempt - 1];
  const result = attemptResult(outcome.status, delivery.attempt, retrySeconds);
  const state = result === "retry" ? "pending" : result;
  const nextAttemptAt = state === "pending" ? outcome.at + outcome.durationMs + delay * 1000 : outcome.at;
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto("webhook_attempts")
      .values({
        delivery_id: delivery.id,
        attempt: delivery.attempt,
        endpoint_id: delivery.endpointId,
        at: outcome.at,
        status: outcome.status,
        error: outcome.error,
        duration_ms: Math.round(outcome.durationMs),
      })
      .onConflict((oc) => oc.doNothing())
      .execute();
    await trx
      .updateTable("webhook_deliveries")
      .set({ state, next_attempt_at: Math.round(nextAttemptAt), claimed_until: null, claim_token: null })
      .where("id", "=", delivery.id)
      .where("claim_token", "=", delivery.token)
      .where("state", "=", "pending")
      .execute();
  });
  return state;
}
