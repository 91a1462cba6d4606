import { type Kysely, sql } from "kysely";
import type { Dialect } from "@/lib/data/connection/dialect";
import type { Database } from "@/lib/data/connection/schema";
import { releaseLeased } from "@/lib/data/connection/sql";
import type { MailKind, MailState } from "@/lib/schemas/mail-settings";
import type { MessageFacts } from "./facts";

/**
 * The stored messages (docs/mail.md, "Delivery"): written before they are sent, claimed with a
 * lease so that one of several instances sends each, and their outcome recorded. The same shape
 * as the webhook deliveries (lib/webhooks/store.ts), one message per row.
 */

export async function storeMessage(trx: Kysely<Database>, userId: number, facts: MessageFacts, now = Date.now()): Promise<number> {
  const row = await trx
    .insertInto("mail_messages")
    .values({
      user_id: userId,
      kind: facts.kind satisfies MailKind,
      facts: JSON.stringify(facts),
      created_at: now,
      state: "pending" satisfies MailState,
      attempts: 0,
      next_attempt_at: now,
      claimed_until: null,
      claim_token: null,
      last_error: null,
      sent_at: null,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export interface ClaimedMessage {
  id: number;
  userId: number;
  kind: MailKind;
  facts: MessageFacts;
  createdAt: number;
  /** the number of this attempt (1 for the first) */
  attempt: number;
  token: string;
}

interface ClaimRow {
  id: number | string;
  user_id: number | string;
  kind: string;
  facts: string;
  created_at: number | string;
  attempts: number | string;
}

/**
 * Claims up to `limit` due messages in one statement (`only`: just these ids, for `digest run`):
 * pending or waiting to retry, due, not leased. The claim counts the attempt and leases the
 * message until `leaseUntil`; a lease left by a crashed instance expires and the message is
 * claimed again. PostgreSQL: `FOR UPDATE SKIP LOCKED`; SQLite: the one write lock.
 */
export async function claimMessages(db: Kysely<Database>, dialect: Dialect, opts: { now: number; leaseUntil: number; token: string; limit: number; only?: readonly number[] }): Promise<ClaimedMessage[]> {
  const { now, leaseUntil, token, limit, only } = opts;
  if (only && only.length === 0) return [];
  // Most polls find nothing due: a read answers that without taking SQLite's write lock.
  let probe = db.selectFrom("mail_messages").select("id").where("state", "in", ["pending", "retry"]).where("next_attempt_at", "<=", now);
  if (only) probe = probe.where("id", "in", [...only]);
  if (!(await probe.limit(1).executeTakeFirst())) return [];
  const onlyThese = only ? sql`and id in (${sql.join(only.map((id) => sql`${id}`))})` : sql``;
  const due = sql`select id from mail_messages
    where state in ('pending', 'retry') and next_attempt_at <= ${now} and (claimed_until is null or claimed_until < ${now}) ${onlyThese}
    order by next_attempt_at, id limit ${limit}`;
  const query =
    dialect === "postgres"
      ? sql<ClaimRow>`with due as (${due} for update skip locked)
          update mail_messages m set attempts = m.attempts + 1, claimed_until = ${leaseUntil}, claim_token = ${token}
          from due where m.id = due.id
          returning m.id, m.user_id, m.kind, m.facts, m.created_at, m.attempts`
      : sql<ClaimRow>`update mail_messages set attempts = attempts + 1, claimed_until = ${leaseUntil}, claim_token = ${token}
          where id in (${due})
          returning id, user_id, kind, facts, created_at, attempts`;
  const { rows } = await query.execute(db);
  return rows
    .map((r) => ({
      id: Number(r.id),
      userId: Number(r.user_id),
      kind: r.kind as MailKind,
      facts: JSON.parse(r.facts) as MessageFacts,
      createdAt: Number(r.created_at),
      attempt: Number(r.attempts),
      token,
    }))
    .sort((a, b) => a.id - b.id);
}

/**
 * Gives claimed messages back untouched (lib/background/leased-dispatcher.ts): the lease cleared
 * and the attempt the claim counted taken back. Only while the claim is still this one's.
 */
export function releaseMessages(db: Kysely<Database>, messages: readonly ClaimedMessage[]): Promise<void> {
  return releaseLeased(db, "mail_messages", ["pending", "retry"], messages);
}

export type SendOutcome = { delivered: true } | { delivered: false; permanent: boolean; error: string };

/** What an attempt's outcome makes of its message: delivered, retry after the schedule's delay, or failed (permanent, or after the last). */
export function sendResult(outcome: SendOutcome, attempt: number, retrySeconds: readonly number[]): "delivered" | "retry" | "failed" {
  if (outcome.delivered) return "delivered";
  return outcome.permanent || retrySeconds[attempt - 1] === undefined ? "failed" : "retry";
}

/**
 * The messages neither delivered nor given up, due now or waiting for a retry (the metrics'
 * mail_backlog): a count over the partial index of pending and retry messages.
 */
export async function mailBacklog(db: Kysely<Database>): Promise<number> {
  // Literal values, not bound ones: SQLite uses a partial index only for terms it can see at prepare time.
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from mail_messages where state in ('pending', 'retry') and next_attempt_at >= 0`.execute(db);
  const row = rows[0];
  return Number(row.n);
}

/**
 * Records an attempt: delivered; or, after a temporary failure, retry after the schedule's delay
 * for this attempt (failed after the last); failed at once after a permanent one. A message whose
 * lease was lost meanwhile, or that was turned off, keeps its newer state.
 */
export async function recordSend(db: Kysely<Database>, message: ClaimedMessage, outcome: SendOutcome, retrySeconds: readonly number[], at = Date.now()): Promise<MailState> {
  const delay = retrySeconds[message.attempt - 1];
  const state: MailState = sendResult(outcome, message.attempt, retrySeconds);
  await db
    .updateTable("mail_messages")
    .set({
      state,
      next_attempt_at: state === "retry" ? at + delay * 1000 : at,
      claimed_until: null,
      claim_token: null,
      last_error: outcome.delivered ? null : outcome.error,
      sent_at: outcome.delivered ? at : null,
    })
    .where("id", "=", message.id)
    .where("claim_token", "=", message.token)
    .where("state", "in", ["pending", "retry"])
    .execute();
  return state;
}

export interface MessageSummary {
  id: number;
  email: string;
  kind: MailKind;
  state: MailState;
  attempts: number;
  createdAt: number;
  sentAt: number | null;
  lastError: string | null;
  subjectFacts: MessageFacts;
}

/** Every message, newest first (`admin mail list`). */
export async function listMessages(db: Kysely<Database>, limit = 1000): Promise<MessageSummary[]> {
  const rows = await db
    .selectFrom("mail_messages")
    .innerJoin("users", "users.id", "mail_messages.user_id")
    .select(["mail_messages.id", "users.email", "mail_messages.kind", "mail_messages.state", "mail_messages.attempts", "mail_messages.created_at", "mail_messages.sent_at", "mail_messages.last_error", "mail_messages.facts"])
    .orderBy("mail_messages.id", "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    email: r.email,
    kind: r.kind as MailKind,
    state: r.state as MailState,
    attempts: Number(r.attempts),
    createdAt: Number(r.created_at),
    sentAt: r.sent_at === null ? null : Number(r.sent_at),
    lastError: r.last_error,
    subjectFacts: JSON.parse(r.facts) as MessageFacts,
  }));
}
