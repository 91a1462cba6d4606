import { type Kysely, type Migration, Migrator } from "kysely";
import type { Dialect } from "../connection/dialect";
import { migration001 } from "./001_initial";
import { migration002 } from "./002_record_counts";
import { migration003 } from "./003_running_counts";
import { migration004 } from "./004_covering_sort_indexes";
import { migration005 } from "./005_record_shops";
import { migration006 } from "./006_throttles";
import { migration007 } from "./007_record_sums";
import { migration008 } from "./008_disputes";
import { migration009 } from "./009_webhooks";
import { migration010 } from "./010_record_sums_pairs";
import { migration011 } from "./011_shop_sort_indexes";
import { migration012 } from "./012_record_json";
import { migration013 } from "./013_shop_directory";
import { migration014 } from "./014_saved_views";
import { migration015 } from "./015_record_sums_all_pairs";
import { migration016 } from "./016_mail";
import { migration017 } from "./017_record_sums_months_documents";
import { migration018 } from "./018_record_sums_totals";
import { migration019 } from "./019_record_day_groups";
import { STATE_SESSIONS_003, STATE_THROTTLES_006 } from "./frozen";

/**
 * Schema migrations for both backends, one file each, in order. They are frozen: each keeps the SQL
 * it ran, with table and column names typed out (right in a frozen migration: today's names and
 * helpers may change, what an old migration did may not), or calls only code versioned with it.
 * A new change is a new file; tests/integration/migrations-frozen.test.ts holds the schema a fresh
 * database gets.
 */
const MIGRATIONS: readonly (readonly [name: string, migration: (dialect: Dialect) => Migration])[] = [
  ["001_initial", migration001],
  ["002_record_counts", migration002],
  ["003_running_counts", migration003],
  ["004_covering_sort_indexes", migration004],
  ["005_record_shops", migration005],
  ["006_throttles", migration006],
  ["007_record_sums", migration007],
  ["008_disputes", migration008],
  ["009_webhooks", migration009],
  ["010_record_sums_pairs", migration010],
  ["011_shop_sort_indexes", migration011],
  ["012_record_json", migration012],
  ["013_shop_directory", migration013],
  ["014_saved_views", migration014],
  ["015_record_sums_all_pairs", migration015],
  ["016_mail", migration016],
  ["017_record_sums_months_documents", migration017],
  ["018_record_sums_totals", migration018],
  ["019_record_day_groups", migration019],
];

/**
 * SQLite's state database (attached as "state", lib/data/connection/db.ts): nonces, sessions and throttles,
 * which are disposable. Created when missing at every open, so a state file that was lost or left
 * behind in a copy is simply started afresh.
 */
async function createStateTables(db: Kysely<unknown>): Promise<void> {
  for (const statement of [...STATE_SESSIONS_003, ...STATE_THROTTLES_006]) await statement.execute(db);
}

export async function migrateToLatest(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const provider = { getMigrations: async () => Object.fromEntries(MIGRATIONS.map(([name, migration]) => [name, migration(dialect)])) };
  // Unordered: a database may have run a later-numbered migration of one line of work before an
  // earlier-numbered one of another landed (each migration stands on its own).
  const migrator = new Migrator({ db, provider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? "unknown error");
    throw new Error(`database migration ${failed?.migrationName ?? ""} failed: ${reason}`, { cause: error });
  }
  if (dialect === "sqlite") await createStateTables(db);
}
