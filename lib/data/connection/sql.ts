import { type CompiledQuery, type RawBuilder, type SqlBool, sql } from "kysely";
import type { Dialect } from "./dialect";
import type { ReadStatement } from "./read";

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
