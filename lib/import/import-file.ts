import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { type Kysely, sql } from "kysely";
import type { Db } from "@/lib/data/db";
import { refreshDisputes } from "@/lib/data/disputes";
import { addFileToRecordCounts } from "@/lib/data/record-counts";
import { addFileToRecordSums } from "@/lib/data/record-sums";
import { type Database, RECORD_TABLES } from "@/lib/data/schema";
import { FIELDS_BY_KIND } from "@/lib/domain/fields";
import { addFileEvents } from "@/lib/webhooks/events";
import { FILE_NAME_RULE, type FileName, parseFileName } from "./file-name";
import { rowWriter } from "./insert-rows";
import { checkedBatches } from "./parallel-rows";
import type { Problem } from "./validate";

/**
 * One acquirer file into the database (CONTRACT 6), in one transaction: it loads whole or not at
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

/** What an earlier import of this name or content means for this file (CONTRACT 6). */
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

export async function importFile(db: Db, file: string, log: Log, waitSeconds = lockWaitSeconds()): Promise<FileOutcome> {
  const refuse = (message: string): FileOutcome => {
    log(`${file}: ${message}`);
    return { file, status: "rejected", problems: 1 };
  };
  const settle = (earlier: NonNullable<Earlier>): FileOutcome =>
    "skipped" in earlier ? { file, status: "skipped" } : refuse(earlier.refusal);

  let sha256: string;
  try {
    if (!(await fs.promises.stat(file)).isFile()) return refuse("not a file");
  } catch (err) {
    return refuse(`cannot be read: ${readError(err)}`);
  }
  const name = path.basename(file);
  const fileName = parseFileName(name);
  if (!fileName) return refuse(`file name ${FILE_NAME_RULE}`);
  try {
    sha256 = await sha256File(file);
  } catch (err) {
    return refuse(`cannot be read: ${readError(err)}`);
  }

  const earlier = await earlierImport(db.db, name, sha256);
  if (earlier) return settle(earlier);
  try {
    const records = await db.db.transaction().execute((trx) => loadFile(db, trx, file, { name, sha256, ...fileName, waitSeconds }, log));
    return { file, status: "imported", records };
  } catch (err) {
    if (err instanceof Rejected) return { file, status: "rejected", problems: err.problems };
    if (err instanceof LockTimeout) {
      return refuse(`another import kept the database locked for ${waitSeconds} s (IMPORT_LOCK_WAIT_SECONDS); nothing of this file was loaded, import it again later`);
    }
    if (err instanceof NameTaken) {
      const now = await earlierImport(db.db, name, sha256);
      if (now) return settle(now);
    }
    throw err;
  }
}

interface Target extends FileName {
  name: string;
  sha256: string;
  waitSeconds: number;
}

async function loadFile(db: Db, trx: Kysely<Database>, file: string, target: Target, log: Log): Promise<number> {
  const table = RECORD_TABLES[target.kind];
  if (db.dialect === "postgres") {
    try {
      await sql`select set_config('lock_timeout', ${`${target.waitSeconds}s`}, true)`.execute(trx);
      await sql`select pg_advisory_xact_lock(${IMPORT_LOCK_KEY})`.execute(trx);
    } catch (err) {
      throw isLockTimeout(err) ? new LockTimeout() : err;
    }
  }
  // The first write: it takes SQLite's write lock (waiting for it as long as the connection's
  // busy timeout, which importPaths sets to the lock wait), and the unique name settles a race,
  // so max(id) below cannot move until this transaction ends.
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
  if (problems > 0) {
    if (problems > MAX_PRINTED_PROBLEMS) log(`${file}: ... and ${problems - MAX_PRINTED_PROBLEMS} more problems`);
    throw new Rejected(problems);
  }
  await writer.flush();
  await trx.updateTable("imported_files").set({ record_count: count }).where("id", "=", fileId).execute();
  await addFileToRecordCounts(trx, db.dialect, target.kind, target.fileDate, perShop);
  await addFileToRecordSums(trx, db.dialect, target.kind, target.fileDate, firstId, nextId - 1);
  await refreshDisputes(trx, db.dialect, target.kind, firstId, nextId - 1);
  // Last, so the events exist exactly when the records do (CONTRACT 11).
  await addFileEvents(trx, target.kind, target.fileDate, perShop);
  return count;
}
