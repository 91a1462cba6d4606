import { type CompiledQuery, type Kysely, type RawBuilder, type SqlBool, sql } from "kysely";
import type { Dialect } from "./dialect";
import type { ReadStatement } from "./read";
import type { Database } from "./schema";

/**
 * SQL shared by the data module's queries. A list is always ONE bound value: an array on
 * PostgreSQL, a JSON array read by json_each on SQLite. 200 shop codes as 200 parameters cost more
 * to build, pass and parse than the query, and the statement's text stays the same for any length
 * (memos are keyed by it, lib/data/connection/read.ts).
 */

/** The type of a list's elements on PostgreSQL (SQLite's json_each needs none). */
export type ListType = "text" | "bigint";

/** `column` is one of `values`. */
export function inList(dialect: Dialect, column: RawBuilder<unknown>, values: readonly (string | number)[], type: ListType = "text"): RawBuilder<SqlBool> {
  return dialect === "postgres"
    ? sql<SqlBool>`${column} = any(${[...values]}::${sql.raw(type)}[])`
    : sql<SqlBool>`${column} in (select value from json_each(${JSON.stringify(values)}))`;
}

/** `column` is none of `values`. */
export function notInList(dialect: Dialect, column: RawBuilder<unknown>, values: readonly (string | number)[], type: ListType = "text"): RawBuilder<SqlBool> {
  return dialect === "postgres"
    ? sql<SqlBool>`${column} <> all(${[...values]}::${sql.raw(type)}[])`
    : sql<SqlBool>`${column} not in (select value from json_each(${JSON.stringify(values)}))`;
}

/** A list of text values as a set of rows with the one column `code` (to join or to sum over). */
export function listRows(dialect: Dialect, values: readonly string[]): RawBuilder<unknown> {
  return dialect === "postgres" ? sql`(select unnest(${[...values]}::text[]) as code)` : sql`(select value as code from json_each(${JSON.stringify(values)}))`;
}

/** A compiled query as the reader threads take it. */
export const statement = (query: CompiledQuery, opts: { json?: true; memo?: true } = {}): ReadStatement => ({ sql: query.sql, parameters: query.parameters, ...opts });

/**
 * Gives leased rows back untouched (the webhook deliveries' and the mail messages' claims,
 * lib/background/leased-dispatcher.ts): the lease cleared and the attempt the claim counted taken
 * back, only while the claim is still this one's (its token) and the row in one of `states`. One
 * statement per claim token (a claim round has one).
 */
export async function releaseLeased(
  db: Kysely<Database>,
  table: "webhook_deliveries" | "mail_messages",
  states: readonly string[],
  claimed: readonly { id: number; token: string }[],
): Promise<void> {
  for (const token of new Set(claimed.map((c) => c.token))) {
    const ids = claimed.filter((c) => c.token === token).map((c) => c.id);
    await sql`update ${sql.table(table)} set attempts = attempts - 1, claimed_until = null, claim_token = null
      where claim_token = ${token} and state in (${sql.join(states)}) and id in (${sql.join(ids)})`.execute(db);
  }
}
