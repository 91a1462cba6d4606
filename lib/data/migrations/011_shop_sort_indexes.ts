import type { Migration } from "kysely";
import type { Dialect } from "../connection/dialect";
import { columnTypes, index } from "./frozen";

/**
 * PostgreSQL: per shop, the records in each sort key's order that no index held yet (merchant,
 * reference number, order number; id and file date have theirs since 001/004), with the file date
 * for date bounds, so a page of a few shops takes the first entries of each shop's run
 * (lib/data/queries/pages-postgres.ts `perShopIds`). Not on SQLite, whose access path is chosen
 * differently. Measured: docs/performance.md, "Why the access paths are what they are".
 */
export function migration011(dialect: Dialect): Migration {
  const { nullsFirst } = columnTypes(dialect);
  return {
    async up(db) {
      if (dialect !== "postgres") return;
      for (const [table, short] of [
        ["chargebacks", "cb"],
        ["pre_arbitrations", "pa"],
      ]) {
        await index(db, `ix_${short}_shop_merchant_id`, table, "shop_code, merchant_id, id, file_date");
        await index(db, `ix_${short}_shop_acq_ref_nr`, table, "shop_code, acq_ref_nr, id, file_date");
        await index(db, `ix_${short}_shop_payment_order_nr`, table, `shop_code, payment_order_nr${nullsFirst}, id, file_date`);
      }
    },
  };
}
