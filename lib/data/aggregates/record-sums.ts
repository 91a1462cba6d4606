import { type Kysely, type RawBuilder, sql } from "kysely";
import { shiftMonth } from "@/lib/domain/calendar";
import type { RecordKind } from "@/lib/domain/fields";
import { type Dimension, SUMMARY_DIMENSIONS } from "@/lib/schemas/summary";
import type { Dialect } from "../connection/dialect";
import { type Database, RECORD_TABLES } from "../connection/schema";

/**
 * Totals per currency without reading records (migration 007). `record_sums` holds, per kind,
 * dimension, grain, period and shop, the records (`n`), the reversals and the exact sums in
 * minor units of each currency (`amount`: non-reversals, `reversal_amount`: reversals; a
 * pre-arbitration case is never a reversal):
 *
 * - `dim` is "" for the records as a whole, or a dimension of docs/api.md, "Summaries" other than the file date
 *   and the shop (a "value dimension"); `value` is then the record's value of it, as text. Pairs
 *   of them are stored too (STORED_PAIRS: every pair but those of the documents extension).
 * - `grain` "day" (`period` = file date) or "month" (`period` = "YYYY-MM"): every month with
 *   records has its month rows, the latest one too (since migration 017), so a file adds to its
 *   day's rows and to its month's. A file-date range is its whole months read by month and, for a
 *   month it covers in part, the days inside it, or the month less the days outside it when those
 *   are fewer (lib/data/queries/summary.ts).
 * - `grain` "total" (since migration 018; `period` = "YYYY-MM"): running totals, the sums of every
 *   record up to the end of that month. Dense: for every month from the kind's first month with
 *   records to its latest, gap months included, every key with a record up to then has its row,
 *   so "everything up to month X" is exactly the rows at X. A long range is then two sets of them
 *   (the one at its end less the one before its start) and days at the ends, rather than one set
 *   per month (docs/performance.md, "Running totals").
 * - `shop_code` "" holds every shop at once (no shop code is empty): a request whose scope covers
 *   every shop with records of the kind reads those rows, 1/shops of the rest.
 *
 * The import adds each file's rows in its own transaction (addFileToRecordSums), so the sums
 * always agree with the records and with record_counts.
 */

/** The dimensions of a kind that are a record value: stored in record_sums as `dim`. */
export function valueDimensions(kind: RecordKind): [string, Dimension][] {
  return (Object.entries(SUMMARY_DIMENSIONS[kind]) as [string, Dimension][]).filter(([, d]) => d.column !== "file_date" && d.column !== "shop_code");
}

/**
 * Pairs of value dimensions stored together (dim "a,b", value "<a>\x1f<b>"), so that a summary
 * grouped by both reads sums too: every pair of the value dimensions (merchant_id, card_type,
 * reason_code, function_code, documents; cases merchant_id and case_stage), so that any two of the
 * report's dimensions are read from sums. The first two, the overview's reasons per scheme and
 * its Mastercard counts per merchant, since migration 010; the report's others since 015; the
 * documents extension's since 017. Each pair costs the import one more GROUP BY of the file's
 * records (docs/performance.md, "The report's summaries").
 */
export const STORED_PAIRS: Record<RecordKind, readonly (readonly [string, string])[]> = {
  chargeback: [
    ["card_type", "reason_code"],
    ["merchant_id", "card_type"],
    ["merchant_id", "reason_code"],
    ["merchant_id", "function_code"],
    ["card_type", "function_code"],
    ["reason_code", "function_code"],
    ["merchant_id", "documents"],
    ["card_type", "documents"],
    ["reason_code", "documents"],
    ["function_code", "documents"],
  ],
  pre_arbitration: [["merchant_id", "case_stage"]],
};

/** The name under which a pair is stored as `dim`. */
export const pairName = (pair: readonly [string, string]) => pair.join(",");

/** The stored pair that holds exactly these two value dimensions (in either order), if any. */
export function storedPair(kind: RecordKind, names: readonly string[]): readonly [string, string] | undefined {
  return STORED_PAIRS[kind].find((pair) => names.length === 2 && names.includes(pair[0]) && names.includes(pair[1]));
}

/** The separator of a stored pair's two values (the unit separator, never in a value). */
const SEPARATOR = { sqlite: sql`char(31)`, postgres: sql`chr(31)` } as const;

/** The `index`th value (0 or 1) of a stored pair's `value`. */
export function pairPart(dialect: Dialect, index: 0 | 1): RawBuilder<string> {
  const sep = SEPARATOR[dialect];
  if (dialect === "postgres") return sql<string>`split_part(value, ${sep}, ${sql.lit(index + 1)})`;
  return index === 0 ? sql<string>`substr(value, 1, instr(value, ${sep}) - 1)` : sql<string>`substr(value, instr(value, ${sep}) + 1)`;
}

/** The currency column and the reversal test of each kind's records. */
export const MONEY = {
  chargeback: { ccy: "chb_ccy", amount: "chb_amount", reversal: sql<boolean>`rev_indicator = 'R'` },
  pre_arbitration: { ccy: "ccy", amount: "amount", reversal: undefined },
} as const satisfies Record<RecordKind, { ccy: string; amount: string; reversal: RawBuilder<boolean> | undefined }>;

/** (reversals, amount, reversal_amount) of one record, as SQL expressions over its row. */
export function recordMoney(kind: RecordKind): { reversals: RawBuilder<number>; amount: RawBuilder<number>; reversalAmount: RawBuilder<number> } {
  const { amount, reversal } = MONEY[kind];
  const value = sql.ref<number>(amount);
  if (!reversal) return { reversals: sql`0`, amount: value, reversalAmount: sql`0` };
  return {
    reversals: sql`case when ${reversal} then 1 else 0 end`,
    amount: sql`case when ${reversal} then 0 else ${value} end`,
    reversalAmount: sql`case when ${reversal} then ${value} else 0 end`,
  };
}

/**
 * A value dimension's stored `value` (or a stored pair's part of it) as a summary keys and orders
 * it: an integer dimension as a number, any other as text that compares bytewise.
 */
export function storedValueKey(dialect: Dialect, dimension: Dimension, value: RawBuilder<unknown>): RawBuilder<unknown> {
  return dimension.key === "integer" ? sql`cast(${value} as ${sql.raw(dialect === "postgres" ? "bigint" : "integer")})` : bytewise(dialect, value);
}

/** Text that compares bytewise on both backends (PostgreSQL: collation "C", like every text column). */
export const bytewise = (dialect: Dialect, expr: RawBuilder<unknown>): RawBuilder<string> =>
  dialect === "postgres" ? sql<string>`${expr} collate "C"` : (expr as RawBuilder<string>);

const MONTH = sql`substr(file_date, 1, 7)`;
const SUMS = sql`sum(n) as n, sum(reversals) as reversals, sum(amount) as amount, sum(reversal_amount) as reversal_amount`;
const ALL = sql`n, reversals, amount, reversal_amount`;
const COLUMNS = sql`kind, dim, grain, period, shop_code, value, ccy, n, reversals, amount, reversal_amount`;

/** Adds to the sums already stored under the same key (a second file of the same date). */
const ADD = sql`on conflict (kind, dim, grain, period, shop_code, value, ccy) do update set
  n = record_sums.n + excluded.n, reversals = record_sums.reversals + excluded.reversals,
  amount = record_sums.amount + excluded.amount, reversal_amount = record_sums.reversal_amount + excluded.reversal_amount`;

/** Every month ("month" and "total" grains) or day from `lo` to `hi` (text; nothing when either is null or lo > hi), as rows of one column `p`. */
export function periods(dialect: Dialect, grain: "day" | "month" | "total", lo: RawBuilder<unknown>, hi: RawBuilder<unknown>): RawBuilder<unknown> {
  const byDay = grain === "day";
  if (dialect === "postgres") {
    const [suffix, step, format] = byDay ? [sql``, "1 day", "YYYY-MM-DD"] : [sql`|| '-01'`, "1 month", "YYYY-MM"];
    return sql`select to_char(d, ${format}) as p from generate_series(cast(${lo} ${suffix} as date), cast(${hi} ${suffix} as date), cast(${step} as interval)) as d`;
  }
  const next = byDay ? sql`date(p, '+1 day')` : sql`strftime('%Y-%m', p || '-01', '+1 month')`;
  return sql`with recursive ps(p) as (select ${lo} where ${lo} <= ${hi} union all select ${next} from ps where p < ${hi}) select p from ps`;
}

/** Months given as rows of one column `p`. */
const monthRows = (months: readonly string[]) => sql.join(months.map((month) => sql`select cast(${month} as text) as p`), sql` union all `);

/** The stored dimensions of a kind ("" too), each with its value as an SQL expression over a record. */
function storedDims(dialect: Dialect, kind: RecordKind): [string, RawBuilder<unknown>][] {
  const text = (d: Dimension) => sql`cast(${d.expression ? sql.raw(d.expression) : sql.ref(d.column)} as text)`;
  const byName = new Map(valueDimensions(kind));
  return [
    ["", bytewise(dialect, sql`''`)] as [string, RawBuilder<unknown>],
    ...valueDimensions(kind).map(([name, d]): [string, RawBuilder<unknown>] => [name, bytewise(dialect, text(d))]),
    ...STORED_PAIRS[kind].map((pair): [string, RawBuilder<unknown>] => [
      pairName(pair),
      bytewise(dialect, sql`(${text(byName.get(pair[0])!)} || ${SEPARATOR[dialect]} || ${text(byName.get(pair[1])!)})`),
    ]),
  ];
}

/**
 * One imported file: its records are ids first..last; `newDay`: nothing is stored under its date
 * yet, so its day rows are new (its month's rows may exist: they are added to); `totals`: the
 * months whose running totals it adds to (its month and every later one up to the latest).
 */
export interface SumsFile {
  first: number;
  last: number;
  newDay: boolean;
  totals: readonly string[];
}

/**
 * The statement that adds records to record_sums: the records with ids in [first, last] (one
 * imported file, so one file date), or every record of the kind (a rebuild, into an empty
 * record_sums of the kind). Each record counts once per dimension ("" too) by day, by month and
 * in the running totals, for its shop and for shop "".
 */
export function sumsInsert(dialect: Dialect, kind: RecordKind, file?: SumsFile, only?: readonly string[]): RawBuilder<unknown> {
  const table = sql.table(RECORD_TABLES[kind]);
  const money = recordMoney(kind);
  const ccy = sql.ref(MONEY[kind].ccy);
  const range = file ? sql`where id between ${file.first} and ${file.last}` : sql``;
  const dims = storedDims(dialect, kind).filter(([name]) => !only || only.includes(name));
  const perDim = dims.map(
    ([name, value]) => sql`select ${sql.lit(name)} as dim, file_date, shop_code, ${value} as value, ${ccy} as ccy,
      count(*) as n, sum(${money.reversals}) as reversals, sum(${money.amount}) as amount, sum(${money.reversalAmount}) as reversal_amount
      from ${table} ${range} group by file_date, shop_code, ${value}, ${ccy}`,
  );
  const k = sql.lit(kind);
  // One file has one file date: its month rows are its day rows, without grouping again, and so
  // are its additions to the running totals of its month and the later ones.
  const months = !file
    ? sql`select ${k}, dim, 'month', ${MONTH}, shop_code, value, ccy, ${SUMS} from g group by dim, shop_code, ${MONTH}, value, ccy
      union all select ${k}, dim, 'month', ${MONTH}, '', value, ccy, ${SUMS} from a group by dim, ${MONTH}, value, ccy`
    : sql`select ${k}, dim, 'month', ${MONTH}, shop_code, value, ccy, ${ALL} from g
      union all select ${k}, dim, 'month', ${MONTH}, '', value, ccy, ${ALL} from a`;
  // A rebuild: the total at each month from the first to the last is the sum of the month rows
  // up to it (each month's rows read once per later month: fine for a rebuild, not for an import).
  const firstMonth = sql`(select min(${MONTH}) from ${table})`;
  const lastMonth = sql`(select max(${MONTH}) from ${table})`;
  const totals = !file
    ? sql`select ${k}, dim, 'total', m.p, shop_code, value, ccy, ${SUMS}
        from (select dim, shop_code, ${MONTH} as month, value, ccy, ${ALL} from g union all select dim, '', ${MONTH}, value, ccy, ${ALL} from a) as r
        join (${periods(dialect, "month", firstMonth, lastMonth)}) as m on r.month <= m.p
        group by m.p, dim, shop_code, value, ccy`
    : file.totals.length === 0
      ? undefined
      : sql`select ${k}, dim, 'total', m.p, shop_code, value, ccy, ${ALL} from g cross join (${monthRows(file.totals)}) as m
      union all select ${k}, dim, 'total', m.p, '', value, ccy, ${ALL} from a cross join (${monthRows(file.totals)}) as m`;
  const monthly = totals ? sql`${months} union all ${totals}` : months;
  const days = sql`select ${k} as kind, dim, 'day' as grain, file_date as period, shop_code, value, ccy, ${ALL} from g
      union all select ${k}, dim, 'day', file_date, '', value, ccy, ${ALL} from a`;
  const head = sql`with g as materialized (${sql.join(perDim, sql` union all `)}),
      a as materialized (select dim, file_date, value, ccy, ${SUMS} from g group by dim, file_date, value, ccy)`;
  const into = sql`insert into record_sums (${COLUMNS})`;
  // PostgreSQL: a new day's rows by a plain insert, a fifth cheaper than an upsert, beside the
  // month's and the totals' upsert in the same statement (all read the same snapshot; their keys
  // differ by grain or period).
  if (dialect === "postgres" && file?.newDay) {
    return sql`${head}, d as (${into} ${days})
      ${into} select * from (${monthly}) as s where true ${ADD}`;
  }
  // "where true" lets SQLite read the ON CONFLICT clause of an INSERT ... SELECT.
  return sql`${head}
    ${into} select * from (${days} union all ${monthly}) as s where true ${ADD}`;
}

/**
 * The running totals of month `latest` copied to each of `months` (all after it, none stored
 * yet): a file of a later month first carries everything up to then forward, gap months
 * included, so that the totals stay dense.
 */
export function carryTotals(dialect: Dialect, kind: RecordKind, latest: string, months: readonly string[]): RawBuilder<unknown> {
  // The dimensions named, so that each is a range of the primary key (kind, dim, grain, period, ...).
  const dims = storedDims(dialect, kind).map(([name]) => name);
  return sql`insert into record_sums (${COLUMNS})
    select kind, dim, grain, m.p, shop_code, value, ccy, ${ALL} from record_sums cross join (${monthRows(months)}) as m
    where kind = ${kind} and dim in (${sql.join(dims)}) and grain = 'total' and period = ${latest}`;
}

/**
 * Adds one imported file's records (ids first..last, all of `fileDate`) to record_sums, its day's
 * rows, its month's and the running totals from its month on; call it inside the import's
 * transaction. A file of a month after the latest total carries the totals forward first; a
 * back-dated one adds to every total from its month to the latest.
 */
export async function addFileToRecordSums(trx: Kysely<Database>, dialect: Dialect, kind: RecordKind, fileDate: string, first: number, last: number): Promise<void> {
  if (last < first) return;
  const { rows } = await sql<{ day: number | null; latest: string | null }>`select
      (select 1 from record_sums where kind = ${kind} and dim = '' and grain = 'day' and period = ${fileDate} limit 1) as day,
      (select max(period) from record_sums where kind = ${kind} and dim = '' and grain = 'total') as latest`.execute(trx);
  const { day, latest } = rows[0];
  const month = fileDate.slice(0, 7);
  const totals: string[] = [];
  if (latest !== null && latest < month) {
    const carried: string[] = [];
    for (let m = shiftMonth(latest, 1); m !== undefined && m <= month; m = shiftMonth(m, 1)) carried.push(m);
    await carryTotals(dialect, kind, latest, carried).execute(trx);
  }
  const end = latest !== null && latest > month ? latest : month;
  for (let m: string | undefined = month; m !== undefined && m <= end; m = shiftMonth(m, 1)) totals.push(m);
  await sumsInsert(dialect, kind, { first, last, newDay: day === null, totals }).execute(trx);
}
