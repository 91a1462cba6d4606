import "server-only";
import { type CompiledQuery, type Kysely, type RawBuilder, sql } from "kysely";
import { dateOfDay, dayNumber } from "@/lib/domain/calendar";
import { type DeadlineConfig, type DisputeStatus, expiryDays, SCHEMES, type Scheme, STAGES, type Stage, statusOn, windowDays } from "@/lib/domain/deadlines";
import type { RecordKind } from "@/lib/domain/fields";
import type { WorklistRequest } from "@/lib/schemas/worklist";
import { type Db, getDb } from "../connection/db";
import { EITHER_SCHEME } from "../aggregates/disputes";
import type { Dialect } from "../connection/dialect";
import { type ReadResult, type ReadStatement, type Row, VERSION_COLUMN, VERSION_SQL, VERSION_STATEMENT, versioned } from "../connection/read";
import { visibleShops } from "./selection";
import { type Database, RECORD_TABLES } from "../connection/schema";
import { inList, notInList } from "../connection/sql";

/**
 * The worklist (docs/api.md, "Worklist") from the disputes table (lib/data/aggregates/disputes.ts), always
 * inside the caller's scope. A dispute's answer-by day is its base day plus the window of its
 * stage and scheme, and its expiry day its base day plus the scheme's limit, so within one
 * (stage, scheme) class the answer-by order is the base-day order that the partial index
 * ix_disputes_due keeps, and each status on a date is a range of base days: expired before
 * as_of - limit, overdue up to as_of - window - 1, due from as_of - window on. The page is the
 * merge of such ordered walks, each cut at offset + per_page; the windows, limits and dates come
 * in as bound values, so nothing stored depends on them.
 */

interface Class {
  kind: RecordKind;
  stage: Stage;
  scheme: string;
  /** days from the base date to the answer-by date */
  window: number;
  /** days from the base date to the expiry date */
  limit: number;
  /** base days whose answer-by date lies in the requested range and whose status was asked for */
  lo: number;
  hi: number;
}

/** Far outside any calendar date of the years 0001..9999 (day numbers -719,162..2,932,896). */
const NO_BOUND = 100_000_000;

/** The base days of a class that have each status on day `today`; overdue is empty when window = limit. */
function statusRanges(today: number, window: number, limit: number): Record<DisputeStatus, [number, number]> {
  return { expired: [-NO_BOUND, today - limit - 1], overdue: [today - limit, today - window - 1], due: [today - window, NO_BOUND] };
}

const dayOr = (date: string | undefined, bound: number) => (date ? dayNumber(date)! : bound);

/**
 * The classes a request lists: per (stage, scheme), one class for each run of adjacent base days
 * whose status was asked for (due and expired without overdue are two runs), cut to the
 * answer-by and expiry ranges. Classes of one (stage, scheme) never overlap, so their counts add up.
 */
function classesOf(request: WorklistRequest, config: DeadlineConfig): Class[] {
  const from = dayOr(request.answer_by_from, -NO_BOUND);
  const to = dayOr(request.answer_by_to, NO_BOUND);
  const expiryFrom = dayOr(request.expiry_from, -NO_BOUND);
  const expiryTo = dayOr(request.expiry_to, NO_BOUND);
  const today = dayNumber(request.as_of)!;
  const out: Class[] = [];
  for (const stage of STAGES) {
    const kind: RecordKind = stage === "pre_arbitration" ? "pre_arbitration" : "chargeback";
    if (!request.kinds.includes(kind)) continue;
    for (const scheme of [...SCHEMES, EITHER_SCHEME]) {
      const known = scheme === EITHER_SCHEME ? null : (scheme as Scheme);
      const window = windowDays(config, known, stage);
      const limit = expiryDays(config, known, stage);
      const ranges = statusRanges(today, window, limit);
      // In base-day order: expired, overdue, due; adjacent runs merge.
      const runs: [number, number][] = [];
      for (const status of ["expired", "overdue", "due"] as const) {
        const [lo, hi] = ranges[status];
        if (!request.statuses.includes(status) || lo > hi) continue;
        const last = runs.at(-1);
        if (last && last[1] + 1 === lo) last[1] = hi;
        else runs.push([lo, hi]);
      }
      for (const [lo, hi] of runs) {
        out.push({ kind, stage, scheme, window, limit, lo: Math.max(lo, from - window, expiryFrom - limit), hi: Math.min(hi, to - window, expiryTo - limit) });
      }
    }
  }
  return out;
}

/** `column` is one of `shops`, the list as one bound value (lib/data/connection/sql.ts). */
function inScope(dialect: Dialect, column: RawBuilder<unknown>, shops: readonly string[]): RawBuilder<unknown> {
  return inList(dialect, column, shops);
}

const indexedBy = (dialect: Dialect, index: string) => (dialect === "sqlite" ? sql` indexed by ${sql.id(index)}` : sql``);

/** `from`: a first base day later than the range's (one bound, so that the index range starts there). */
const due = (c: Class, from = c.lo) => sql`needs_answer = 1 and stage = ${sql.lit(c.stage)} and scheme = ${sql.lit(c.scheme)} and base_day >= ${Math.max(c.lo, from)} and base_day <= ${c.hi}`;

/**
 * Per class: `n_all`, the disputes of every shop (a sum over dispute_counts, at most one row per
 * base day), and `m`, those of the scope. When the scope holds every shop that has records, m is
 * n_all; else the scope's entries of ix_disputes_shop_due are counted. The test runs inside the
 * statement, so it reads the same snapshot as the counts.
 */
function countStatement(db: Kysely<Database>, dialect: Dialect, classes: readonly Class[], shops: readonly string[]): CompiledQuery {
  const notInScope = notInList(dialect, sql`rs.shop_code`, shops);
  const everyShop = sql`not exists (select 1 from record_shops rs where ${notInScope})`;
  const arms = classes.map((c, i) => {
    const all = sql`(select coalesce(sum(n), 0) from dispute_counts where stage = ${sql.lit(c.stage)} and scheme = ${sql.lit(c.scheme)} and base_day >= ${c.lo} and base_day <= ${c.hi})`;
    const scoped = sql`(select count(*) from disputes${indexedBy(dialect, "ix_disputes_shop_due")} where ${due(c)} and ${inScope(dialect, sql.ref("shop_code"), shops)})`;
    return sql`select ${sql.lit(i)} as c, n_all, case when ${everyShop} then n_all else ${scoped} end as m from (select ${all} as n_all) t`;
  });
  return sql`${sql.join(arms, sql` union all `)}`.compile(db);
}

/**
 * Where a deep page starts, from dispute_counts alone: the last answer day with at most `offset`
 * disputes of the range before it (`before`). Exact for the scope when the scope holds every
 * dispute of the range (each class's m equals its n_all).
 */
function startStatement(db: Kysely<Database>, classes: readonly Class[], offset: number): CompiledQuery {
  const days = classes.map(
    (c) => sql`select base_day + ${c.window} as answer_day, n from dispute_counts
      where stage = ${sql.lit(c.stage)} and scheme = ${sql.lit(c.scheme)} and base_day >= ${c.lo} and base_day <= ${c.hi}`,
  );
  return sql`select answer_day, before from (
      select answer_day, sum(n) over (order by answer_day) - n as before
      from (select answer_day, sum(n) as n from (${sql.join(days, sql` union all `)}) d group by answer_day) per_day
    ) c where before <= ${offset} order by answer_day desc limit 1`.compile(db);
}

/** The page starts on answer day `day`, after `before` disputes of earlier days. */
interface Start {
  day: number;
  before: number;
}

/**
 * The page: per class the first disputes in answer-by order from the start day on, as many as
 * the page reaches, merged. On SQLite each class walks ix_disputes_due testing the shop of each
 * entry, or, when the scope holds few of the class's disputes, seeks them per shop in
 * ix_disputes_shop_due and sorts them (`seek[i]`); PostgreSQL's planner makes that choice itself.
 */
function pageStatement(db: Kysely<Database>, dialect: Dialect, classes: readonly Class[], shops: readonly string[], request: WorklistRequest, seek: readonly boolean[], start?: Start, after?: WorklistCursor): CompiledQuery {
  const offset = after ? 0 : request.page * request.per_page - (start?.before ?? 0);
  const arms = classes.map((c, i) => {
    const index = seek[i] ? "ix_disputes_shop_due" : "ix_disputes_due";
    const { from, tie } = after ? keysetAfter(c, after) : { from: start ? start.day - c.window : c.lo, tie: sql`` };
    return sql`select * from (select ${sql.lit(c.kind)} as kind, record_id, base_day + ${c.window} as answer_day, base_day + ${c.limit} as expiry_day
      from disputes${indexedBy(dialect, index)} where ${due(c, from)}${tie} and ${inScope(dialect, sql.ref("shop_code"), shops)}
      order by base_day, record_id limit ${offset + request.per_page}) ${sql.id(`c${i}`)}`;
  });
  // On PostgreSQL each entry also names its snapshot's version, for a batch of one round trip (read.ts).
  const version = dialect === "postgres" ? sql.raw(`, (${VERSION_SQL}) as ${VERSION_COLUMN}`) : sql``;
  return sql`select kind, record_id, answer_day, expiry_day${version} from (${sql.join(arms, sql` union all `)}) page
    order by answer_day, kind, record_id limit ${request.per_page} offset ${offset}`.compile(db);
}

/** The last entry of a batch: the next batch starts after it, in the page order (answer day, kind, record id). */
export interface WorklistCursor {
  answerDay: number;
  kind: RecordKind;
  recordId: number;
}

/**
 * A class's entries after `after`: within a class the answer day is base day + window and the
 * kind is fixed, so the order's tuple comparison becomes a first base day and, for the cursor's
 * own kind, a tie on that day broken by record id (a range the class's index walks from).
 */
function keysetAfter(c: Class, after: WorklistCursor): { from: number; tie: RawBuilder<unknown> } {
  const day = after.answerDay - c.window;
  if (c.kind < after.kind) return { from: day + 1, tie: sql`` };
  if (c.kind > after.kind) return { from: day, tie: sql`` };
  return { from: day, tie: sql` and (base_day > ${day} or record_id > ${after.recordId})` };
}

const statement = (query: CompiledQuery, opts: { memo?: true } = {}): ReadStatement => ({ sql: query.sql, parameters: query.parameters, ...opts });

/** One item of the worklist: the record as the searches write it, its answer-by and expiry dates and its status. */
export interface WorklistItem {
  kind: RecordKind;
  answerBy: string;
  expiresOn: string;
  status: DisputeStatus;
  record: Row;
}

export interface WorklistResult {
  items: WorklistItem[];
  totalElements: number;
  totalPages: number;
}

/** An index entry tested in passing costs a fraction of a dispute fetched and sorted. */
const WALK_COST_RATIO = 8;

/**
 * From this offset on, a page whose scope holds the whole range starts from dispute_counts: each
 * class then walks from the start day instead of from the first dispute of the range. Below it
 * the walks are short anyway, and PostgreSQL saves a round trip.
 */
const START_FROM_COUNTS = 100;

const versionOf = (result: ReadResult | undefined) => JSON.stringify(result);

/**
 * A deep page placed from the counts is read again when an import committed between the counts
 * and the page; after this many tries it is read without the shortcut, walking each class from
 * its first dispute, which needs no second read (docs/api.md, "Worklist").
 */
const START_TRIES = 3;

export async function worklistPage(request: WorklistRequest, access: readonly string[], config: DeadlineConfig): Promise<WorklistResult> {
  const handle = await getDb();
  return (await readPage(handle, handle.read, request, access, config)).result;
}

/**
 * Every dispute of a worklist view in its order, in batches of `batchSize`, for the export: every
 * batch in one snapshot held from the first to the last (`Snapshot`), each starting after the
 * previous batch's last entry (keyset), so an import that commits meanwhile neither repeats nor
 * drops a dispute and the thousandth batch costs what the first did. The snapshot is let go
 * when the batches end, fail, or the reader stops asking (`return`).
 */
export async function* worklistBatches(request: WorklistRequest, access: readonly string[], config: DeadlineConfig, batchSize: number): AsyncGenerator<WorklistItem[]> {
  const handle = await getDb();
  const snapshot = await handle.snapshot();
  try {
    const first = { ...request, page: 0, per_page: batchSize };
    let after: WorklistCursor | undefined;
    for (;;) {
      const { result, last } = await readPage(handle, snapshot.read, first, access, config, after);
      if (result.items.length) yield result.items;
      if (result.items.length < batchSize || !last) return;
      after = last;
    }
  } finally {
    await snapshot.close();
  }
}

async function readPage(
  { db, dialect }: Db,
  read: Db["read"],
  request: WorklistRequest,
  access: readonly string[],
  config: DeadlineConfig,
  after?: WorklistCursor,
): Promise<{ result: WorklistResult; last?: WorklistCursor }> {
  const shops = visibleShops(request, access);
  const classes = classesOf(request, config).filter((c) => c.lo <= c.hi);
  // An empty access list sees nothing; "in ()" is not valid SQL.
  if (shops.length === 0 || classes.length === 0) return { result: { items: [], totalElements: 0, totalPages: 0 } };
  // The same statement in both reads below, so it is counted (and remembered) once per version.
  const count = versioned(dialect, statement(countStatement(db, dialect, classes, shops), { memo: true }));
  const offset = after ? 0 : request.page * request.per_page;
  const limit = offset + request.per_page;
  const deep = offset >= START_FROM_COUNTS;

  for (let tries = 1; ; tries++) {
    let seek = classes.map(() => false);
    let start: Start | undefined;
    let version: string | undefined;
    if (dialect === "sqlite" || deep) {
      // The counts (remembered per data version) choose each class's path, tell a page past the
      // end, and place a deep page's start. A path decides only the speed; a start decides the
      // answer, so it is used only when the page reads the same data version.
      const placing = deep && tries <= START_TRIES;
      const [v, counted, started] = await read([VERSION_STATEMENT, count, ...(placing ? [statement(startStatement(db, classes, offset))] : [])]);
      version = versionOf(v);
      const perClass = classCounts(counted, classes.length);
      const total = perClass.reduce((sum, c) => sum + c.m, 0);
      if (offset >= total) return { result: { items: [], totalElements: total, totalPages: Math.ceil(total / request.per_page) } };
      seek = perClass.map(({ m, all }) => dialect === "sqlite" && (m === 0 || (limit * all) / m > m * WALK_COST_RATIO));
      const row = (started as Row[] | undefined)?.[0];
      if (row && perClass.every(({ m, all }) => m === all)) start = { day: Number(row.answer_day), before: Number(row.before) };
    }
    const page = { ...statement(pageStatement(db, dialect, classes, shops, request, seek, start, after)), ...(dialect === "postgres" ? { carriesVersion: true as const } : {}) };
    const [v, counted, entries] = await read([VERSION_STATEMENT, count, page]);
    // An import committed in between: the start may have moved, so place the page again.
    if (start && versionOf(v) !== version) continue;
    const totalElements = classCounts(counted, classes.length).reduce((sum, c) => sum + c.m, 0);
    const rows = entries as Row[];
    const tail = rows.at(-1);
    const last = tail && { answerDay: Number(tail.answer_day), kind: tail.kind as RecordKind, recordId: Number(tail.record_id) };
    return { result: { items: await itemsOf(read, db, dialect, rows, dayNumber(request.as_of)!), totalElements, totalPages: Math.ceil(totalElements / request.per_page) }, last };
  }
}

function classCounts(result: ReadResult | undefined, n: number): { m: number; all: number }[] {
  const out = Array.from({ length: n }, () => ({ m: 0, all: 0 }));
  for (const row of (result as Row[] | undefined) ?? []) out[Number(row.c)] = { m: Number(row.m), all: Number(row.n_all) };
  return out;
}

/**
 * The records of a page's entries. Records never change once imported, so reading them after the
 * page's snapshot returns exactly the records that snapshot held.
 */
async function itemsOf(read: Db["read"], db: Kysely<Database>, dialect: Dialect, entries: readonly Row[], today: number): Promise<WorklistItem[]> {
  if (entries.length === 0) return [];
  const ids: Record<RecordKind, number[]> = { chargeback: [], pre_arbitration: [] };
  for (const entry of entries) ids[entry.kind as RecordKind].push(Number(entry.record_id));
  const kinds = (Object.keys(ids) as RecordKind[]).filter((kind) => ids[kind].length > 0);
  const byId = (kind: RecordKind) =>
    statement(
      sql`select * from ${sql.table(RECORD_TABLES[kind])} where ${inList(dialect, sql`id`, ids[kind], "bigint")}`.compile(db),
    );
  const results = await read(kinds.map(byId));
  const records = new Map<string, Row>();
  kinds.forEach((kind, i) => {
    for (const row of results[i] as Row[]) records.set(`${kind}:${Number(row.id)}`, row);
  });
  return entries.map((entry) => {
    const kind = entry.kind as RecordKind;
    const [answerDay, expiryDay] = [Number(entry.answer_day), Number(entry.expiry_day)];
    return { kind, answerBy: dateOfDay(answerDay), expiresOn: dateOfDay(expiryDay), status: statusOn(today, answerDay, expiryDay), record: records.get(`${kind}:${Number(entry.record_id)}`)! };
  });
}
