import "server-only";
import type { Expression, ExpressionBuilder, SqlBool } from "kysely";
import type { RecordKind } from "@/lib/domain/fields";
import { type SearchRequest, SORT_KEY_COLUMNS } from "@/lib/schemas/search";
import { accessPath } from "./access-path";
import { getDb } from "../connection/db";
import { scopedPage } from "./pages-postgres";
import { sqlitePage } from "./pages-sqlite";
import { VERSION_STATEMENT, versioned } from "../connection/read";
import { type Database, RECORD_TABLES, type RecordTable } from "../connection/schema";
import { countOf, countQuery, filtered, ordered, type Query, type RecordRow, type Selection, type SortColumn, visibleShops } from "./selection";
import { statement } from "../connection/sql";

/**
 * The searches (docs/api.md, "Selection and order"): a page of records with the totals, and every
 * record of a selection for the export, always inside the caller's scope. The page statements are
 * each backend's own (pages-sqlite.ts, pages-postgres.ts); SQLite's access path, access-path.ts.
 */

export interface SearchResult {
  /** the page's records as a JSON array (lib/data/connection/record-json.ts), as text or UTF-8 */
  content: string | Uint8Array;
  totalElements: number;
  totalPages: number;
}

export async function searchRecords(kind: RecordKind, request: SearchRequest, access: readonly string[]): Promise<SearchResult> {
  const handle = await getDb();
  const { db, dialect, read } = handle;
  const shops = visibleShops(request, access);
  const count = countQuery(db, dialect, kind, request, shops);
  const { path, matched, every } = dialect === "sqlite" ? await accessPath(read, db, kind, request, shops, count) : { path: "planner" as const, matched: undefined, every: undefined };
  // A page past the end is empty, with the totals (docs/api.md, "Selection and order"): nothing to look for.
  if (matched !== undefined && request.page * request.per_page >= matched) {
    return { content: "[]", totalElements: matched, totalPages: Math.ceil(matched / request.per_page) };
  }
  const { page, remembering } = dialect === "sqlite" ? { page: sqlitePage(db, kind, request, shops, path, every), remembering: [] } : scopedPage(handle, kind, request, shops);
  const [, counted, content] = await read([VERSION_STATEMENT, versioned(dialect, count), page, ...remembering]);
  const totalElements = countOf(counted);
  return {
    content: content as string | Uint8Array,
    totalElements,
    totalPages: Math.ceil(totalElements / request.per_page),
  };
}

/**
 * Every record of a selection in its sort order, in batches, by keyset (sort value, id) rather
 * than OFFSET so that a large export costs the same per batch from the first to the last.
 */
export async function* iterateRecords(
  kind: RecordKind,
  selection: Selection,
  access: readonly string[],
  batchSize = 1000,
): AsyncGenerator<RecordRow[]> {
  const { db, dialect, read } = await getDb();
  const shops = visibleShops(selection, access);
  const column = SORT_KEY_COLUMNS[selection.sortKey];
  const desc = selection.sortOrder === "desc";
  const first = { ...selection, page: 0, per_page: batchSize };
  const { path } = dialect === "sqlite" ? await accessPath(read, db, kind, first, shops, countQuery(db, dialect, kind, selection, shops)) : { path: "planner" as const };
  let last: { value: unknown; id: number } | undefined;
  for (;;) {
    let q = db.selectFrom(RECORD_TABLES[kind]).where(filtered(kind, selection, shops, path, dialect)) as unknown as Query;
    if (last) {
      const after = last;
      q = q.where((eb) => afterKey(eb, column, desc, after.value, after.id));
    }
    const [rows] = (await read([statement(ordered(q.selectAll(), selection).limit(batchSize).compile())])) as RecordRow[][];
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < batchSize) return;
    const tail = rows[rows.length - 1];
    last = { value: tail[column], id: tail.id };
  }
}

/** Rows strictly after (value, id) in the order of `ordered`, with NULL as the smallest value. */
function afterKey(eb: ExpressionBuilder<Database, RecordTable>, column: SortColumn, desc: boolean, value: unknown, id: number): Expression<SqlBool> {
  const idAfter = eb("id", desc ? "<" : ">", id);
  if (column === "id") return idAfter;
  const col = eb.ref(column as keyof Database[RecordTable] & string);
  if (value === null || value === undefined) {
    // asc: NULLs came first, so after them every non-NULL follows; desc: NULLs are last.
    return desc ? eb.and([eb(col, "is", null), idAfter]) : eb.or([eb.and([eb(col, "is", null), idAfter]), eb(col, "is not", null)]);
  }
  const beyond = eb(col, desc ? "<" : ">", value as string);
  const tie = eb.and([eb(col, "=", value as string), idAfter]);
  return desc ? eb.or([beyond, tie, eb(col, "is", null)]) : eb.or([beyond, tie]);
}
