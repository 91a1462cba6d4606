import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDatabase } from "@/lib/data/connection/db";
import { DEMO_SHOPS, generateDemoFiles } from "@/lib/demo/generate";
import { RECORD_JSON_TABLES, RECORD_TABLES } from "@/lib/data/connection/schema";
import { importColumns, type RecordKind } from "@/lib/domain/fields";
import { IMPORT_LOCK_KEY } from "@/lib/import/import-file";
import { signedHeaders } from "../api/harness";
import { type CliResult, type RunningCli, runCli, startCli } from "../helpers/cli";
import { importLog } from "../helpers/import-log";
import { backends, dropCreatedDatabases, tempDir } from "../helpers/db";
import { MINIMAL_ROW } from "../helpers/import-rows";
import { expectDenseIds, expectRecordCountsInStep } from "../helpers/record-checks";
import { startServer, type TestServer } from "../helpers/server";

/**
 * Faults injected into real imports (`npm run import`, a child process) on every backend:
 * - a SIGKILL of the whole command in the middle of a large file, found mid-way by where the
 *   command has read the file to (/proc/<pid>/fdinfo) while its transaction holds the import lock;
 * - reads through `next start` and through a connection of their own during a large import, and
 *   during many small commits in a row;
 * - two commands importing the same file at once, and a third one that may not wait long.
 * The import's group limit is 4 MiB here (IMPORT_GROUP_BYTES, 16 MiB by default): the large file
 * holds FAULT_IMPORT_RECORDS demo chargebacks (lib/demo/generate.ts, about 400 bytes each), 20,000
 * by default, over that limit, so that it gets a transaction of its own and the file before it is
 * committed first, however fast the command starts. A kill mid-file needs no long window: the
 * command is stopped (SIGSTOP) where it was found, with its transaction open, while the state
 * before it is read. Set FAULT_IMPORT_RECORDS higher by hand (the suite ran 200,000, then 50,000
 * against the 16 MiB limit) for more read rounds during the import.
 */

const GROUP_BYTES = 4 * 1024 * 1024;
const RECORDS = recordsSetting(process.env.FAULT_IMPORT_RECORDS);

function recordsSetting(value: string | undefined): number {
  if (value === undefined || value === "") return 20_000;
  if (!/^\d+$/.test(value) || Number(value) < 20_000) throw new Error(`FAULT_IMPORT_RECORDS must be a whole number of at least 20000, got ${JSON.stringify(value)}`);
  return Number(value);
}
const BIG_DATE = "2026-03-02";
const SMALL_DATE = "2026-03-01";
const SMALL_RECORDS = 500;
const TINY_FILES = 60;
const GROUP_DATES = ["2026-04-01", "2026-04-02", "2026-04-03", "2026-04-04"];
const GROUP_LAST_RECORDS = 10_000;
const READER = { shop: DEMO_SHOPS[0].code, password: "fault-reader-password", access: DEMO_SHOPS.map((s) => s.code) };
// A merchant with records in the earlier files and in the large one: a total counted from rows.
const MERCHANT = DEMO_SHOPS[0].merchantId;

const onLinux = fs.existsSync("/proc/self/fdinfo");

interface Files {
  /** a folder of earlier files: 2,000 chargebacks and 300 pre-arbitration cases in February */
  prefix: string;
  small: string;
  big: string;
  bigBytes: number;
  /** a folder of three small daily files and a 10,000-record one after them: one group (lib/import/import-file.ts) */
  group: string;
  groupLast: string;
  groupLastBytes: number;
}

let files: Files;
let root: string;
const sqliteDirs: string[] = [];
const running: RunningCli[] = [];

beforeAll(() => {
  root = tempDir("disputes-fault-");
  const out = (name: string) => path.join(root, name);
  generateDemoFiles({ out: out("prefix"), seed: 11, chargebacks: 2000, preArbitrations: 300, start: "2026-02-02", end: "2026-02-27" });
  generateDemoFiles({ out: out("small"), seed: 12, chargebacks: SMALL_RECORDS, preArbitrations: 0, start: SMALL_DATE, end: SMALL_DATE });
  generateDemoFiles({ out: out("big"), seed: 13, chargebacks: RECORDS, preArbitrations: 0, start: BIG_DATE, end: BIG_DATE });
  const ymd = (date: string) => date.replaceAll("-", "");
  const big = fs.realpathSync(path.join(out("big"), `CHB_${ymd(BIG_DATE)}.csv`));
  // Past the group limit, the large file is imported in a transaction of its own (see above).
  if (fs.statSync(big).size <= GROUP_BYTES) throw new Error(`the large file must be over ${GROUP_BYTES} bytes, the import's group limit; it is ${fs.statSync(big).size}`);
  generateDemoFiles({ out: out("group"), seed: 14, chargebacks: 12, preArbitrations: 0, start: GROUP_DATES[0], end: GROUP_DATES[2], everyDay: true });
  generateDemoFiles({ out: out("group"), seed: 15, chargebacks: GROUP_LAST_RECORDS, preArbitrations: 0, start: GROUP_DATES[3], end: GROUP_DATES[3] });
  for (const name of fs.readdirSync(out("group"))) if (!name.startsWith("CHB_")) fs.rmSync(path.join(out("group"), name));
  const groupLast = fs.realpathSync(path.join(out("group"), `CHB_${ymd(GROUP_DATES[3])}.csv`));
  files = {
    prefix: out("prefix"),
    small: fs.realpathSync(path.join(out("small"), `CHB_${ymd(SMALL_DATE)}.csv`)),
    big,
    bigBytes: fs.statSync(big).size,
    group: fs.realpathSync(out("group")),
    groupLast,
    groupLastBytes: fs.statSync(groupLast).size,
  };
});

afterEach(() => {
  // A failed test must not leave an import running into the next one.
  for (const run of running.splice(0)) if (run.child.exitCode === null && run.child.signalCode === null) run.killGroup("SIGKILL");
});

afterAll(async () => {
  await dropCreatedDatabases();
  for (const dir of [root, ...sqliteDirs]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
    await sleep(100);
  }
}

function must(result: CliResult, what: string): CliResult {
  if (result.code !== 0) throw new Error(`${what} failed (${result.code}):\n${result.stdout}\n${result.stderr}`);
  return result;
}

function started(run: RunningCli): RunningCli {
  running.push(run);
  return run;
}

/** A fresh database of the backend with the earlier files loaded, and the commands' environment. */
async function preparedDatabase(backend: (typeof backends)[number]): Promise<Record<string, string>> {
  const url = await backend.create();
  if (url.startsWith("file:")) sqliteDirs.push(path.dirname(url.slice("file:".length)));
  const env = { DATABASE_URL: url, APP_KEY_FILE: path.join(tempDir("disputes-fault-key-"), "app.key"), RATE_LIMIT_PER_MINUTE: "0", IMPORT_GROUP_BYTES: String(GROUP_BYTES) };
  sqliteDirs.push(path.dirname(env.APP_KEY_FILE));
  must(await runCli("import.ts", [files.prefix], env), "import of the earlier files");
  return env;
}

// ---- Table snapshots

type Snapshot = Record<string, { rows: number; sha256: string }>;

async function tableNames(db: Db): Promise<string[]> {
  const query =
    db.dialect === "sqlite"
      ? sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`
      : sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`;
  return (await query.execute(db.db)).rows.map((r) => r.name);
}

const canonical = (row: Record<string, unknown>) =>
  JSON.stringify(
    Object.keys(row)
      .sort()
      .map((k) => [k, row[k] === null ? null : row[k] instanceof Uint8Array ? Buffer.from(row[k] as Uint8Array).toString("hex") : String(row[k])]),
  );

/**
 * Row count and SHA-256 of the sorted rows of every table of the database. `without`: leaves out
 * what an import of that file adds (its records and summary rows by date, its imported_files
 * row by name, the stored JSON of its records, record_sums of its day and by month, its day's groups, record_shops, whose totals it raises, the
 * disputes its records name, with their counts, and its webhook events), to compare everything else.
 */
async function snapshot(db: Db, without?: { name: string; fileDate: string }): Promise<Snapshot> {
  const out: Snapshot = {};
  for (const table of await tableNames(db)) {
    let where = sql``;
    if (without) {
      // Aggregates over all of a shop's or a dispute's records, which the file changes: their
      // agreement with the records is checked by expectRecordCountsInStep instead.
      // The shop directory too: a file names its shops' latest merchants (expectShopDirectoryInStep).
      if (table === "record_shops" || table === "disputes" || table === "dispute_counts" || table === "shop_directory") continue;
      if (table === "chargebacks" || table === "pre_arbitrations" || table === "record_counts") where = sql`where file_date <> ${without.fileDate}`;
      if (table === "imported_files") where = sql`where name <> ${without.name}`;
      // The stored JSON of the file's records (PostgreSQL, migration 012).
      const jsonOf = (Object.keys(RECORD_JSON_TABLES) as RecordKind[]).find((kind) => RECORD_JSON_TABLES[kind] === table);
      if (jsonOf) where = sql`where record_id not in (select id from ${sql.table(RECORD_TABLES[jsonOf])} where file_date = ${without.fileDate})`;
      if (table === "webhook_deliveries") where = sql`where body not like ${`%"file_date":"${without.fileDate}"%`}`;
      // record_sums: the file's day rows; month rows are written when a month closes, which a
      // later file does for every shop at once (their agreement is checked in expectRecordCountsInStep).
      if (table === "record_sums") where = sql`where grain = 'day' and period <> ${without.fileDate}`;
      // Each day's groups (migration 019): the file's day.
      if (table === "record_day_groups") where = sql`where period <> ${without.fileDate}`;
    }
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)} ${where}`.execute(db.db);
    const hash = crypto.createHash("sha256");
    for (const line of rows.map(canonical).sort()) hash.update(`${line}\n`);
    out[table] = { rows: rows.length, sha256: hash.digest("hex") };
  }
  return out;
}

async function withDb<T>(url: string, work: (db: Db) => Promise<T>): Promise<T> {
  const db = await openDatabase(url);
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

const countOn = async (db: Db, fileDate: string) =>
  Number((await db.db.selectFrom("chargebacks").select((eb) => eb.fn.countAll().as("n")).where("file_date", "=", fileDate).executeTakeFirstOrThrow()).n);

// ---- Where a running import is

/** True while another connection's transaction holds the import lock (lib/import/import-file.ts). */
async function importLockHeld(db: Db): Promise<boolean> {
  const sqlite = db.sqlite;
  if (sqlite) {
    // SQLite's import lock is the write lock: try to take it without waiting.
    sqlite.pragma("busy_timeout = 0");
    try {
      sqlite.exec("begin immediate");
      sqlite.exec("rollback");
      return false;
    } catch (err) {
      if ((err as { code?: unknown }).code === "SQLITE_BUSY") return true;
      throw err;
    } finally {
      sqlite.pragma("busy_timeout = 10000");
    }
  }
  const r = await sql<{ n: number }>`select count(*)::int as n from pg_locks
    where locktype = 'advisory' and granted and objid = ${IMPORT_LOCK_KEY} and pid <> pg_backend_pid()
      and database = (select oid from pg_database where datname = current_database())`.execute(db.db);
  return r.rows[0].n > 0;
}

/** Processes of a process group (Linux /proc). */
function groupMembers(pgid: number): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) === pgid && state !== "Z") pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** How far the command's processes have read `file`: the largest offset of a descriptor open on it. */
function readOffset(pgid: number, file: string): number | null {
  let offset: number | null = null;
  for (const pid of groupMembers(pgid)) {
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`) !== file) continue;
        const pos = /^pos:\s+(\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, "utf8"));
        if (pos) offset = Math.max(offset ?? 0, Number(pos[1]));
      } catch {
        // closed meanwhile
      }
    }
  }
  return offset;
}

/**
 * Waits until the command is demonstrably in the middle of `file`: it has read between 35% and
 * 75% of it, further than at the last look, while a transaction holds the import lock (so the
 * first pass, which only hashes the file, does not count). Returns the fraction read.
 */
async function midFile(run: RunningCli, db: Db, file: string, bytes: number): Promise<number> {
  const pgid = run.child.pid!;
  const deadline = Date.now() + 120_000;
  let last = -1;
  for (;;) {
    if (run.child.exitCode !== null || run.child.signalCode !== null) throw new Error(`the import ended before the middle of the file:\n${run.stdout()}`);
    if (Date.now() > deadline) throw new Error(`the import did not reach the middle of the file in time (read ${last} of ${bytes} bytes)`);
    const offset = readOffset(pgid, file);
    if (offset !== null) {
      const fraction = offset / bytes;
      if (last >= 0 && offset > last && fraction >= 0.35 && fraction <= 0.75 && (await importLockHeld(db))) return fraction;
      last = offset;
    }
    await sleep(25);
  }
}

// ---- PostgreSQL sessions

async function pgQuery<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

/** Client sessions on the database other than the asking one, advisory locks, prepared transactions. */
async function pgLeftovers(url: string) {
  const [row] = await pgQuery<{ sessions: number; in_transaction: number; locks: number; advisory: number; prepared: number }>(
    url,
    `select
      (select count(*)::int from pg_stat_activity where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()) as sessions,
      (select count(*)::int from pg_stat_activity where datname = current_database() and xact_start is not null and pid <> pg_backend_pid() and backend_type = 'client backend') as in_transaction,
      (select count(*)::int from pg_locks l join pg_stat_activity a using (pid)
        where a.backend_type = 'client backend' and l.pid <> pg_backend_pid() and l.database = (select oid from pg_database where datname = current_database())) as locks,
      (select count(*)::int from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())) as advisory,
      (select count(*)::int from pg_prepared_xacts where database = current_database()) as prepared`,
  );
  return row;
}

describe.skipIf(!onLinux).each(backends)("import faults on $name", (backend) => {
  it("a SIGKILL in the middle of a large file leaves every table as it was before the file; the next run loads it whole", { timeout: 240_000 }, async () => {
    const env = await preparedDatabase(backend);
    const url = env.DATABASE_URL;
    const bigName = path.basename(files.big);
    const smallName = path.basename(files.small);
    // A webhook endpoint that sees every shop: each committed file gets its event (docs/api.md, "Webhooks"),
    // in the file's transaction, so the killed file must leave none. No server runs to send them.
    must(await runCli("admin.ts", ["shop", "add", READER.shop, "--password", READER.password, "--access", READER.access.join(",")], env), "admin shop add");
    must(await runCli("admin.ts", ["webhook", "add", READER.shop, "http://127.0.0.1:9/never-called"], env), "admin webhook add");

    // The command loads a small file, then the large one: the small file's commit is the state
    // "before the large file", and on SQLite it sits in the write-ahead log when the command dies.
    const db = await openDatabase(url);
    const tableBytes = async () => (db.dialect === "postgres" ? Number((await sql<{ n: string }>`select pg_relation_size('chargebacks') as n`.execute(db.db)).rows[0].n) : 0);
    const bytesBefore = await tableBytes();
    const t0 = Date.now();
    const run = started(startCli("import.ts", [files.small, files.big], env, { group: true }));
    let fraction: number;
    let before: Snapshot;
    let beforeKept: Snapshot;
    try {
      fraction = await midFile(run, db, files.big, files.bigBytes);
      // Held there (stopped, its transaction open) while the state is read: a running import may
      // commit the rest of the file before the reads below end.
      run.killGroup("SIGSTOP");
      // What the database holds while the large file's transaction is open: the committed state.
      before = await snapshot(db);
      beforeKept = await snapshot(db, { name: bigName, fileDate: BIG_DATE });
      // The small file is committed and visible; nothing of the large one is.
      expect(await countOn(db, SMALL_DATE)).toBe(SMALL_RECORDS);
      expect(await countOn(db, BIG_DATE)).toBe(0);
      if (db.dialect === "postgres") {
        // Rows of the open transaction are on disk already (and must vanish with it).
        expect(await tableBytes()).toBeGreaterThan(bytesBefore + 1_000_000);
      }
    } finally {
      // On SQLite the killed command must be the last user of the log, so that the next open recovers it.
      await db.close();
    }
    expect(run.stdout()).toBe(`${files.small}: imported ${SMALL_RECORDS} records\n`);
    run.killGroup("SIGKILL");
    const killed = await run.done;
    const killedAfter = (Date.now() - t0) / 1000;
    expect(killed.signal).toBe("SIGKILL");
    expect(killed.stdout).toBe(`${files.small}: imported ${SMALL_RECORDS} records\n`);
    await until("every process of the killed command gone", () => groupMembers(run.child.pid!).length === 0, 10_000);
    expect(before.imported_files.rows).toBeGreaterThan(0);

    let walBytes = 0;
    if (backend.name === "sqlite") {
      const file = url.slice("file:".length);
      // The log the killed command left behind holds the small file's commit (never checkpointed)...
      walBytes = fs.statSync(`${file}-wal`).size;
      expect(walBytes).toBeGreaterThan(0);
      // ...which the database file alone does not have: only recovery from the log brings it back.
      const copy = path.join(tempDir("disputes-fault-main-"), "main-only.sqlite");
      sqliteDirs.push(path.dirname(copy));
      fs.copyFileSync(file, copy);
      const mainOnly = new BetterSqlite3(copy);
      const names = (mainOnly.prepare("select name from imported_files").all() as { name: string }[]).map((r) => r.name);
      mainOnly.close();
      expect(names).not.toContain(smallName);
      expect(names.length).toBeGreaterThan(0);
    } else {
      // The server ends the killed command's session: no lock, no transaction, nothing prepared.
      await until("the killed command's session ended", async () => (await pgLeftovers(url)).sessions === 0, 15_000);
      expect(await pgLeftovers(url)).toEqual({ sessions: 0, in_transaction: 0, locks: 0, advisory: 0, prepared: 0 });
    }

    // Every table exactly as before the large file (on SQLite: after recovering the log).
    const after = await withDb(url, (fresh) => snapshot(fresh));
    expect(after).toEqual(before);
    const names = await withDb(url, async (fresh) => (await fresh.db.selectFrom("imported_files").select("name").execute()).map((r) => r.name));
    expect(names).toContain(smallName);
    expect(names).not.toContain(bigName);
    const events = (fresh: Db) => fresh.db.selectFrom("webhook_deliveries").select("body").execute();
    expect((await withDb(url, events)).map((e) => JSON.parse(e.body).data.file_date)).toContain(SMALL_DATE);
    expect((await withDb(url, events)).map((e) => JSON.parse(e.body).data.file_date)).not.toContain(BIG_DATE);

    // The next run loads the file whole.
    const t1 = Date.now();
    const again = await runCli("import.ts", [files.big], env);
    const rerunSeconds = (Date.now() - t1) / 1000;
    expect(again).toMatchObject({ code: 0, stdout: `${files.big}: imported ${RECORDS} records\n` });
    expect(importLog(again.stderr)).toEqual([`${bigName} chargeback imported ${RECORDS}`]);
    await withDb(url, async (fresh) => {
      expect(await countOn(fresh, BIG_DATE)).toBe(RECORDS);
      const row = await fresh.db.selectFrom("imported_files").selectAll().where("name", "=", bigName).executeTakeFirstOrThrow();
      expect(Number(row.record_count)).toBe(RECORDS);
      const own = await fresh.db.selectFrom("chargebacks").select((eb) => eb.fn.countAll().as("n")).where("file_id", "=", row.id).executeTakeFirstOrThrow();
      expect(Number(own.n)).toBe(RECORDS);
      // Everything else unchanged; the summaries and ids in step with the rows.
      expect(await snapshot(fresh, { name: bigName, fileDate: BIG_DATE })).toEqual(beforeKept);
      // The committed file has its one event, with every record counted.
      const bigEvents = (await events(fresh)).map((e) => JSON.parse(e.body)).filter((e) => e.data.file_date === BIG_DATE);
      expect(bigEvents.map((e) => [e.type, e.data.count])).toEqual([["chargebacks.imported", RECORDS]]);
      await expectDenseIds(fresh);
      await expectRecordCountsInStep(fresh);
    });
    console.log(
      `[fault ${backend.name}] SIGKILL after ${killedAfter.toFixed(1)} s at ${(fraction * 100).toFixed(0)}% of ${RECORDS} records` +
        `${backend.name === "sqlite" ? `, -wal left ${walBytes} bytes` : ""}; re-run imported ${RECORDS} in ${rerunSeconds.toFixed(1)} s`,
    );
  });

  it("a SIGKILL in the middle of a group of files takes the whole group back: no line printed, none of its files loaded; the next run loads them all", { timeout: 240_000 }, async () => {
    const env = await preparedDatabase(backend);
    const url = env.DATABASE_URL;
    // Small enough to share the group of the three small files before it (under the group limit).
    expect(files.groupLastBytes).toBeLessThan(GROUP_BYTES);
    const db = await openDatabase(url);
    let before: Snapshot;
    let run: ReturnType<typeof started>;
    try {
      // The state before the command, read before it starts: the group's last file may take less time than this read.
      before = await snapshot(db);
      run = started(startCli("import.ts", [files.group], env, { group: true }));
      await midFile(run, db, files.groupLast, files.groupLastBytes);
      run.killGroup("SIGSTOP");
      // The three small files are loaded by now, in the group's open transaction: not visible.
      for (const date of GROUP_DATES) expect(await countOn(db, date)).toBe(0);
    } finally {
      await db.close();
    }
    // Nothing is printed before the group commits.
    expect(run.stdout()).toBe("");
    run.killGroup("SIGKILL");
    expect((await run.done).signal).toBe("SIGKILL");
    await until("every process of the killed command gone", () => groupMembers(run.child.pid!).length === 0, 10_000);
    expect(await withDb(url, (fresh) => snapshot(fresh))).toEqual(before);

    const again = await runCli("import.ts", [files.group], env);
    expect(again.code).toBe(0);
    const lines = again.stdout.trim().split("\n");
    expect(lines).toHaveLength(4);
    lines.forEach((line, i) => expect(line).toMatch(new RegExp(`CHB_${GROUP_DATES[i].replaceAll("-", "")}\\.csv: imported \\d+ records$`)));
    await withDb(url, async (fresh) => {
      for (const date of GROUP_DATES.slice(0, 3)) expect(await countOn(fresh, date)).toBeGreaterThan(0);
      expect(await countOn(fresh, GROUP_DATES[3])).toBe(GROUP_LAST_RECORDS);
      await expectRecordCountsInStep(fresh);
    });
    console.log(`[fault ${backend.name}] SIGKILL in the middle of a group of 4 files: nothing printed, nothing loaded; the re-run loaded all 4`);
  });

  it("reads during a large import see none or all of the file: API totals agree with their pages, and with a connection of their own", { timeout: 240_000 }, async () => {
    const env = await preparedDatabase(backend);
    must(await runCli("admin.ts", ["shop", "add", READER.shop, "--password", READER.password, "--access", READER.access.join(",")], env), "admin shop add");
    let server: TestServer | undefined;
    const db = await openDatabase(env.DATABASE_URL);
    try {
      server = await startServer(env);
      const base = server.url;
      type Page = { totalElements: number; content: { file_date: string }[] };
      const ask = async (body: Record<string, unknown>): Promise<Page> => {
        const res = await fetch(`${base}/api/chargeback`, {
          method: "POST",
          headers: { "Content-Type": "application/json", ...signedHeaders(READER.shop, READER.password) },
          body: JSON.stringify(body),
        });
        if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
        return (await res.json()) as Page;
      };
      const QUERIES = {
        // totals from the summaries; the newest records first, so the page shows the large file once it is there
        newest: { sortKey: "FILE_DATE", sortOrder: "desc", per_page: 10 },
        day: { file_date_from: BIG_DATE, file_date_to: BIG_DATE, per_page: 10 },
        // a total counted from the rows
        merchant: { merchant_id: MERCHANT, sortKey: "FILE_DATE", sortOrder: "desc", per_page: 10 },
      } as const;
      type Name = keyof typeof QUERIES;
      const names = Object.keys(QUERIES) as Name[];

      /** The record totals of one snapshot, read on a connection of the test's own. */
      const direct = () => {
        const read = async (trx: typeof db.db) => {
          const r = await sql<{ records: number; summary: number; max_id: number; files: number; big: number }>`select
            (select count(*) from chargebacks) as records,
            (select coalesce(sum(n), 0) from record_shops where kind = 'chargeback') as summary,
            (select coalesce(max(id), 0) from chargebacks) as max_id,
            (select count(*) from imported_files) as files,
            (select count(*) from chargebacks where file_date = ${BIG_DATE}) as big`.execute(trx);
          const row = r.rows[0];
          return { records: Number(row.records), summary: Number(row.summary), maxId: Number(row.max_id), files: Number(row.files), big: Number(row.big) };
        };
        return db.dialect === "postgres" ? db.db.transaction().setIsolationLevel("repeatable read").execute(read) : db.db.transaction().execute(read);
      };

      const first = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await ask(QUERIES[n])] as const))) as Record<Name, Page>;
      const directBefore = await direct();
      expect(directBefore.big).toBe(0);
      expect(first.day.totalElements).toBe(0);

      const run = started(startCli("import.ts", [files.big], env));
      let importing = true;
      void run.done.then(() => (importing = false));
      const seen: { during: boolean; pages: Record<Name, Page>; direct: Awaited<ReturnType<typeof direct>> }[] = [];
      const t0 = Date.now();
      let roundsAfter = 0;
      while (importing || roundsAfter < 3) {
        const during = importing;
        const [pages, d] = await Promise.all([
          Promise.all(names.map(async (n) => [n, await ask(QUERIES[n])] as const)).then((e) => Object.fromEntries(e) as Record<Name, Page>),
          direct(),
        ]);
        seen.push({ during, pages, direct: d });
        if (!during) roundsAfter++;
        // A breath between rounds: the import shares the two cores with the server and this loop.
        await sleep(20);
      }
      const ended = await run.done;
      const seconds = (Date.now() - t0) / 1000;
      expect(ended).toMatchObject({ code: 0, stdout: `${files.big}: imported ${RECORDS} records\n` });
      expect(importLog(ended.stderr)).toEqual([`${path.basename(files.big)} chargeback imported ${RECORDS}`]);

      const directAfter = await direct();
      expect(directAfter).toEqual({ ...directBefore, records: directBefore.records + RECORDS, summary: directBefore.summary + RECORDS, maxId: directBefore.maxId + RECORDS, files: directBefore.files + 1, big: RECORDS });
      const merchantAfter = Number(
        (await db.db.selectFrom("chargebacks").select((eb) => eb.fn.countAll().as("n")).where("merchant_id", "=", MERCHANT).executeTakeFirstOrThrow()).n,
      );
      expect(merchantAfter).toBeGreaterThan(first.merchant.totalElements);
      const totals: Record<Name, [number, number]> = {
        newest: [first.newest.totalElements, first.newest.totalElements + RECORDS],
        day: [0, RECORDS],
        merchant: [first.merchant.totalElements, merchantAfter],
      };

      let withFile = 0;
      let withoutFile = 0;
      for (const [i, s] of seen.entries()) {
        const label = `read ${i} (${s.during ? "during" : "after"} the import)`;
        // The connection of its own: one snapshot, before the file or after it, never between.
        expect([directBefore, directAfter], label).toContainEqual(s.direct);
        for (const name of names) {
          const page = s.pages[name];
          const [none, all] = totals[name];
          expect([none, all], `${label} ${name}`).toContain(page.totalElements);
          const fileRows = page.content.filter((r) => r.file_date === BIG_DATE).length;
          // The page holds the file's records exactly when the total counts them.
          if (page.totalElements === all) {
            expect(fileRows, `${label} ${name}: a total with the file, a page without it`).toBe(page.content.length);
            expect(page.content.length, `${label} ${name}`).toBe(10);
            withFile++;
          } else {
            expect(fileRows, `${label} ${name}: a total without the file, a page with it`).toBe(0);
            expect(page.content.length, `${label} ${name}`).toBe(Math.min(10, none));
            withoutFile++;
          }
        }
      }
      const during = seen.filter((s) => s.during).length;
      // Reads happened while the file was being loaded, and saw it once it was committed.
      expect(during).toBeGreaterThanOrEqual(10);
      expect(withoutFile).toBeGreaterThan(0);
      expect(withFile).toBeGreaterThan(0);
      expect(seen.at(-1)!.direct).toEqual(directAfter);
      console.log(
        `[fault ${backend.name}] ${seen.length} read rounds (${during} during the ${seconds.toFixed(1)} s import, ${names.length} API reads + 1 direct each): ` +
          `${withoutFile} API answers without the file, ${withFile} with all of it, none partial`,
      );

      // Many commits in a row: one command loads a folder of one-record files with later dates,
      // committed in groups of about a second (lib/import/import-file.ts). Every answer's newest
      // record is the last file its total counts: a total and a page read across a commit would disagree.
      const tiny = path.join(root, `tiny-${backend.name}`);
      fs.mkdirSync(tiny, { recursive: true });
      const columns = importColumns("chargeback");
      const tinyDates = Array.from({ length: TINY_FILES }, (_, i) => new Date(Date.UTC(2026, 2, 3 + i)).toISOString().slice(0, 10));
      tinyDates.forEach((date, i) => {
        const row: Record<string, string> = { ...MINIMAL_ROW.chargeback, shop_code: READER.shop, payment_id: `TINY-${i}` };
        fs.writeFileSync(path.join(tiny, `CHB_${date.replaceAll("-", "")}.csv`), `${columns.join(",")}\n${columns.map((c) => row[c] ?? "").join(",")}\n`);
      });
      const afterBig = first.newest.totalElements + RECORDS;
      const loading = started(startCli("import.ts", [tiny], env));
      let loadingNow = true;
      void loading.done.then(() => (loadingNow = false));
      const answers: { total: number; newest: string | undefined }[] = [];
      const reader = async () => {
        while (loadingNow) {
          const page = await ask(QUERIES.newest);
          answers.push({ total: page.totalElements, newest: page.content[0]?.file_date });
        }
      };
      await Promise.all([reader(), reader(), reader()]);
      const loaded = await loading.done;
      expect(loaded.code).toBe(0);
      expect(importLog(loaded.stderr)).toEqual(tinyDates.map((date) => `CHB_${date.replaceAll("-", "")}.csv chargeback imported 1`));
      const disagreeing = answers.filter((a) => {
        const k = a.total - afterBig;
        return k < 0 || k > TINY_FILES || a.newest !== (k === 0 ? BIG_DATE : tinyDates[k - 1]);
      });
      expect(disagreeing).toEqual([]);
      expect(answers.length).toBeGreaterThanOrEqual(20);
      expect(new Set(answers.map((a) => a.total)).size).toBeGreaterThan(1);
      console.log(`[fault ${backend.name}] ${answers.length} reads during ${TINY_FILES} one-record files: ${new Set(answers.map((a) => a.total)).size} totals seen, none disagreeing with its page`);
    } finally {
      await server?.stop();
      await db.close();
    }
  });

  it("two commands importing the same file at once load it once; a command that may not wait is refused clearly", { timeout: 240_000 }, async () => {
    const env = await preparedDatabase(backend);
    const db = await openDatabase(env.DATABASE_URL);
    try {
      const before = await snapshot(db, { name: path.basename(files.big), fileDate: BIG_DATE });
      const t0 = Date.now();
      const a = started(startCli("import.ts", [files.big], env, { group: true }));
      const b = started(startCli("import.ts", [files.big], env, { group: true }));
      await until("one of the two imports holds the import lock", () => importLockHeld(db), 60_000);

      // A third command that may wait one second for the lock: refused with a message, nothing loaded.
      // The two are stopped meanwhile, so the lock is still held when the third asks, however fast the import.
      a.killGroup("SIGSTOP");
      b.killGroup("SIGSTOP");
      let impatient: Awaited<ReturnType<typeof runCli>>;
      try {
        impatient = await runCli("import.ts", [files.small], { ...env, IMPORT_LOCK_WAIT_SECONDS: "1" });
      } finally {
        a.killGroup("SIGCONT");
        b.killGroup("SIGCONT");
      }
      expect(importLog(impatient.stderr)).toEqual([`${path.basename(files.small)} chargeback rejected 1`]);
      expect(impatient).toMatchObject({
        code: 1,
        stdout:
          `${files.small}: another import kept the database locked for 1 s (IMPORT_LOCK_WAIT_SECONDS); nothing of this file was loaded, import it again later\n` +
          `${files.small}: rejected (1 problems)\n`,
      });
      // ...while the lock holder was still at work.
      expect(a.child.exitCode === null || b.child.exitCode === null).toBe(true);

      const results = await Promise.all([a.done, b.done]);
      const seconds = (Date.now() - t0) / 1000;
      for (const r of results) expect(r, r.stdout + r.stderr).toMatchObject({ code: 0 });
      expect(results.map((r) => importLog(r.stderr)[0]?.replace(/ \d+$/, "")).sort()).toEqual([`${path.basename(files.big)} chargeback imported`, `${path.basename(files.big)} chargeback skipped`]);
      expect(results.map((r) => r.stdout).sort()).toEqual([`${files.big}: imported ${RECORDS} records\n`, `${files.big}: skipped (already imported)\n`].sort());

      expect(await countOn(db, BIG_DATE)).toBe(RECORDS);
      expect(await countOn(db, SMALL_DATE)).toBe(0);
      const rows = await db.db.selectFrom("imported_files").select(["name", "record_count"]).where("name", "in", [path.basename(files.big), path.basename(files.small)]).execute();
      expect(rows.map((r) => [r.name, Number(r.record_count)])).toEqual([[path.basename(files.big), RECORDS]]);
      expect(await snapshot(db, { name: path.basename(files.big), fileDate: BIG_DATE })).toEqual(before);
      await expectDenseIds(db);
      await expectRecordCountsInStep(db);

      // Once the lock is free the refused file loads.
      expect(await runCli("import.ts", [files.small], env)).toMatchObject({ code: 0, stdout: `${files.small}: imported ${SMALL_RECORDS} records\n` });
      console.log(`[fault ${backend.name}] two imports of ${RECORDS} records at once: one imported, one skipped, in ${seconds.toFixed(1)} s; a 1 s lock wait refused`);
    } finally {
      await db.close();
    }
  });
});
