import { type Migration, sql } from "kysely";
import type { Dialect } from "../connection/dialect";
import { columnTypes, index } from "./frozen";

/**
 * Webhooks (docs/api.md, "Webhooks"; lib/webhooks): endpoints, one row per event and endpoint (the
 * delivery, written by the import in the records' transaction, so in the main database on SQLite
 * too), and every attempt made. Times are epoch milliseconds.
 */
export function migration009(dialect: Dialect): Migration {
  const { text, bigint, serial } = columnTypes(dialect);
  return {
    async up(db) {
      await db.schema
        .createTable("webhook_endpoints")
        .addColumn("id", text, (c) => c.primaryKey())
        .addColumn("shop_code", text, (c) => c.notNull())
        .addColumn("url", text, (c) => c.notNull())
        .addColumn("secret_enc", text, (c) => c.notNull())
        .addColumn("created_at", bigint, (c) => c.notNull())
        .addColumn("removed_at", bigint)
        .execute();
      await db.schema
        .createTable("webhook_deliveries")
        .addColumn("id", serial, (c) => c.primaryKey())
        .addColumn("event_id", text, (c) => c.notNull().unique())
        .addColumn("endpoint_id", text, (c) => c.notNull().references("webhook_endpoints.id"))
        .addColumn("type", text, (c) => c.notNull())
        .addColumn("body", text, (c) => c.notNull())
        .addColumn("created_at", bigint, (c) => c.notNull())
        .addColumn("state", text, (c) => c.notNull())
        .addColumn("attempts", bigint, (c) => c.notNull())
        .addColumn("next_attempt_at", bigint, (c) => c.notNull())
        .addColumn("claimed_until", bigint)
        .addColumn("claim_token", text)
        .execute();
      await sql`create index ix_webhook_deliveries_due on webhook_deliveries (next_attempt_at, id) where state = 'pending'`.execute(db);
      await index(db, "ix_webhook_deliveries_endpoint", "webhook_deliveries", "endpoint_id, state");
      await db.schema
        .createTable("webhook_attempts")
        .addColumn("delivery_id", bigint, (c) => c.notNull().references("webhook_deliveries.id"))
        .addColumn("attempt", bigint, (c) => c.notNull())
        .addColumn("endpoint_id", text, (c) => c.notNull())
        .addColumn("at", bigint, (c) => c.notNull())
        .addColumn("status", bigint)
        .addColumn("error", text)
        .addColumn("duration_ms", bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint("pk_webhook_attempts", ["delivery_id", "attempt"])
        .execute();
      await index(db, "ix_webhook_attempts_endpoint", "webhook_attempts", "endpoint_id, at");
    },
  };
}
