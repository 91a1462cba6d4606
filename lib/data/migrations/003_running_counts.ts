import { type Migration, sql } from "kysely";
import type { Dialect } from "../connection/dialect";
import { columnTypes, STATE_SESSIONS_003 } from "./frozen";

/**
 * Running totals per shop make any file-date range two look-ups per shop (lib/data/aggregates/record-counts.ts).
 * The import counts a file's records per shop itself, so the file_id indexes are dropped.
 */
export function migration003(dialect: Dialect): Migration {
  const { text, bigint } = columnTypes(dialect);
  return {
    async up(db) {
      await sql`drop table record_counts`.execute(db);
      await db.schema
        .createTable("record_counts")
        .addColumn("kind", text, (c) => c.notNull())
        .addColumn("shop_code", text, (c) => c.notNull())
        .addColumn("file_date", text, (c) => c.notNull())
        .addColumn("n", bigint, (c) => c.notNull())
        .addColumn("cum", bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint("pk_record_counts", ["kind", "shop_code", "file_date"])
        .execute();
      for (const [kind, table] of [
        ["chargeback", "chargebacks"],
        ["pre_arbitration", "pre_arbitrations"],
      ]) {
        await sql`insert into record_counts (kind, shop_code, file_date, n, cum)
            select ${kind}, shop_code, file_date, n, sum(n) over (partition by shop_code order by file_date)
            from (select shop_code, file_date, count(*) as n from ${sql.table(table)} group by shop_code, file_date) per_day`.execute(db);
      }
      await sql`drop index ix_cb_file`.execute(db);
      await sql`drop index ix_pa_file`.execute(db);
      if (dialect === "sqlite") {
        // A nonce on every signed request, a session at every sign-in: on SQLite in a database of
        // their own (attached as "state", lib/data/connection/db.ts), so an import's write lock never makes them wait.
        for (const statement of STATE_SESSIONS_003) await statement.execute(db);
        for (const table of ["used_nonces", "sessions"]) {
          await sql`insert or ignore into state.${sql.id(table)} select * from main.${sql.id(table)}`.execute(db);
          await sql`drop table main.${sql.id(table)}`.execute(db);
        }
      }
    },
  };
}
