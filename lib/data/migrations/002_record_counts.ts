import { type Migration, sql } from "kysely";
import type { Dialect } from "../connection/dialect";
import { columnTypes } from "./frozen";

/**
 * Exact totals without counting rows: most searches filter only by scope and file date, and this
 * summary answers those by adding a few numbers. The import keeps it in step in the rows' transaction.
 */
export function migration002(dialect: Dialect): Migration {
  const { text, bigint } = columnTypes(dialect);
  return {
    async up(db) {
      await db.schema
        .createTable("record_counts")
        .addColumn("kind", text, (c) => c.notNull())
        .addColumn("shop_code", text, (c) => c.notNull())
        .addColumn("file_date", text, (c) => c.notNull())
        .addColumn("n", bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint("pk_record_counts", ["kind", "shop_code", "file_date"])
        .execute();
      for (const [kind, table] of [
        ["chargeback", "chargebacks"],
        ["pre_arbitration", "pre_arbitrations"],
      ] as const) {
        await sql`insert into record_counts (kind, shop_code, file_date, n)
            select ${kind}, shop_code, file_date, count(*) from ${sql.table(table)} group by shop_code, file_date`.execute(db);
      }
    },
  };
}
