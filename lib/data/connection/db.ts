import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { CompiledQuery, Kysely, SqliteDialect, sql } from "kysely";
import { databaseTarget, type DatabaseTarget, pgPoolMax } from "@/lib/config";
import type { Dialect } from "./dialect";
import { migrateToLatest } from "../migrations";
import { postgresPool, postgresReader, written } from "./postgres";
import { Memo, type ReadResult, type ReadStatement, type Remembered, rememberedIn, type Row, runBatch } from "./read";
import { replicaReads } from "./replicas";
import { sqliteReaderCount, SqliteReaders } from "./sqlite-readers";
import { preparedStatements } from "./prepared";
import { jsonArrayBytes } from "./record-json";
import type { Database } from "./schema";
import { SnapshotsBusyError } from "./unavailable";

/**
 * The one connection to the database, for the server and for the commands alike. Nothing above
 * this module knows which backend runs: both speak through the same Kysely query builder.
 */
export interface Db {
  db: Kysely<Database>;
  dialect: Dialect;
  target: DatabaseTarget;
  /** the SQLite connection under `db`, for the import's prepared bulk insert */
  sqlite?: BetterSqlite3.Database;
  /**
   * Runs read statements and answers their rows, all from one snapshot (a total and its page
   * agree): one read transaction on SQLite, on reader threads on a server; on PostgreSQL
   * concurrently between two reads of the data's version, or in one transaction when an import
   * committed meanwhile (read.ts).
   */
  read(statements: readonly ReadStatement[]): Promise<ReadResult[]>;
  /** What `read` remembers for a memo statement under the latest version it read (none on reader threads, whose memos are their own). */
  remembered(s: ReadStatement): Remembered | undefined;
  /** A snapshot of its own for a long read of many batches (`Snapshot`); close it when done. */
  snapshot(): Promise<Snapshot>;
  close(): Promise<void>;
}

/**
 * Reads that all see one snapshot of the data until `close`, for an answer read in many batches
 * that must not straddle an import's commit (the worklist export, docs/api.md, "CSV export"). It
 * holds a connection of its own: on PostgreSQL one of the primary's pool in a read-only
 * repeatable-read transaction, on SQLite a read-only connection in one read transaction (an
 * import still commits meanwhile: WAL keeps the pages this reader sees).
 */
export interface Snapshot {
  read(statements: readonly ReadStatement[]): Promise<ReadResult[]>;
  close(): Promise<void>;
}

// The import command and the server may write at the same time: wait instead of failing.
const SQLITE_BUSY_TIMEOUT_MS = 10_000;

function sqliteDb(file: string): { db: Kysely<Database>; database: BetterSqlite3.Database } {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(file), { recursive: true });
  const database = new BetterSqlite3(file);
  database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  database.pragma("journal_mode = WAL");
  database.pragma("synchronous = NORMAL");
  database.pragma("foreign_keys = ON");
  // Refreshes planner statistics that are missing or stale (cheap; recommended at every open).
  // Before the attach below: it must never analyse the state database, which a running server
  // writes hundreds of times a second (a read that turns into a write there fails at once).
  // Best effort: its ANALYZE needs the write lock, which an import may hold for minutes; a
  // command or server opened meanwhile skips it rather than wait and fail ("database is locked").
  database.pragma("busy_timeout = 0");
  try {
    database.pragma("optimize = 0x10002");
  } catch (err) {
    if ((err as { code?: unknown }).code !== "SQLITE_BUSY") throw err;
  }
  database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  // Nonces and sessions live in a database file of their own (see migration 003), so that the
  // server's small writes never wait for an import's write lock on the records.
  database.prepare("attach database ? as state").run(file === ":memory:" ? ":memory:" : stateFileOf(file));
  if (database.pragma("state.journal_mode", { simple: true }) !== "wal") database.pragma("state.journal_mode = WAL");
  database.pragma("state.synchronous = NORMAL");
  return { db: new Kysely<Database>({ dialect: new SqliteDialect({ database: reusingStatements(database) }) }), database };
}

/** The connection as Kysely sees it, with each statement prepared once (prepared.ts). */
function reusingStatements(database: BetterSqlite3.Database) {
  return { close: () => database.close(), prepare: preparedStatements(database) };
}

/** The file beside a SQLite database that holds its nonces and sessions: x.sqlite -> x.state.sqlite. */
export function stateFileOf(file: string): string {
  const ext = path.extname(file);
  return path.join(path.dirname(file), `${path.basename(file, ext)}.state${ext || ".sqlite"}`);
}

function postgresDb(url: string, server: boolean, poolMax?: number): Kysely<Database> {
  return postgresPool(url, { server, poolMax }).db;
}

/**
 * Refreshes the query planner's statistics after a bulk load. Without them SQLite reads
 * "shop_code IN (every shop)" as selective and sorts the whole table instead of walking the
 * sort key's index (8 s instead of 3 ms for a deep page on a million rows).
 */
export async function analyze(db: Db): Promise<void> {
  if (db.dialect === "sqlite") {
    // Sampled statistics (about a thousand rows of each index): what the planner needs to weigh
    // the indexes, in milliseconds rather than a scan of every index after every daily file.
    await sql`pragma analysis_limit = 1000`.execute(db.db);
    // The records' database only: the attached state database is the server's to write.
    await sql`analyze main`.execute(db.db);
  } else {
    // VACUUM also marks the new pages all-visible, which index-only scans need (pages-postgres.ts).
    // The records' JSON and record_shops too: else autovacuum and autoanalyze take them up right
    // after the import, beside its first reads, and those reads set the new rows' hint bits.
    await sql`vacuum (analyze) chargebacks, pre_arbitrations, chargebacks_json, pre_arbitrations_json, record_counts, record_shops, record_sums, disputes, dispute_counts`.execute(db.db);
  }
}

/**
 * Opens the database that DATABASE_URL (or `url`) names and brings its schema up to date.
 * `readers`: reader threads for a SQLite database (the server's; commands read on their own thread).
 * `server`: the connection of `next start`, which writes only nonces and sessions.
 * `poolMax`: PostgreSQL connections of this handle (default PG_POOL_MAX).
 */
export async function openDatabase(url?: string, opts: { readers?: number; server?: boolean; poolMax?: number } = {}): Promise<Db> {
  const target = databaseTarget(url);
  const sqlite = target.kind === "sqlite" ? sqliteDb(target.file) : undefined;
  const db = sqlite ? sqlite.db : postgresDb((target as { url: string }).url, opts.server ?? false, opts.poolMax);
  const dialect: Dialect = target.kind;
  try {
    // The server's PostgreSQL connections cancel long statements; a migration over a large
    // history may rightly take minutes, so it runs on a connection of its own without that limit.
    const migrating = target.kind === "postgres" && opts.server ? postgresDb(target.url, false, 1) : db;
    try {
      await migrateToLatest(migrating as unknown as Kysely<unknown>, dialect);
    } finally {
      if (migrating !== db) await migrating.destroy();
    }
  } catch (err) {
    await db.destroy().catch(() => {});
    throw err;
  }
  const readers = target.kind === "sqlite" && target.file !== ":memory:" && opts.readers ? new SqliteReaders(target.file, opts.readers) : undefined;
  // PostgreSQL: the server's reads go to the streaming replicas of DATABASE_REPLICA_URLS when there
  // are any (replicas.ts), else to this pool; SQLite: reader threads on a server, else this
  // connection, in one transaction.
  const postgres = dialect === "postgres" ? postgresReader(db) : undefined;
  const routed = postgres && opts.server ? await replicaReads(postgres) : undefined;
  const memo = new Memo();
  const snapshots = { held: 0, limit: snapshotLimit(dialect, opts.poolMax) };
  const runOn = (executor: Kysely<Database>) => async (s: ReadStatement) => written(s, (await executor.executeQuery<Row>(CompiledQuery.raw(s.sql, [...s.parameters]))).rows);
  const onThisConnection = { read: (statements: readonly ReadStatement[]) => db.transaction().execute((trx) => runBatch(statements, memo, runOn(trx))), remembered: (s: ReadStatement) => rememberedIn(memo, s) };
  const reads = routed ?? postgres ?? (readers ? { read: (statements: readonly ReadStatement[]) => readers.run(statements), remembered: () => undefined } : onThisConnection);
  return {
    db,
    dialect,
    target,
    sqlite: sqlite?.database,
    read: reads.read,
    remembered: reads.remembered,
    snapshot: async () => {
      // An in-memory database has one connection, which every read shares: each batch is a snapshot of its own.
      if (target.kind === "sqlite" && target.file === ":memory:") return { read: onThisConnection.read, close: async () => {} };
      if (snapshots.held >= snapshots.limit) throw new SnapshotsBusyError(snapshots.limit);
      snapshots.held++;
      let taken: Snapshot;
      try {
        taken = target.kind === "postgres" ? await postgresSnapshot(db) : sqliteSnapshot(target.file);
      } catch (err) {
        snapshots.held--;
        throw err;
      }
      let closed = false;
      return {
        read: taken.read,
        close: async () => {
          if (closed) return;
          closed = true;
          snapshots.held--;
          await taken.close();
        },
      };
    },
    close: async () => {
      await readers?.close();
      await db.destroy();
    },
  };
}

/**
 * How many snapshots one handle holds at once (docs/api.md, "CSV export"): on PostgreSQL half of
 * its pool, so that long downloads never take the connections every other request needs; on
 * SQLite, where each is a read connection of its own, SQLITE_SNAPSHOTS (each open read
 * transaction keeps the write-ahead log from being checkpointed past it).
 */
const SQLITE_SNAPSHOTS = 5;
const snapshotLimit = (dialect: Dialect, pool?: number) => (dialect === "postgres" ? Math.max(1, Math.floor((pool ?? pgPoolMax()) / 2)) : SQLITE_SNAPSHOTS);

async function postgresSnapshot(db: Kysely<Database>): Promise<Snapshot> {
  const trx = await db.startTransaction().setIsolationLevel("repeatable read").setAccessMode("read only").execute();
  const memo = new Memo();
  const run = async (s: ReadStatement) => written(s, (await trx.executeQuery<Row>(CompiledQuery.raw(s.sql, [...s.parameters]))).rows);
  return { read: (statements) => runBatch(statements, memo, run), close: () => trx.rollback().execute() };
}

function sqliteSnapshot(file: string): Snapshot {
  const database = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    // The read transaction takes its snapshot at the first read and keeps it until the commit.
    database.prepare("begin").run();
  } catch (err) {
    database.close();
    throw err;
  }
  const memo = new Memo();
  const run = (s: ReadStatement): ReadResult => {
    const statement = database.prepare(s.sql);
    const parameters = s.parameters as unknown[];
    return s.json ? jsonArrayBytes(statement.pluck(true).all(parameters) as string[]) : (statement.all(parameters) as Row[]);
  };
  return {
    read: (statements) => runBatch(statements, memo, run),
    close: async () => {
      if (!database.open) return;
      try {
        database.prepare("commit").run();
      } finally {
        database.close();
      }
    },
  };
}

const globalForDb = globalThis as unknown as { __disputesDb?: Promise<Db> };

/** The server's shared connection, opened (and migrated) once per process. */
export function getDb(): Promise<Db> {
  if (!globalForDb.__disputesDb) {
    const opening = openDatabase(undefined, { readers: sqliteReaderCount(), server: true });
    globalForDb.__disputesDb = opening;
    // A database that was unreachable at first may come back: try again on the next request.
    opening.catch(() => {
      if (globalForDb.__disputesDb === opening) globalForDb.__disputesDb = undefined;
    });
  }
  return globalForDb.__disputesDb;
}

export { isDatabaseUnavailable, isSnapshotsBusy } from "./unavailable";
