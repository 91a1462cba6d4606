import { type Migration, sql } from "kysely";
import type { Dialect } from "../connection/dialect";

/**
 * Month rows for every month, the latest too, and the documents extension's pairs
 * (lib/data/aggregates/record-sums.ts). Until now the month of a kind's latest file date (its "open" month)
 * had day rows only, added up into month rows when a file of a later month arrived; since this
 * migration each file adds to its month's rows as it adds to its day's, so a range is read by month
 * for every month it covers whole, and a month it covers in part may be read whole less the days
 * outside it (lib/data/queries/summary.ts). And the chargebacks' `documents` is paired with each other value
 * dimension (merchant_id, card_type, reason_code, function_code), so that a summary grouped by it
 * and one of those reads sums, not records. Both are built here for the records already there, as
 * the import now keeps them (docs/performance.md, "The report's summaries").
 */

/** The open month's month rows, added up from its day rows, for every kind and stored dimension. */
const OPEN_MONTHS = `insert into record_sums (kind, dim, grain, period, shop_code, value, ccy, n, reversals, amount, reversal_amount)
  select d.kind, d.dim, 'month', substr(d.period, 1, 7), d.shop_code, d.value, d.ccy, sum(d.n), sum(d.reversals), sum(d.amount), sum(d.reversal_amount)
  from record_sums d join (select kind, substr(max(period), 1, 7) as month from record_sums where dim = '' and grain = 'day' group by kind) o
    on d.kind = o.kind and d.grain = 'day' and d.period >= o.month || '-01' and d.period <= o.month || '-31'
  group by d.kind, d.dim, substr(d.period, 1, 7), d.shop_code, d.value, d.ccy`;

/**
 * The documents pairs' day and month rows of every chargeback: the statement lib/data/aggregates/record-sums.ts
 * `sumsInsert` wrote at 017 for these four pairs alone, kept as its text.
 */
const DOCUMENTS_PAIRS = {
  postgres: `with g as materialized (select 'merchant_id,documents' as dim, file_date, shop_code, (cast("merchant_id" as text) || chr(31) || cast(case when doc_indicator = '1' then 'yes' else 'no' end as text)) collate "C" as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, (cast("merchant_id" as text) || chr(31) || cast(case when doc_indicator = '1' then 'yes' else 'no' end as text)) collate "C", "chb_ccy" union all select 'card_type,documents' as dim, file_date, shop_code, (cast("card_type" as text) || chr(31) || cast(case when doc_indicator = '1' then 'yes' else 'no' end as text)) collate "C" as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, (cast("card_type" as text) || chr(31) || cast(case when doc_indicator = '1' then 'yes' else 'no' end as text)) collate "C", "chb_ccy" union all select 'reason_code,documents' as dim, file_date, shop_code, (cast("reason_code" as text) || chr(31) || cast(case when doc_indicator = '1' then 'yes' else 'no' end as text)) collate "C" as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, (cast("reason_code" as text) || chr(31) || cast(case when doc_indicator = '1' then 'yes' else 'no' end as text)) collate "C", "chb_ccy" union all select 'function_code,documents' as dim, file_date, shop_code, (cast("function_code" as text) || chr(31) || cast(case when doc_indicator = '1' then 'yes' else 'no' end as text)) collate "C" as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, (cast("function_code" as text) || chr(31) || cast(case when doc_indicator = '1' then 'yes' else 'no' end as text)) collate "C", "chb_ccy"),
      a as materialized (select dim, file_date, value, ccy, sum(n) as n, sum(reversals) as reversals, sum(amount) as amount, sum(reversal_amount) as reversal_amount from g group by dim, file_date, value, ccy)
    insert into record_sums (kind, dim, grain, period, shop_code, value, ccy, n, reversals, amount, reversal_amount) select * from (select 'chargeback' as kind, dim, 'day' as grain, file_date as period, shop_code, value, ccy, n, reversals, amount, reversal_amount from g
      union all select 'chargeback', dim, 'day', file_date, '', value, ccy, n, reversals, amount, reversal_amount from a union all select 'chargeback', dim, 'month', substr(file_date, 1, 7), shop_code, value, ccy, sum(n) as n, sum(reversals) as reversals, sum(amount) as amount, sum(reversal_amount) as reversal_amount from g group by dim, shop_code, substr(file_date, 1, 7), value, ccy
      union all select 'chargeback', dim, 'month', substr(file_date, 1, 7), '', value, ccy, sum(n) as n, sum(reversals) as reversals, sum(amount) as amount, sum(reversal_amount) as reversal_amount from a group by dim, substr(file_date, 1, 7), value, ccy) as s where true on conflict (kind, dim, grain, period, shop_code, value, ccy) do update set
  n = record_sums.n + excluded.n, reversals = record_sums.reversals + excluded.reversals,
  amount = record_sums.amount + excluded.amount, reversal_amount = record_sums.reversal_amount + excluded.reversal_amount`,
  sqlite: `with g as materialized (select 'merchant_id,documents' as dim, file_date, shop_code, (cast("merchant_id" as text) || char(31) || cast(case when doc_indicator = '1' then 'yes' else 'no' end as text)) as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, (cast("merchant_id" as text) || char(31) || cast(case when doc_indicator = '1' then 'yes' else 'no' end as text)), "chb_ccy" union all select 'card_type,documents' as dim, file_date, shop_code, (cast("card_type" as text) || char(31) || cast(case when doc_indicator = '1' then 'yes' else 'no' end as text)) as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, (cast("card_type" as text) || char(31) || cast(case when doc_indicator = '1' then 'yes' else 'no' end as text)), "chb_ccy" union all select 'reason_code,documents' as dim, file_date, shop_code, (cast("reason_code" as text) || char(31) || cast(case when doc_indicator = '1' then 'yes' else 'no' end as text)) as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, (cast("reason_code" as text) || char(31) || cast(case when doc_indicator = '1' then 'yes' else 'no' end as text)), "chb_ccy" union all select 'function_code,documents' as dim, file_date, shop_code, (cast("function_code" as text) || char(31) || cast(case when doc_indicator = '1' then 'yes' else 'no' end as text)) as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, (cast("function_code" as text) || char(31) || cast(case when doc_indicator = '1' then 'yes' else 'no' end as text)), "chb_ccy"),
      a as materialized (select dim, file_date, value, ccy, sum(n) as n, sum(reversals) as reversals, sum(amount) as amount, sum(reversal_amount) as reversal_amount from g group by dim, file_date, value, ccy)
    insert into record_sums (kind, dim, grain, period, shop_code, value, ccy, n, reversals, amount, reversal_amount) select * from (select 'chargeback' as kind, dim, 'day' as grain, file_date as period, shop_code, value, ccy, n, reversals, amount, reversal_amount from g
      union all select 'chargeback', dim, 'day', file_date, '', value, ccy, n, reversals, amount, reversal_amount from a union all select 'chargeback', dim, 'month', substr(file_date, 1, 7), shop_code, value, ccy, sum(n) as n, sum(reversals) as reversals, sum(amount) as amount, sum(reversal_amount) as reversal_amount from g group by dim, shop_code, substr(file_date, 1, 7), value, ccy
      union all select 'chargeback', dim, 'month', substr(file_date, 1, 7), '', value, ccy, sum(n) as n, sum(reversals) as reversals, sum(amount) as amount, sum(reversal_amount) as reversal_amount from a group by dim, substr(file_date, 1, 7), value, ccy) as s where true on conflict (kind, dim, grain, period, shop_code, value, ccy) do update set
  n = record_sums.n + excluded.n, reversals = record_sums.reversals + excluded.reversals,
  amount = record_sums.amount + excluded.amount, reversal_amount = record_sums.reversal_amount + excluded.reversal_amount`,
} as const;

export function migration017(dialect: Dialect): Migration {
  const pg = dialect === "postgres";
  return {
    async up(db) {
      // First the open month of the dimensions there are, then the new pairs with all their months.
      await sql.raw(OPEN_MONTHS).execute(db);
      await sql.raw(DOCUMENTS_PAIRS[dialect]).execute(db);
      await sql`analyze ${sql.raw(pg ? "record_sums" : "main.record_sums")}`.execute(db);
    },
  };
}
