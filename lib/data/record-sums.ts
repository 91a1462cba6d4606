import { type Kysely, type RawBuilder, sql } from "kysely";
import type { RecordKind } from "@/lib/domain/fields";
import { type Dimension, SUMMARY_DIMENSIONS } from "@/lib/schemas/summary";
import type { Dialect } from "./migrations";
import { type Database, RECORD_TABLES } from "./schema";

/**
 * Totals per currency without reading records (migration 007). `record_sums` holds, per kind,
 * dimension, grain, shop and period, the records (`n`), the reversals and the exact sums in
 * minor units of each currency (`amount`: non-reversals, `reversal_amount`: reversals; a
 * pre-arbitration case is never a reversal):
 *
 * - `dim` is "" for the records as a whole, or a dimension of CONTRACT 9 other than the file date
 *   and the shop (a "value dimension"); `value` is then the record's value of it, as text.
 * - `grain` "day" (`period` = file date) or "month" (`period` = "YYYY-MM"): a file-date range is
 *   its whole months read by month plus the days at either end read by day.
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

/**
 * The statement that adds records to record_sums: the records with ids in [first, last] (one
 * imported file, so one file date), or every record of the kind (the migration). Each record
 * counts once per dimension ("" too), by day and by month, for its shop and for shop "".
 */
export function sumsInsert(dialect: Dialect, kind: RecordKind, ids?: { first: number; last: number }): RawBuilder<unknown> {
  const table = sql.table(RECORD_TABLES[kind]);
  const money = recordMoney(kind);
  const ccy = sql.ref(MONEY[kind].ccy);
  const range = ids ? sql`where id between ${ids.first} and ${ids.last}` : sql``;
  const dims: [string, RawBuilder<unknown>][] = [
    ["", bytewise(dialect, sql`''`)],
    ...valueDimensions(kind).map(([name, d]): [string, RawBuilder<unknown>] => [name, bytewise(dialect, sql`cast(${d.expression ? sql.raw(d.expression) : sql.ref(d.column)} as text)`)]),
  ];
  const perDim = dims.map(
    ([name, value]) => sql`select ${sql.lit(name)} as dim, file_date, shop_code, ${value} as value, ${ccy} as ccy,
      count(*) as n, sum(${money.reversals}) as reversals, sum(${money.amount}) as amount, sum(${money.reversalAmount}) as reversal_amount
      from ${table} ${range} group by file_date, shop_code, ${value}, ${ccy}`,
  );
  const k = sql.lit(kind);
  const month = sql`substr(file_date, 1, 7)`;
  const sums = sql`sum(n), sum(reversals), sum(amount), sum(reversal_amount)`;
  const all = sql`n, reversals, amount, reversal_amount`;
  // One file has one file date: its months are its days, without grouping again.
  const months = ids
    ? sql`select ${k}, dim, 'month', shop_code, ${month}, value, ccy, ${all} from g
      union all select ${k}, dim, 'month', '', ${month}, value, ccy, ${all} from a`
    : sql`select ${k}, dim, 'month', shop_code, ${month}, value, ccy, ${sums} from g group by dim, shop_code, ${month}, value, ccy
      union all select ${k}, dim, 'month', '', ${month}, value, ccy, ${sums} from a group by dim, ${month}, value, ccy`;
  // "where true" lets SQLite read the ON CONFLICT clause of an INSERT ... SELECT.
  return sql`with g as materialized (${sql.join(perDim, sql` union all `)}),
      a as materialized (select dim, file_date, value, ccy, sum(n) as n, sum(reversals) as reversals, sum(amount) as amount, sum(reversal_amount) as reversal_amount
        from g group by dim, file_date, value, ccy)
    insert into record_sums (kind, dim, grain, shop_code, period, value, ccy, n, reversals, amount, reversal_amount)
    select * from (
      select ${k} as kind, dim, 'day' as grain, shop_code, file_date as period, value, ccy, ${all} from g
      union all select ${k}, dim, 'day', '', file_date, value, ccy, ${all} from a
      union all ${months}
    ) as s where true
    on conflict (kind, dim, grain, period, shop_code, value, ccy) do update set
      n = record_sums.n + excluded.n, reversals = record_sums.reversals + excluded.reversals,
      amount = record_sums.amount + excluded.amount, reversal_amount = record_sums.reversal_amount + excluded.reversal_amount`;
}

/** Adds one imported file's records (ids first..last) to record_sums; call it inside the import's transaction. */
export async function addFileToRecordSums(trx: Kysely<Database>, dialect: Dialect, kind: RecordKind, first: number, last: number): Promise<void> {
  if (last < first) return;
  await sumsInsert(dialect, kind, { first, last }).execute(trx);
}
