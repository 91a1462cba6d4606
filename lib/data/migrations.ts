import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from "kysely";
import { CHARGEBACK_FIELDS, PRE_ARBITRATION_FIELDS, type FieldDef, type RecordKind } from "@/lib/domain/fields";
import { NULLABLE_SORT_COLUMNS, SORT_KEY_COLUMNS, SORT_KEYS } from "@/lib/schemas/search";
import { rebuildDisputes } from "./disputes";
import { pairName, STORED_PAIRS, sumsInsert } from "./record-sums";
import { storeRecordJson } from "./record-json";
import type { Dialect } from "./dialect";
import { type Database, RECORD_JSON_TABLES, RECORD_TABLES } from "./schema";

// Kept for lib/data/worklist.ts, which still imports it from here; everyone else imports ./dialect.

/**
 * Schema migrations for both backends. Strings compare bytewise everywhere: SQLite's default
 * BINARY collation does, and every text column on PostgreSQL is declared COLLATE "C".
 * Amounts are BIGINT minor units; dates stay ISO text (chb_tr_date may be 0000-00-00,
 * which no SQL date type accepts), so they compare as dates on both backends.
 */
function migrations(dialect: Dialect): Record<string, Migration> {
  const pg = dialect === "postgres";
  const text = pg ? sql`text collate "C"` : sql`text`;
  const bigint = pg ? sql`bigint` : sql`integer`;

  const columnType = (def: FieldDef) => (def.kind === "amount" || def.kind === "integer" ? bigint : text);

  async function recordTable(db: Kysely<unknown>, table: string, fields: readonly FieldDef[]) {
    let t = db.schema
      .createTable(table)
      .addColumn("id", bigint, (c) => c.primaryKey())
      .addColumn("shop_code", text, (c) => c.notNull())
      .addColumn("file_id", bigint, (c) => c.notNull().references("imported_files.id"));
    for (const def of fields) {
      t = t.addColumn(def.name, columnType(def), (c) => (def.required ? c.notNull() : c));
    }
    await t.execute();
  }

  async function index(db: Kysely<unknown>, name: string, table: string, columns: string) {
    await sql`create index ${sql.id(name)} on ${sql.id(table)} (${sql.raw(columns)})`.execute(db);
  }

  // NULL is the smallest sort value (docs/api.md, "Selection and order"); SQLite already sorts it first ascending.
  const nullsFirst = pg ? " nulls first" : "";

  return {
    "001_initial": {
      async up(db) {
        await db.schema
          .createTable("imported_files")
          .addColumn("id", pg ? sql`bigserial` : sql`integer`, (c) => c.primaryKey())
          .addColumn("name", text, (c) => c.notNull().unique())
          .addColumn("sha256", text, (c) => c.notNull())
          .addColumn("kind", text, (c) => c.notNull())
          .addColumn("record_count", bigint, (c) => c.notNull())
          .addColumn("imported_at", bigint, (c) => c.notNull())
          .execute();
        await index(db, "ix_imported_files_sha256", "imported_files", "sha256");

        await recordTable(db, "chargebacks", CHARGEBACK_FIELDS);
        await recordTable(db, "pre_arbitrations", PRE_ARBITRATION_FIELDS);

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
          .addColumn("id", pg ? sql`bigserial` : sql`integer`, (c) => c.primaryKey())
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
    },
    "002_record_counts": {
      // Exact totals without counting rows: most searches filter only by scope and file date,
      // and this summary answers those by adding a few numbers. The import keeps it in step
      // inside the same transaction as the rows.
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
    },
    "003_running_counts": {
      // Running totals per shop make any file-date range two look-ups per shop (see
      // record-counts.ts). The import now counts a file's records per shop itself, so the
      // file_id indexes it used for that are dropped: fewer indexes, a faster import.
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
        for (const [kind, table] of Object.entries(RECORD_TABLES)) {
          await sql`insert into record_counts (kind, shop_code, file_date, n, cum)
            select ${kind}, shop_code, file_date, n, sum(n) over (partition by shop_code order by file_date)
            from (select shop_code, file_date, count(*) as n from ${sql.table(table)} group by shop_code, file_date) per_day`.execute(db);
        }
        await sql`drop index ix_cb_file`.execute(db);
        await sql`drop index ix_pa_file`.execute(db);
        if (!pg) {
          // The server writes a nonce on every signed request and a session at every sign-in.
          // On SQLite they move to a database of their own (attached as "state", see db.ts), so
          // an import holding the records' write lock for a whole file never makes them wait.
          await createStateTables(db);
          for (const table of ["used_nonces", "sessions"]) {
            await sql`insert or ignore into state.${sql.id(table)} select * from main.${sql.id(table)}`.execute(db);
            await sql`drop table main.${sql.id(table)}`.execute(db);
          }
        }
      },
    },
    "004_covering_sort_indexes": {
      // A page walks its sort key's index and tests the scope and the file dates on each entry;
      // with both in the index it never reads a record it will not return, so a deep page skips
      // entries, not records (see queries.ts). Ordering by id gets such an index too.
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
        await sql`analyze ${sql.raw(pg ? "" : "main")}`.execute(db);
      },
    },
    "005_record_shops": {
      // Per kind and shop, all its records: a scope without dates is one look-up per shop, and a
      // scope that covers every shop there is can skip testing the shop of each entry it walks.
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
    },
    "006_throttles": {
      // Sign-in attempts per account and per address, and the API's token bucket per credential,
      // in the database so that every instance shares them (on SQLite in the state database,
      // beside the nonces and sessions: an import never makes them wait).
      async up(db) {
        if (pg) {
          await sql`create table login_throttle (key text primary key, attempts bigint not null, window_start bigint not null)`.execute(db);
          await sql`create table rate_buckets (credential text primary key, tokens double precision not null, updated_ms bigint not null, taken boolean not null)`.execute(db);
        } else {
          await createStateTables(db);
        }
      },
    },
    "007_record_sums": {
      // Totals per currency of the summaries (docs/api.md, "Summaries") without reading records: per kind,
      // dimension, day and month, shop and all shops at once (see record-sums.ts). The period
      // comes before the shop in the key, so a file's sums are written in a few places rather than
      // one per shop. PostgreSQL keeps the sums in the key's index too (index-only reads).
      async up(db) {
        const include = pg ? sql` include (n, reversals, amount, reversal_amount)` : sql``;
        await sql`create table record_sums (
          kind ${text} not null, dim ${text} not null, grain ${text} not null, shop_code ${text} not null,
          period ${text} not null, value ${text} not null, ccy ${text} not null,
          n ${bigint} not null, reversals ${bigint} not null, amount ${bigint} not null, reversal_amount ${bigint} not null,
          constraint pk_record_sums primary key (kind, dim, grain, period, shop_code, value, ccy)${include}
        )${pg ? sql`` : sql` without rowid`}`.execute(db);
        for (const kind of Object.keys(RECORD_TABLES) as (keyof typeof RECORD_TABLES)[]) await sumsInsert(dialect, kind).execute(db);
        await sql`analyze ${sql.raw(pg ? "record_sums" : "main.record_sums")}`.execute(db);
      },
    },
    "008_disputes": {
      // The worklist (docs/api.md, "Worklist"): one row per dispute with its current item, kept by the import
      // in the records' transaction (lib/data/disputes.ts), and the disputes that need an answer
      // per stage, scheme and base day. A database that already holds records gets both built
      // here, by the very refresh the import runs. Each partial index holds only the disputes that
      // need an answer: in answer-by order within a stage and scheme (a walk), and per shop (a seek).
      async up(db) {
        const int = sql`integer`;
        await db.schema
          .createTable("disputes")
          .addColumn("shop_code", text, (c) => c.notNull())
          .addColumn("acq_ref_nr", text, (c) => c.notNull())
          .addColumn("kind", text, (c) => c.notNull())
          .addColumn("record_id", bigint, (c) => c.notNull())
          .addColumn("needs_answer", int, (c) => c.notNull())
          .addColumn("stage", text)
          .addColumn("scheme", text, (c) => c.notNull())
          .addColumn("base_day", int, (c) => c.notNull())
          .addPrimaryKeyConstraint("pk_disputes", ["shop_code", "acq_ref_nr"])
          .execute();
        await db.schema
          .createTable("dispute_counts")
          .addColumn("stage", text, (c) => c.notNull())
          .addColumn("scheme", text, (c) => c.notNull())
          .addColumn("base_day", int, (c) => c.notNull())
          .addColumn("n", bigint, (c) => c.notNull())
          .addPrimaryKeyConstraint("pk_dispute_counts", ["stage", "scheme", "base_day"])
          .execute();
        await rebuildDisputes(db as Kysely<Database>, dialect);
        await sql`create index ix_disputes_due on disputes (stage, scheme, base_day, record_id, shop_code) where needs_answer = 1`.execute(db);
        await sql`create index ix_disputes_shop_due on disputes (shop_code, stage, scheme, base_day, record_id) where needs_answer = 1`.execute(db);
        await sql`analyze ${sql.raw(pg ? "disputes, dispute_counts" : "main.disputes")}`.execute(db);
      },
    },
    "009_webhooks": {
      // Webhooks (docs/api.md, "Webhooks"; lib/webhooks): endpoints, one row per event and endpoint (the
      // delivery, written by the import in the records' transaction, so in the main database on
      // SQLite too), and every attempt made. Times are epoch milliseconds.
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
          .addColumn("id", pg ? sql`bigserial` : sql`integer`, (c) => c.primaryKey())
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
    },
    "010_record_sums_pairs": {
      // The stored pairs of value dimensions (record-sums.ts STORED_PAIRS) for the records already
      // there, by the statement the import runs per file. 009 is the webhooks'.
      async up(db) {
        for (const kind of Object.keys(RECORD_TABLES) as (keyof typeof RECORD_TABLES)[]) {
          const pairs = STORED_PAIRS[kind].map(pairName);
          if (pairs.length) await sumsInsert(dialect, kind, undefined, pairs).execute(db);
        }
        await sql`analyze ${sql.raw(pg ? "record_sums" : "main.record_sums")}`.execute(db);
      },
    },
    "011_shop_sort_indexes": {
      // PostgreSQL: per shop, the records in each sort key's order that no index held yet
      // (merchant, reference number, order number; id and file date have theirs since 001/004),
      // with the file date for date bounds. A page of a few shops takes the first entries of each
      // shop's run instead of walking the key's whole index and testing every entry's shop
      // (queries.ts `perShopIds`): three shops of two hundred, 1000 by order number, read 3,000
      // entries instead of 64,000 (10.8 -> 1.5 ms); a single shop's scope is the planner's to
      // read from them. Not on SQLite: the data module chooses its path there (`accessPath`), it
      // meets its targets without them, and every index costs the import (13-25% on PostgreSQL).
      async up(db) {
        if (!pg) return;
        for (const [kind, table] of Object.entries(RECORD_TABLES) as [RecordKind, string][]) {
          for (const column of shopSortColumns(kind)) {
            await index(db, shopSortIndex(kind, column), table, `shop_code, ${column}${NULLABLE_SORT_COLUMNS.has(column) ? nullsFirst : ""}, id, file_date`);
          }
        }
      },
    },
    "012_record_json": {
      // PostgreSQL: each record's JSON as the API writes it, stored once when the record is
      // imported (record-json.ts), so that a page reads texts instead of writing them again on
      // every read: row_to_json of 1,000 records cost PostgreSQL about 9 ms a page, most of its
      // work for a 1000-record page. Its own table keeps the records' table as narrow as before
      // (their scans and index-only reads unchanged). The records already there get theirs here,
      // by the statement the import runs per file. No foreign key: the import writes both in
      // one transaction, and records are never deleted.
      async up(db) {
        if (!pg) return;
        for (const kind of Object.keys(RECORD_TABLES) as RecordKind[]) {
          const json = RECORD_JSON_TABLES[kind];
          await sql`create table ${sql.id(json)} (record_id bigint primary key, json text not null)`.execute(db);
          await storeRecordJson(kind).execute(db);
          await sql`analyze ${sql.id(json)}`.execute(db);
        }
      },
    },
  };
}

/** The sort keys' columns that migration 011 indexes per shop on PostgreSQL. */
function shopSortColumns(kind: RecordKind): string[] {
  const own = new Set(["id", "shop_code", "file_date"]);
  return SORT_KEYS[kind].map((key) => SORT_KEY_COLUMNS[key]).filter((column) => !own.has(column));
}

const shopSortIndex = (kind: RecordKind, column: string) => `ix_${kind === "chargeback" ? "cb" : "pa"}_shop_${column}`;

/**
 * SQLite's state database (attached as "state", see db.ts): nonces, sessions and throttles, which
 * are disposable. Its tables are declared here once and created when missing at every open, so a
 * state file that was lost or left behind in a copy is simply started afresh.
 */
const STATE_TABLES = [
  sql`create table if not exists state.used_nonces (shop_code text not null, nonce text not null, used_at integer not null, primary key (shop_code, nonce))`,
  sql`create index if not exists state.ix_used_nonces_used_at on used_nonces (used_at)`,
  sql`create table if not exists state.sessions (token_hash text primary key, user_id integer not null, created_at integer not null, expires_at integer not null)`,
  sql`create index if not exists state.ix_sessions_expires on sessions (expires_at)`,
  sql`create table if not exists state.login_throttle (key text primary key, attempts integer not null, window_start integer not null)`,
  sql`create table if not exists state.rate_buckets (credential text primary key, tokens real not null, updated_ms integer not null, taken integer not null)`,
];

async function createStateTables(db: Kysely<unknown>): Promise<void> {
  for (const statement of STATE_TABLES) await statement.execute(db);
}

class InlineProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations() {
    return migrations(this.dialect);
  }
}

export async function migrateToLatest(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  // Unordered: a database may have run a later-numbered migration of one line of work before an
  // earlier-numbered one of another landed (each migration stands on its own).
  const migrator = new Migrator({ db, provider: new InlineProvider(dialect), allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? "unknown error");
    throw new Error(`database migration ${failed?.migrationName ?? ""} failed: ${reason}`, { cause: error });
  }
  if (dialect === "sqlite") await createStateTables(db);
}
