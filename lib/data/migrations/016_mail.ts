import { type Migration, sql } from "kysely";
import type { Dialect } from "../connection/dialect";
import { columnTypes, index } from "./frozen";

/**
 * Mail to people (docs/mail.md): each dashboard user's settings (a user without a row has the
 * defaults), one row per digest period composed (the claim that keeps two servers from sending one
 * period twice, and the record marks the next digest counts new records from), and the messages,
 * stored before they are sent and claimed with a lease like webhook deliveries. A message keeps
 * its facts as JSON; the text is written when it is sent, so no unsubscribe token rests in the
 * database. `imported_files.first_record_id` tells where a file's records start (a user's first
 * digest counts the records of the files imported after the user was created). Times are epoch
 * milliseconds. Everything is in the main database on SQLite too: alerts are written in the
 * import's own transaction.
 */
export function migration016(dialect: Dialect): Migration {
  const pg = dialect === "postgres";
  const { text, bigint, serial } = columnTypes(dialect);
  return {
    async up(db) {
      await db.schema
        .createTable("mail_settings")
        .addColumn("user_id", bigint, (c) => c.primaryKey().references("users.id").onDelete("cascade"))
        .addColumn("digest", text, (c) => c.notNull())
        .addColumn("digest_at", text, (c) => c.notNull())
        .addColumn("zone", text, (c) => c.notNull())
        .addColumn("alerts", sql`integer`, (c) => c.notNull())
        .addColumn("updated_at", bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("mail_digests")
        .addColumn("user_id", bigint, (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("period_at", bigint, (c) => c.notNull())
        .addColumn("made_at", bigint, (c) => c.notNull())
        .addColumn("chargeback_mark", bigint, (c) => c.notNull())
        .addColumn("pre_arbitration_mark", bigint, (c) => c.notNull())
        .addColumn("message_id", bigint)
        .addPrimaryKeyConstraint("pk_mail_digests", ["user_id", "period_at"])
        .execute();
      await db.schema
        .createTable("mail_messages")
        .addColumn("id", serial, (c) => (pg ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn("user_id", bigint, (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("kind", text, (c) => c.notNull())
        .addColumn("facts", text, (c) => c.notNull())
        .addColumn("created_at", bigint, (c) => c.notNull())
        .addColumn("state", text, (c) => c.notNull())
        .addColumn("attempts", bigint, (c) => c.notNull())
        .addColumn("next_attempt_at", bigint, (c) => c.notNull())
        .addColumn("claimed_until", bigint)
        .addColumn("claim_token", text)
        .addColumn("last_error", text)
        .addColumn("sent_at", bigint)
        .execute();
      await sql`create index ix_mail_messages_due on mail_messages (next_attempt_at, id) where state in ('pending', 'retry')`.execute(db);
      await index(db, "ix_mail_messages_user", "mail_messages", "user_id, kind, state");
      await db.schema.alterTable("imported_files").addColumn("first_record_id", bigint).execute();
      for (const [kind, table] of [
        ["chargeback", "chargebacks"],
        ["pre_arbitration", "pre_arbitrations"],
      ] as const) {
        // One grouped pass per kind (the records' file_id is not indexed).
        await sql`update imported_files set first_record_id = f.first_id
          from (select file_id, min(id) as first_id from ${sql.raw(`"${table}"`)} group by file_id) f
          where imported_files.id = f.file_id and imported_files.kind = ${kind}`.execute(db);
      }
    },
  };
}
