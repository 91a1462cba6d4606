/**
 * npx tsx bench/studies/import-parts.ts --database <DATABASE_URL> [--parse-only] <file or folder>...
 *
 * Where an import's time goes (docs/performance.md, "Where the import's time goes"): the same
 * import as `npm run import` (lib/import importPaths), with every statement it sends timed at the
 * database driver (better-sqlite3's prepared statements; pg's Client.query) and put in the part
 * of the import it belongs to by its text: the rows, the records' JSON (PostgreSQL), record_sums,
 * the counts and shop directory, the disputes, the webhook events and mail alerts, the file
 * bookkeeping, begin/commit/savepoints, and the analyse/vacuum/checkpoint at the end. What is
 * left of the wall clock is this thread's own JavaScript and its waits for parsed rows.
 * --parse-only instead reads and checks the files on this thread alone (lib/import
 * validatedRows), the parsing thread's work without a database: the cost of parse and validate.
 * Prints one table; nothing is written but the database.
 */
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { openDatabase } from "@/lib/data/connection/db";
import { importPaths } from "@/lib/import";
import { parseFileName } from "@/lib/import/file-name";
import { validatedRows } from "@/lib/import/validated-rows";

const PARTS: [name: string, test: RegExp][] = [
  ["analyse, vacuum, checkpoint", /^\s*(analyze|vacuum|checkpoint|pragma)/i],
  ["rows (insert into the record tables)", /^\s*insert into "(chargebacks|pre_arbitrations)"/i],
  ["records' JSON (PostgreSQL)", /_json/i],
  ["record_sums", /record_sums/i],
  ["disputes", /disputes|dispute_counts/i],
  ["counts and shop directory", /record_counts|record_shops|shop_directory/i],
  ["webhook events and mail alerts", /webhook|mail_/i],
  ["commits, savepoints", /^\s*(begin|commit|rollback|savepoint|release)/i],
  ["file bookkeeping (imported_files, next id, lock)", /imported_files|max\("id"\)|advisory|set_config|select 1 from/i],
];

const spent = new Map<string, { ms: number; calls: number }>();
function note(text: string, ms: number) {
  const part = PARTS.find(([, test]) => test.test(text))?.[0] ?? `other statements`;
  const entry = spent.get(part) ?? { ms: 0, calls: 0 };
  entry.ms += ms;
  entry.calls++;
  spent.set(part, entry);
}

/** Every PostgreSQL statement of this process, timed from send to answer. */
function timePostgres() {
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const text = typeof args[0] === "string" ? args[0] : ((args[0] as { text?: string })?.text ?? "");
    const t0 = performance.now();
    const out = query.apply(this, args);
    if (out && typeof (out as Promise<unknown>).then === "function") (out as Promise<unknown>).then(() => note(text, performance.now() - t0), () => note(text, performance.now() - t0));
    return out;
  } as typeof pg.Client.prototype.query;
}

/** Every statement of a better-sqlite3 connection, timed around each run, get, all and iterate. */
function timeSqlite(database: { prepare: (text: string) => object; pragma: (text: string, opts?: object) => unknown }) {
  const prepare = database.prepare.bind(database);
  database.prepare = (text: string) => {
    const statement = prepare(text) as Record<string, unknown>;
    return new Proxy(statement, {
      get(target, key) {
        const value = Reflect.get(target, key, target);
        if (typeof value !== "function" || !["run", "get", "all", "iterate"].includes(String(key))) return typeof value === "function" ? value.bind(target) : value;
        return (...args: unknown[]) => {
          const t0 = performance.now();
          try {
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          } finally {
            note(text, performance.now() - t0);
          }
        };
      },
    });
  };
  const pragma = database.pragma.bind(database);
  database.pragma = (text: string, opts?: object) => {
    const t0 = performance.now();
    try {
      return pragma(text, opts);
    } finally {
      note(`pragma ${text}`, performance.now() - t0);
    }
  };
}

function filesOf(args: string[]): string[] {
  return args.flatMap((arg) =>
    fs.statSync(arg).isDirectory()
      ? fs
          .readdirSync(arg)
          .filter((name) => name.toLowerCase().endsWith(".csv"))
          .sort()
          .map((name) => path.join(arg, name))
      : [arg],
  );
}

async function main() {
  const args = process.argv.slice(2);
  const at = args.indexOf("--database");
  const url = at >= 0 ? args.splice(at, 2)[1] : undefined;
  const parseOnly = args.includes("--parse-only");
  const paths = args.filter((a) => a !== "--parse-only");
  if (paths.length === 0) throw new Error("usage: npx tsx bench/studies/import-parts.ts --database <url> [--parse-only] <file or folder>...");
  if (parseOnly) {
    const t0 = performance.now();
    let records = 0;
    for (const file of filesOf(paths)) {
      const kind = parseFileName(path.basename(file))?.kind;
      if (!kind) continue;
      for await (const batch of validatedRows(file, kind)) records += batch.length;
    }
    const seconds = (performance.now() - t0) / 1000;
    console.log(`parse and validate alone, one thread: ${records.toLocaleString("en")} records in ${seconds.toFixed(1)} s = ${Math.round(records / seconds).toLocaleString("en")} records/s`);
    return;
  }
  if (!url) throw new Error("--database is required");
  // pg's Client before any connection is made.
  if (url.startsWith("postgres")) timePostgres();
  const db = await openDatabase(url);
  if (db.sqlite) timeSqlite(db.sqlite as unknown as Parameters<typeof timeSqlite>[0]);
  spent.clear();
  const t0 = performance.now();
  let result;
  try {
    result = await importPaths(db, paths, () => {});
  } finally {
    await db.close();
  }
  const seconds = (performance.now() - t0) / 1000;
  const records = result.results.reduce((n, r) => n + (r.status === "imported" ? r.records : 0), 0);
  const inStatements = [...spent.values()].reduce((n, e) => n + e.ms, 0);
  console.log(`${db.dialect}: ${records.toLocaleString("en")} records from ${result.results.length} files in ${seconds.toFixed(1)} s = ${Math.round(records / seconds).toLocaleString("en")} records/s`);
  const rows = [...spent.entries()].sort((a, b) => b[1].ms - a[1].ms);
  rows.push(["this thread's JavaScript and waits for parsed rows", { ms: seconds * 1000 - inStatements, calls: 0 }]);
  for (const [part, { ms, calls }] of rows) {
    console.log(`${part.padEnd(52)} ${(ms / 1000).toFixed(1).padStart(7)} s ${((100 * ms) / (seconds * 1000)).toFixed(1).padStart(5)}%${calls ? `  ${calls.toLocaleString("en")} statements` : ""}`);
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
