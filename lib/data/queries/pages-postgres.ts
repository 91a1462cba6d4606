import "server-only";
import { type CompiledQuery, type Kysely, sql } from "kysely";
import type { RecordKind } from "@/lib/domain/fields";
import { type SearchRequest, SORT_KEY_COLUMNS } from "@/lib/schemas/search";
import type { Db } from "../connection/db";
import { type ReadStatement, VERSION_COLUMN, VERSION_SQL, versioned } from "../connection/read";
import { coversEveryShop } from "../aggregates/record-counts";
import { RECORD_JSON_COLUMN } from "../connection/record-json";
import { type Database, RECORD_JSON_TABLES, RECORD_TABLES } from "../connection/schema";
import { answeredBySummary, EVERY_SHOP, filtered, type IdRange, idRange, orderColumns, ordered, type Query, type Scope } from "./selection";
import { statement } from "../connection/sql";

/**
 * The page statement on PostgreSQL, where a scope of many shops costs its planner (it weighs each
 * bound shop code, and tests every entry of a deep page against the list). When the counts
 * remembered at the latest data version say that `shops` holds every shop with records of the
 * kind, the statement leaves the scope out, right only in a snapshot of that version (`onlyAt`);
 * in any other the scoped statement runs instead, so a shop that arrived since is never shown.
 *
 * Unfiltered and in id order, a page is then a range of ids when the ids have no gaps (their span
 * equals the records' count, as after imports that all committed). Also answers the statements
 * that keep these facts remembered (free while the version stays). What each step saves:
 * docs/performance.md, "Why the access paths are what they are".
 */
export function scopedPage({ db, dialect, remembered }: Db, kind: RecordKind, request: SearchRequest, shops: readonly string[]): { page: ReadStatement; remembering: ReadStatement[] } {
  const page = pageStatement(db, kind, request, shops);
  if (shops.length < 2) return { page, remembering: [] };
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
  return { page: { ...pageStatement(db, kind, request, EVERY_SHOP, ids), onlyAt: { version: covered.version, otherwise: page } }, remembering };
}

/**
 * The page's ids with their sort column, then each record's stored JSON (migration 012): the
 * records' own rows are not read at all. The ids come from the index the planner walks (a deferred
 * join), each shop's run (`mergesShops`), or a range.
 */
function pageStatement(db: Kysely<Database>, kind: RecordKind, request: SearchRequest, shops: Scope, range?: IdRange): ReadStatement {
  const table = RECORD_TABLES[kind];
  const keyed = (q: Query) => q.select(orderColumns(request));
  const ids = range
    ? keyed(db.selectFrom(table).where("id", ">=", range.from).where("id", "<=", range.to) as unknown as Query)
    : shops !== EVERY_SHOP && mergesShops(request, shops)
      ? perShopIds(db, kind, request, shops)
      : ordered(keyed(db.selectFrom(table).where(filtered(kind, request, shops, "planner", "postgres")) as unknown as Query), request)
          .limit(request.per_page)
          .offset(request.page * request.per_page);
  return { ...statement(ordered(storedJson(db, kind, ids), request).compile(), { json: true }), carriesVersion: true };
}

/**
 * The stored JSON (migration 012) of the records `ids` names, each row with the version of the
 * statement's snapshot (read.ts). `ids` selects the id and the sort column, the only columns of
 * those names here, so `ordered` orders the result by them.
 */
function storedJson(db: Kysely<Database>, kind: RecordKind, ids: Query): Query {
  return db
    .selectFrom(ids.as("p"))
    .innerJoin(`${RECORD_JSON_TABLES[kind]} as j`, "j.record_id", "p.id" as never)
    .select([sql.ref<string>("j.json").as(RECORD_JSON_COLUMN), sql.raw(`(${VERSION_SQL})`).as(VERSION_COLUMN)]) as unknown as Query;
}

/**
 * A scope of a few shops: the page's ids from each shop's run in the sort key's order (an index
 * per shop and key, migrations 001/004/011), the first `offset + per_page` of each, then the page
 * of those. It reads at most shops x (offset + per_page) index entries, however many records the
 * shops or the table hold. Only filters the runs answer (scope and file dates); past
 * MERGE_MAX_SHOPS shops or MERGE_MAX_ENTRIES entries the planner's own path, whose cost does not
 * grow with the shops. Measured: docs/performance.md, "Why the access paths are what they are".
 */
function mergesShops(request: SearchRequest, shops: readonly string[]): boolean {
  const entries = shops.length * (request.page + 1) * request.per_page;
  return answeredBySummary(request) && shops.length >= 2 && shops.length <= MERGE_MAX_SHOPS && entries <= MERGE_MAX_ENTRIES;
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
