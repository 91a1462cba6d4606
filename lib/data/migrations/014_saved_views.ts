import { type Migration, sql } from "kysely";
import type { Dialect } from "../connection/dialect";
import { columnTypes, index } from "./frozen";

/**
 * Saved views (docs/api.md, "Saved views"): a dashboard user's named page addresses, in the main
 * database on SQLite too (not the disposable state file: they are the user's own work). A name is
 * unique per user regardless of letter case (name_key, the trimmed and lower-cased name); a user
 * has at most one default view per page; a user's views go with the user (on delete cascade).
 * Times are epoch milliseconds; ids are never reused (SQLite: autoincrement), so a stale page
 * cannot change a view made after its own was deleted.
 */
export function migration014(dialect: Dialect): Migration {
  const pg = dialect === "postgres";
  const { text, bigint, serial } = columnTypes(dialect);
  return {
    async up(db) {
      await db.schema
        .createTable("saved_views")
        .addColumn("id", serial, (c) => (pg ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn("user_id", bigint, (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("page", text, (c) => c.notNull())
        .addColumn("name", text, (c) => c.notNull())
        .addColumn("name_key", text, (c) => c.notNull())
        .addColumn("query", text, (c) => c.notNull())
        .addColumn("columns", text)
        .addColumn("is_default", sql`integer`, (c) => c.notNull())
        .addColumn("created_at", bigint, (c) => c.notNull())
        .addColumn("updated_at", bigint, (c) => c.notNull())
        .addUniqueConstraint("uq_saved_views_user_name", ["user_id", "name_key"])
        .execute();
      // A user's views in the list's order (page, then name regardless of case).
      await index(db, "ix_saved_views_user", "saved_views", "user_id, page, name_key");
      await sql`create unique index ux_saved_views_default on saved_views (user_id, page) where is_default = 1`.execute(db);
    },
  };
}
