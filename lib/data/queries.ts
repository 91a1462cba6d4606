import "server-only";
import { type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool } from "kysely";
import type { RecordKind } from "@/lib/domain/fields";
import { type SearchRequest, SORT_KEY_COLUMNS, type SortKey } from "@/lib/schemas/search";
import { getDb } from "./db";
import { type Database, RECORD_TABLES, type RecordTable } from "./schema";

/**
 * The searches of CONTRACT 1.2, always inside the caller's scope: the shop list a request may
 * see is an argument of every query here, so no route can forget it.
 */

const SORT_COLUMNS = SORT_KEY_COLUMNS;

type SortColumn = (typeof SORT_COLUMNS)[SortKey];

/** Filters of a request, without paging: what the export and the search share. */
export type Selection = Omit<SearchRequest, "page" | "per_page">;

/** Raw database row of either table (amounts in minor units). */
export type RecordRow = Record<string, unknown> & { id: number };

type Table = Database[RecordTable];
type Query = SelectQueryBuilder<Database, RecordTable, object>;

/** Shops a request may read: the requested ones (already checked against scope) or the whole scope. */
function visibleShops(selection: Selection, access: readonly string[]): string[] {
  return selection.shop_codes?.length ? selection.shop_codes : [...access];
}

function filtered(kind: RecordKind, selection: Selection, access: readonly string[]) {
  return (eb: ExpressionBuilder<Database, RecordTable>) => {
    const shops = visibleShops(selection, access);
    // An empty access list sees nothing; "in ()" is not valid SQL.
    const conditions: Expression<SqlBool>[] = [shops.length ? eb("shop_code", "in", shops) : eb.lit(false)];
    if (selection.file_date_from) conditions.push(eb("file_date", ">=", selection.file_date_from));
    if (selection.file_date_to) conditions.push(eb("file_date", "<=", selection.file_date_to));
    if (selection.merchant_id) conditions.push(eb("merchant_id", "=", selection.merchant_id));
    if (selection.acq_ref_nrs) conditions.push(eb("acq_ref_nr", "in", selection.acq_ref_nrs));
    if (selection.payment_order_nrs) conditions.push(eb("payment_order_nr", "in", selection.payment_order_nrs));
    if (kind === "chargeback") {
      const cb = eb as unknown as ExpressionBuilder<Database, "chargebacks">;
      if (selection.parent_merchant_id) conditions.push(cb("parent_mrch_id", "=", selection.parent_merchant_id));
      if (selection.transaction_ids) conditions.push(cb("transaction_id", "in", selection.transaction_ids));
    } else {
      const pa = eb as unknown as ExpressionBuilder<Database, "pre_arbitrations">;
      if (selection.payment_ids) conditions.push(pa("payment_id", "in", selection.payment_ids));
    }
    return eb.and(conditions);
  };
}

function ordered(query: Query, selection: Selection): Query {
  const column = SORT_COLUMNS[selection.sortKey] as SortColumn;
  const desc = selection.sortOrder === "desc";
  // NULL is the smallest value on every backend: first ascending, last descending. Only the
  // order number can be NULL; saying NULLS FIRST of a NOT NULL column would keep PostgreSQL
  // from walking its index (a full sort of the table instead).
  let q =
    column === "payment_order_nr"
      ? query.orderBy(column, (ob) => (desc ? ob.desc().nullsLast() : ob.asc().nullsFirst()))
      : query.orderBy(column, desc ? "desc" : "asc");
  if (column !== "id") q = q.orderBy("id", desc ? "desc" : "asc");
  return q;
}

export interface SearchResult {
  rows: RecordRow[];
  totalElements: number;
  totalPages: number;
}

/** Filters the record_counts summary can answer: the scope and the file date range. */
const SUMMARY_FILTERS = new Set(["shop_codes", "file_date_from", "file_date_to", "page", "per_page", "sortKey", "sortOrder"]);

async function countRecords(kind: RecordKind, selection: Selection, access: readonly string[]): Promise<number> {
  const { db } = await getDb();
  if (Object.keys(selection).every((key) => SUMMARY_FILTERS.has(key))) {
    const shops = visibleShops(selection, access);
    if (shops.length === 0) return 0;
    let q = db.selectFrom("record_counts").where("kind", "=", kind).where("shop_code", "in", shops);
    if (selection.file_date_from) q = q.where("file_date", ">=", selection.file_date_from);
    if (selection.file_date_to) q = q.where("file_date", "<=", selection.file_date_to);
    const row = await q.select((eb) => eb.fn.sum<number | string | null>("n").as("n")).executeTakeFirst();
    return Number(row?.n ?? 0);
  }
  const row = await (db.selectFrom(RECORD_TABLES[kind]).where(filtered(kind, selection, access)) as unknown as Query)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number((row as { n: number | string }).n);
}

export async function searchRecords(kind: RecordKind, request: SearchRequest, access: readonly string[]): Promise<SearchResult> {
  const { db } = await getDb();
  const base = db.selectFrom(RECORD_TABLES[kind]).where(filtered(kind, request, access)) as unknown as Query;
  const [totalElements, rows] = await Promise.all([
    countRecords(kind, request, access),
    ordered(base.selectAll(), request)
      .limit(request.per_page)
      .offset(request.page * request.per_page)
      .execute(),
  ]);
  return {
    rows: rows as RecordRow[],
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
  const { db } = await getDb();
  const column = SORT_COLUMNS[selection.sortKey] as SortColumn;
  const desc = selection.sortOrder === "desc";
  let last: { value: unknown; id: number } | undefined;
  for (;;) {
    let q = db.selectFrom(RECORD_TABLES[kind]).where(filtered(kind, selection, access)) as unknown as Query;
    if (last) {
      const after = last;
      q = q.where((eb) => afterKey(eb, column, desc, after.value, after.id));
    }
    const rows = (await ordered(q.selectAll(), selection).limit(batchSize).execute()) as RecordRow[];
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
  const col = eb.ref(column as keyof Table & string);
  if (value === null || value === undefined) {
    // asc: NULLs came first, so after them every non-NULL follows; desc: NULLs are last.
    return desc ? eb.and([eb(col, "is", null), idAfter]) : eb.or([eb.and([eb(col, "is", null), idAfter]), eb(col, "is not", null)]);
  }
  const beyond = eb(col, desc ? "<" : ">", value as string);
  const tie = eb.and([eb(col, "=", value as string), idAfter]);
  return desc ? eb.or([beyond, tie, eb(col, "is", null)]) : eb.or([beyond, tie]);
}
