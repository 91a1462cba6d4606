import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { parse } from "csv-parse";
import { type Kysely, sql } from "kysely";
import { analyze, type Db } from "@/lib/data/db";
import { addFileToRecordCounts } from "@/lib/data/record-counts";
import type { Database } from "@/lib/data/schema";
import type { RecordKind } from "@/lib/domain/fields";
import { type FileName, normaliseCell, parseFileName, type Problem, rowValidator, type RowValues } from "./validate";

/**
 * The import of acquirer report files (CONTRACT 6). Each file is one transaction: it loads whole
 * or not at all. Rows are parsed, validated and inserted as they stream in, so a file of a
 * million rows is read once and memory stays flat.
 */

export const MAX_PRINTED_PROBLEMS = 100;
const BATCH_ROWS = 200;
// One lock for every import on PostgreSQL: ids are handed out densely in import order.
const IMPORT_LOCK_KEY = 724_001;

const TABLE: Record<RecordKind, "chargebacks" | "pre_arbitrations"> = {
  chargeback: "chargebacks",
  pre_arbitration: "pre_arbitrations",
};

export type FileOutcome =
  | { file: string; status: "imported"; records: number }
  | { file: string; status: "skipped" }
  | { file: string; status: "rejected"; problems: number };

class Rejected extends Error {
  constructor(readonly problems: number) {
    super("rejected");
  }
}

/** Every *.csv of a folder in name order, or the file itself. */
export function expandPaths(paths: string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(p);
    } catch {
      stat = undefined;
    }
    if (stat?.isDirectory()) {
      const names = fs.readdirSync(p).filter((n) => n.toLowerCase().endsWith(".csv")).sort();
      out.push(...names.map((n) => path.join(p, n)));
    } else {
      out.push(p);
    }
  }
  return out;
}

async function sha256File(file: string): Promise<string> {
  const hash = crypto.createHash("sha256");
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest("hex");
}

export async function importPaths(db: Db, paths: string[], log: (line: string) => void): Promise<{ ok: boolean; results: FileOutcome[] }> {
  const results: FileOutcome[] = [];
  for (const file of expandPaths(paths)) {
    const outcome = await importFile(db, file, log);
    results.push(outcome);
    if (outcome.status === "imported") log(`${file}: imported ${outcome.records} records`);
    else if (outcome.status === "skipped") log(`${file}: skipped (already imported)`);
    else log(`${file}: rejected (${outcome.problems} problems)`);
  }
  if (results.some((r) => r.status === "imported")) await analyze(db);
  return { ok: results.every((r) => r.status !== "rejected"), results };
}

export async function importFile(db: Db, file: string, log: (line: string) => void): Promise<FileOutcome> {
  const reject = (message: string): FileOutcome => {
    log(`${file}: ${message}`);
    return { file, status: "rejected", problems: 1 };
  };
  const name = path.basename(file);
  const parsedName = parseFileName(name);
  if (!parsedName) return reject("file name: must be CHB_<YYYYMMDD>.csv or PREARB_<BANKID>_<YYYYMMDD>.csv with a real date");

  let sha256: string;
  try {
    if (!fs.statSync(file).isFile()) return reject("not a file");
    sha256 = await sha256File(file);
  } catch (err) {
    return reject(`cannot be read (${(err as NodeJS.ErrnoException).code ?? "error"})`);
  }

  const earlier = await db.db.selectFrom("imported_files").select(["name", "sha256"]).where("name", "=", name).executeTakeFirst();
  if (earlier?.sha256 === sha256) return { file, status: "skipped" };
  if (earlier) return reject(`a different file named ${name} was imported before; a corrected file needs a new name`);
  const twin = await db.db
    .selectFrom("imported_files")
    .select(["name"])
    .where("sha256", "=", sha256)
    .where("record_count", ">", 0)
    .executeTakeFirst();
  if (twin) return reject(`the same content was imported before as ${twin.name}; a resent file would double its records`);

  try {
    const records = await db.db.transaction().execute((trx) => loadFile(trx, db.dialect, file, name, sha256, parsedName, log));
    return { file, status: "imported", records };
  } catch (err) {
    if (err instanceof Rejected) return { file, status: "rejected", problems: err.problems };
    throw err;
  }
}

async function loadFile(
  trx: Kysely<Database>,
  dialect: Db["dialect"],
  file: string,
  name: string,
  sha256: string,
  fileName: FileName,
  log: (line: string) => void,
): Promise<number> {
  const table = TABLE[fileName.kind];
  if (dialect === "postgres") await sql`select pg_advisory_xact_lock(${IMPORT_LOCK_KEY})`.execute(trx);
  // The first write takes SQLite's write lock, so max(id) below cannot change under us.
  const fileRow = await trx
    .insertInto("imported_files")
    .values({ name, sha256, kind: fileName.kind, record_count: 0, imported_at: Date.now() })
    .returning("id")
    .executeTakeFirstOrThrow();
  const fileId = Number(fileRow.id);
  const maxRow = await trx.selectFrom(table).select((eb) => eb.fn.max("id").as("max")).executeTakeFirst();
  let nextId = Number(maxRow?.max ?? 0) + 1;

  let problems = 0;
  const report = (p: Problem) => {
    problems++;
    if (problems <= MAX_PRINTED_PROBLEMS) log(`${file}:${p.line}: ${p.field}: ${p.message}`);
  };

  let batch: RowValues[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    await trx.insertInto(table).values(batch as never).execute();
    batch = [];
  };

  const validator = rowValidator(fileName.kind);
  const parser = fs.createReadStream(file).pipe(
    parse({ bom: true, info: true, relax_column_count: true, skip_empty_lines: true }),
  );
  let header: string[] | undefined;
  let indexes: number[] = [];
  let count = 0;
  let lastLine = 0;
  let lastEmpty = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number; empty_lines: number } }>) {
      // A record spanning lines is named by its first line.
      const line = lastLine + 1 + (info.empty_lines - lastEmpty);
      lastLine = info.lines;
      lastEmpty = info.empty_lines;
      if (!header) {
        header = record.map((c) => c.trim());
        const headerProblems = checkHeader(header, validator.columns);
        if (headerProblems.length) {
          headerProblems.forEach(report);
          break;
        }
        indexes = validator.columns.map((c) => header!.indexOf(c));
        continue;
      }
      if (record.length !== header.length) {
        report({ line, field: "row", message: `has ${record.length} cells, the header has ${header.length}` });
        continue;
      }
      const cells: Record<string, string | null> = {};
      validator.columns.forEach((column, i) => (cells[column] = normaliseCell(column, record[indexes[i]])));
      const result = validator.validate(cells, line);
      if ("problems" in result) {
        result.problems.forEach(report);
        continue;
      }
      count++;
      // After the first problem nothing more is written: the transaction will roll back anyway.
      if (problems === 0) {
        batch.push({ ...result.values, id: nextId++, file_id: fileId, bank_id: fileName.bankId, file_date: fileName.fileDate });
        if (batch.length >= BATCH_ROWS) await flush();
      }
    }
  } catch (err) {
    const e = err as { code?: string; lines?: number; message: string };
    if (!e.code?.startsWith("CSV_")) throw err;
    report({ line: e.lines ?? lastLine + 1, field: "csv", message: e.message.replace(/^Invalid [^:]*: /, "") });
  }
  if (!header && problems === 0) report({ line: 1, field: "header", message: "the file is empty; a header row is required" });
  if (problems > 0) {
    if (problems > MAX_PRINTED_PROBLEMS) log(`${file}: ... and ${problems - MAX_PRINTED_PROBLEMS} more problems`);
    throw new Rejected(problems);
  }
  await flush();
  await trx.updateTable("imported_files").set({ record_count: count }).where("id", "=", fileId).execute();
  await addFileToRecordCounts(trx, fileName.kind, fileId);
  return count;
}

function checkHeader(header: string[], columns: string[]): Problem[] {
  const problems: Problem[] = [];
  const seen = new Set<string>();
  for (const column of header) {
    const name = column.replace(/^\uFEFF/, "");
    if (seen.has(name)) problems.push({ line: 1, field: name, message: "the column appears twice" });
    seen.add(name);
    if (!columns.includes(name)) problems.push({ line: 1, field: name || "(empty)", message: "unknown column" });
  }
  for (const column of columns) if (!seen.has(column)) problems.push({ line: 1, field: column, message: "the column is missing" });
  return problems;
}
