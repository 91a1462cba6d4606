import { type Migration, sql } from "kysely";
import type { Dialect } from "../connection/dialect";
import { columnTypes } from "./frozen";

/**
 * The shop directory (docs/api.md, "Shop directory"): per shop code with records, the merchant
 * and the parent merchant its records name, kept by the import in the records' transaction
 * (lib/data/aggregates/shop-directory.ts). Each half remembers the file it came from, (file date, file id),
 * so that only a later file replaces it: the merchant from a file of either kind, the parent from
 * chargeback files only (pre-arbitration records have no parent fields).
 *
 * A database that already holds records gets the directory from one grouped statement per kind,
 * kept as its text: per shop its latest file date (the shop and file date index), then the
 * highest id of that shop and date, which is its last record of the latest file imported on
 * that date (within a kind, ids run in import order, files in the order they were imported).
 */
export function migration013(dialect: Dialect): Migration {
  const { text, bigint } = columnTypes(dialect);
  return {
    async up(db) {
      await db.schema
        .createTable("shop_directory")
        .addColumn("shop_code", text, (c) => c.primaryKey())
        .addColumn("merchant_id", text, (c) => c.notNull())
        .addColumn("merchant_name", text)
        .addColumn("merchant_file_date", text, (c) => c.notNull())
        .addColumn("merchant_file_id", bigint, (c) => c.notNull())
        .addColumn("parent_merchant_id", text)
        .addColumn("parent_merchant_name", text)
        .addColumn("parent_file_date", text)
        .addColumn("parent_file_id", bigint)
        .execute();
      await sql.raw(CHARGEBACKS_013).execute(db);
      await sql.raw(PRE_ARBITRATIONS_013).execute(db);
    },
  };
}

/** Each shop's last record of its latest file of a kind: the latest file date, then the highest id on it. */
const lastRecords013 = (table: string) => `(select l.shop_code,
        (select max(r.id) from "${table}" r where r.shop_code = l.shop_code and r.file_date = l.file_date) as id
      from (select shop_code, max(file_date) as file_date from "${table}" group by shop_code) as l) as last
    join "${table}" as rec on rec.id = last.id`;

/** Into the empty table: both halves from the chargebacks. */
const CHARGEBACKS_013 = `insert into "shop_directory" ("shop_code", "merchant_id", "merchant_name", "merchant_file_date", "merchant_file_id",
      "parent_merchant_id", "parent_merchant_name", "parent_file_date", "parent_file_id")
    select rec.shop_code, rec.merchant_id, rec.merchant_name, rec.file_date, rec.file_id, rec.parent_mrch_id, rec.parent_mrch_name, rec.file_date, rec.file_id
    from ${lastRecords013("chargebacks")}`;

/** The merchant half from the cases, where their file is later than the chargebacks' (or the shop has none). */
const PRE_ARBITRATIONS_013 = `insert into "shop_directory" ("shop_code", "merchant_id", "merchant_name", "merchant_file_date", "merchant_file_id")
    select rec.shop_code, rec.merchant_id, rec.merchant_name, rec.file_date, rec.file_id
    from ${lastRecords013("pre_arbitrations")}
    where true
    on conflict ("shop_code") do update set "merchant_id" = excluded."merchant_id", "merchant_name" = excluded."merchant_name",
      "merchant_file_date" = excluded."merchant_file_date", "merchant_file_id" = excluded."merchant_file_id"
    where (excluded."merchant_file_date", excluded."merchant_file_id") > ("shop_directory"."merchant_file_date", "shop_directory"."merchant_file_id")`;
