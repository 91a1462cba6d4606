import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { type Kysely, sql } from "kysely";
import { importGroupBytes } from "@/lib/config";
import type { Db } from "@/lib/data/connection/db";
import { refreshDisputes } from "@/lib/data/aggregates/disputes";
import { addFileToRecordCounts } from "@/lib/data/aggregates/record-counts";
import { storeRecordJson } from "@/lib/data/connection/record-json";
import { refreshDayGroups } from "@/lib/data/aggregates/day-groups";
import { addFileToRecordSums } from "@/lib/data/aggregates/record-sums";
import { type Database, RECORD_TABLES } from "@/lib/data/connection/schema";
import { updateShopDirectory } from "@/lib/data/aggregates/shop-directory";
import { FIELDS_BY_KIND } from "@/lib/domain/fields";
import { addFileAlerts } from "@/lib/mail/alerts";
import { addFileEvents } from "@/lib/webhooks/events";
import { FILE_NAME_RULE, type FileName, parseFileName } from "./file-name";
import { rowWriter } from "./insert-rows";
import { checkedBatches, dropReadAhead, readAhead } from "./parallel-rows";
import type { Problem } from "./validate";

/**
 * One acquirer file into the database (docs/api.md, "Import of acquirer files"), in one transaction: it loads whole or not at
 * all. Rows are parsed, validated and inserted as they stream in, so a file of a million rows is
 * read once for the load and memory stays flat.
 */

export const MAX_PRINTED_PROBLEMS = 100;
// Serialises imports on PostgreSQL so that ids are handed out densely in import order.
export const IMPORT_LOCK_KEY = 724_001;

/**
 * How long a file waits for another import's transaction (the import lock: an advisory lock on
 * PostgreSQL, the write lock on SQLite) before it is refused: IMPORT_LOCK_WAIT_SECONDS, default
 * 10 minutes. Two commands started together then run one after the other instead of failing.
 */
export const DEFAULT_LOCK_WAIT_SECONDS = 600;

export function lockWaitSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.IMPORT_LOCK_WAIT_SECONDS;
  if (raw === undefined || raw === "") return DEFAULT_LOCK_WAIT_SECONDS;
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < 1) throw new Error(`IMPORT_LOCK_WAIT_SECONDS must be a whole number of seconds, at least 1 (got ${JSON.stringify(raw)})`);
  return Number(raw);
}

export type FileOutcome =
  | { file: string; status: "imported"; records: number }
  | { file: string; status: "skipped" }
  | { file: string; status: "rejected"; problems: number };

type Log = (line: string) => void;

/** Told of each file as it is settled (after its group committed): its outcome and the milliseconds from its first look to then. */
export type ObserveFile = (outcome: FileOutcome, durationMs: number) => void;

/** Ends the transaction (a rollback) once the problems are printed. */
class Rejected extends Error {
  constructor(readonly problems: number) {
    super("rejected");
  }
}

/** Another import committed the same file name while this one waited for the lock. */
class NameTaken extends Error {}

/** The import lock stayed taken for the whole wait. */
class LockTimeout extends Error {}

function isLockTimeout(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  // PostgreSQL's lock_timeout; SQLite's busy timeout on the write lock
  return code === "55P03" || code === "SQLITE_BUSY";
}

export function readError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "no such file or folder";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  return code ?? (err instanceof Error ? err.message : String(err));
}

async function sha256File(file: string): Promise<string> {
  const hash = crypto.createHash("sha256");
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest("hex");
}

type Earlier = { skipped: true } | { refusal: string } | null;

/** What an earlier import of this name or content means for this file (docs/api.md, "Import of acquirer files"). */
async function earlierImport(db: Kysely<Database>, name: string, sha256: string): Promise<Earlier> {
  const sameName = await db.selectFrom("imported_files").select("sha256").where("name", "=", name).executeTakeFirst();
  if (sameName?.sha256 === sha256) return { skipped: true };
  if (sameName) return { refusal: `a different file named ${name} was imported before; a corrected file needs a new name` };
  // Same content means the same records, so an earlier twin with records means this one has them too.
  const twin = await db
    .selectFrom("imported_files")
    .select("name")
    .where("sha256", "=", sha256)
    .where("name", "<>", name)
    .where("record_count", ">", 0)
    .orderBy("id")
    .executeTakeFirst();
  if (twin) return { refusal: `the same content was imported before as ${twin.name}; importing it again would double its records` };
  return null;
}

function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE";
}

/** What the file's name and content say before any database work. */
interface Target extends FileName {
  name: string;
  sha256: string;
}

/** The file's name and hash, or why it cannot be loaded (a refusal that needs no database). */
async function inspect(file: string): Promise<Target | { refusal: string }> {
  try {
    if (!(await fs.promises.stat(file)).isFile()) return { refusal: "not a file" };
  } catch (err) {
    return { refusal: `cannot be read: ${readError(err)}` };
  }
  const name = path.basename(file);
  const fileName = parseFileName(name);
  if (!fileName) return { refusal: `file name ${FILE_NAME_RULE}` };
  try {
    return { name, sha256: await sha256File(file), ...fileName };
  } catch (err) {
    return { refusal: `cannot be read: ${readError(err)}` };
  }
}

/**
 * A transaction holds the files of about a second of loading (GROUP_SECONDS, at most
 * GROUP_RECORDS records), each file under a savepoint of its own: a refused file is rolled back
 * alone and the others stay, so each file still loads whole or not at all, while an index page
 * that many daily files change is written to the database's log once per group, not once per
 * file (a 1,370-record daily file changed about 6,000 pages of 4 KiB on SQLite). A file's lines
 * are printed when its group commits, so "imported" is never printed for a file a crash could
 * still take back; a command killed in the middle of a group leaves that group's files out, and
 * running it again loads them. A large file (over IMPORT_GROUP_BYTES, lib/config.ts importGroupBytes) gains nothing from a group
 * and gets a transaction of its own, so the files before it are committed, and visible, first.
 */
const GROUP_SECONDS = 1;
const GROUP_RECORDS = 200_000;

/** The file's size, or 0 when it cannot be read (inspect then says why). */
const fileBytes = (file: string) => fs.promises.stat(file).then((s) => s.size, () => 0);

export function summaryLine(outcome: FileOutcome): string {
  if (outcome.status === "imported") return `${outcome.file}: imported ${outcome.records} records`;
  if (outcome.status === "skipped") return `${outcome.file}: skipped (already imported)`;
  return `${outcome.file}: rejected (${outcome.problems} problems)`;
}

/**
 * Imports `files` in order (docs/api.md, "Import of acquirer files"): each file's problems, then its summary line, go to
 * `log`. Throws only on a failure of the database itself; files of the group in progress are
 * then not loaded.
 */
export async function importFiles(db: Db, files: readonly string[], log: Log, waitSeconds = lockWaitSeconds(), observe?: ObserveFile): Promise<FileOutcome[]> {
  const outcomes: FileOutcome[] = [];
  const groupBytes = importGroupBytes();
  // When each file's work began (files are settled in order, so outcomes.length names the file).
  const began: number[] = [];
  const done = (outcome: FileOutcome, lines: string[] = []) => {
    for (const line of lines) log(line);
    log(summaryLine(outcome));
    observe?.(outcome, performance.now() - (began[outcomes.length] ?? performance.now()));
    outcomes.push(outcome);
  };
  const refusal = (file: string, message: string): [FileOutcome, string[]] => [{ file, status: "rejected", problems: 1 }, [`${file}: ${message}`]];
  const settled = (file: string, earlier: NonNullable<Earlier>): [FileOutcome, string[]] =>
    "skipped" in earlier ? [{ file, status: "skipped" }, []] : refusal(file, earlier.refusal);

  // Once a file is read, the next one is read ahead while this one's summaries are written.
  const readAfter = (index: number) => () => {
    const following = files[index + 1];
    const name = following === undefined ? null : parseFileName(path.basename(following));
    if (name) readAhead(following, name.kind);
  };
  let next = 0;
  try {
    while (next < files.length) {
      // Files that need no database work, or only a look at it, are settled without the lock.
      const file = files[next];
      began[next] = performance.now();
      const target = await inspect(file);
      if ("refusal" in target) {
        done(...refusal(file, target.refusal));
        next++;
        continue;
      }
      const earlier = await earlierImport(db.db, target.name, target.sha256);
      if (earlier) {
        done(...settled(file, earlier));
        next++;
        continue;
      }
      // A group from this file on.
      const first = next;
      const group: [FileOutcome, string[]][] = [];
      try {
        await db.db.transaction().execute(async (trx) => {
          await takeImportLock(db, trx, waitSeconds);
          const started = performance.now();
          let records = 0;
          let current: Target | undefined = target;
          for (;;) {
            const name = files[next];
            if (current) {
              const lines: string[] = [];
              const outcome = await inSavepoint(db, trx, name, current, (line) => lines.push(line), readAfter(next));
              group.push([outcome, lines]);
              if (outcome.status === "imported") records += outcome.records;
            }
            next++;
            if (next >= files.length || performance.now() - started >= GROUP_SECONDS * 1000 || records >= GROUP_RECORDS) return;
            if ((await fileBytes(files[next])) > groupBytes) return;
            // The next file's checks, under the lock the group holds.
            began[next] = performance.now();
            const seen = await inspect(files[next]);
            current = undefined;
            if ("refusal" in seen) group.push(refusal(files[next], seen.refusal));
            else {
              const before = await earlierImport(trx, seen.name, seen.sha256);
              if (before) group.push(settled(files[next], before));
              else current = seen;
            }
          }
        });
      } catch (err) {
        if (!(err instanceof LockTimeout)) throw err;
        // Only the group's first write waits for the lock, so nothing of the group was loaded.
        done(...refusal(file, `another import kept the database locked for ${waitSeconds} s (IMPORT_LOCK_WAIT_SECONDS); nothing of this file was loaded, import it again later`));
        next = first + 1;
        continue;
      }
      for (const [outcome, lines] of group) done(outcome, lines);
    }
  } finally {
    dropReadAhead();
  }
  return outcomes;
}

/** One file of a group under its own savepoint: kept when it loads, rolled back alone otherwise. */
async function inSavepoint(db: Db, trx: Kysely<Database>, file: string, target: Target, log: Log, read: () => void): Promise<FileOutcome> {
  await sql`savepoint import_file`.execute(trx);
  try {
    const records = await loadFile(db, trx, file, target, log, read);
    await sql`release savepoint import_file`.execute(trx);
    return { file, status: "imported", records };
  } catch (err) {
    await sql`rollback to savepoint import_file`.execute(trx);
    await sql`release savepoint import_file`.execute(trx);
    if (err instanceof Rejected) return { file, status: "rejected", problems: err.problems };
    if (err instanceof NameTaken) {
      // Another command committed this name while this one waited for the lock: see what it was.
      const now = await earlierImport(trx, target.name, target.sha256);
      if (now && "skipped" in now) return { file, status: "skipped" };
      const message = now?.refusal ?? `a file named ${target.name} was imported at the same time`;
      log(`${file}: ${message}`);
      return { file, status: "rejected", problems: 1 };
    }
    throw err;
  }
}

/**
 * PostgreSQL: the advisory lock that serialises imports, so that ids are handed out densely in
 * import order, waiting at most `waitSeconds`. SQLite: nothing here; the group's first write
 * takes the write lock, waiting as long as the connection's busy timeout (the same wait).
 */
async function takeImportLock(db: Db, trx: Kysely<Database>, waitSeconds: number): Promise<void> {
  if (db.dialect !== "postgres") return;
  try {
    await sql`select set_config('lock_timeout', ${`${waitSeconds}s`}, true)`.execute(trx);
    await sql`select pg_advisory_xact_lock(${IMPORT_LOCK_KEY})`.execute(trx);
  } catch (err) {
    throw isLockTimeout(err) ? new LockTimeout() : err;
  }
}

/** `read`: called once the file's rows are all read, before its summaries are written. */
async function loadFile(db: Db, trx: Kysely<Database>, file: string, target: Target, log: Log, read: () => void): Promise<number> {
  const table = RECORD_TABLES[target.kind];
  // A group's first write takes SQLite's write lock (waiting for it as long as the connection's
  // busy timeout, which importPaths sets to the lock wait), and the unique name settles a race,
  // so max(id) below cannot move until the transaction ends.
  let fileId: number;
  try {
    const row = await trx
      .insertInto("imported_files")
      .values({ name: target.name, sha256: target.sha256, kind: target.kind, record_count: 0, imported_at: Date.now() })
      .returning("id")
      .executeTakeFirstOrThrow();
    fileId = Number(row.id);
  } catch (err) {
    if (isUniqueViolation(err)) throw new NameTaken();
    throw isLockTimeout(err) ? new LockTimeout() : err;
  }
  const earlier = await earlierImport(trx, target.name, target.sha256);
  if (earlier && "refusal" in earlier) {
    log(`${file}: ${earlier.refusal}`);
    throw new Rejected(1);
  }
  const maxRow = await trx.selectFrom(table).select((eb) => eb.fn.max("id").as("max")).executeTakeFirst();
  const firstId = Number(maxRow?.max ?? 0) + 1;
  let nextId = firstId;

  let problems = 0;
  const report = (p: Problem) => {
    problems++;
    if (problems <= MAX_PRINTED_PROBLEMS) log(`${file}:${p.line}: ${p.field}: ${p.message}`);
  };

  const columns = [
    { name: "id", integer: true },
    { name: "file_id", integer: true },
    { name: "shop_code", integer: false },
    ...FIELDS_BY_KIND[target.kind].map((def) => ({ name: def.name, integer: def.kind === "integer" || def.kind === "amount" })),
  ];
  const writer = rowWriter(db, trx, table, columns);

  let count = 0;
  const perShop = new Map<string, number>();
  for await (const batch of checkedBatches(file, target.kind)) {
    for (const row of batch) {
      if ("problems" in row) {
        row.problems.forEach(report);
        continue;
      }
      count++;
      // After the first problem nothing more is written: the transaction rolls back anyway.
      if (problems === 0) {
        const values = row.values;
        const shop = values.shop_code as string;
        perShop.set(shop, (perShop.get(shop) ?? 0) + 1);
        values.id = nextId++;
        values.file_id = fileId;
        values.bank_id = target.bankId;
        values.file_date = target.fileDate;
        await writer.add(values);
      }
    }
  }
  read();
  if (problems > 0) {
    if (problems > MAX_PRINTED_PROBLEMS) log(`${file}: ... and ${problems - MAX_PRINTED_PROBLEMS} more problems`);
    throw new Rejected(problems);
  }
  await writer.flush();
  if (db.dialect === "postgres" && count > 0) await storeRecordJson(target.kind, { first: firstId, last: nextId - 1 }).execute(trx);
  await trx.updateTable("imported_files").set({ record_count: count, first_record_id: count > 0 ? firstId : null }).where("id", "=", fileId).execute();
  await addFileToRecordCounts(trx, db.dialect, target.kind, target.fileDate, perShop);
  await updateShopDirectory(trx, db.dialect, target.kind, fileId, target.fileDate, firstId, nextId - 1);
  await addFileToRecordSums(trx, db.dialect, target.kind, target.fileDate, firstId, nextId - 1);
  if (count > 0) await refreshDayGroups(trx, db.dialect, target.kind, target.fileDate);
  await refreshDisputes(trx, db.dialect, target.kind, firstId, nextId - 1);
  // Last, so the events and alerts exist exactly when the records do (docs/api.md, "Webhooks"; docs/mail.md, "Alerts").
  await addFileEvents(trx, target.kind, target.fileDate, perShop);
  await addFileAlerts(trx, target.kind, target.fileDate, perShop);
  return count;
}
