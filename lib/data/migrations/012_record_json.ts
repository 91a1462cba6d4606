import { type Migration, sql } from "kysely";
import type { Dialect } from "../connection/dialect";

/**
 * PostgreSQL: each record's JSON as the API writes it, stored once when the record is imported
 * (lib/data/connection/record-json.ts), so that a page reads texts instead of writing them on every read
 * (docs/performance.md, "Why the access paths are what they are"). Its own table keeps the
 * records' table narrow. The records already there get theirs by the statement the import ran at
 * 012, kept as its text. No foreign key: the import writes both in one transaction, and records
 * are never deleted.
 */
export function migration012(dialect: Dialect): Migration {
  return {
    async up(db) {
      if (dialect !== "postgres") return;
      for (const [json, store] of [
        ["chargebacks_json", STORE_CHARGEBACK_JSON_012],
        ["pre_arbitrations_json", STORE_PRE_ARBITRATION_JSON_012],
      ]) {
        await sql`create table ${sql.id(json)} (record_id bigint primary key, json text not null)`.execute(db);
        await sql.raw(store).execute(db);
        await sql`analyze ${sql.id(json)}`.execute(db);
      }
    },
  };
}

const STORE_CHARGEBACK_JSON_012 = `insert into "chargebacks_json" (record_id, json)
    select id, row_to_json((select "r" from (select "bank_id" as "bank_id", "file_date" as "file_date", "card" as "card", "acq_ref_nr" as "acq_ref_nr", "merchant_id" as "merchant_id", "merchant_name" as "merchant_name", "reason_code" as "reason_code", "parent_mrch_id" as "parent_mrch_id", "parent_mrch_name" as "parent_mrch_name", "mcc_code" as "mcc_code", "eci_sli" as "eci_sli", case when "doc_indicator" in ('0', '1') then "doc_indicator"::json else to_json("doc_indicator") end as "doc_indicator", "chb_proc_date" as "chb_proc_date", "comments" as "comments", "function_code" as "function_code", "function_code_name" as "function_code_name", "rev_indicator" as "rev_indicator", "acq_bin" as "acq_bin", "chb_refer_num" as "chb_refer_num", "card_type" as "card_type", "chb_tr_date" as "chb_tr_date", ("chb_amount" * 0.01) as "chb_amount", "chb_ccy" as "chb_ccy", ("chb_settl_amount" * 0.01) as "chb_settl_amount", "chb_settl_ccy" as "chb_settl_ccy", ("chb_amount_transaction_ccy" * 0.01) as "chb_amount_transaction_ccy", ("tr_amount" * 0.01) as "tr_amount", "tr_ccy" as "tr_ccy", "tr_date_time" as "tr_date_time", ("rev_amount" * 0.01) as "rev_amount", "rev_ccy" as "rev_ccy", "rev_date_time" as "rev_date_time", "payment_id" as "payment_id", "xid" as "xid", "merchant_decision" as "merchant_decision", "merchant_resp_date" as "merchant_resp_date", "merchant_comments" as "merchant_comments", "merchant_iban_code" as "merchant_iban_code", "transaction_id" as "transaction_id", "card_acceptor_id" as "card_acceptor_id", "payment_order_nr" as "payment_order_nr") as "r"))::text from "chargebacks"  order by id`;

const STORE_PRE_ARBITRATION_JSON_012 = `insert into "pre_arbitrations_json" (record_id, json)
    select id, row_to_json((select "r" from (select "bank_id" as "bank_id", "file_date" as "file_date", "card" as "card", "acq_ref_nr" as "acq_ref_nr", "merchant_id" as "merchant_id", "merchant_name" as "merchant_name", "tr_date_time" as "tr_date_time", ("amount" * 0.01) as "amount", "ccy" as "ccy", "xid" as "xid", "transaction_id" as "transaction_id", "card_acceptor_id" as "card_acceptor_id", "case_date" as "case_date", "case_stage" as "case_stage", "fdl_comments" as "fdl_comments", "merchant_decision" as "merchant_decision", "payment_id" as "payment_id", "payment_order_nr" as "payment_order_nr") as "r"))::text from "pre_arbitrations"  order by id`;
