import "server-only";
import { type CompiledQuery, type Kysely, sql } from "kysely";
import type { RecordKind } from "@/lib/domain/fields";
import { type SearchRequest, SORT_KEY_COLUMNS } from "@/lib/schemas/search";
import type { EveryRecord } from "./access-path";
import type { ReadStatement } from "../connection/read";
import { RECORD_JSON_COLUMN, sqlRecordJson } from "../connection/record-json";
import { type Database, RECORD_TABLES } from "../connection/schema";
import { type AccessPath, filtered, type IdRange, idRange, ordered, type Query, walks } from "./selection";
import { statement } from "../connection/sql";

/**
 * The page statement on SQLite. In id order over a scope whose counts say it holds every record
 * (`EveryRecord`), the page is a range of ids. The counts were read in an earlier snapshot, so the
 * range is right only in a snapshot of the same data version (`onlyAt`, decided by the reader
 * thread on the version its batch reads first); in any other the walk runs, so a file imported in
 * between is never half seen. Why not inside the statement: docs/performance.md, "Why the access
 * paths are what they are".
 */
export function sqlitePage(db: Kysely<Database>, kind: RecordKind, request: SearchRequest, shops: readonly string[], path: AccessPath, every: EveryRecord | undefined): ReadStatement {
  const walk = pageStatement(db, kind, request, shops, path);
  if (!every || SORT_KEY_COLUMNS[request.sortKey] !== "id") return walk;
  const ids = idRange({ lo: 1, hi: every.records, n: every.records }, request);
  return ids ? { ...pageStatement(db, kind, request, shops, path, ids), onlyAt: { version: every.version, otherwise: walk } } : walk;
}

/**
 * The page's records, each record's JSON written by SQLite itself (record-json.ts). A walk first
 * finds the page's ids in the sort key's index alone (it holds the scope and the file date,
 * migration 004), skipping `offset` entries without reading a record, then reads just those
 * records: a deferred join.
 */
function pageStatement(db: Kysely<Database>, kind: RecordKind, request: SearchRequest, shops: readonly string[], path: AccessPath, range?: IdRange): ReadStatement {
  const table = RECORD_TABLES[kind];
  const where = filtered(kind, request, shops, path, "sqlite");
  const offset = request.page * request.per_page;
  const page = (query: CompiledQuery): ReadStatement => statement(query, { json: true });
  const columns = (q: Query) => q.select(sql.raw(sqlRecordJson("sqlite", kind)).as(RECORD_JSON_COLUMN));
  if (range) return page(ordered(columns(db.selectFrom(table).where("id", ">=", range.from).where("id", "<=", range.to) as unknown as Query), request).compile());
  if (!walks(path)) return page(ordered(columns(db.selectFrom(table).where(where) as unknown as Query), request).limit(request.per_page).offset(offset).compile());
  const ids = ordered((db.selectFrom(table).where(where) as unknown as Query).select("id"), request).limit(request.per_page).offset(offset);
  return page(ordered(columns((db.selectFrom(table) as unknown as Query).where("id", "in", ids as never)), request).compile());
}
