import fs from "node:fs";
import path from "node:path";
import { analyze, type Db } from "@/lib/data/db";
import { type FileOutcome, importFiles, lockWaitSeconds, readError, summaryLine } from "./import-file";

/**
 * The import of acquirer report files (docs/api.md, "Import of acquirer files"): files, or every *.csv of a folder in name
 * order, each in its own transaction. One summary line per file goes to `log`.
 */

export { DEFAULT_LOCK_WAIT_SECONDS, type FileOutcome, importFiles, lockWaitSeconds, MAX_PRINTED_PROBLEMS } from "./import-file";
export { type FileName, parseFileName } from "./file-name";

export interface ImportResult {
  /** false when any file was refused */
  ok: boolean;
  results: FileOutcome[];
}

/** The files a path names: the file itself, or the *.csv files of a folder in name order. */
function filesOf(arg: string): string[] {
  let isFolder = false;
  try {
    isFolder = fs.statSync(arg).isDirectory();
  } catch {
    // importFiles reports a path that cannot be read
  }
  if (!isFolder) return [arg];
  return fs
    .readdirSync(arg, { withFileTypes: true })
    .filter((entry) => !entry.isDirectory() && entry.name.toLowerCase().endsWith(".csv"))
    .map((entry) => entry.name)
    .sort()
    .map((name) => path.join(arg, name));
}

/**
 * SQLite settings for a bulk load: a page cache that holds the indexes' hot pages and a file's
 * dirty pages (256 MB), and checkpoints every 200 MB of log instead of every 4 MB, so that an
 * index page changed by many files is copied back once, not once per file. The busy timeout is
 * the import lock's wait: another command's file may hold the write lock for minutes.
 */
function bulkLoadSettings(db: Db, waitSeconds: number): () => void {
  const sqlite = db.sqlite;
  if (!sqlite) return () => {};
  const before = {
    cache: sqlite.pragma("cache_size", { simple: true }),
    checkpoint: sqlite.pragma("wal_autocheckpoint", { simple: true }),
    busy: sqlite.pragma("busy_timeout", { simple: true }),
  };
  sqlite.pragma("cache_size = -262144");
  sqlite.pragma("wal_autocheckpoint = 51200");
  sqlite.pragma(`busy_timeout = ${waitSeconds * 1000}`);
  return () => {
    sqlite.pragma("wal_checkpoint(PASSIVE)");
    sqlite.pragma(`cache_size = ${Number(before.cache)}`);
    sqlite.pragma(`wal_autocheckpoint = ${Number(before.checkpoint)}`);
    sqlite.pragma(`busy_timeout = ${Number(before.busy)}`);
  };
}

export async function importPaths(db: Db, paths: string[], log: (line: string) => void): Promise<ImportResult> {
  const waitSeconds = lockWaitSeconds();
  const restore = bulkLoadSettings(db, waitSeconds);
  try {
    return await importAll(db, paths, log, waitSeconds);
  } finally {
    restore();
  }
}

async function importAll(db: Db, paths: string[], log: (line: string) => void, waitSeconds: number): Promise<ImportResult> {
  const results: FileOutcome[] = [];
  // The files of consecutive paths are imported as one list, so that the import's groups
  // (importFiles) span them: `npm run import -- data/*.csv` is as fast as the folder.
  let files: string[] = [];
  const flush = async () => {
    results.push(...(await importFiles(db, files, log, waitSeconds)));
    files = [];
  };
  for (const arg of paths) {
    let found: string[];
    try {
      found = filesOf(arg);
    } catch (err) {
      await flush();
      log(`${arg}: cannot be read: ${readError(err)}`);
      const outcome: FileOutcome = { file: arg, status: "rejected", problems: 1 };
      results.push(outcome);
      log(summaryLine(outcome));
      continue;
    }
    if (found.length === 0) {
      await flush();
      log(`${arg}: no .csv files in this folder`);
    }
    files.push(...found);
  }
  await flush();
  // Fresh planner statistics keep the search queries on their indexes after a bulk load.
  if (results.some((r) => r.status === "imported")) await analyze(db);
  return { ok: results.every((r) => r.status !== "rejected"), results };
}
