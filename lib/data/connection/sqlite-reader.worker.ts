import { parentPort, workerData } from "node:worker_threads";
import BetterSqlite3 from "better-sqlite3";
import { preparedStatements } from "./prepared";
import { jsonArrayBytes } from "./record-json";
import { Memo, type ReadResult, type ReadStatement, type Row, runBatch } from "./read";

/**
 * A read-only SQLite connection on a thread of its own (see sqlite-readers.ts). It also joins a
 * page's records, whose JSON SQLite wrote, into one array in UTF-8, so the server's event loop
 * receives bytes to send instead of rows to serialise.
 */

const { file, cacheKib } = workerData as { file: string; cacheKib: number };
const db = new BetterSqlite3(file, { fileMustExist: true });
db.pragma("busy_timeout = 10000");
db.pragma("query_only = ON");
db.pragma(`cache_size = -${cacheKib}`);

const prepared = preparedStatements(db, 500);

// Every batch reads one snapshot: a total and its page never straddle an import's commit.
const begin = db.prepare("begin");
const commit = db.prepare("commit");

const memo = new Memo();

function run({ sql, parameters, json }: ReadStatement): ReadResult {
  const statement = prepared(sql);
  if (!json) return statement.raw(false).all(parameters as unknown[]) as Row[];
  // A page statement selects each record's JSON, written by SQLite (lib/data/queries/pages-sqlite.ts), alone.
  // As UTF-8 bytes in a buffer of their own, handed over without a copy (see postMessage below).
  return jsonArrayBytes(statement.pluck(true).all(parameters as unknown[]) as string[]);
}


parentPort!.on("message", async ({ id, statements: batch }: { id: number; statements: ReadStatement[] }) => {
  try {
    begin.run();
    try {
      // run() is synchronous, so no other message is handled before this batch commits.
      const results = await runBatch(batch, memo, run);
      const buffers = results.filter((r): r is Uint8Array => r instanceof Uint8Array).map((r) => r.buffer as ArrayBuffer);
      parentPort!.postMessage({ id, results }, buffers);
    } finally {
      commit.run();
    }
  } catch (err) {
    const e = err as { message?: string; code?: string };
    parentPort!.postMessage({ id, error: { message: String(e?.message), code: e?.code } });
  }
});
