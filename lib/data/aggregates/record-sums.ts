import { type Kysely, type RawBuilder, sql } from "kysely";
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

/** Text that compares bytewise on both backends (PostgreSQL: collation "C", like every text column). */
export const bytewise = (dialect: Dialect, expr: RawBuilder<unknown>): RawBuilder<string> =>
  dialect === "postgres" ? sql<string>`${expr} collate "C"` : (expr as RawBuilder<string>);

const MONTH = sql`substr(file_date, 1, 7)`;
const SUMS = sql`sum(n) as n, sum(reversals) as reversals, sum(amount) as amount, sum(reversal_amount) as reversal_amount`;
const ALL = sql`n, reversals, amount, reversal_amount`;

/** Adds to the sums already stored under the same key (a second file of the same date). */
const ADD = sql`on conflict (kind, dim, grain, period, shop_code, value, ccy) do update set
  n = record_sums.n + excluded.n, reversals = record_sums.reversals + excluded.reversals,
  amount = record_sums.amount + excluded.amount, reversal_amount = record_sums.reversal_amount + excluded.reversal_amount`;

/**
 * The statement that adds records to record_sums: the records with ids in [first, last] (one
 * imported file, so one file date), or every record of the kind (a rebuild). Each record counts
 * once per dimension ("" too) by day and by month, for its shop and for shop "".
 * `newDay`: nothing is stored under the file's date yet, so its day rows are new (its month's
 * rows may exist: they are added to).
 */
export function sumsInsert(dialect: Dialect, kind: RecordKind, file?: { first: number; last: number; newDay: boolean }, only?: readonly string[]): RawBuilder<unknown> {
  const table = sql.table(RECORD_TABLES[kind]);
  const money = recordMoney(kind);
  const ccy = sql.ref(MONEY[kind].ccy);
  const range = file ? sql`where id between ${file.first} and ${file.last}` : sql``;
  const text = (d: Dimension) => sql`cast(${d.expression ? sql.raw(d.expression) : sql.ref(d.column)} as text)`;
  const byName = new Map(valueDimensions(kind));
  const dims: [string, RawBuilder<unknown>][] = [
    ["", bytewise(dialect, sql`''`)] as [string, RawBuilder<unknown>],
    ...valueDimensions(kind).map(([name, d]): [string, RawBuilder<unknown>] => [name, bytewise(dialect, text(d))]),
    ...STORED_PAIRS[kind].map((pair): [string, RawBuilder<unknown>] => [
      pairName(pair),
      bytewise(dialect, sql`(${text(byName.get(pair[0])!)} || ${SEPARATOR[dialect]} || ${text(byName.get(pair[1])!)})`),
    ]),
  ].filter(([name]) => !only || only.includes(name));
  const perDim = dims.map(
    ([name, value]) => sql`select ${sql.lit(name)} as dim, file_date, shop_code, ${value} as value, ${ccy} as ccy,
      count(*) as n, sum(${money.reversals}) as reversals, sum(${money.amount}) as amount, sum(${money.reversalAmount}) as reversal_amount
      from ${table} ${range} group by file_date, shop_code, ${value}, ${ccy}`,
  );
  const k = sql.lit(kind);
  // One file has one file date: its month rows are its day rows, without grouping again.
  const months = !file
    ? sql`select ${k}, dim, 'month', ${MONTH}, shop_code, value, ccy, ${SUMS} from g group by dim, shop_code, ${MONTH}, value, ccy
      union all select ${k}, dim, 'month', ${MONTH}, '', value, ccy, ${SUMS} from a group by dim, ${MONTH}, value, ccy`
    : sql`select ${k}, dim, 'month', ${MONTH}, shop_code, value, ccy, ${ALL} from g
      union all select ${k}, dim, 'month', ${MONTH}, '', value, ccy, ${ALL} from a`;
  const days = sql`select ${k} as kind, dim, 'day' as grain, file_date as period, shop_code, value, ccy, ${ALL} from g
      union all select ${k}, dim, 'day', file_date, '', value, ccy, ${ALL} from a`;
  const head = sql`with g as materialized (${sql.join(perDim, sql` union all `)}),
      a as materialized (select dim, file_date, value, ccy, ${SUMS} from g group by dim, file_date, value, ccy)`;
  const into = sql`insert into record_sums (kind, dim, grain, period, shop_code, value, ccy, n, reversals, amount, reversal_amount)`;
  // PostgreSQL: a new day's rows by a plain insert, a fifth cheaper than an upsert, beside the
  // month's upsert in the same statement (both read the same snapshot; their keys differ by grain).
  if (dialect === "postgres" && file?.newDay) {
    return sql`${head}, d as (${into} ${days})
      ${into} select * from (${months}) as s where true ${ADD}`;
  }
  // "where true" lets SQLite read the ON CONFLICT clause of an INSERT ... SELECT.
  return sql`${head}
    ${into} select * from (${days} union all ${months}) as s where true ${ADD}`;
}

/**
 * Adds one imported file's records (ids first..last, all of `fileDate`) to record_sums, its day's
 * rows and its month's; call it inside the import's transaction.
 */
export async function addFileToRecordSums(trx: Kysely<Database>, dialect: Dialect, kind: RecordKind, fileDate: string, first: number, last: number): Promise<void> {
  if (last < first) return;
  const { rows } = await sql`select 1 from record_sums where kind = ${kind} and dim = '' and grain = 'day' and period = ${fileDate} limit 1`.execute(trx);
  await sumsInsert(dialect, kind, { first, last, newDay: rows.length === 0 }).execute(trx);
}
