import "server-only";
import { type Expression, type ExpressionBuilder, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from "kysely";
import type { RecordKind } from "@/lib/domain/fields";
import { NULLABLE_SORT_COLUMNS, type SearchRequest, SORT_KEY_COLUMNS, type SortKey } from "@/lib/schemas/search";
import type { Dialect } from "../connection/dialect";
import type { ReadResult, ReadStatement, Row } from "../connection/read";
import { countFromSummary, coversEveryShop } from "../aggregates/record-counts";
import { type Database, RECORD_TABLES, type RecordTable } from "../connection/schema";
import { inList, statement } from "../connection/sql";

/**
 * A request's selection as SQL (docs/api.md, "Selection and order"): its WHERE, always inside the
 * caller's scope (the shop list is an argument of every query, so no route can forget it), its
 * ORDER BY and its count. The search, the export and the summaries' fallback share them.
 */

export type SortColumn = (typeof SORT_KEY_COLUMNS)[SortKey];

/** Filters of a request, without paging: what the export and the search share. */
export type Selection = Omit<SearchRequest, "page" | "per_page">;

/** Raw database row of either table (amounts in minor units). */
export type RecordRow = Record<string, unknown> & { id: number };

export type Query = SelectQueryBuilder<Database, RecordTable, object>;

/**
 * Shops a request may read: the requested ones (already checked against scope) or the whole
 * scope, each once: a shop named twice must not count twice in a total summed per shop.
 */
export function visibleShops(selection: { shop_codes?: readonly string[] | null }, access: readonly string[]): readonly string[] {
  return [...new Set(selection.shop_codes?.length ? selection.shop_codes : access)];
}

/**
 * How a page reaches its rows on SQLite (chosen in access-path.ts). "walk": along the sort key's
 * index, testing scope and dates on each entry (the unary + keeps the planner off the shop and date
 * indexes). "seek": through the shop indexes, then sort what they find. "planner": selective value
 * filters decide. "walkEvery": a walk whose scope the counts say holds every record of the kind.
 * Why these four: docs/performance.md, "Why the access paths are what they are".
 */
export type AccessPath = "walk" | "walkEvery" | "seek" | "planner";

export const walks = (path: AccessPath) => path === "walk" || path === "walkEvery";

/**
 * The shops a statement may read: a list, or EVERY_SHOP where the counts say the list holds every
 * shop with records of the kind (a statement then right only at that data version, see `onlyAt`).
 */
export type Scope = readonly string[] | typeof EVERY_SHOP;
export const EVERY_SHOP = "every shop";

/** The WHERE of a selection inside `shops` (also the summaries' fallback over the records, lib/data/queries/summary.ts). */
export function filtered(kind: RecordKind, selection: Selection, shops: Scope, path: AccessPath, dialect: Dialect) {
  const column = SORT_KEY_COLUMNS[selection.sortKey];
  // Only SQLite takes the hint; PostgreSQL's planner weighs the bound values itself.
  const hint = dialect === "sqlite" && path !== "seek";
  const shopTerm = hint && column !== "shop_code" ? sql<string>`+shop_code` : sql.ref<string>("shop_code");
  const dateTerm = hint && !(walks(path) && column === "file_date") ? sql<string>`+file_date` : sql.ref<string>("file_date");
  return (eb: ExpressionBuilder<Database, RecordTable>) => {
    // An empty access list sees nothing; "in ()" is not valid SQL.
    // Walking SQLite's sort index over a scope the counts say holds every record, the shop test is
    // settled once, in the statement's own snapshot (the constant first in the OR); elsewhere the
    // OR costs more than it saves (docs/performance.md, "Why the access paths are what they are").
    const conditions: Expression<SqlBool>[] = [];
    if (shops !== EVERY_SHOP) {
      const scope = shops.length ? oneOf(eb, dialect, shopTerm, shops) : eb.lit(false);
      conditions.push(path === "walkEvery" && dialect === "sqlite" && shops.length ? eb.or([coversEveryShop(dialect, kind, shops) as Expression<SqlBool>, scope]) : scope);
    }
    if (selection.file_date_from) conditions.push(eb(dateTerm, ">=", selection.file_date_from));
    if (selection.file_date_to) conditions.push(eb(dateTerm, "<=", selection.file_date_to));
    if (selection.merchant_id) conditions.push(matchable(dialect, selection.merchant_id) ? eb("merchant_id", "=", selection.merchant_id) : eb.lit(false));
    if (selection.acq_ref_nrs) conditions.push(oneOf(eb, dialect, sql.ref("acq_ref_nr"), selection.acq_ref_nrs));
    if (selection.payment_order_nrs) conditions.push(oneOf(eb, dialect, sql.ref("payment_order_nr"), selection.payment_order_nrs));
    if (kind === "chargeback") {
      const cb = eb as unknown as ExpressionBuilder<Database, "chargebacks">;
      if (selection.parent_merchant_id) conditions.push(matchable(dialect, selection.parent_merchant_id) ? cb("parent_mrch_id", "=", selection.parent_merchant_id) : cb.lit(false));
      if (selection.transaction_ids) conditions.push(oneOf(cb, dialect, sql.ref("transaction_id"), selection.transaction_ids));
    } else {
      const pa = eb as unknown as ExpressionBuilder<Database, "pre_arbitrations">;
      if (selection.payment_ids) conditions.push(oneOf(pa, dialect, sql.ref("payment_id"), selection.payment_ids));
    }
    return eb.and(conditions);
  };
}

/**
 * Whether a filter value can equal a stored value at all. PostgreSQL text cannot hold U+0000 and
 * refuses it as a parameter (an error, not a mismatch), so there such a value matches nothing.
 */
const matchable = (dialect: Dialect, value: string) => dialect !== "postgres" || !value.includes("\u0000");

/** `term` is one of `values` (lib/data/connection/sql.ts); a list none of whose values can match matches nothing (never "no filter"). */
function oneOf<DB, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>, dialect: Dialect, term: RawBuilder<unknown>, values: readonly string[]): Expression<SqlBool> {
  const usable = values.filter((value) => matchable(dialect, value));
  return usable.length === 0 ? eb.lit(false) : inList(dialect, term, usable);
}

/** The columns `ordered` orders by: the sort key's column, then the id. */
export const orderColumns = (selection: Selection): ("id" | SortColumn)[] => {
  const column = SORT_KEY_COLUMNS[selection.sortKey];
  return column === "id" ? ["id"] : [column, "id"];
};

export function ordered(query: Query, selection: Selection): Query {
  const column = SORT_KEY_COLUMNS[selection.sortKey];
  const desc = selection.sortOrder === "desc";
  // NULL is the smallest value on every backend: first ascending, last descending. Only for the
  // columns that can be NULL: NULLS FIRST on a NOT NULL column keeps PostgreSQL off its index.
  let q =
    NULLABLE_SORT_COLUMNS.has(column)
      ? query.orderBy(column, (ob) => (desc ? ob.desc().nullsLast() : ob.asc().nullsFirst()))
      : query.orderBy(column, desc ? "desc" : "asc");
  if (column !== "id") q = q.orderBy("id", desc ? "desc" : "asc");
  return q;
}

/** Filters the record_counts summary can answer: the scope and the file date range. */
const SUMMARY_FILTERS = new Set(["shop_codes", "file_date_from", "file_date_to", "page", "per_page", "sortKey", "sortOrder"]);

export const answeredBySummary = (selection: Selection) => Object.keys(selection).every((key) => SUMMARY_FILTERS.has(key));

/** How many records a selection holds, remembered per data version (read.ts): paging through it counts it once. */
export function countQuery(db: Kysely<Database>, dialect: Dialect, kind: RecordKind, selection: Selection, shops: readonly string[]): ReadStatement {
  if (answeredBySummary(selection)) return statement(countFromSummary(dialect, kind, shops, selection.file_date_from, selection.file_date_to).compile(db), { memo: true });
  return statement(
    (db.selectFrom(RECORD_TABLES[kind]).where(filtered(kind, selection, shops, "planner", dialect)) as unknown as Query)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .compile(),
    { memo: true },
  );
}

export const countOf = (result: ReadResult | undefined) => Number((result as Row[] | undefined)?.[0]?.n ?? 0);

/** The ids of a page found by arithmetic rather than by walking an index (pages-sqlite.ts, pages-postgres.ts). */
export interface IdRange {
  from: number;
  to: number;
}

/** The ids of the request's page when the ids run without gaps from lo to hi (n records). */
export function idRange(row: Row | undefined, request: SearchRequest): IdRange | undefined {
  const [lo, hi, n] = [Number(row?.lo), Number(row?.hi), Number(row?.n)];
  if (!(n > 0) || hi - lo + 1 !== n) return undefined;
  const offset = request.page * request.per_page;
  return request.sortOrder === "desc"
    ? { from: hi - offset - request.per_page + 1, to: hi - offset }
    : { from: lo + offset, to: lo + offset + request.per_page - 1 };
}
