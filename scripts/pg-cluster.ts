import { execFile, execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "@/server/command";

/**
 * A private PostgreSQL cluster for fault tests: initdb in a temporary folder, its own port on
 * 127.0.0.1, started and stopped with pg_ctl. Unlike the shared server of TEST_DATABASE_URL it
 * may be stopped under load. As root the PostgreSQL programs run as the `postgres` OS user.
 *
 * For read-replica tests a cluster made with `replication: true` can get hot standbys
 * (`createStandby`: pg_basebackup of the primary, streaming replication over 127.0.0.1), and one
 * made with `statStatements: true` records every statement in pg_stat_statements
 * (`statementStats`, `statementsMatching`), on its standbys too.
 */

/** The bin folder of the newest local PostgreSQL (PG_BIN overrides), or undefined when none. */
export const PG_BIN: string | undefined = (() => {
  const candidates = process.env.PG_BIN ? [process.env.PG_BIN] : listVersionDirs().map((v) => `/usr/lib/postgresql/${v}/bin`);
  return candidates.find((dir) => fs.existsSync(path.join(dir, "initdb")) && fs.existsSync(path.join(dir, "pg_ctl")));
})();

function listVersionDirs(): string[] {
  try {
    return fs
      .readdirSync("/usr/lib/postgresql")
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
  } catch {
    return [];
  }
}

export interface PrivateCluster {
  /** a DATABASE_URL for the cluster's `disputes` database (trust authentication, user postgres) */
  url: string;
  port: number;
  /** pg_ctl start, waiting until connections are accepted */
  start(): Promise<void>;
  /** pg_ctl stop, waiting until the server is gone ("fast": sessions are terminated with 57P01) */
  stop(mode?: "smart" | "fast" | "immediate"): Promise<void>;
  /** SIGSTOP to the server and every one of its processes: connections stay open, nothing answers */
  freeze(): void;
  /** SIGCONT to the processes `freeze` stopped */
  thaw(): void;
  /** stops the cluster whatever its state and removes its folder; safe to call more than once */
  destroy(): Promise<void>;
  /** the cluster's server log */
  log(): string;
}

/** A hot standby of a private primary (`createStandby`): read-only, fed by streaming replication. */
export interface Standby extends PrivateCluster {
  /** pg_wal_replay_pause(), waiting until replay has actually stopped: WAL still arrives, none is applied */
  pauseReplay(): Promise<void>;
  /** pg_wal_replay_resume() */
  resumeReplay(): Promise<void>;
  /** pg_last_wal_replay_lsn() as text, e.g. "0/3000148" */
  replayLsn(): Promise<string>;
}

export interface PrivateClusterOptions {
  /** configure for physical streaming replication, so that `createStandby` can copy it */
  replication?: boolean;
  /** load pg_stat_statements (track = all) and create the extension in `disputes` and `postgres` */
  statStatements?: boolean;
  /**
   * postgresql.conf lines after the throwaway defaults, which they override (the benchmark's
   * clusters take the settings of a stock server: 128MB shared_buffers, fsync on; standbys copy them)
   */
  settings?: string[];
}

export interface StandbyOptions {
  /**
   * load pg_stat_statements on the standby. Default: as on the primary (its postgresql.conf is
   * copied). true needs a primary made with statStatements (the extension comes from there);
   * false turns the preload off on the standby.
   */
  statStatements?: boolean;
}

export interface StatementStats {
  calls: number;
  rows: number;
  sharedBlksHit: number;
  sharedBlksRead: number;
  totalExecMs: number;
}

const asRoot = process.getuid?.() === 0;

/** argv that runs a PostgreSQL program as the postgres OS user when we are root */
function command(program: string, args: string[]): [string, string[]] {
  const bin = path.join(PG_BIN!, program);
  return asRoot ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
}

function run(program: string, args: string[], cwd: string, timeoutMs = 60_000): Promise<string> {
  const [file, argv] = command(program, args);
  return new Promise((resolve, reject) => {
    execFile(file, argv, { cwd, timeout: timeoutMs }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${program} ${args.join(" ")} failed: ${err.message}\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** the `postgres` database of the server behind `url`, as that URL's user */
function postgresDbUrl(url: string): string {
  const u = new URL(url);
  u.pathname = "/postgres";
  return u.toString();
}

/** One query on its own connection (the test's, not an app's): `url` names the server and database. */
export async function query<R extends pg.QueryResultRow>(url: string, text: string, params: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** superuser connection to the cluster's `postgres` database over TCP */
const adminUrl = (port: number) => `postgres://postgres@127.0.0.1:${port}/postgres`;

/** How each primary was made (createStandby checks it). */
const made = new WeakMap<PrivateCluster, PrivateClusterOptions>();

/** A cluster folder, not yet filled: its data folder is made by initdb or pg_basebackup. */
interface ClusterFolder {
  dir: string;
  data: string;
  /** the start/stop/freeze/thaw/destroy/log of the cluster in `data`; destroy works from the start */
  controls: Omit<PrivateCluster, "url" | "port">;
}

/**
 * A temporary folder owned by the postgres user, and the machinery to run the cluster that will
 * live in it: pg_ctl start/stop, SIGSTOP/SIGCONT of its processes, and removal (also on process
 * exit, when a test ends without afterAll).
 */
function clusterFolder(): ClusterFolder {
  if (!PG_BIN) throw new Error("no PostgreSQL binaries (initdb, pg_ctl) under /usr/lib/postgresql/*/bin; set PG_BIN");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "disputes-pgcluster-"));
  const data = path.join(dir, "data");
  const logFile = path.join(dir, "server.log");
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    fs.chownSync(dir, uid, gid);
  }
  fs.chmodSync(dir, 0o700);

  let destroyed = false;
  // Last resort when the test process ends without afterAll (a crash, a kill of the worker).
  const onExit = () => {
    if (destroyed) return;
    thaw();
    const [file, argv] = command("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
    spawnSync(file, argv, { cwd: dir, stdio: "ignore", timeout: 20_000 });
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", onExit);

  const destroy = async () => {
    thaw();
    if (destroyed) return;
    destroyed = true;
    process.off("exit", onExit);
    try {
      if (fs.existsSync(path.join(data, "postmaster.pid"))) await run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "-t", "20", "stop"], dir, 30_000);
    } catch {
      // already stopped, or never started
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };

  const start = async () => {
    await run("pg_ctl", ["-D", data, "-l", logFile, "-w", "-t", "60", "start"], dir, 90_000);
  };
  const stop = async (mode: "smart" | "fast" | "immediate" = "fast") => {
    await run("pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "60", "stop"], dir, 90_000);
  };
  let frozen: number[] = [];
  const processes = () => {
    const postmaster = Number(fs.readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    const children = spawnSync("pgrep", ["-P", String(postmaster)], { encoding: "utf8" }).stdout.split("\n").filter(Boolean).map(Number);
    return [postmaster, ...children];
  };
  function thaw() {
    for (const pid of frozen.splice(0)) {
      try {
        process.kill(pid, "SIGCONT");
      } catch {
        // gone meanwhile
      }
    }
  }
  // Until no process is left running: a backend the postmaster forked between the listing and
  // its own stop (a pool opening a connection just then) would otherwise go on serving.
  const freeze = () => {
    frozen = [];
    for (let fresh = processes(); fresh.length; fresh = processes().filter((pid) => !frozen.includes(pid))) {
      for (const pid of fresh) process.kill(pid, "SIGSTOP");
      frozen.push(...fresh);
    }
  };
  const log = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8") : "");
  return { dir, data, controls: { start, stop, freeze, thaw, destroy, log } };
}

/** later settings in postgresql.conf override earlier ones (and those copied from a primary) */
function appendConf(data: string, settings: string[]) {
  fs.appendFileSync(path.join(data, "postgresql.conf"), ["", ...settings, ""].join("\n"));
}

export async function createPrivateCluster(opts: PrivateClusterOptions = {}): Promise<PrivateCluster> {
  const { dir, data, controls } = clusterFolder();
  try {
    await run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"], dir);
    const port = await freePort();
    // A small, throwaway server: only this test connects, and its data need not survive a crash.
    appendConf(data, [
      `port = ${port}`,
      `listen_addresses = '127.0.0.1'`,
      `unix_socket_directories = '${dir}'`,
      // app servers and the test connect to a primary with standbys; a standby needs at least as many as its primary
      `max_connections = ${opts.replication ? 100 : 50}`,
      "shared_buffers = 16MB",
      "fsync = off",
      "synchronous_commit = off",
      "full_page_writes = off",
      ...(opts.settings ?? []),
    ]);
    if (opts.replication) {
      // hot_standby is for the standbys, which copy this file.
      appendConf(data, ["wal_level = replica", "max_wal_senders = 10", "wal_keep_size = '256MB'", "hot_standby = on"]);
      // initdb's pg_hba.conf already trusts replication connections from 127.0.0.1 (with -A trust); make sure.
      const hba = path.join(data, "pg_hba.conf");
      const trusted = fs
        .readFileSync(hba, "utf8")
        .split("\n")
        .some((line) => /^\s*host\s+replication\s+(all|postgres)\s+127\.0\.0\.1\/32\s+trust\b/.test(line));
      if (!trusted) fs.appendFileSync(hba, "\nhost    replication     all             127.0.0.1/32            trust\n");
    }
    if (opts.statStatements) appendConf(data, ["shared_preload_libraries = 'pg_stat_statements'", "pg_stat_statements.track = all"]);
    await controls.start();
    await query(adminUrl(port), "create database disputes");
    if (opts.statStatements) {
      for (const db of ["disputes", "postgres"]) await query(`postgres://postgres@127.0.0.1:${port}/${db}`, "create extension pg_stat_statements");
      // counters from zero: not the extension script's statements (track = all counts them)
      await query(adminUrl(port), "select pg_stat_statements_reset()");
    }
    const cluster: PrivateCluster = { url: `postgres://postgres@127.0.0.1:${port}/disputes`, port, ...controls };
    made.set(cluster, { ...opts });
    return cluster;
  } catch (err) {
    await controls.destroy();
    throw err;
  }
}

/**
 * A hot standby of `primary` (made with `replication: true`): pg_basebackup over 127.0.0.1 with
 * -R (standby.signal, primary_conninfo), its own port and socket folder, started and accepting
 * read-only connections. Its `disputes` database is the primary's. Destroy it before the primary.
 */
export async function createStandby(primary: PrivateCluster, opts: StandbyOptions = {}): Promise<Standby> {
  const primaryOpts = made.get(primary);
  if (!primaryOpts?.replication) throw new Error("createStandby needs a primary made by createPrivateCluster({ replication: true })");
  const statStatements = opts.statStatements ?? !!primaryOpts.statStatements;
  if (statStatements && !primaryOpts.statStatements) throw new Error("a standby with statStatements needs a primary made with statStatements");
  const { dir, data, controls } = clusterFolder();
  try {
    await run("pg_basebackup", ["-h", "127.0.0.1", "-p", String(primary.port), "-U", "postgres", "-D", data, "-R", "-X", "stream", "-c", "fast"], dir, 120_000);
    const port = await freePort();
    appendConf(data, [
      `port = ${port}`,
      `listen_addresses = '127.0.0.1'`,
      `unix_socket_directories = '${dir}'`,
      "hot_standby = on",
      "hot_standby_feedback = on",
      "max_standby_streaming_delay = 30s",
      ...(statStatements ? [] : ["shared_preload_libraries = ''"]),
    ]);
    await controls.start();
    const admin = adminUrl(port);
    const standby: Standby = {
      url: `postgres://postgres@127.0.0.1:${port}/disputes`,
      port,
      ...controls,
      async pauseReplay() {
        await query(admin, "select pg_wal_replay_pause()");
        // Only requested so far: the startup process stops before its next record (or while waiting for WAL).
        const deadline = Date.now() + 10_000;
        for (;;) {
          const [{ state }] = await query<{ state: string }>(admin, "select pg_get_wal_replay_pause_state() as state");
          if (state === "paused") return;
          if (Date.now() > deadline) throw new Error(`standby replay still "${state}" 10s after pg_wal_replay_pause()`);
          await sleep(20);
        }
      },
      async resumeReplay() {
        await query(admin, "select pg_wal_replay_resume()");
      },
      async replayLsn() {
        const [{ lsn }] = await query<{ lsn: string }>(admin, "select pg_last_wal_replay_lsn()::text as lsn");
        return lsn;
      },
    };
    return standby;
  } catch (err) {
    await controls.destroy();
    throw err;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until `standby` has replayed everything the primary had committed when called. First a
 * tiny transaction on the primary (a WAL message, no table) committed with synchronous_commit =
 * local, so that asynchronously committed work still in the WAL buffers is flushed and sent too
 * (the clusters run with synchronous_commit = off); then pg_current_wal_lsn() there, until the
 * standby's pg_last_wal_replay_lsn() reaches it.
 */
export async function waitForReplay(primary: PrivateCluster, standby: Standby, timeoutMs = 30_000): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl(primary.port) });
  await client.connect();
  let target: string;
  try {
    await client.query("begin");
    await client.query("set local synchronous_commit = local");
    // a commit that wrote no WAL of its own is not flushed, whatever synchronous_commit says
    await client.query("select pg_logical_emit_message(true, 'disputes-tests', 'waitForReplay')");
    await client.query("commit");
    target = (await client.query<{ lsn: string }>("select pg_current_wal_lsn()::text as lsn")).rows[0].lsn;
  } finally {
    await client.end();
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [{ done, replayed, paused }] = await query<{ done: boolean; replayed: string | null; paused: boolean }>(
      adminUrl(standby.port),
      "select coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false) as done, pg_last_wal_replay_lsn()::text as replayed, pg_is_wal_replay_paused() as paused",
      [target],
    );
    if (done) return;
    if (Date.now() > deadline) throw new Error(`standby replayed ${replayed} after ${timeoutMs} ms, primary at ${target}${paused ? " (replay is paused)" : ""}`);
    await sleep(20);
  }
}

// The helpers below query the `postgres` database of the server behind `url`, so that their own
// statements are not counted: they sum over the statements of the `disputes` database only.

/** pg_stat_statements summed over the `disputes` database (cluster made with statStatements; a standby counts its own reads) */
export async function statementStats(url: string): Promise<StatementStats> {
  const [row] = await query<Record<keyof StatementStats, number>>(
    postgresDbUrl(url),
    `select coalesce(sum(s.calls), 0)::float8 as "calls", coalesce(sum(s.rows), 0)::float8 as "rows",
            coalesce(sum(s.shared_blks_hit), 0)::float8 as "sharedBlksHit", coalesce(sum(s.shared_blks_read), 0)::float8 as "sharedBlksRead",
            coalesce(sum(s.total_exec_time), 0)::float8 as "totalExecMs"
       from pg_stat_statements s join pg_database d on d.oid = s.dbid
      where d.datname = 'disputes'`,
  );
  return row;
}

/** pg_stat_statements_reset(): every server's counters start again from zero */
export async function resetStatementStats(url: string): Promise<void> {
  await query(postgresDbUrl(url), "select pg_stat_statements_reset()");
}

/** the calls of the `disputes` database's statements whose normalized text ILIKE `pattern`, e.g. '%from "chargebacks"%' */
export async function statementsMatching(url: string, pattern: string): Promise<number> {
  const [{ calls }] = await query<{ calls: number }>(
    postgresDbUrl(url),
    `select coalesce(sum(s.calls), 0)::float8 as calls
       from pg_stat_statements s join pg_database d on d.oid = s.dbid
      where d.datname = 'disputes' and s.query ilike $1`,
    [pattern],
  );
  return calls;
}
