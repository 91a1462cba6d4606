import type { Kysely, Migration } from "kysely";
import type { Dialect } from "../connection/dialect";
import { columnTypes, index } from "./frozen";

/** The records' columns as lib/domain/fields.ts declared them at 001: name, type, NOT NULL. */
type Column = readonly [name: string, type: "text" | "bigint", required?: true];

const CHARGEBACK_COLUMNS: readonly Column[] = [
  ["bank_id", "text", true],
  ["file_date", "text", true],
  ["card", "text", true],
  ["acq_ref_nr", "text", true],
  ["merchant_id", "text", true],
  ["merchant_name", "text"],
  ["reason_code", "bigint", true],
  ["parent_mrch_id", "text"],
  ["parent_mrch_name", "text"],
  ["mcc_code", "text"],
  ["eci_sli", "text"],
  ["doc_indicator", "text"],
  ["chb_proc_date", "text", true],
  ["comments", "text"],
  ["function_code", "bigint", true],
  ["function_code_name", "text"],
  ["rev_indicator", "text"],
  ["acq_bin", "text"],
  ["chb_refer_num", "text"],
  ["card_type", "text", true],
  ["chb_tr_date", "text"],
  ["chb_amount", "bigint", true],
  ["chb_ccy", "text", true],
  ["chb_settl_amount", "bigint"],
  ["chb_settl_ccy", "text"],
  ["chb_amount_transaction_ccy", "bigint"],
  ["tr_amount", "bigint"],
  ["tr_ccy", "text"],
  ["tr_date_time", "text"],
  ["rev_amount", "bigint"],
  ["rev_ccy", "text"],
  ["rev_date_time", "text"],
  ["payment_id", "text", true],
  ["xid", "text"],
  ["merchant_decision", "text"],
  ["merchant_resp_date", "text"],
  ["merchant_comments", "text"],
  ["merchant_iban_code", "text"],
  ["transaction_id", "text"],
  ["card_acceptor_id", "text"],
  ["payment_order_nr", "text"],
];

const PRE_ARBITRATION_COLUMNS: readonly Column[] = [
  ["bank_id", "text", true],
  ["file_date", "text", true],
  ["card", "text", true],
  ["acq_ref_nr", "text", true],
  ["merchant_id", "text", true],
  ["merchant_name", "text"],
  ["tr_date_time", "text"],
  ["amount", "bigint", true],
  ["ccy", "text", true],
  ["xid", "text"],
  ["transaction_id", "text"],
  ["card_acceptor_id", "text"],
  ["case_date", "text", true],
  ["case_stage", "text", true],
  ["fdl_comments", "text"],
  ["merchant_decision", "text"],
  ["payment_id", "text", true],
  ["payment_order_nr", "text"],
];

/**
 * Files, records, shops, users, sessions and nonces. Dates stay ISO text (chb_tr_date may be
 * 0000-00-00, which no SQL date type accepts), so they compare as dates on both backends.
 */
export function migration001(dialect: Dialect): Migration {
  const { text, bigint, serial, nullsFirst } = columnTypes(dialect);

  async function recordTable(db: Kysely<unknown>, table: string, columns: readonly Column[]) {
    let t = db.schema
      .createTable(table)
      .addColumn("id", bigint, (c) => c.primaryKey())
      .addColumn("shop_code", text, (c) => c.notNull())
      .addColumn("file_id", bigint, (c) => c.notNull().references("imported_files.id"));
    for (const [name, type, required] of columns) {
      t = t.addColumn(name, type === "bigint" ? bigint : text, (c) => (required ? c.notNull() : c));
    }
    await t.execute();
  }

  return {
    async up(db) {
      await db.schema
        .createTable("imported_files")
        .addColumn("id", serial, (c) => c.primaryKey())
        .addColumn("name", text, (c) => c.notNull().unique())
        .addColumn("sha256", text, (c) => c.notNull())
        .addColumn("kind", text, (c) => c.notNull())
        .addColumn("record_count", bigint, (c) => c.notNull())
        .addColumn("imported_at", bigint, (c) => c.notNull())
        .execute();
      await index(db, "ix_imported_files_sha256", "imported_files", "sha256");

      await recordTable(db, "chargebacks", CHARGEBACK_COLUMNS);
      await recordTable(db, "pre_arbitrations", PRE_ARBITRATION_COLUMNS);

      for (const [table, short] of [
        ["chargebacks", "cb"],
        ["pre_arbitrations", "pa"],
      ] as const) {
        // shop_code rides along at the end of each index so that counts under a scope are
        // answered from the index alone.
        await index(db, `ix_${short}_shop`, table, "shop_code, id");
        await index(db, `ix_${short}_shop_file_date`, table, "shop_code, file_date, id");
        await index(db, `ix_${short}_file_date`, table, "file_date, id, shop_code");
        await index(db, `ix_${short}_merchant`, table, "merchant_id, id, shop_code");
        await index(db, `ix_${short}_acq_ref`, table, "acq_ref_nr, id, shop_code");
        await index(db, `ix_${short}_order`, table, `payment_order_nr${nullsFirst}, id, shop_code`);
        await index(db, `ix_${short}_file`, table, "file_id");
      }
      await index(db, "ix_cb_parent", "chargebacks", "parent_mrch_id, id, shop_code");
      await index(db, "ix_cb_transaction", "chargebacks", "transaction_id, shop_code");
      await index(db, "ix_pa_payment", "pre_arbitrations", "payment_id, shop_code");

      await db.schema
        .createTable("shops")
        .addColumn("shop_code", text, (c) => c.primaryKey())
        .addColumn("password_enc", text, (c) => c.notNull())
        .addColumn("access_list", text, (c) => c.notNull())
        .addColumn("created_at", bigint, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("users")
        .addColumn("id", serial, (c) => c.primaryKey())
        .addColumn("email", text, (c) => c.notNull().unique())
        .addColumn("password_hash", text, (c) => c.notNull())
        .addColumn("access_list", text, (c) => c.notNull())
        .addColumn("created_at", bigint, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("sessions")
        .addColumn("token_hash", text, (c) => c.primaryKey())
        .addColumn("user_id", bigint, (c) => c.notNull().references("users.id"))
        .addColumn("created_at", bigint, (c) => c.notNull())
        .addColumn("expires_at", bigint, (c) => c.notNull())
        .execute();
      await index(db, "ix_sessions_expires", "sessions", "expires_at");

      await db.schema
        .createTable("used_nonces")
        .addColumn("shop_code", text, (c) => c.notNull())
        .addColumn("nonce", text, (c) => c.notNull())
        .addColumn("used_at", bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint("pk_used_nonces", ["shop_code", "nonce"])
        .execute();
      await index(db, "ix_used_nonces_used_at", "used_nonces", "used_at");
    },
  };
}
