import { type Migration, sql } from "kysely";
import type { Dialect } from "../connection/dialect";
import { columnTypes, index } from "./frozen";

/**
 * Scope and file date in every sort index (and an id index with both): a page that walks its sort
 * key's index tests them on each entry and never reads a record it will not return (lib/data/queries/pages-sqlite.ts).
 */
export function migration004(dialect: Dialect): Migration {
  const { nullsFirst } = columnTypes(dialect);
  return {
    async up(db) {
      for (const [table, short] of [
        ["chargebacks", "cb"],
        ["pre_arbitrations", "pa"],
      ] as const) {
        for (const [name, columns] of [
          ["shop", "shop_code, id, file_date"],
          ["merchant", "merchant_id, id, shop_code, file_date"],
          ["acq_ref", "acq_ref_nr, id, shop_code, file_date"],
          ["order", `payment_order_nr${nullsFirst}, id, shop_code, file_date`],
        ]) {
          await sql`drop index ${sql.id(`ix_${short}_${name}`)}`.execute(db);
          await index(db, `ix_${short}_${name}`, table, columns);
        }
        await index(db, `ix_${short}_id_scope`, table, "id, shop_code, file_date");
      }
      // Statistics for the new indexes, so the planner weighs them from the first query.
      await sql`analyze ${sql.raw(dialect === "postgres" ? "" : "main")}`.execute(db);
    },
  };
}
