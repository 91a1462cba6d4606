import fs from "node:fs";
import path from "node:path";
import { sql } from "kysely";
import { analyze, type Db } from "@/lib/data/connection/db";
import type { Logger } from "pino";
import { log as serverLog } from "@/lib/log";
import { countImportedFile } from "@/lib/metrics";
import { type FileOutcome, importFiles, lockWaitSeconds, type ObserveFile, readError, summaryLine } from "./import-file";
import { parseFileName } from "./file-name";

/**
 * The import of acquirer report files (docs/api.md, "Import of acquirer files"): files, or every *.csv of a folder in name
 * order, each in its own transaction. One summary line per file goes to `log`.
 */

export { DEFAULT_LOCK_WAIT_SECONDS, type FileOutcome, importFiles, lockWaitSeconds, MAX_PRINTED_PROBLEMS, type ObserveFile } from "./import-file";
export { type FileName, parseFileName } from "./file-name";

export interface ImportResult {
  /** false when any file was refused */
  ok: boolean;
  results: FileOutcome[];
  /** after records were imported: what became of the log the import wrote (see settle()) */
  checkpoint?: Checkpoint;
}

export interface Checkpoint {
  done: boolean;
  /** what was done, or why it was not (e.g. a reader's older snapshot, a missing privilege) */
  note: string;
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
    sqlite.pragma(`cache_size = ${Number(before.cache)}`);
    sqlite.pragma(`wal_autocheckpoint = ${Number(before.checkpoint)}`);
    sqlite.pragma(`busy_timeout = ${Number(before.busy)}`);
  };
}

/** `observe`: told of each file as it is settled (the server's own imports count and log them; see importInServer). */
export async function importPaths(db: Db, paths: string[], log: (line: string) => void, observe?: ObserveFile): Promise<ImportResult> {
  const waitSeconds = lockWaitSeconds();
  const restore = bulkLoadSettings(db, waitSeconds);
  try {
    const result = await importAll(db, paths, log, waitSeconds, observe);
    if (result.results.some((r) => r.status === "imported")) result.checkpoint = await settle(db);
    return result;
  } finally {
    restore();
  }
}

/**
 * The import writes back what it logged, so that the reads after it do not pay for it. SQLite: a
 * log of up to 200 MB (bulkLoadSettings) left behind is copied back by the next write, maybe a
 * request's, and read through until then; TRUNCATE copies it and empties the file, waiting for no
 * reader (one that holds an older snapshot stops it short, as PASSIVE did before). PostgreSQL: its
 * dirty buffers and files would be written by the server's own checkpoint over the next minutes;
 * CHECKPOINT needs superuser or pg_checkpoint (PostgreSQL 15), without either it is skipped.
 */
async function settle(db: Db): Promise<Checkpoint> {
  const sqlite = db.sqlite;
  if (sqlite) {
    const busy = sqlite.pragma("busy_timeout", { simple: true });
    sqlite.pragma("busy_timeout = 0");
    try {
      const [r] = sqlite.pragma("wal_checkpoint(TRUNCATE)") as { busy: number; log: number; checkpointed: number }[];
      return r.busy ? { done: false, note: `a reader held an older snapshot: ${r.checkpointed} of ${r.log} log frames copied back` } : { done: true, note: "log copied back and truncated" };
    } finally {
      sqlite.pragma(`busy_timeout = ${Number(busy)}`);
    }
  }
  try {
    await sql`checkpoint`.execute(db.db);
    return { done: true, note: "checkpoint" };
  } catch (err) {
    // 42501: neither superuser nor a member of pg_checkpoint; the server's checkpoint will do it.
    if ((err as { code?: unknown }).code !== "42501") throw err;
    return { done: false, note: `skipped: ${(err as Error).message}` };
  }
}

async function importAll(db: Db, paths: string[], log: (line: string) => void, waitSeconds: number, observe: ObserveFile | undefined): Promise<ImportResult> {
  const results: FileOutcome[] = [];
  // The files of consecutive paths are imported as one list, so that the import's groups
  // (importFiles) span them: `npm run import -- data/*.csv` is as fast as the folder.
  let files: string[] = [];
  const flush = async () => {
    results.push(...(await importFiles(db, files, log, waitSeconds, observe)));
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
      observe?.(outcome, 0);
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

/**
 * An import the server runs itself (the inbox calls this): the same import as the command's, and
 * each file is counted in import_files_total and import_records_total and logged (logImportFile).
 * `npm run import` never comes here: its files appear in no counter (docs/api.md, "Metrics").
 */
export async function importInServer(db: Db, paths: string[], onFile: ServerFile = () => {}): Promise<ImportResult> {
  // A file's lines (its problems, then its summary) are written just before it is observed.
  let lines: string[] = [];
  return importPaths(
    db,
    paths,
    (line) => lines.push(line),
    (outcome, durationMs) => {
      noteServerImport(outcome, durationMs);
      const own = lines;
      lines = [];
      onFile(outcome, own);
    },
  );
}

/** One file of a server's import, once settled: its outcome and the lines `npm run import` prints for it (its problems, then its summary line). */
export type ServerFile = (outcome: FileOutcome, lines: string[]) => void;

function kindOf(outcome: FileOutcome) {
  return parseFileName(path.basename(outcome.file))?.kind ?? "unknown";
}

/** One file of a server's import: counted, and logged to the server's log. */
const noteServerImport: ObserveFile = (outcome, durationMs) => {
  countImportedFile(kindOf(outcome), outcome.status, outcome.status === "imported" ? outcome.records : 0);
  logImportFile(serverLog, "inbox", outcome, durationMs);
};

/**
 * The one structured line of every imported, skipped or refused file, whoever imported it
 * (docs/api.md, "Metrics", its last paragraph): `"msg":"import file"` with its outcome and duration. The server writes
 * it to its log; `npm run import` to its standard error, its standard output being the lines of
 * docs/api.md, "Import of acquirer files".
 */
export function logImportFile(logger: Logger, source: "command" | "inbox", outcome: FileOutcome, durationMs: number): void {
  logger.info(
    {
      source,
      file: path.basename(outcome.file),
      kind: kindOf(outcome),
      outcome: outcome.status,
      ...(outcome.status === "imported" ? { records: outcome.records } : {}),
      ...(outcome.status === "rejected" ? { problems: outcome.problems } : {}),
      duration_ms: Math.round(durationMs),
    },
    "import file",
  );
}
