import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { sql } from "kysely";
import { type Job, type Problem, type RoundSignals, type Runner, startJob } from "@/lib/background/runner";
import { importInbox } from "@/lib/config";
import { type Db, isDatabaseUnavailable, openDatabase } from "@/lib/data/connection/db";
import { errorFields, log } from "@/lib/log";
import { type FileOutcome, readError } from "./import-file";
import { importInServer } from "./index";

/**
 * The import inbox (docs/api.md, "Import inbox"): every `npm start` server with IMPORT_INBOX looks
 * at the folder once a second: one readdir, and a stat of each `*.csv` in it, nothing more while
 * nothing arrives. A file has arrived once its size and modification time stayed the same for
 * SETTLE_MS. Arrived files are imported by the import's own code (importInServer: the rules, lines,
 * webhooks and mail of `npm run import`, each file counted and logged) while this server holds the
 * inbox lock, which one server of all those on the database holds at a time, and then moved: to
 * imported/ (imported or skipped) or to rejected/ with `<name>.problems.txt` beside it.
 *
 * Crashes: a file is moved only after its import committed. A crash before the commit loads nothing
 * of it; a crash between the commit and the move leaves it in the folder, and the next look imports
 * it again, which the name-and-content rule answers "skipped": it is moved then, its records never
 * doubled. Both locks below die with the process that held them.
 */

export const POLL_MS = 1_000;
export const SETTLE_MS = 2_000;
export const IMPORTED_FOLDER = "imported";
export const REJECTED_FOLDER = "rejected";
/** PostgreSQL: the session advisory lock of the inbox (the import's own, 724_001, is held per transaction). */
export const INBOX_LOCK_KEY = 724_002;
/** A file that could not be moved is looked at again this much later (not every second). */
const MOVE_RETRY_MS = 60_000;
/**
 * Test hook, read by the inbox alone: milliseconds to wait between an import's commit and the
 * moves, announced by the log line "import inbox: waiting before the move (test hook)", so that a
 * test can kill the server there (tests/ops/inbox.test.ts). Never set outside tests.
 */
export const TEST_PAUSE_ENV = "IMPORT_INBOX_TEST_PAUSE_BEFORE_MOVE_MS";

/**
 * A path in the inbox. Only known at run time: the comment keeps Next's bundler from taking the
 * file operations on it for files of the project, which it would trace into the build.
 */
const at = (...parts: string[]) => path.join(/* turbopackIgnore: true */ ...parts);

/** Whether the inbox takes a file of this name: `*.csv` in any letter case, not hidden. `.part` files and other names stay. */
export function isInboxName(name: string): boolean {
  return !name.startsWith(".") && /\.csv$/i.test(name);
}

/** `name`, or else `<base>.<n><ext>` with the smallest n from 1 that `taken` calls free (CHB_20260212.1.csv). */
export function freeName(name: string, taken: (candidate: string) => boolean): string {
  if (!taken(name)) return name;
  const ext = path.extname(name);
  const base = name.slice(0, name.length - ext.length);
  for (let n = 1; ; n++) {
    const candidate = `${base}.${n}${ext}`;
    if (!taken(candidate)) return candidate;
  }
}

/** The file beside a SQLite database whose lock is the inbox lock: x.sqlite -> x.inbox-lock.sqlite. */
export function inboxLockFileOf(file: string): string {
  const ext = path.extname(file);
  return at(path.dirname(file), `${path.basename(file, ext)}.inbox-lock${ext || ".sqlite"}`);
}

/** The lock one server in all holds while it imports and moves files. */
interface InboxLock {
  /** Runs `work` holding the lock; false, without running it, while another server holds it. */
  whileHeld(work: () => Promise<void>): Promise<boolean>;
  close(): void;
}

/** PostgreSQL: a session advisory lock on a connection of its own, released when the session ends. */
function postgresLock(db: Db): InboxLock {
  return {
    whileHeld: (work) =>
      db.db.connection().execute(async (connection) => {
        const { rows } = await sql<{ taken: boolean }>`select pg_try_advisory_lock(${INBOX_LOCK_KEY}) as taken`.execute(connection);
        if (!rows[0]?.taken) return false;
        try {
          await work();
        } finally {
          await sql`select pg_advisory_unlock(${INBOX_LOCK_KEY})`.execute(connection);
        }
        return true;
      }),
    close() {},
  };
}

/**
 * SQLite: an exclusive transaction on a small database file beside the records' (servers on one
 * SQLite file run on one host). Not the records' own write lock, which the import takes and gives
 * back per group of files; the operating system drops this one when the process dies.
 */
function sqliteLock(file: string): InboxLock {
  let connection: BetterSqlite3.Database | undefined;
  return {
    async whileHeld(work) {
      if (!connection) {
        connection = new BetterSqlite3(file);
        connection.pragma("busy_timeout = 0");
      }
      try {
        connection.exec("begin exclusive");
      } catch (err) {
        if ((err as { code?: unknown }).code === "SQLITE_BUSY") return false;
        throw err;
      }
      try {
        await work();
      } finally {
        connection.exec("rollback");
      }
      return true;
    },
    close() {
      connection?.close();
    },
  };
}

/** One process alone on an in-memory database: nobody to share the inbox with. */
const ownLock: InboxLock = {
  async whileHeld(work) {
    await work();
    return true;
  },
  close() {},
};

/**
 * SQLite: waits, without blocking this thread, until no other process holds the records' write
 * lock (an `npm run import` in the middle of a file), so that the import's own wait for it, which
 * better-sqlite3 spends blocking the server's event loop, is short. false when the server stops.
 */
async function writeLockFree(sqlite: BetterSqlite3.Database, stopping: () => boolean): Promise<boolean> {
  for (;;) {
    const busy = sqlite.pragma("busy_timeout", { simple: true });
    sqlite.pragma("busy_timeout = 0");
    try {
      sqlite.exec("begin immediate");
      sqlite.exec("rollback");
      return true;
    } catch (err) {
      if ((err as { code?: unknown }).code !== "SQLITE_BUSY") throw err;
    } finally {
      sqlite.pragma(`busy_timeout = ${Number(busy)}`);
    }
    if (stopping()) return false;
    await sleep(250);
  }
}

/** A file's size and modification time, and since when they are so (or when it is looked at again). */
interface Seen {
  size: number;
  mtimeMs: number;
  since: number;
}

class FolderProblem extends Error {}

interface Opened {
  db: Db;
  lock: InboxLock;
}

export const IMPORT_INBOX = "import inbox";

/** The inbox as a job of the background runner: one look a round, and the import of what arrived. */
export class Inbox implements Job {
  readonly name = IMPORT_INBOX;
  readonly everyMs = POLL_MS;
  private opened: Opened | undefined;
  private opening: Promise<Opened> | undefined;
  private readonly seen = new Map<string, Seen>();
  private foldersMade = false;

  constructor(
    readonly folder: string,
    private readonly pauseBeforeMoveMs = Number(process.env[TEST_PAUSE_ENV] || 0),
  ) {}

  private async database(): Promise<Opened> {
    if (this.opened) return this.opened;
    // A connection of its own: no statement timeout (a file may take minutes), and the import's
    // settings for a bulk load never touch the connection requests use.
    this.opening ??= openDatabase(undefined, { poolMax: 3 }).then(
      (db) => {
        const target = db.target;
        const lock = target.kind === "postgres" ? postgresLock(db) : target.file === ":memory:" ? ownLock : sqliteLock(inboxLockFileOf(target.file));
        this.opened = { db, lock };
        return this.opened;
      },
      (err: unknown) => {
        this.opening = undefined;
        throw err;
      },
    );
    return this.opening;
  }

  async run({ stop }: RoundSignals): Promise<void> {
    const arrived = await this.look(Date.now());
    if (arrived.length > 0 && !stop.aborted) await this.take(arrived, stop);
  }

  /** Problems are logged when they begin and when they end (the runner), each with the folder. */
  problemOf(err: unknown): Problem {
    if (err instanceof FolderProblem) return { key: `folder: ${err.message}`, level: "warn", message: `the folder cannot be read (${this.folder}: ${err.message})` };
    if (isDatabaseUnavailable(err)) return { key: "database", level: "warn", message: "the database is unavailable" };
    return { key: "error", level: "error", message: "failed" };
  }

  /** After the file in hand was finished and moved; never under an import still running (the process ends under it). */
  async close(): Promise<void> {
    const opened = this.opened ?? (await this.opening?.catch(() => undefined));
    opened?.lock.close();
    await opened?.db.close().catch(() => {});
  }

  /** The files that have arrived, in name order (as the command takes a folder's). */
  private async look(now: number): Promise<string[]> {
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(/* turbopackIgnore: true */ this.folder, { withFileTypes: true });
    } catch (err) {
      this.seen.clear();
      this.foldersMade = false;
      throw new FolderProblem(readError(err));
    }
    // At the start, and when the folder is back: a folder that cannot take them is reported by the first move.
    if (!this.foldersMade) await this.makeFolders().catch(() => {});
    const present = new Set<string>();
    const arrived: string[] = [];
    for (const entry of entries) {
      if (!isInboxName(entry.name) || entry.isDirectory()) continue;
      const stat = await fs.promises.stat(at(this.folder, entry.name)).catch(() => undefined);
      if (!stat?.isFile()) continue;
      present.add(entry.name);
      const before = this.seen.get(entry.name);
      if (!before || before.size !== stat.size || before.mtimeMs !== stat.mtimeMs) this.seen.set(entry.name, { size: stat.size, mtimeMs: stat.mtimeMs, since: now });
      else if (now - before.since >= SETTLE_MS) arrived.push(entry.name);
    }
    for (const name of [...this.seen.keys()]) if (!present.has(name)) this.seen.delete(name);
    return arrived.sort();
  }

  /** imported/ and rejected/, unless they exist. */
  private async makeFolders() {
    for (const sub of [IMPORTED_FOLDER, REJECTED_FOLDER]) {
      await fs.promises.mkdir(at(this.folder, sub)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== "EEXIST") throw err;
      });
    }
    this.foldersMade = true;
  }

  /** Still there as it arrived: another server may have moved it, or a writer gone on, meanwhile. */
  private async unchanged(name: string): Promise<boolean> {
    const stat = await fs.promises.stat(at(this.folder, name)).catch(() => undefined);
    const before = this.seen.get(name);
    return Boolean(stat?.isFile() && before && stat.size === before.size && stat.mtimeMs === before.mtimeMs);
  }

  private async take(arrived: string[], stop: AbortSignal): Promise<void> {
    const { db, lock } = await this.database();
    const held = await lock.whileHeld(async () => {
      const names: string[] = [];
      for (const name of arrived) if (await this.unchanged(name)) names.push(name);
      if (names.length === 0) return;
      if (db.sqlite && !(await writeLockFree(db.sqlite, () => stop.aborted))) return;
      const settled: { outcome: FileOutcome; lines: string[] }[] = [];
      try {
        // The very import of `npm run import -- <IMPORT_INBOX>`: the lines are those it prints.
        await importInServer(
          db,
          names.map((name) => at(this.folder, name)),
          (outcome, lines) => settled.push({ outcome, lines }),
        );
      } finally {
        // What was settled is moved, even when a later group failed.
        if (settled.length > 0 && this.pauseBeforeMoveMs > 0) {
          log.warn({ files: settled.length, pause_ms: this.pauseBeforeMoveMs }, "import inbox: waiting before the move (test hook)");
          await sleep(this.pauseBeforeMoveMs);
        }
        for (const { outcome, lines } of settled) await this.move(outcome, lines);
      }
    });
    if (!held) log.debug({ inbox: this.folder }, "import inbox: another server is importing; looking again");
  }

  /** To imported/ (imported, skipped) or rejected/ with its problems, under the smallest free name. */
  private async move(outcome: FileOutcome, lines: string[]): Promise<void> {
    const name = path.basename(outcome.file);
    const folder = outcome.status === "rejected" ? REJECTED_FOLDER : IMPORTED_FOLDER;
    const dir = at(this.folder, folder);
    try {
      // The folder may have been made again since the last look.
      await this.makeFolders();
      // A name is taken by a file of that name; a problems file without its file is one a crash
      // left between writing it and the move, and is written again.
      const target = freeName(name, (candidate) => fs.existsSync(at(dir, candidate)));
      if (outcome.status === "rejected") await fs.promises.writeFile(at(dir, `${target}.problems.txt`), lines.map((line) => `${line}\n`).join(""));
      await fs.promises.rename(at(this.folder, name), at(dir, target));
      this.seen.delete(name);
      log.debug({ file: name, moved_to: `${folder}/${target}` }, "import inbox: file moved");
    } catch (err) {
      const seen = this.seen.get(name);
      if (seen) seen.since = Date.now() + MOVE_RETRY_MS - SETTLE_MS;
      log.warn({ file: name, to: folder, ...errorFields(err) }, "import inbox: the file could not be moved; it is taken again in a minute");
    }
  }

}

/** Starts this process's inbox once when IMPORT_INBOX is set (instrumentation.ts, production server only). */
export function startInbox(): Runner | undefined {
  const folder = importInbox();
  if (!folder) return undefined;
  return startJob(IMPORT_INBOX, () => {
    log.info({ inbox: folder }, "import inbox: watching");
    return new Inbox(folder);
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
