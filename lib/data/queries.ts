import "server-only";
import { type CompiledQuery, type Expression, type ExpressionBuilder, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from "kysely";
import type { RecordKind } from "@/lib/domain/fields";
import { NULLABLE_SORT_COLUMNS, type SearchRequest, SORT_KEY_COLUMNS, type SortKey } from "@/lib/schemas/search";
import { type Db, getDb } from "./db";
import { type ReadResult, type ReadStatement, type Row, VERSION_COLUMN, VERSION_SQL, VERSION_STATEMENT, versioned, versionKey } from "./read";
import type { Dialect } from "./dialect";
import { countFromSummary, coversEveryShop } from "./record-counts";
import { RECORD_JSON_COLUMN, sqlRecordJson } from "./record-json";
import { type Database, RECORD_JSON_TABLES, RECORD_TABLES, type RecordTable } from "./schema";
import { inList } from "./sql";

/**
 * The searches (docs/api.md, "Selection and order"), always inside the caller's scope: the shop list a request may
 * see is an argument of every query here, so no route can forget it.
 */

type SortColumn = (typeof SORT_KEY_COLUMNS)[SortKey];

/** Filters of a request, without paging: what the export and the search share. */
export type Selection = Omit<SearchRequest, "page" | "per_page">;

/** Raw database row of either table (amounts in minor units). */
export type RecordRow = Record<string, unknown> & { id: number };

type Table = Database[RecordTable];
type Query = SelectQueryBuilder<Database, RecordTable, object>;

/**
 * Shops a request may read: the requested ones (already checked against scope) or the whole
 * scope, each once: a shop named twice must not count twice in a total summed per shop.
 */
export function visibleShops(selection: { shop_codes?: readonly string[] | null }, access: readonly string[]): readonly string[] {
  return [...new Set(selection.shop_codes?.length ? selection.shop_codes : access)];
}

/**
 * How the page query reaches its rows on SQLite. "walk": along the sort key's index, testing the
 * scope and the dates on each entry (the unary + keeps the planner off the shop and date indexes;
 * with 200 bound shop codes it would otherwise fetch and sort half the table). "seek": through
 * the shop indexes, then sort what they find: right when the scope holds few records. "planner":
 * selective value filters (reference numbers, merchant) decide, with scope and dates as tests.
 * "walkEvery": a walk whose scope the counts say holds every record of the kind.
 */
export type AccessPath = "walk" | "walkEvery" | "seek" | "planner";

const walks = (path: AccessPath) => path === "walk" || path === "walkEvery";

/**
 * The shops a statement may read: a list, or EVERY_SHOP where the counts say the list holds every
 * shop with records of the kind (a statement then right only at that data version, see `onlyAt`).
 */
type Scope = readonly string[] | typeof EVERY_SHOP;
const EVERY_SHOP = "every shop";

/** The WHERE of a selection inside `shops` (also the summaries' fallback over the records, lib/data/summary.ts). */
export function filtered(kind: RecordKind, selection: Selection, shops: Scope, path: AccessPath, dialect: Dialect) {
  const column = SORT_KEY_COLUMNS[selection.sortKey];
  // Only SQLite takes the hint; PostgreSQL's planner weighs the bound values itself.
  const hint = dialect === "sqlite" && path !== "seek";
  const shopTerm = hint && column !== "shop_code" ? sql<string>`+shop_code` : sql.ref<string>("shop_code");
  const dateTerm = hint && !(walks(path) && column === "file_date") ? sql<string>`+file_date` : sql.ref<string>("file_date");
  return (eb: ExpressionBuilder<Database, RecordTable>) => {
    // An empty access list sees nothing; "in ()" is not valid SQL.
    // Walking SQLite's sort index with a scope the counts say holds every record, the shop test
    // is settled once, in the statement's own snapshot: the constant comes first in the OR (a
    // deep page skips entries 3x faster). Elsewhere the OR would cost more than it saves.
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

/** `term` is one of `values` (lib/data/sql.ts); a list none of whose values can match matches nothing (never "no filter"). */
function oneOf<DB, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>, dialect: Dialect, term: RawBuilder<unknown>, values: readonly string[]): Expression<SqlBool> {
  const usable = values.filter((value) => matchable(dialect, value));
  return usable.length === 0 ? eb.lit(false) : inList(dialect, term, usable);
}

/** The columns `ordered` orders by: the sort key's column, then the id. */
const orderColumns = (selection: Selection): ("id" | SortColumn)[] => {
  const column = SORT_KEY_COLUMNS[selection.sortKey];
  return column === "id" ? ["id"] : [column, "id"];
};

function ordered(query: Query, selection: Selection): Query {
  const column = SORT_KEY_COLUMNS[selection.sortKey];
  const desc = selection.sortOrder === "desc";
  // NULL is the smallest value on every backend: first ascending, last descending. Only for the
  // columns that can be NULL: saying NULLS FIRST of a NOT NULL column would keep PostgreSQL
  // from walking its index (a full sort of the table instead).
  let q =
    NULLABLE_SORT_COLUMNS.has(column)
      ? query.orderBy(column, (ob) => (desc ? ob.desc().nullsLast() : ob.asc().nullsFirst()))
      : query.orderBy(column, desc ? "desc" : "asc");
  if (column !== "id") q = q.orderBy("id", desc ? "desc" : "asc");
  return q;
}

export interface SearchResult {
  /** the page's records as a JSON array (lib/data/record-json.ts), as text or UTF-8 */
  content: string | Uint8Array;
  totalElements: number;
  totalPages: number;
}

/** Filters the record_counts summary can answer: the scope and the file date range. */
const SUMMARY_FILTERS = new Set(["shop_codes", "file_date_from", "file_date_to", "page", "per_page", "sortKey", "sortOrder"]);

const answeredBySummary = (selection: Selection) => Object.keys(selection).every((key) => SUMMARY_FILTERS.has(key));

/** A compiled query as the reader threads take it. */
const statement = (query: CompiledQuery, opts: { json?: true; memo?: true } = {}): ReadStatement => ({ sql: query.sql, parameters: query.parameters, ...opts });

function countQuery(db: Kysely<Database>, dialect: Dialect, kind: RecordKind, selection: Selection, shops: readonly string[]): ReadStatement {
  // Exact totals are remembered per data version (lib/data/read.ts): paging through a large
  // filtered selection counts it once.
  if (answeredBySummary(selection)) return statement(countFromSummary(dialect, kind, shops, selection.file_date_from, selection.file_date_to).compile(db), { memo: true });
  return statement(
    (db.selectFrom(RECORD_TABLES[kind]).where(filtered(kind, selection, shops, "planner", dialect)) as unknown as Query)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .compile(),
    { memo: true },
  );
}

const countOf = (result: ReadResult | undefined) => Number((result as Row[] | undefined)?.[0]?.n ?? 0);

/**
 * The access path of a page on SQLite. With only scope and dates, the summary tells how many
 * records match (m) of all there are (n, the ids are dense): walking the sort key's index reads
 * about (offset + limit) * n / m entries, seeking reads the m records and sorts them.
 */
async function accessPath(
  read: Db["read"],
  db: Kysely<Database>,
  kind: RecordKind,
  request: SearchRequest,
  shops: readonly string[],
  count: ReadStatement,
): Promise<{ path: AccessPath; matched?: number; every?: EveryRecord }> {
  if (!answeredBySummary(request)) return { path: "planner" };
  const column = SORT_KEY_COLUMNS[request.sortKey];
  // One shop's index already holds its records in id and file-date order.
  if (shops.length === 1 && (column === "id" || column === "shop_code" || column === "file_date")) return { path: "seek" };
  const [version, matched, all] = await read([VERSION_STATEMENT, count, statement(db.selectFrom(RECORD_TABLES[kind]).select((eb) => eb.fn.max("id").as("n")).compile(), { memo: true })]);
  const m = countOf(matched);
  const n = countOf(all);
  if (m === 0) return { path: "seek", matched: m };
  const walked = ((request.page * request.per_page + request.per_page) * n) / m;
  // An index entry tested in passing costs a fraction of a record fetched and sorted.
  if (walked > m * WALK_COST_RATIO) return { path: "seek", matched: m };
  const everyRecord = m === n && !request.file_date_from && !request.file_date_to;
  if (!everyRecord) return { path: "walk", matched: m };
  return { path: "walkEvery", matched: m, every: { version: versionKey(version), records: n } };
}

/**
 * The counts of a snapshot (data version `version`, a version key) say the scope holds every
 * record there is and that they are `records` many with ids up to `records`: distinct ids from 1
 * whose largest equals their count run 1..records without a gap.
 */
export interface EveryRecord {
  version: string;
  records: number;
}

const WALK_COST_RATIO = 8;

/**
 * The page's records. A walk first finds the page's ids in the sort key's index alone (it holds
 * the scope and the file date, migration 004), skipping `offset` entries without reading a
 * record, then reads just those records: a deferred join.
 */
function pageStatement(
  db: Kysely<Database>,
  dialect: Dialect,
  kind: RecordKind,
  request: SearchRequest,
  shops: Scope,
  path: AccessPath,
  range?: IdRange,
): ReadStatement {
  const table = RECORD_TABLES[kind];
  const where = filtered(kind, request, shops, path, dialect);
  const offset = request.page * request.per_page;
  const inRange = range && (db.selectFrom(table).where("id", ">=", range.from).where("id", "<=", range.to) as unknown as Query);
  const page = (query: CompiledQuery): ReadStatement => ({
    ...statement(query, { json: true }),
    ...(dialect === "postgres" ? { carriesVersion: true } : {}),
  });
  if (dialect === "postgres") {
    // The page's ids with their sort column, then each record's stored JSON (migration 012): the
    // records' own rows are not read at all. The ids come from the index the planner walks (a
    // deferred join), each shop's run, or a range.
    const keyed = (q: Query) => q.select(orderColumns(request));
    const ids = inRange
      ? keyed(inRange)
      : shops !== EVERY_SHOP && mergesShops(dialect, request, shops)
        ? perShopIds(db, kind, request, shops)
        : ordered(keyed(db.selectFrom(table).where(where) as unknown as Query), request).limit(request.per_page).offset(offset);
    return page(ordered(storedJson(db, kind, ids), request).compile());
  }
  // SQLite writes each record's JSON itself (a string per record instead of 43 values).
  const columns = (q: Query) => q.select(sql.raw(sqlRecordJson(dialect, kind)).as(RECORD_JSON_COLUMN));
  if (inRange) return page(ordered(columns(inRange), request).compile());
  if (!walks(path)) return page(ordered(columns(db.selectFrom(table).where(where) as unknown as Query), request).limit(request.per_page).offset(offset).compile());
  // The deferred join: the walk finds the page's ids in the sort key's index alone, without
  // visiting the table until the page's ids are known.
  const ids = ordered((db.selectFrom(table).where(where) as unknown as Query).select("id"), request).limit(request.per_page).offset(offset);
  return page(ordered(columns((db.selectFrom(table) as unknown as Query).where("id", "in", ids as never)), request).compile());
}

/**
 * PostgreSQL: the stored JSON (migration 012) of the records `ids` names, each row with the
 * version of the statement's snapshot (read.ts). `ids` selects the id and the sort column, the
 * only columns of those names here, so `ordered` orders the result by them.
 */
function storedJson(db: Kysely<Database>, kind: RecordKind, ids: Query): Query {
  return db
    .selectFrom(ids.as("p"))
    .innerJoin(`${RECORD_JSON_TABLES[kind]} as j`, "j.record_id", "p.id" as never)
    .select([sql.ref<string>("j.json").as(RECORD_JSON_COLUMN), sql.raw(`(${VERSION_SQL})`).as(VERSION_COLUMN)]) as unknown as Query;
}

/**
 * PostgreSQL, a scope of a few shops: the page's ids from each shop's run in the sort key's order
 * (an index per shop and key, migrations 001/004/011), the first `offset + per_page` of each, then
 * the page of those. It reads at most shops x (offset + per_page) index entries, however many
 * records the shops or the table hold; walking the key's index over every shop reads about
 * (offset + per_page) x all / scope entries, and the shops' whole runs hold every scope entry.
 * Three shops of 200, 1000 by order number, on a million records: 64,000 entries walked or
 * 15,000 read whole, 3,000 here (10.8 / 3.4 / 1.5 ms in the statement); on ten million, 150,000
 * whole. Only filters the runs answer (scope and file dates); past MERGE_MAX_SHOPS shops or
 * MERGE_MAX_ENTRIES entries the planner's own path, whose cost does not grow with the shops.
 */
function mergesShops(dialect: Dialect, request: SearchRequest, shops: readonly string[]): boolean {
  const entries = shops.length * (request.page + 1) * request.per_page;
  return dialect === "postgres" && answeredBySummary(request) && shops.length >= 2 && shops.length <= MERGE_MAX_SHOPS && entries <= MERGE_MAX_ENTRIES;
}

const MERGE_MAX_SHOPS = 8;
const MERGE_MAX_ENTRIES = 64_000;

/** The ids of the page, from each shop's run (`mergesShops`); shops are distinct (`visibleShops`). */
function perShopIds(db: Kysely<Database>, kind: RecordKind, request: SearchRequest, shops: readonly string[]): Query {
  const run = ordered(
    (db.selectFrom(RECORD_TABLES[kind]).where(filtered(kind, request, EVERY_SHOP, "planner", "postgres")) as unknown as Query)
      .where("shop_code", "=", sql.ref<string>("s.code"))
      .select(orderColumns(request)),
    request,
  ).limit((request.page + 1) * request.per_page);
  // The runs' columns are the only ones of those names here, so `ordered` orders them too.
  const merged = db
    .selectFrom(sql`(select unnest(${[...shops]}::text[]) as "code")`.as("s"))
    .crossJoinLateral(run.as("x"))
    .select(orderColumns(request).map((c) => sql.ref(`x.${c}`).as(c)));
  return ordered(merged as unknown as Query, request).limit(request.per_page).offset(request.page * request.per_page);
}

/** The ids of a page found by arithmetic rather than by walking an index (`scopedPage`). */
interface IdRange {
  from: number;
  to: number;
}

/**
 * The page statement on PostgreSQL, where a scope of many shops costs its planner: it weighs each
 * bound shop code against the column's statistics (about 0.35 ms of a default page's 0.8 ms with
 * 200 shops), and tests every entry of a deep page against the list. When the counts remembered
 * at the latest data version say that `shops` holds every shop with records of the kind, the
 * statement leaves the scope out, right only in a snapshot of that version (`onlyAt`); in any
 * other the scoped statement runs instead, so a shop that arrived since is never shown.
 *
 * Unfiltered and in id order, a page is then a range of ids when the ids have no gaps (their span
 * equals the records' count, as after imports that all committed): page 5,000 reads its ten
 * records instead of walking 50,000 index entries. Also answers the statements that keep these
 * facts remembered (free while the version stays).
 */
function scopedPage(
  { db, dialect, remembered }: Db,
  kind: RecordKind,
  request: SearchRequest,
  shops: readonly string[],
  path: AccessPath,
): { page: ReadStatement; remembering: ReadStatement[] } {
  const page = pageStatement(db, dialect, kind, request, shops, path);
  if (dialect !== "postgres" || shops.length < 2) return { page, remembering: [] };
  const memo = (query: CompiledQuery) => versioned(dialect, statement(query, { memo: true }));
  const coverage = memo(sql`select ${coversEveryShop(dialect, kind, shops)} as "every"`.compile(db));
  const covered = remembered(coverage);
  if (covered?.rows[0]?.every !== true) return { page, remembering: [coverage] };
  const remembering = [coverage];
  let ids: IdRange | undefined;
  if (answeredBySummary(request) && !request.file_date_from && !request.file_date_to && SORT_KEY_COLUMNS[request.sortKey] === "id") {
    const span = memo(
      sql`select min("id") as "lo", max("id") as "hi", (select coalesce(sum("n"), 0) from "record_shops" where "kind" = ${kind}) as "n"
        from ${sql.table(RECORD_TABLES[kind])}`.compile(db),
    );
    remembering.push(span);
    const known = remembered(span);
    if (known?.version === covered.version) ids = idRange(known.rows[0], request);
  }
  // One statement without the scope: the range of ids where known, else the walk.
  return { page: { ...pageStatement(db, dialect, kind, request, EVERY_SHOP, path, ids), onlyAt: { version: covered.version, otherwise: page } }, remembering };
}

/**
 * The page statement on SQLite. In id order over a scope whose counts say it holds every record
 * (`EveryRecord`), the page is a range of ids: page 5,000 reads its ten records instead of walking
 * 50,000 index entries (about 3 ms). The counts were read in an earlier snapshot, so the range is
 * right only in a snapshot of the same data version (`onlyAt`, decided by the reader thread on the
 * version its batch reads first); in any other the walk runs, so a file imported in between is
 * never half seen. Deciding it inside the statement instead cost more than the walk it saved.
 */
export function sqlitePage(db: Kysely<Database>, kind: RecordKind, request: SearchRequest, shops: readonly string[], path: AccessPath, every: EveryRecord | undefined): ReadStatement {
  const walk = pageStatement(db, "sqlite", kind, request, shops, path);
  if (!every || SORT_KEY_COLUMNS[request.sortKey] !== "id") return walk;
  const ids = idRange({ lo: 1, hi: every.records, n: every.records }, request);
  return ids ? { ...pageStatement(db, "sqlite", kind, request, shops, path, ids), onlyAt: { version: every.version, otherwise: walk } } : walk;
}

/** The ids of the request's page when the ids run without gaps from lo to hi (n records). */
function idRange(row: Row | undefined, request: SearchRequest): IdRange | undefined {
  const [lo, hi, n] = [Number(row?.lo), Number(row?.hi), Number(row?.n)];
  if (!(n > 0) || hi - lo + 1 !== n) return undefined;
  const offset = request.page * request.per_page;
  return request.sortOrder === "desc"
    ? { from: hi - offset - request.per_page + 1, to: hi - offset }
    : { from: lo + offset, to: lo + offset + request.per_page - 1 };
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
  const { page, remembering } = dialect === "sqlite" ? { page: sqlitePage(db, kind, request, shops, path, every), remembering: [] } : scopedPage(handle, kind, request, shops, path);
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
  const col = eb.ref(column as keyof Table & string);
  if (value === null || value === undefined) {
    // asc: NULLs came first, so after them every non-NULL follows; desc: NULLs are last.
    return desc ? eb.and([eb(col, "is", null), idAfter]) : eb.or([eb.and([eb(col, "is", null), idAfter]), eb(col, "is not", null)]);
  }
  const beyond = eb(col, desc ? "<" : ">", value as string);
  const tie = eb.and([eb(col, "=", value as string), idAfter]);
  return desc ? eb.or([beyond, tie, eb(col, "is", null)]) : eb.or([beyond, tie]);
}
