import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { type Db, stateFileOf } from "./db";

/**
 * An online backup of the embedded database (docs/backups.md): `VACUUM INTO`, which writes the
 * state of one read transaction, so the copy holds what was committed at one moment, never half a
 * file, and an import or a server writing meanwhile neither waits nor fails (in WAL mode a reader
 * blocks no writer). SQLite's backup API was not chosen: it starts over whenever another
 * connection writes, which a long import does without a pause. Both files are copied: the records'
 * database (records, credentials, users, webhook endpoints, mail settings and messages) and the
 * state database beside it (nonces, sessions, throttles), which a restored server needs to refuse
 * a replayed request.
 */

export class BackupError extends Error {
  override name = "BackupError";
}

export interface BackupResult {
  /** the records' copy and the state copy beside it (x.sqlite -> x.state.sqlite) */
  files: [string, string];
  importedFiles: number;
  records: number;
}

/** The paths a backup to `target` writes: refused when either exists. */
export function backupPaths(target: string): [string, string] {
  const file = path.resolve(target);
  return [file, stateFileOf(file)];
}

/** Throws BackupError when a path of the backup is already taken (nothing is written or changed then). */
export function refuseTakenPaths(target: string): void {
  for (const file of backupPaths(target)) {
    if (fs.existsSync(file) || isDanglingLink(file)) throw new BackupError(`${file} already exists; a backup never replaces a file, name a new one`);
  }
}

function isDanglingLink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

function fsyncFile(file: string) {
  const fd = fs.openSync(file, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function fsyncDir(dir: string) {
  try {
    fsyncFile(dir);
  } catch {
    // not every platform lets a folder be opened for fsync
  }
}

/**
 * Writes the copy of `db` (a SQLite database) to `target` and the state copy beside it. Each is
 * written under a temporary name in the same folder, flushed to disk, then linked to its name
 * (which fails rather than replace a file that appeared meanwhile) and the temporary name removed.
 */
export async function backupSqlite(db: Db, target: string): Promise<BackupResult> {
  const sqlite = db.sqlite;
  if (!sqlite || db.target.kind !== "sqlite") throw new BackupError("only the embedded SQLite database is backed up this way");
  if (db.target.file === ":memory:") throw new BackupError("an in-memory database has nothing to back up");
  const [mainCopy, stateCopy] = backupPaths(target);
  if (mainCopy === db.target.file || stateCopy === db.target.file) throw new BackupError("the backup cannot be the database itself");
  refuseTakenPaths(target);
  const dir = path.dirname(mainCopy);
  fs.mkdirSync(dir, { recursive: true });
  const tag = `${process.pid}-${crypto.randomBytes(4).toString("hex")}`;
  const temporary: [string, string] = [path.join(dir, `.${path.basename(mainCopy)}.${tag}.partial`), path.join(dir, `.${path.basename(stateCopy)}.${tag}.partial`)];
  const linked: string[] = [];
  try {
    // The records first: the state copy, taken a moment later, then holds every nonce the
    // records' moment knew of, and more.
    sqlite.prepare("vacuum main into ?").run(temporary[0]);
    sqlite.prepare("vacuum state into ?").run(temporary[1]);
    const counts = checkCopy(temporary[0]);
    for (const file of temporary) fsyncFile(file);
    for (const [i, file] of [mainCopy, stateCopy].entries()) {
      try {
        fs.linkSync(temporary[i], file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EEXIST") throw new BackupError(`${file} appeared while the backup was written; nothing was replaced`);
        throw err;
      }
      linked.push(file);
    }
    fsyncDir(dir);
    return { files: [mainCopy, stateCopy], ...counts };
  } catch (err) {
    for (const file of linked) fs.rmSync(file, { force: true });
    throw err;
  } finally {
    for (const file of temporary) for (const suffix of ["", "-wal", "-shm", "-journal"]) fs.rmSync(file + suffix, { force: true });
  }
}

/** The copy opens as a database and says what it holds: its imported files and their records. */
function checkCopy(file: string): { importedFiles: number; records: number } {
  const copy = new BetterSqlite3(file, { readonly: true });
  try {
    const row = copy.prepare("select count(*) as files, coalesce(sum(record_count), 0) as records from imported_files").get() as { files: number; records: number };
    return { importedFiles: Number(row.files), records: Number(row.records) };
  } finally {
    copy.close();
  }
}
