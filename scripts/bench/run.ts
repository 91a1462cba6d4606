/**
 * One backend's benchmark: import the history (and one single large file into a fresh
 * database), create the 1-, 3- and all-shop credentials, measure each class's SQL floor, then
 * start the production server and measure the 401 floor, every class, the mixed run and reads
 * during an import.
 */
import { type ChildProcess, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createShop } from "@/lib/auth/accounts";
import { openDatabase } from "@/lib/data/connection/db";
import { RECORD_TABLES } from "@/lib/data/connection/schema";
import type { RecordKind } from "@/lib/domain/fields";
import { apiPath, type BenchClass, benchClasses, type CredentialName, KINDS } from "./classes";
import { addDays, type BenchFiles } from "./data";
import { alone, type Call, type Credential, type Group, load, sendOnce, type Stats } from "./http";
import { freshDatabase, type ImportFigures, importMeasured, round, scratchPostgres } from "./import";
import type { Backend, BenchOptions } from "./options";
import { ROOT, startServer, stopGroup } from "./server";
import { type FloorFigures, measureFloor, openSql, type SqlClient } from "./sql";

/** Things to undo however the run ends (errors, Ctrl-C): last added, first done. */
export class Cleanup {
  private steps: { name: string; run: () => Promise<void> | void }[] = [];
  readonly children = new Set<ChildProcess>();
  add(name: string, run: () => Promise<void> | void): () => Promise<void> {
    const step = { name, run };
    this.steps.push(step);
    // Done at most once: by the caller, or at the end.
    return async () => {
      const i = this.steps.indexOf(step);
      if (i < 0) return;
      this.steps.splice(i, 1);
      await run();
    };
  }
  track(child: ChildProcess) {
    this.children.add(child);
    child.once("exit", () => this.children.delete(child));
  }
  async runAll() {
    for (const child of [...this.children]) await stopGroup(child, 3000);
    while (this.steps.length) {
      const step = this.steps.pop()!;
      try {
        await step.run();
      } catch (err) {
        console.error(`bench: cleanup (${step.name}) failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
}

export interface ClassResult {
  id: string;
  kind: RecordKind;
  letter: string;
  name: string;
  credential: CredentialName;
  shopsInScope: number;
  body: Record<string, unknown>;
  stats: Stats;
  totalElements: number | null;
  totalsConstant: boolean;
  /** req/s of this class / req/s of the 401 floor */
  ratio401: number;
  /** median latency of sequential requests, one at a time */
  aloneMs: number;
  sql: FloorFigures;
  /** API p50 / SQL median */
  p50OverSql: number;
  /** API single request alone / SQL median */
  aloneOverSql: number;
  totalMatchesSql: boolean;
}

/** One class measured right after the import, before anything else read the data. */
export interface FirstRunResult {
  id: string;
  name: string;
  /** SQLite: the bytes of the records' -wal file when the import had ended (0: none or empty) */
  walBytesAfterImport?: number;
  /** the very first request to a fresh server, alone */
  firstRequestMs: number;
  /** then `seconds` at the run's concurrency, without a warm-up */
  stats: Stats;
  ratio401: number;
}

export interface BackendResult {
  backend: Backend;
  databaseVersion: string;
  import: { dailyFiles: ImportFigures; singleFile: ImportFigures | { skipped: string } };
  records: Record<RecordKind, number>;
  server: { startSeconds: number; peakRssMb: number; processes: number; logTail: string };
  floor401: Stats;
  /** absent in runs before 2026-11-25 */
  firstRun?: FirstRunResult;
  classes: ClassResult[];
  mixed: { defaultPage: Stats; page1000: Stats; connections: { defaultPage: number; page1000: number } };
  importDuringReads: {
    records: number;
    exitCode: number | string | null;
    importSeconds: number;
    reads: Stats;
    before: number | null;
    after: number | null;
    totalsSeen: number[];
    allOrNothing: boolean;
    output: string;
  };
}

const log = (line: string) => console.log(`· ${line}`);
const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 1000) / 1000 : 0);

async function mainDatabase(backend: Backend, dir: string, cleanup: Cleanup): Promise<{ url: string; drop: () => Promise<void> }> {
  if (backend === "sqlite") {
    const fresh = await freshDatabase("sqlite", dir, "bench");
    return { url: fresh.url, drop: cleanup.add("sqlite database", fresh.drop) };
  }
  const given = process.env.BENCH_DATABASE_URL;
  if (given) {
    const sql = await openSql(given);
    try {
      const tables = await sql.all("select count(*) as n from information_schema.tables where table_schema = current_schema() and table_name in ('chargebacks', 'pre_arbitrations')", []);
      if (Number(tables[0].n) > 0) {
        const rows = await sql.all("select (select count(*) from chargebacks) + (select count(*) from pre_arbitrations) as n", []);
        if (Number(rows[0].n) > 0) throw new Error("BENCH_DATABASE_URL must name an empty database");
      }
    } finally {
      await sql.close();
    }
    return { url: given, drop: async () => {} };
  }
  const scratch = await scratchPostgres(process.env.TEST_DATABASE_URL!);
  return { url: scratch.url, drop: cleanup.add("scratch PostgreSQL database", scratch.drop) };
}

async function singleFileImport(backend: Backend, dir: string, file: string, cleanup: Cleanup): Promise<ImportFigures | { skipped: string }> {
  if (!file) return { skipped: "--single 0" };
  let fresh: { url: string; drop: () => Promise<void> };
  try {
    fresh = await freshDatabase(backend, dir, "single");
  } catch (err) {
    return { skipped: `no fresh database for the single file: ${err instanceof Error ? err.message : String(err)}` };
  }
  const drop = cleanup.add("single-file database", fresh.drop);
  try {
    return await importMeasured(fresh.url, [file]);
  } finally {
    await drop();
  }
}

/** Credentials: all shops, one shop, three shops (each list holds the credential's own shop first). */
export async function createCredentials(url: string, shops: string[]): Promise<Record<CredentialName, Credential>> {
  const password = () => `bench-${crypto.randomBytes(12).toString("hex")}`;
  const credentials: Record<CredentialName, Credential> = {
    all: { shopCode: shops[0], password: password(), access: [...shops] },
    one: { shopCode: shops[1], password: password(), access: [shops[1]] },
    three: { shopCode: shops[2], password: password(), access: shops.slice(2, 5) },
  };
  const db = await openDatabase(url);
  try {
    for (const c of Object.values(credentials)) await createShop(db.db, { shopCode: c.shopCode, password: c.password, access: c.access });
  } finally {
    await db.close();
  }
  return credentials;
}

/** Reads what the classes need from the database: counts, real reference numbers, the half-way date. */
export async function sample(sql: SqlClient, kind: RecordKind) {
  const table = RECORD_TABLES[kind];
  const n = Number((await sql.all(`select count(*) as n from ${table}`, []))[0].n);
  if (n === 0) throw new Error(`no ${kind} records were imported`);
  // Ids are 1..n in import order, and the history is imported in date order.
  const ids = [...new Set(Array.from({ length: 50 }, (_, i) => Math.max(1, Math.round(((i + 0.5) * n) / 50))))];
  const refs = (await sql.all(`select acq_ref_nr from ${table} where id in (${ids.map(() => "?").join(", ")}) order by id`, ids)).map((r) => String(r.acq_ref_nr));
  const half = String((await sql.all(`select file_date from ${table} where id = ?`, [Math.ceil(n / 2)]))[0].file_date);
  const busy = await sql.all(`select shop_code, count(*) as n from ${table} group by shop_code order by count(*) desc, shop_code limit 1`, []);
  return { n, refs, half, busyShop: String(busy[0].shop_code) };
}

export async function databaseVersion(sql: SqlClient): Promise<string> {
  if (sql.dialect === "sqlite") return `SQLite ${String((await sql.all("select sqlite_version() as v", []))[0].v)}`;
  return String((await sql.all("select version() as v", []))[0].v).split(" on ")[0];
}

/**
 * The run's classes, built from what the imported data holds (real reference numbers, the busiest
 * shop, the half-way date), and the database's version; `records` gets each kind's count.
 */
export async function classesOf(sql: SqlClient, opts: BenchOptions, shops: string[], credentials: Record<CredentialName, Credential>, records: Record<RecordKind, number>): Promise<{ version: string; classes: BenchClass[] }> {
  const version = await databaseVersion(sql);
  const samples = { chargeback: await sample(sql, "chargeback"), pre_arbitration: await sample(sql, "pre_arbitration") };
  for (const kind of KINDS) records[kind] = samples[kind].n;
  const classes = benchClasses({
    shops,
    credentials,
    busyShop: samples.chargeback.busyShop,
    threeShops: credentials.three.access,
    acqRefNrs: { chargeback: samples.chargeback.refs, pre_arbitration: samples.pre_arbitration.refs },
    halfFrom: { chargeback: samples.chargeback.half, pre_arbitration: samples.pre_arbitration.half },
    recentFrom: addDays(opts.end, -29),
    end: opts.end,
  });
  return { version, classes };
}

export async function runBackend(backend: Backend, opts: BenchOptions, files: BenchFiles, dir: string, cleanup: Cleanup): Promise<BackendResult> {
  const main = await mainDatabase(backend, dir, cleanup);
  try {
    log(`${backend}: importing ${files.history.length} daily files`);
    const dailyFiles = await importMeasured(main.url, files.history);
    log(`${backend}: ${dailyFiles.records} records in ${dailyFiles.seconds} s = ${dailyFiles.recordsPerSecond} records/s`);

    const shops = files.shops.map((s) => s.code);
    const credentials = await createCredentials(main.url, shops);

    log(`${backend}: the first run after the import, ${FIRST_RUN_CLASS}`);
    const firstRun = await firstRunAfterImport(main.url, opts, credentials, shops, cleanup);
    log(`${backend}: one file of ${opts.single} chargebacks into a fresh database`);
    const singleFile = await singleFileImport(backend, dir, files.single, cleanup);

    const sql = await openSql(main.url);
    let classes: BenchClass[];
    const floors = new Map<string, FloorFigures>();
    let version: string;
    const records = {} as Record<RecordKind, number>;
    try {
      ({ version, classes } = await classesOf(sql, opts, shops, credentials, records));
      log(`${backend}: the SQL floor of ${classes.length} classes`);
      for (const cls of classes) floors.set(cls.id, await measureFloor(sql, cls.selection, opts.alone, Math.max(2, opts.seconds)));
    } finally {
      await sql.close();
    }

    const secret = process.env.APP_SECRET!;
    log(`${backend}: starting next start`);
    const server = await startServer({ DATABASE_URL: main.url, RATE_LIMIT_PER_MINUTE: "0", APP_SECRET: secret }, (child) => cleanup.track(child));
    const stopServer = cleanup.add("server", () => server.stop());
    try {
      const base = server.url;
      const signed = (kind: RecordKind, credential: Credential, body: unknown) => (): Call => ({ path: apiPath(kind), body: JSON.stringify(body), credential });
      const one = async (call: Call, what: string) => {
        const answer = await sendOnce(base, call);
        if (answer.status !== 200) throw new Error(`${what}: HTTP ${answer.status} ${answer.error ?? answer.snippet ?? ""}`);
        return answer;
      };
      // Every credential must be able to read before anything is measured.
      for (const [name, c] of Object.entries(credentials)) await one(signed("chargeback", c, {})(), `the ${name}-shop credential's first request`);

      const window = { warmup: opts.warmup, seconds: opts.seconds };
      log(`${backend}: the 401 floor`);
      const floor401 = (await load(base, [{ name: "401", connections: opts.concurrency, call: () => ({ path: "/api/chargeback", body: "{}" }), expected: 401 }], window))["401"];

      const results: ClassResult[] = [];
      for (const cls of classes) {
        log(`${backend}: ${cls.id} ${cls.name}`);
        const call = signed(cls.kind, credentials[cls.credential], cls.body);
        const stats = (await load(base, [{ name: cls.id, connections: opts.concurrency, call, expected: 200 }], window))[cls.id];
        const single = await alone(base, call, opts.alone);
        const sqlFloor = floors.get(cls.id)!;
        const totalElements = stats.totals.length === 1 ? stats.totals[0] : null;
        results.push({
          id: cls.id,
          kind: cls.kind,
          letter: cls.letter,
          name: cls.name,
          credential: cls.credential,
          shopsInScope: cls.selection.scope.length,
          body: cls.body,
          stats: { ...stats, failures: stats.failures + single.failures },
          totalElements,
          totalsConstant: stats.totals.length === 1,
          ratio401: ratio(stats.reqPerSec, floor401.reqPerSec),
          aloneMs: single.medianMs,
          sql: sqlFloor,
          p50OverSql: ratio(stats.p50, sqlFloor.medianMs),
          aloneOverSql: ratio(single.medianMs, sqlFloor.medianMs),
          totalMatchesSql: totalElements === sqlFloor.total,
        });
      }

      const bulk = Math.max(1, Math.round(opts.concurrency / 4));
      const connections = { defaultPage: Math.max(1, opts.concurrency - bulk), page1000: bulk };
      log(`${backend}: mixed run, ${connections.defaultPage} connections on the default page beside ${connections.page1000} on 1000-row pages`);
      const groups: Group[] = [
        { name: "defaultPage", connections: connections.defaultPage, call: signed("chargeback", credentials.all, {}), expected: 200 },
        { name: "page1000", connections: connections.page1000, call: signed("chargeback", credentials.all, { per_page: 1000, sortKey: "PAYMENT_ORDER_NR" }), expected: 200 },
      ];
      const mixedStats = await load(base, groups, window);

      log(`${backend}: reads while a ${opts.liveImport}-record file imports`);
      const importDuringReads = await readsDuringImport(base, main.url, secret, files.live, opts, signed("chargeback", credentials.all, {}), cleanup);

      await stopServer();
      const peak = server.rss.peak();
      return {
        backend,
        databaseVersion: version,
        import: { dailyFiles, singleFile },
        records,
        server: { startSeconds: server.startSeconds, peakRssMb: peak.peakRssMb, processes: peak.processes, logTail: server.output().slice(-3000) },
        floor401,
        firstRun: { ...firstRun, ratio401: ratio(firstRun.stats.reqPerSec, floor401.reqPerSec) },
        classes: results,
        mixed: { defaultPage: mixedStats.defaultPage, page1000: mixedStats.page1000, connections },
        importDuringReads,
      };
    } finally {
      await stopServer();
    }
  } finally {
    await main.drop();
  }
}

/**
 * The heaviest class, measured first of all on a server started right after the import: no
 * sampling, no SQL floor and no warm-up has read the data yet. What an import leaves behind for
 * the reads after it (a log to checkpoint, tables to vacuum) shows in this row, and only here.
 */
const FIRST_RUN_CLASS = "chargeback/c";

async function firstRunAfterImport(
  url: string,
  opts: BenchOptions,
  credentials: Record<CredentialName, Credential>,
  shops: string[],
  cleanup: Cleanup,
): Promise<Omit<FirstRunResult, "ratio401">> {
  const file = url.startsWith("file:") ? url.slice("file:".length) : undefined;
  const walBytesAfterImport = file ? (fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0) : undefined;
  // Class c needs no sample of the data; the placeholders fill only other classes' bodies.
  const cls = benchClasses({
    shops,
    credentials,
    busyShop: shops[0],
    threeShops: credentials.three.access,
    acqRefNrs: { chargeback: [], pre_arbitration: [] },
    halfFrom: { chargeback: opts.end, pre_arbitration: opts.end },
    recentFrom: addDays(opts.end, -29),
    end: opts.end,
  }).find((c) => c.id === FIRST_RUN_CLASS)!;
  const server = await startServer({ DATABASE_URL: url, RATE_LIMIT_PER_MINUTE: "0", APP_SECRET: process.env.APP_SECRET! }, (child) => cleanup.track(child));
  const stop = cleanup.add("first-run server", () => server.stop());
  try {
    const call = (): Call => ({ path: apiPath(cls.kind), body: JSON.stringify(cls.body), credential: credentials[cls.credential] });
    const first = await sendOnce(server.url, call());
    if (first.status !== 200) throw new Error(`the first request after the import: HTTP ${first.status} ${first.error ?? first.snippet ?? ""}`);
    const stats = (await load(server.url, [{ name: cls.id, connections: opts.concurrency, call, expected: 200 }], { warmup: 0, seconds: opts.seconds }))[cls.id];
    return { id: cls.id, name: cls.name, walBytesAfterImport, firstRequestMs: Math.round(first.ms * 10) / 10, stats };
  } finally {
    await stop();
  }
}

/**
 * Signed reads while `npm run import` loads `file`. `settled`, when given, runs after the import
 * has ended and before the total after it is read (replica mode: until the standby replayed it).
 */
export async function readsDuringImport(
  base: URL,
  databaseUrl: string,
  secret: string,
  file: string,
  opts: BenchOptions,
  call: () => Call,
  cleanup: Cleanup,
  settled?: () => Promise<void>,
): Promise<BackendResult["importDuringReads"]> {
  const total = async () => (await sendOnce(base, call())).total ?? null;
  const before = await total();
  const started = performance.now();
  const child = spawn(path.join(ROOT, "node_modules/.bin/tsx"), [path.join(ROOT, "scripts/import.ts"), file], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, APP_SECRET: secret },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  cleanup.track(child);
  let output = "";
  const keep = (chunk: Buffer) => (output = (output + chunk.toString("utf8")).slice(-4000));
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<number | string | null>((resolve) => {
    child.once("exit", (code, signal) => resolve(code ?? signal));
    child.once("error", (err) => resolve(err.message));
  });
  const stats = (await load(base, [{ name: "reads", connections: opts.concurrency, call, expected: 200 }], { warmup: 0, until: exited }))["reads"];
  const exitCode = await exited;
  const importSeconds = round((performance.now() - started) / 1000, 2);
  if (exitCode === 0) await settled?.();
  const after = await total();
  const allowed = before === null ? [] : [before, before + opts.liveImport];
  const allOrNothing =
    exitCode === 0 && before !== null && after === before + opts.liveImport && stats.totals.every((t) => allowed.includes(t)) && stats.totals.length > 0;
  return { records: opts.liveImport, exitCode, importSeconds, reads: stats, before, after, totalsSeen: stats.totals, allOrNothing, output: output.trim() };
}
