import "server-only";
import { type CompiledQuery, type Kysely, type RawBuilder, type SelectQueryBuilder, sql } from "kysely";
import { addDays, daysBetween, lastDayOfMonth, shiftMonth, utcToday } from "@/lib/domain/calendar";
import type { RecordKind } from "@/lib/domain/fields";
import { type DimensionName, dimensionOf, MAX_GROUPS, type SummaryRequest } from "@/lib/schemas/summary";
import { getDb } from "../connection/db";
import type { Dialect } from "../connection/dialect";
import { filtered, type Selection, visibleShops } from "./selection";
import type { Row } from "../connection/read";
import { coversEveryShop } from "../aggregates/record-counts";
import { MONEY, pairName, pairPart, periods, recordMoney, storedPair, storedValueKey, valueDimensions } from "../aggregates/record-sums";
import { dayGroupsRead, fromDayGroups } from "../aggregates/day-groups";
import { groupedJson, perCurrency } from "../aggregates/summary-json";
import { type Database, RECORD_TABLES, type RecordTable } from "../connection/schema";
import { listRows } from "../connection/sql";

/**
 * The summaries (docs/api.md, "Summaries"): counts and exact sums per currency of a selection, grouped by up
 * to two dimensions, inside the caller's scope, aggregated by the database (GROUP BY). A request
 * that filters only by scope and file dates, and groups by at most one value dimension (or a
 * stored pair of them) besides the file date and the shop, is answered from record_sums (record-sums.ts); any other from the
 * records, with the search's own filter (selection.ts), so both count the same records.
 */

export type SummaryResult = { ok: true; json: string } | { ok: false; reason: "too many groups" };

/** Filters record_sums can answer. */
const SUMS_FILTERS = new Set(["shop_codes", "file_date_from", "file_date_to", "group_by"]);

/**
 * One part of a file-date range: months read by month, days read by day, or the running totals
 * of one month (`from` = `to`; both missing: the latest); bounds inclusive. `subtract`: rows taken
 * away (the days outside a range of a month read whole, everything before a range).
 */
export interface Piece {
  grain: "day" | "month" | "total";
  from?: string;
  to?: string;
  subtract?: boolean;
}

interface SumsPlan {
  /** "", the value dimension grouped by, or the stored pair of the two grouped by */
  dim: string;
  /** for a stored pair: its two dimensions, in the order of their values */
  pair?: readonly [string, string];
  /** the rows of shop "" (every shop) when the scope covers every shop with records */
  mayUseAllShops: boolean;
  pieces: Piece[];
}

function sumsPlan(kind: RecordKind, request: SummaryRequest): SumsPlan | undefined {
  if (!Object.keys(request).every((key) => SUMS_FILTERS.has(key))) return undefined;
  const stored = new Set(valueDimensions(kind).map(([name]) => name));
  const values = request.group_by.filter((name) => stored.has(name));
  const pair = values.length > 1 ? storedPair(kind, values) : undefined;
  if (values.length > 1 && !pair) return undefined;
  const { file_date_from: from, file_date_to: to } = request;
  return {
    dim: pair ? pairName(pair) : (values[0] ?? ""),
    pair,
    mayUseAllShops: !request.group_by.includes("shop_code"),
    pieces: rangePieces(from, to, request.group_by),
  };
}

/**
 * How a file-date range is read: day by day when grouped by file date; by month when grouped by
 * month (or when that reads less); otherwise by running totals when they read less than months.
 */
export function rangePieces(from: string | undefined, to: string | undefined, groupBy: readonly DimensionName[], today = utcToday()): Piece[] {
  if (groupBy.includes("file_date")) return [{ grain: "day", from, to }];
  const months = monthsAndDays(from, to);
  if (groupBy.includes("month")) return months;
  const totals = totalsAndDays(from, to);
  return readCost(totals, today) < readCost(months, today) ? totals : months;
}

/**
 * What a piece costs to read, in rows of one month of the same dimension and shops. Measured on
 * the one-million history (docs/performance.md, "Running totals"): a day holds 0.14 of a month's
 * rows (shop by reason code) to 0.30 (merchant by reason code, every shop), the running total at a
 * month 1.1 to 1.4 times a month (every key seen until then). So a year ending inside a month reads
 * 12 months and 10 days by month (14 here) but two totals and 10 days (5); for whole months the
 * totals win from four on. A missing bound: the history's start (taken as 100 years, more than
 * any history) or `today`'s month.
 */
const READ_COST = { month: 1, day: 0.2, total: 1.5 } as const;

function readCost(pieces: readonly Piece[], today: string): number {
  let cost = 0;
  for (const piece of pieces) {
    if (piece.grain === "total") cost += READ_COST.total;
    else if (piece.grain === "day") cost += READ_COST.day * (daysBetween(piece.from ?? "0001-01-01", piece.to ?? today) ?? 0) + READ_COST.day;
    else if (piece.from === undefined) cost += READ_COST.month * 1200;
    else cost += READ_COST.month * Math.max(1, monthsBetween(piece.from, piece.to ?? today.slice(0, 7)) + 1);
  }
  return cost;
}

const monthsBetween = (a: string, b: string) => (Number(b.slice(0, 4)) - Number(a.slice(0, 4))) * 12 + Number(b.slice(5, 7)) - Number(a.slice(5, 7));

/**
 * [from, to] (each bound optional) as the running totals up to `to` less those up to the day
 * before `from`. Everything up to day d is the total of d's month less the days after d in it, or
 * the total of the month before plus the days of d's month up to d, whichever reads fewer days.
 */
export function totalsAndDays(from?: string, to?: string): Piece[] {
  const upTo = (d: string, subtract: boolean): Piece[] => {
    const sign = (negative: boolean) => (negative ? { subtract: true } : {});
    const month = d.slice(0, 7);
    const end = lastDayOfMonth(month);
    const after = daysBetween(d, end)!;
    const before = shiftMonth(month, -1);
    if (after === 0) return [{ grain: "total", from: month, to: month, ...sign(subtract) }];
    if (after < Number(d.slice(8)) || before === undefined) {
      return [
        { grain: "total", from: month, to: month, ...sign(subtract) },
        { grain: "day", from: addDays(d, 1), to: end, ...sign(!subtract) },
      ];
    }
    return [
      { grain: "total", from: before, to: before, ...sign(subtract) },
      { grain: "day", from: `${month}-01`, to: d, ...sign(subtract) },
    ];
  };
  const pieces: Piece[] = to === undefined ? [{ grain: "total" }] : upTo(to, false);
  // Nothing is before year 1 (the first date there is).
  const before = from === undefined || from <= "0001-01-01" ? undefined : addDays(from, -1);
  if (before !== undefined) pieces.push(...upTo(before, true));
  return pieces;
}

/**
 * [from, to] (each bound optional) as its whole months read by month, and each month it covers in
 * part as the days inside the range, or as the whole month less the days outside it when those
 * are fewer (a year ending on the 25th reads its last month less five days, not 25 days).
 */
export function monthsAndDays(from?: string, to?: string): Piece[] {
  const fromMonth = from?.slice(0, 7);
  const toMonth = to?.slice(0, 7);
  // The first and last whole month; undefined at an open end, null when none is whole.
  const first = from === undefined ? undefined : from.endsWith("-01") ? fromMonth : (shiftMonth(fromMonth!, 1) ?? null);
  const last = to === undefined ? undefined : to === lastDayOfMonth(toMonth!) ? toMonth : (shiftMonth(toMonth!, -1) ?? null);
  const partial: [string, string][] = [];
  if (from !== undefined && to !== undefined && fromMonth === toMonth) {
    if (first !== fromMonth || last !== toMonth) partial.push([from, to]);
  } else {
    if (from !== undefined && first !== fromMonth) partial.push([from, lastDayOfMonth(fromMonth!)]);
    if (to !== undefined && last !== toMonth) partial.push([`${toMonth}-01`, to]);
  }
  const pieces: Piece[] = [];
  if (first !== null && last !== null && (first === undefined || last === undefined || first <= last)) pieces.push({ grain: "month", from: first, to: last });
  for (const [a, b] of partial) {
    const month = a.slice(0, 7);
    const start = `${month}-01`;
    const end = lastDayOfMonth(month);
    const inside = daysBetween(a, b)! + 1;
    if (daysBetween(start, end)! + 1 - inside >= inside) {
      pieces.push({ grain: "day", from: a, to: b });
      continue;
    }
    pieces.push({ grain: "month", from: month, to: month });
    if (a !== start) pieces.push({ grain: "day", from: start, to: addDays(a, -1), subtract: true });
    if (b !== end) pieces.push({ grain: "day", from: addDays(b, 1), to: end, subtract: true });
  }
  return pieces;
}

/** The rows (keys k0, k1; ccy, n, reversals, amount, reversal_amount) of record_sums that make up the selection. */
function sumsRows(dialect: Dialect, kind: RecordKind, request: SummaryRequest, plan: SumsPlan, shops: readonly string[]): RawBuilder<unknown> {
  const keys = request.group_by.map((name, i) => {
    const dim = dimensionOf(kind, name);
    const part = plan.pair?.indexOf(name);
    const value = part === 0 || part === 1 ? pairPart(dialect, part) : sql`value`;
    const expr =
      dim.key === "month"
        ? sql`substr(period, 1, 7)`
        : dim.key === "date"
          ? sql`period`
          : dim.column === "shop_code"
            ? sql`shop_code`
            : storedValueKey(dialect, dim, value);
    return sql`${expr} as ${sql.id(`k${i}`)}`;
  });
  // Three ways to a piece's rows, chosen inside the statement, so the choice and the rows read
  // the same snapshot: the rows of every shop at once ("") when the scope holds every shop with
  // records; a look-up per period and shop when it holds few of them; otherwise the period range,
  // keeping the scope's shops as it goes (on PostgreSQL a hash join; looking up 200 shops x 30
  // days costs 3 times more). PostgreSQL tests such a constant condition once; SQLite would test
  // one with a subquery on every row, so there the choice is a one-row table joined first.
  const set = listRows(dialect, shops);
  const covers = plan.mayUseAllShops ? coversEveryShop(dialect, kind, shops) : sql`1 = 0`;
  const few = sql`(select count(*) from record_shops where kind = ${kind}) >= ${FEW_SHOPS_FACTOR[dialect] * shops.length}`;
  const sqlite = dialect === "sqlite";
  const way = {
    every: sqlite ? sql`way.every_shop` : covers,
    few: sqlite ? sql`way.few_shops` : sql`not ${covers} and ${few}`,
    many: sqlite ? sql`way.many_shops` : sql`not ${covers} and not ${few}`,
  };
  const select = (grain: Piece["grain"], lo: RawBuilder<unknown>, hi: RawBuilder<unknown>, subtract = false) => {
    const sums = subtract ? sql`-n as n, -reversals as reversals, -amount as amount, -reversal_amount as reversal_amount` : sql`n, reversals, amount, reversal_amount`;
    const columns = sql.join([...keys, sql`ccy`, sums]);
    const from = sql`select ${columns} from ${sqlite ? sql`way cross join record_sums` : sql`record_sums`}
      where kind = ${kind} and dim = ${plan.dim} and grain = ${grain}`;
    const listed = oneOfRows(dialect, periods(dialect, grain, lo, hi));
    return sql`${from} and ${way.every} and shop_code = '' and period ${listed}
      union all ${from} and ${way.few} and period ${listed} and shop_code ${oneOfRows(dialect, sql`select code from ${set} as s`)}
      union all ${from} and ${way.many} and period >= ${lo} and period <= ${hi} and shop_code in (select code from ${set} as s)`;
  };
  const stored = (fn: "min" | "max", grain: Piece["grain"]) =>
    sql`(select ${sql.raw(fn)}(period) from record_sums where kind = ${kind} and dim = ${plan.dim} and grain = ${grain})`;
  const bound = (value: string | undefined, fallback: RawBuilder<unknown>) => (value === undefined ? fallback : sql`cast(${value} as text)`);
  // A month's running totals; past the latest month with totals, the latest (no later rows exist).
  const latest = stored("max", "total");
  const total = (month: string | undefined) => (month === undefined ? latest : sql`${sql.raw(sqlite ? "min" : "least")}(cast(${month} as text), ${latest})`);
  const parts = plan.pieces.map((piece) =>
    piece.grain === "total"
      ? select(piece.grain, total(piece.to), total(piece.to), piece.subtract)
      : select(piece.grain, bound(piece.from, stored("min", piece.grain)), bound(piece.to, stored("max", piece.grain)), piece.subtract),
  );
  if (!sqlite) return sql.join(parts, sql` union all `);
  return sql`with way as materialized (
      select every_shop, not every_shop and few as few_shops, not every_shop and not few as many_shops
      from (select ${covers} as every_shop, ${few} as few) as w
    ) ${sql.join(parts, sql` union all `)}`;
}

/**
 * A scope is "few" shops when all shops with records are at least this many times as many: a
 * look-up costs SQLite little, PostgreSQL (15) a descent of its index per period and shop.
 */
const FEW_SHOPS_FACTOR: Record<Dialect, number> = { sqlite: 1.5, postgres: 4 };

/** "in (rows)" as a look-up of each value: an array on PostgreSQL, which its index takes as one. */
const oneOfRows = (dialect: Dialect, rows: RawBuilder<unknown>) => (dialect === "postgres" ? sql`= any(array(${rows}))` : sql`in (${rows})`);

type Query = SelectQueryBuilder<Database, RecordTable, object>;

/** The selection's records as rows of the same shape, filtered exactly as the search filters them. */
function recordRows(dialect: Dialect, kind: RecordKind, request: SummaryRequest, shops: readonly string[]) {
  const { group_by, ...filters } = request;
  const selection: Selection = { ...filters, sortKey: "ID", sortOrder: "asc" };
  // Scope and dates alone: the planner may use the shop and date indexes (no hint against them).
  const path = Object.keys(filters).every((key) => SUMS_FILTERS.has(key)) ? "seek" : "planner";
  const money = recordMoney(kind);
  const keys = group_by.map((name, i) => {
    const dim = dimensionOf(kind, name);
    const expr = dim.key === "month" ? sql`substr(file_date, 1, 7)` : dim.expression ? sql.raw(dim.expression) : sql.ref(dim.column);
    return sql`${expr}`.as(`k${i}`);
  });
  return (db: Query) =>
    db
      .where(filtered(kind, selection, shops, path, dialect) as never)
      .select([
        ...keys,
        sql.ref(MONEY[kind].ccy).as("ccy"),
        sql`1`.as("n"),
        money.reversals.as("reversals"),
        money.amount.as("amount"),
        money.reversalAmount.as("reversal_amount"),
      ]);
}

/** The rows of record_sums or the records that make up a summary's selection, with keys k0, k1. */
function selectionRows(db: Kysely<Database>, dialect: Dialect, kind: RecordKind, request: SummaryRequest, shops: readonly string[]) {
  const plan = sumsPlan(kind, request);
  const rows = plan ? sumsRows(dialect, kind, request, plan, shops) : recordRows(dialect, kind, request, shops)(db.selectFrom(RECORD_TABLES[kind]) as unknown as Query);
  return { rows, counted: plan?.pieces.some((piece) => piece.subtract) ?? false };
}

/** The one statement of a summary, for the shops the request may see: its groups' JSON (`groupedJson`), for `writeSummary`. */
export function summaryQuery(db: Kysely<Database>, dialect: Dialect, kind: RecordKind, request: SummaryRequest, shops: readonly string[]): CompiledQuery {
  const { rows, counted } = selectionRows(db, dialect, kind, request, shops);
  return groupedJson(dialect, kind, request.group_by, rows, counted).compile(db);
}

/** Every group of a summary as rows (keys k0, k1, ccy, n, reversals, amount, reversal_amount), in key order; for internal callers. */
export function summaryRowsQuery(db: Kysely<Database>, dialect: Dialect, kind: RecordKind, request: SummaryRequest, shops: readonly string[]): CompiledQuery {
  const { rows, counted } = selectionRows(db, dialect, kind, request, shops);
  const keys = request.group_by.map((_, i) => sql.id(`k${i}`));
  const byKey = sql.join([...keys, sql`ccy`]);
  // The sums as exact integer text.
  const sums = sql`n, reversals, cast(amount as text) as amount, cast(reversal_amount as text) as reversal_amount`;
  return sql<Row>`select ${byKey}, ${sums} from (${perCurrency(rows, keys, counted)}) as c order by ${byKey}`.compile(db);
}

export async function summarize(kind: RecordKind, request: SummaryRequest, access: readonly string[]): Promise<SummaryResult> {
  const { db, dialect, read } = await getDb();
  const shops = visibleShops(request, access);
  // Grouped by the file date for every shop: each day's groups as the import wrote them (day-groups.ts).
  const days = dayGroupsRead(dialect, kind, request, shops)?.compile(db);
  if (days) {
    const [rows] = await read([{ sql: days.sql, parameters: days.parameters }]);
    const stored = fromDayGroups(rows as Row[]);
    if (stored) return stored.tooMany ? { ok: false, reason: "too many groups" } : { ok: true, json: summaryJson(stored.groups, stored.total) };
  }
  const query = summaryQuery(db, dialect, kind, request, shops);
  const [result] = await read([{ sql: query.sql, parameters: query.parameters }]);
  return writeSummary(kind, request.group_by, result as Row[]);
}

/** The response body around its groups' JSON texts. */
const summaryJson = (groups: readonly string[], total: number) => `{"groups":[${groups.join(",")}],"totalElements":${total}}`;

/** The response body around the groups the database wrote (`groupedJson`). */
export function writeSummary(kind: RecordKind, groupBy: readonly DimensionName[], rows: readonly Row[]): SummaryResult {
  if (rows.length > MAX_GROUPS) return { ok: false, reason: "too many groups" };
  let total = 0;
  const groups = rows.map((row) => {
    total += Number(row.n);
    return row.g as string;
  });
  // Without group_by there is one group even when nothing matches; with it, only groups with records.
  if (groupBy.length === 0 && groups.length === 0) groups.push(kind === "chargeback" ? `{"key":{},"count":0,"reversals":0,"amounts":[]}` : `{"key":{},"count":0,"amounts":[]}`);
  return { ok: true, json: summaryJson(groups, total) };
}
