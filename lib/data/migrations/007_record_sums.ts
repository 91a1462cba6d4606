import { type Migration, sql } from "kysely";
import type { Dialect } from "../connection/dialect";
import { columnTypes } from "./frozen";

/**
 * Totals per currency of the summaries (docs/api.md, "Summaries") without reading records: per
 * kind, dimension, day and month, shop and all shops at once (lib/data/aggregates/record-sums.ts). The period
 * comes before the shop in the key, so a file's sums are written in a few places rather than one
 * per shop. PostgreSQL keeps the sums in the key's index too (index-only reads).
 */
export function migration007(dialect: Dialect): Migration {
  const pg = dialect === "postgres";
  const { text, bigint } = columnTypes(dialect);
  return {
    async up(db) {
      const include = pg ? sql` include (n, reversals, amount, reversal_amount)` : sql``;
      await sql`create table record_sums (
          kind ${text} not null, dim ${text} not null, grain ${text} not null, shop_code ${text} not null,
          period ${text} not null, value ${text} not null, ccy ${text} not null,
          n ${bigint} not null, reversals ${bigint} not null, amount ${bigint} not null, reversal_amount ${bigint} not null,
          constraint pk_record_sums primary key (kind, dim, grain, period, shop_code, value, ccy)${include}
        )${pg ? sql`` : sql` without rowid`}`.execute(db);
      for (const statement of sumsOfEveryRecord007(dialect)) await sql.raw(statement).execute(db);
      await sql`analyze ${sql.raw(pg ? "record_sums" : "main.record_sums")}`.execute(db);
    },
  };
}

/**
 * The sums of every record there is, per kind: the statement lib/data/aggregates/record-sums.ts `sumsInsert`
 * wrote at 007 (each dimension of the time by day, and the closed months), kept as its text.
 */
function sumsOfEveryRecord007(dialect: Dialect): string[] {
  return [
    dialect === "postgres" ? `with g as materialized (select '' as dim, file_date, shop_code, '' collate "C" as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, '' collate "C", "chb_ccy" union all select 'merchant_id' as dim, file_date, shop_code, cast("merchant_id" as text) collate "C" as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, cast("merchant_id" as text) collate "C", "chb_ccy" union all select 'card_type' as dim, file_date, shop_code, cast("card_type" as text) collate "C" as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, cast("card_type" as text) collate "C", "chb_ccy" union all select 'reason_code' as dim, file_date, shop_code, cast("reason_code" as text) collate "C" as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, cast("reason_code" as text) collate "C", "chb_ccy" union all select 'function_code' as dim, file_date, shop_code, cast("function_code" as text) collate "C" as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, cast("function_code" as text) collate "C", "chb_ccy" union all select 'documents' as dim, file_date, shop_code, cast(case when doc_indicator = '1' then 'yes' else 'no' end as text) collate "C" as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, cast(case when doc_indicator = '1' then 'yes' else 'no' end as text) collate "C", "chb_ccy" union all select 'card_type,reason_code' as dim, file_date, shop_code, (cast("card_type" as text) || chr(31) || cast("reason_code" as text)) collate "C" as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, (cast("card_type" as text) || chr(31) || cast("reason_code" as text)) collate "C", "chb_ccy" union all select 'merchant_id,card_type' as dim, file_date, shop_code, (cast("merchant_id" as text) || chr(31) || cast("card_type" as text)) collate "C" as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, (cast("merchant_id" as text) || chr(31) || cast("card_type" as text)) collate "C", "chb_ccy"),
      a as materialized (select dim, file_date, value, ccy, sum(n) as n, sum(reversals) as reversals, sum(amount) as amount, sum(reversal_amount) as reversal_amount from g group by dim, file_date, value, ccy)
    insert into record_sums (kind, dim, grain, period, shop_code, value, ccy, n, reversals, amount, reversal_amount)
    select * from (
      select 'chargeback' as kind, dim, 'day' as grain, file_date as period, shop_code, value, ccy, n, reversals, amount, reversal_amount from g
      union all select 'chargeback', dim, 'day', file_date, '', value, ccy, n, reversals, amount, reversal_amount from a
      union all select 'chargeback', dim, 'month', substr(file_date, 1, 7), shop_code, value, ccy, sum(n) as n, sum(reversals) as reversals, sum(amount) as amount, sum(reversal_amount) as reversal_amount from g
        where substr(file_date, 1, 7) < (select substr(max(file_date), 1, 7) from "chargebacks") group by dim, shop_code, substr(file_date, 1, 7), value, ccy
      union all select 'chargeback', dim, 'month', substr(file_date, 1, 7), '', value, ccy, sum(n) as n, sum(reversals) as reversals, sum(amount) as amount, sum(reversal_amount) as reversal_amount from a
        where substr(file_date, 1, 7) < (select substr(max(file_date), 1, 7) from "chargebacks") group by dim, substr(file_date, 1, 7), value, ccy
    ) as s where true
    on conflict (kind, dim, grain, period, shop_code, value, ccy) do update set
  n = record_sums.n + excluded.n, reversals = record_sums.reversals + excluded.reversals,
  amount = record_sums.amount + excluded.amount, reversal_amount = record_sums.reversal_amount + excluded.reversal_amount` : `with g as materialized (select '' as dim, file_date, shop_code, '' as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, '', "chb_ccy" union all select 'merchant_id' as dim, file_date, shop_code, cast("merchant_id" as text) as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, cast("merchant_id" as text), "chb_ccy" union all select 'card_type' as dim, file_date, shop_code, cast("card_type" as text) as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, cast("card_type" as text), "chb_ccy" union all select 'reason_code' as dim, file_date, shop_code, cast("reason_code" as text) as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, cast("reason_code" as text), "chb_ccy" union all select 'function_code' as dim, file_date, shop_code, cast("function_code" as text) as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, cast("function_code" as text), "chb_ccy" union all select 'documents' as dim, file_date, shop_code, cast(case when doc_indicator = '1' then 'yes' else 'no' end as text) as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, cast(case when doc_indicator = '1' then 'yes' else 'no' end as text), "chb_ccy" union all select 'card_type,reason_code' as dim, file_date, shop_code, (cast("card_type" as text) || char(31) || cast("reason_code" as text)) as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, (cast("card_type" as text) || char(31) || cast("reason_code" as text)), "chb_ccy" union all select 'merchant_id,card_type' as dim, file_date, shop_code, (cast("merchant_id" as text) || char(31) || cast("card_type" as text)) as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, (cast("merchant_id" as text) || char(31) || cast("card_type" as text)), "chb_ccy"),
      a as materialized (select dim, file_date, value, ccy, sum(n) as n, sum(reversals) as reversals, sum(amount) as amount, sum(reversal_amount) as reversal_amount from g group by dim, file_date, value, ccy)
    insert into record_sums (kind, dim, grain, period, shop_code, value, ccy, n, reversals, amount, reversal_amount)
    select * from (
      select 'chargeback' as kind, dim, 'day' as grain, file_date as period, shop_code, value, ccy, n, reversals, amount, reversal_amount from g
      union all select 'chargeback', dim, 'day', file_date, '', value, ccy, n, reversals, amount, reversal_amount from a
      union all select 'chargeback', dim, 'month', substr(file_date, 1, 7), shop_code, value, ccy, sum(n) as n, sum(reversals) as reversals, sum(amount) as amount, sum(reversal_amount) as reversal_amount from g
        where substr(file_date, 1, 7) < (select substr(max(file_date), 1, 7) from "chargebacks") group by dim, shop_code, substr(file_date, 1, 7), value, ccy
      union all select 'chargeback', dim, 'month', substr(file_date, 1, 7), '', value, ccy, sum(n) as n, sum(reversals) as reversals, sum(amount) as amount, sum(reversal_amount) as reversal_amount from a
        where substr(file_date, 1, 7) < (select substr(max(file_date), 1, 7) from "chargebacks") group by dim, substr(file_date, 1, 7), value, ccy
    ) as s where true
    on conflict (kind, dim, grain, period, shop_code, value, ccy) do update set
  n = record_sums.n + excluded.n, reversals = record_sums.reversals + excluded.reversals,
  amount = record_sums.amount + excluded.amount, reversal_amount = record_sums.reversal_amount + excluded.reversal_amount`,
    dialect === "postgres" ? `with g as materialized (select '' as dim, file_date, shop_code, '' collate "C" as value, "ccy" as ccy,
      count(*) as n, sum(0) as reversals, sum("amount") as amount, sum(0) as reversal_amount
      from "pre_arbitrations"  group by file_date, shop_code, '' collate "C", "ccy" union all select 'merchant_id' as dim, file_date, shop_code, cast("merchant_id" as text) collate "C" as value, "ccy" as ccy,
      count(*) as n, sum(0) as reversals, sum("amount") as amount, sum(0) as reversal_amount
      from "pre_arbitrations"  group by file_date, shop_code, cast("merchant_id" as text) collate "C", "ccy" union all select 'case_stage' as dim, file_date, shop_code, cast("case_stage" as text) collate "C" as value, "ccy" as ccy,
      count(*) as n, sum(0) as reversals, sum("amount") as amount, sum(0) as reversal_amount
      from "pre_arbitrations"  group by file_date, shop_code, cast("case_stage" as text) collate "C", "ccy"),
      a as materialized (select dim, file_date, value, ccy, sum(n) as n, sum(reversals) as reversals, sum(amount) as amount, sum(reversal_amount) as reversal_amount from g group by dim, file_date, value, ccy)
    insert into record_sums (kind, dim, grain, period, shop_code, value, ccy, n, reversals, amount, reversal_amount)
    select * from (
      select 'pre_arbitration' as kind, dim, 'day' as grain, file_date as period, shop_code, value, ccy, n, reversals, amount, reversal_amount from g
      union all select 'pre_arbitration', dim, 'day', file_date, '', value, ccy, n, reversals, amount, reversal_amount from a
      union all select 'pre_arbitration', dim, 'month', substr(file_date, 1, 7), shop_code, value, ccy, sum(n) as n, sum(reversals) as reversals, sum(amount) as amount, sum(reversal_amount) as reversal_amount from g
        where substr(file_date, 1, 7) < (select substr(max(file_date), 1, 7) from "pre_arbitrations") group by dim, shop_code, substr(file_date, 1, 7), value, ccy
      union all select 'pre_arbitration', dim, 'month', substr(file_date, 1, 7), '', value, ccy, sum(n) as n, sum(reversals) as reversals, sum(amount) as amount, sum(reversal_amount) as reversal_amount from a
        where substr(file_date, 1, 7) < (select substr(max(file_date), 1, 7) from "pre_arbitrations") group by dim, substr(file_date, 1, 7), value, ccy
    ) as s where true
    on conflict (kind, dim, grain, period, shop_code, value, ccy) do update set
  n = record_sums.n + excluded.n, reversals = record_sums.reversals + excluded.reversals,
  amount = record_sums.amount + excluded.amount, reversal_amount = record_sums.reversal_amount + excluded.reversal_amount` : `with g as materialized (select '' as dim, file_date, shop_code, '' as value, "ccy" as ccy,
      count(*) as n, sum(0) as reversals, sum("amount") as amount, sum(0) as reversal_amount
      from "pre_arbitrations"  group by file_date, shop_code, '', "ccy" union all select 'merchant_id' as dim, file_date, shop_code, cast("merchant_id" as text) as value, "ccy" as ccy,
      count(*) as n, sum(0) as reversals, sum("amount") as amount, sum(0) as reversal_amount
      from "pre_arbitrations"  group by file_date, shop_code, cast("merchant_id" as text), "ccy" union all select 'case_stage' as dim, file_date, shop_code, cast("case_stage" as text) as value, "ccy" as ccy,
      count(*) as n, sum(0) as reversals, sum("amount") as amount, sum(0) as reversal_amount
      from "pre_arbitrations"  group by file_date, shop_code, cast("case_stage" as text), "ccy"),
      a as materialized (select dim, file_date, value, ccy, sum(n) as n, sum(reversals) as reversals, sum(amount) as amount, sum(reversal_amount) as reversal_amount from g group by dim, file_date, value, ccy)
    insert into record_sums (kind, dim, grain, period, shop_code, value, ccy, n, reversals, amount, reversal_amount)
    select * from (
      select 'pre_arbitration' as kind, dim, 'day' as grain, file_date as period, shop_code, value, ccy, n, reversals, amount, reversal_amount from g
      union all select 'pre_arbitration', dim, 'day', file_date, '', value, ccy, n, reversals, amount, reversal_amount from a
      union all select 'pre_arbitration', dim, 'month', substr(file_date, 1, 7), shop_code, value, ccy, sum(n) as n, sum(reversals) as reversals, sum(amount) as amount, sum(reversal_amount) as reversal_amount from g
        where substr(file_date, 1, 7) < (select substr(max(file_date), 1, 7) from "pre_arbitrations") group by dim, shop_code, substr(file_date, 1, 7), value, ccy
      union all select 'pre_arbitration', dim, 'month', substr(file_date, 1, 7), '', value, ccy, sum(n) as n, sum(reversals) as reversals, sum(amount) as amount, sum(reversal_amount) as reversal_amount from a
        where substr(file_date, 1, 7) < (select substr(max(file_date), 1, 7) from "pre_arbitrations") group by dim, substr(file_date, 1, 7), value, ccy
    ) as s where true
    on conflict (kind, dim, grain, period, shop_code, value, ccy) do update set
  n = record_sums.n + excluded.n, reversals = record_sums.reversals + excluded.reversals,
  amount = record_sums.amount + excluded.amount, reversal_amount = record_sums.reversal_amount + excluded.reversal_amount`,
  ];
}
