import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Dialect } from "../connection/dialect";

/**
 * The column types and the index statement the migrations share. Frozen like the migrations
 * themselves: a change here would change what an old migration creates (a new need, a new helper).
 */
export function columnTypes(dialect: Dialect): { text: RawBuilder<unknown>; bigint: RawBuilder<unknown>; serial: RawBuilder<unknown>; nullsFirst: string } {
  const pg = dialect === "postgres";
  return {
    // Strings compare bytewise everywhere: SQLite's BINARY collation does, and PostgreSQL's text is COLLATE "C".
    text: pg ? sql`text collate "C"` : sql`text`,
    // Amounts are BIGINT minor units.
    bigint: pg ? sql`bigint` : sql`integer`,
    serial: pg ? sql`bigserial` : sql`integer`,
    // NULL is the smallest sort value (docs/api.md, "Selection and order"); SQLite already sorts it first ascending.
    nullsFirst: pg ? " nulls first" : "",
  };
}

export async function index(db: Kysely<unknown>, name: string, table: string, columns: string): Promise<void> {
  await sql`create index ${sql.id(name)} on ${sql.id(table)} (${sql.raw(columns)})`.execute(db);
}

/** SQLite's state database (attached as "state", lib/data/connection/db.ts): nonces and sessions (003). */
export const STATE_SESSIONS_003 = [
  sql`create table if not exists state.used_nonces (shop_code text not null, nonce text not null, used_at integer not null, primary key (shop_code, nonce))`,
  sql`create index if not exists state.ix_used_nonces_used_at on used_nonces (used_at)`,
  sql`create table if not exists state.sessions (token_hash text primary key, user_id integer not null, created_at integer not null, expires_at integer not null)`,
  sql`create index if not exists state.ix_sessions_expires on sessions (expires_at)`,
];

/** SQLite's state database: the throttles (006). */
export const STATE_THROTTLES_006 = [
  sql`create table if not exists state.login_throttle (key text primary key, attempts integer not null, window_start integer not null)`,
  sql`create table if not exists state.rate_buckets (credential text primary key, tokens real not null, updated_ms integer not null, taken integer not null)`,
];
