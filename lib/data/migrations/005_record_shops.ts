import { type Migration, sql } from "kysely";
import type { Dialect } from "../connection/dialect";
import { columnTypes } from "./frozen";

/**
 * Per kind and shop, all its records: a scope without dates is one look-up per shop, and a scope
 * that covers every shop there is can skip testing the shop of each entry it walks.
 */
export function migration005(dialect: Dialect): Migration {
  const { text, bigint } = columnTypes(dialect);
  return {
    async up(db) {
      await db.schema
        .createTable("record_shops")
        .addColumn("kind", text, (c) => c.notNull())
        .addColumn("shop_code", text, (c) => c.notNull())
        .addColumn("n", bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint("pk_record_shops", ["kind", "shop_code"])
        .execute();
      await sql`insert into record_shops (kind, shop_code, n) select kind, shop_code, sum(n) from record_counts group by kind, shop_code`.execute(db);
    },
  };
}
