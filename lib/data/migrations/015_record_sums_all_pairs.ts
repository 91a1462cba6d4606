import { type Migration, sql } from "kysely";
import type { Dialect } from "../connection/dialect";

/**
 * The pairs of value dimensions stored since 015 (lib/data/aggregates/record-sums.ts STORED_PAIRS:
 * chargebacks' merchant_id,reason_code, merchant_id,function_code, card_type,function_code and
 * reason_code,function_code; cases' merchant_id,case_stage), for the records already there, by
 * the statement the import ran per file at 015 (for every record of the kind), kept as its text.
 * The pairs of 010 are left as they are. 014 is the saved views'.
 */
const CHARGEBACKS = {
  postgres: `with g as materialized (select 'merchant_id,reason_code' as dim, file_date, shop_code, (cast("merchant_id" as text) || chr(31) || cast("reason_code" as text)) collate "C" as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, (cast("merchant_id" as text) || chr(31) || cast("reason_code" as text)) collate "C", "chb_ccy" union all select 'merchant_id,function_code' as dim, file_date, shop_code, (cast("merchant_id" as text) || chr(31) || cast("function_code" as text)) collate "C" as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, (cast("merchant_id" as text) || chr(31) || cast("function_code" as text)) collate "C", "chb_ccy" union all select 'card_type,function_code' as dim, file_date, shop_code, (cast("card_type" as text) || chr(31) || cast("function_code" as text)) collate "C" as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, (cast("card_type" as text) || chr(31) || cast("function_code" as text)) collate "C", "chb_ccy" union all select 'reason_code,function_code' as dim, file_date, shop_code, (cast("reason_code" as text) || chr(31) || cast("function_code" as text)) collate "C" as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, (cast("reason_code" as text) || chr(31) || cast("function_code" as text)) collate "C", "chb_ccy"),
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
  sqlite: `with g as materialized (select 'merchant_id,reason_code' as dim, file_date, shop_code, (cast("merchant_id" as text) || char(31) || cast("reason_code" as text)) as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, (cast("merchant_id" as text) || char(31) || cast("reason_code" as text)), "chb_ccy" union all select 'merchant_id,function_code' as dim, file_date, shop_code, (cast("merchant_id" as text) || char(31) || cast("function_code" as text)) as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, (cast("merchant_id" as text) || char(31) || cast("function_code" as text)), "chb_ccy" union all select 'card_type,function_code' as dim, file_date, shop_code, (cast("card_type" as text) || char(31) || cast("function_code" as text)) as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, (cast("card_type" as text) || char(31) || cast("function_code" as text)), "chb_ccy" union all select 'reason_code,function_code' as dim, file_date, shop_code, (cast("reason_code" as text) || char(31) || cast("function_code" as text)) as value, "chb_ccy" as ccy,
      count(*) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals, sum(case when rev_indicator = 'R' then 0 else "chb_amount" end) as amount, sum(case when rev_indicator = 'R' then "chb_amount" else 0 end) as reversal_amount
      from "chargebacks"  group by file_date, shop_code, (cast("reason_code" as text) || char(31) || cast("function_code" as text)), "chb_ccy"),
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
} as const;

const CASES = {
  postgres: `with g as materialized (select 'merchant_id,case_stage' as dim, file_date, shop_code, (cast("merchant_id" as text) || chr(31) || cast("case_stage" as text)) collate "C" as value, "ccy" as ccy,
      count(*) as n, sum(0) as reversals, sum("amount") as amount, sum(0) as reversal_amount
      from "pre_arbitrations"  group by file_date, shop_code, (cast("merchant_id" as text) || chr(31) || cast("case_stage" as text)) collate "C", "ccy"),
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
  sqlite: `with g as materialized (select 'merchant_id,case_stage' as dim, file_date, shop_code, (cast("merchant_id" as text) || char(31) || cast("case_stage" as text)) as value, "ccy" as ccy,
      count(*) as n, sum(0) as reversals, sum("amount") as amount, sum(0) as reversal_amount
      from "pre_arbitrations"  group by file_date, shop_code, (cast("merchant_id" as text) || char(31) || cast("case_stage" as text)), "ccy"),
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
} as const;

export function migration015(dialect: Dialect): Migration {
  const pg = dialect === "postgres";
  return {
    async up(db) {
      await sql.raw(CHARGEBACKS[dialect]).execute(db);
      await sql.raw(CASES[dialect]).execute(db);
      await sql`analyze ${sql.raw(pg ? "record_sums" : "main.record_sums")}`.execute(db);
    },
  };
}
