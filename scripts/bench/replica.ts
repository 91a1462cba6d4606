/**
 * `npm run bench -- --replica`: reads on a PostgreSQL streaming replica (docs/replicas.md). On one
 * machine the primary, the standby, the server and the load client share the same cores, so
 * throughput cannot show what a standby takes off the primary; this measures what moves instead:
 *
 * 1. a private primary and a hot standby of it (scripts/pg-cluster.ts), removed at the end;
 * 2. the history imported into the primary while the standby's lag is sampled every 250 ms as
 *    the product's replica monitor reads it (lib/data/connection/replicas.ts);
 * 3. the search classes twice on the same data: (A) a server on the primary alone, (B) a server
 *    with DATABASE_REPLICA_URLS naming the standby; pg_stat_statements reset on both clusters
 *    before each and read after, split into reads, writes and the monitor's own queries;
 * 4. server B's reads while `npm run import` loads one more file, with the lag sampled the same
 *    way and the replica gauges of GET /api/metrics read during it.
 */
import crypto from "node:crypto";
import pg from "pg";
import { replicaMaxLagSeconds } from "@/lib/config";
import { parseLsn, replicaLagSeconds } from "@/lib/data/connection/replicas";
import type { RecordKind } from "@/lib/domain/fields";
import {
  createPrivateCluster,
  createStandby,
  PG_BIN,
  type PrivateCluster,
  resetStatementStats,
  type Standby,
  statementStats,
  type StatementStats,
  waitForReplay,
} from "../pg-cluster";
import { apiPath, type BenchClass, type CredentialName } from "./classes";
import type { BenchFiles } from "./data";
import { type Call, type Credential, load, sendOnce, type Stats } from "./http";
import { type ImportFigures, importMeasured, round } from "./import";
import type { BenchOptions } from "./options";
import { type BackendResult, classesOf, type Cleanup, createCredentials, readsDuringImport } from "./run";
import { type RunningServer, startServer } from "./server";
import { floorStatements, openSql } from "./sql";

const log = (line: string) => console.log(`· replica: ${line}`);
const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 1000) / 1000 : 0);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How often the bench reads the standby's lag during an import. */
const LAG_EVERY_MS = 250;
/** How often the metrics are read during the import beside server B (the monitor checks once a second). */
const METRICS_EVERY_MS = 500;
/** The primary's read work in B must be at least this much smaller than in A (the target). */
const REDUCTION_TARGET_PERCENT = 90;
/** A stock PostgreSQL 15 server's settings where the tests' throwaway clusters differ (the non-replica runs use a stock server). */
const STOCK_SETTINGS = ["shared_buffers = 128MB", "fsync = on", "synchronous_commit = on", "full_page_writes = on"];

// ---------------------------------------------------------------------------------------------
// The standby's lag, read as the product reads it

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export interface LagFigures {
  samples: number;
  everyMs: number;
  /** the longest time between two samples (a busy event loop or a slow answer stretches it) */
  maxGapMs: number;
  /** samples where the lag could not be told (the standby had replayed nothing, or did not answer) */
  unknown: number;
  /** samples where the standby had not replayed the primary's WAL insert position */
  behind: number;
  /** the product's lag (ReplicaMonitor.lagOf): 0 when caught up, else the smaller of the two bounds below */
  maxLagSeconds: number;
  p95LagSeconds: number;
  /** bound 1, when behind: the age of the newest primary position the standby had replayed */
  maxPositionAgeSeconds: number;
  /** bound 2, when behind: the primary's clock_timestamp() minus the standby's pg_last_xact_replay_timestamp() */
  maxReplayAgeSeconds: number;
  /** pg_wal_lsn_diff(the primary's pg_current_wal_insert_lsn(), the standby's pg_last_wal_replay_lsn()) */
  maxBytesBehind: number;
  p95BytesBehind: number;
  /** WAL the primary wrote between the first and the last sample (what the standby had to receive and replay) */
  walBytes: number;
  /** REPLICA_MAX_LAG_SECONDS of the bench's environment (default 5) */
  limitSeconds: number;
  withinLimit: boolean;
}

/**
 * Samples a standby's lag every LAG_EVERY_MS, on connections of its own to the `postgres`
 * database of both clusters (so that pg_stat_statements of `disputes` never counts them): the
 * primary's WAL insert position first, then the standby's replay position and last replayed
 * commit, the lag computed as ReplicaMonitor.lagOf does.
 */
class LagSampler {
  private readonly positions: { lsn: bigint; at: number }[] = [];
  private readonly lags: number[] = [];
  private readonly bytes: number[] = [];
  private maxPositionAge = 0;
  private maxReplayAge = 0;
  private unknown = 0;
  private behind = 0;
  private maxGap = 0;
  private lastAt = 0;
  private stopped = false;
  private loop: Promise<void> | undefined;

  private constructor(
    private readonly primary: pg.Client,
    private readonly standby: pg.Client,
  ) {}

  static async start(primaryUrl: string, standbyUrl: string): Promise<LagSampler> {
    const connect = async (url: string) => {
      const u = new URL(url);
      u.pathname = "/postgres";
      const client = new pg.Client({ connectionString: u.toString() });
      // A server that goes away fails the next sample (counted unknown), not the whole run.
      client.on("error", () => {});
      await client.connect();
      return client;
    };
    const sampler = new LagSampler(await connect(primaryUrl), await connect(standbyUrl));
    // The first sample before the work to watch begins: a position of the primary to date the replay by.
    await sampler.sample().catch(() => sampler.unknown++);
    sampler.loop = sampler.run();
    return sampler;
  }

  private async run() {
    let last = Date.now();
    for (;;) {
      await sleep(Math.max(0, last + LAG_EVERY_MS - Date.now()));
      if (this.stopped) return;
      last = Date.now();
      await this.sample().catch(() => this.unknown++);
    }
  }

  private async sample() {
    const p = (
      await this.primary.query<{ lsn: string; now_ms: number }>(
        "select pg_current_wal_insert_lsn()::text as lsn, (extract(epoch from clock_timestamp()) * 1000)::float8 as now_ms",
      )
    ).rows[0];
    const at = Date.now();
    if (this.lastAt) this.maxGap = Math.max(this.maxGap, at - this.lastAt);
    this.lastAt = at;
    const primaryLsn = parseLsn(p.lsn);
    this.positions.push({ lsn: primaryLsn, at });
    const s = (
      await this.standby.query<{ replay: string | null; behind: number | null; replayed_at_ms: number | null }>(
        `select pg_last_wal_replay_lsn()::text as replay, pg_wal_lsn_diff($1::pg_lsn, pg_last_wal_replay_lsn())::float8 as behind,
                (extract(epoch from pg_last_xact_replay_timestamp()) * 1000)::float8 as replayed_at_ms`,
        [p.lsn],
      )
    ).rows[0];
    if (s.replay === null) {
      this.unknown++;
      return;
    }
    const replayed = parseLsn(s.replay);
    this.bytes.push(Math.max(0, s.behind ?? 0));
    if (replayed >= primaryLsn) {
      this.lags.push(0);
      return;
    }
    this.behind++;
    // The product's own figure (replicaLagSeconds), and each of its two bounds on its own.
    const now = Date.now();
    // The last replayed commit's time on our clock: the primary's clock at its sample gives the offset.
    const replayedAt = s.replayed_at_ms === null ? null : s.replayed_at_ms - (p.now_ms - at);
    const lag = replicaLagSeconds(this.positions, replayed, replayedAt, now);
    const reached = this.positions.findLast((position) => position.lsn <= replayed);
    if (reached) this.maxPositionAge = Math.max(this.maxPositionAge, (now - reached.at) / 1000);
    if (replayedAt !== null) this.maxReplayAge = Math.max(this.maxReplayAge, Math.max(0, now - replayedAt) / 1000);
    if (lag === null) this.unknown++;
    else this.lags.push(lag);
  }

  async stop(): Promise<LagFigures> {
    this.stopped = true;
    await this.loop;
    await Promise.all([this.primary.end(), this.standby.end()]).catch(() => {});
    const limitSeconds = replicaMaxLagSeconds();
    const maxLagSeconds = round(Math.max(0, ...this.lags), 3);
    return {
      samples: this.lags.length + this.unknown,
      everyMs: LAG_EVERY_MS,
      maxGapMs: this.maxGap,
      unknown: this.unknown,
      behind: this.behind,
      maxLagSeconds,
      p95LagSeconds: round(percentile(this.lags, 95), 3),
      maxPositionAgeSeconds: round(this.maxPositionAge, 3),
      maxReplayAgeSeconds: round(this.maxReplayAge, 3),
      maxBytesBehind: Math.max(0, ...this.bytes),
      p95BytesBehind: percentile(this.bytes, 95),
      walBytes: this.positions.length > 1 ? Number(this.positions.at(-1)!.lsn - this.positions[0].lsn) : 0,
      limitSeconds,
      withinLimit: this.unknown === 0 && maxLagSeconds < limitSeconds,
    };
  }
}

// ---------------------------------------------------------------------------------------------
// pg_stat_statements, split into reads, writes and the monitor's queries

export interface Work {
  /** distinct normalized statements */
  statements: number;
  calls: number;
  rows: number;
  /** shared_blks_hit + shared_blks_read */
  buffers: number;
  sharedBlksRead: number;
  execMs: number;
}

export interface StatementLine {
  kind: "read" | "write" | "monitor" | "other";
  calls: number;
  rows: number;
  buffers: number;
  execMs: number;
  /** the normalized text, shortened */
  query: string;
}

export interface ServerWork {
  /** select/with statements, the monitor's queries left out */
  reads: Work;
  /** insert/update/delete (also a with-statement that changes rows) */
  writes: Work;
  /** the product's replica monitor: pg_current_wal_insert_lsn / pg_last_wal_replay_lsn / pg_is_in_recovery */
  monitor: Work;
  /** anything else (begin, commit, set...) */
  other: Work;
  /** statementStats() of scripts/pg-cluster.ts: the sum of all four */
  total: StatementStats;
  /** the read statements, most executed first (at most 12) */
  topReads: StatementLine[];
  /** the write statements, most executed first (at most 6) */
  topWrites: StatementLine[];
}

const MONITOR = /pg_current_wal_insert_lsn|pg_last_wal_replay_lsn|pg_is_in_recovery/i;

function classify(query: string): StatementLine["kind"] {
  const text = query.replace(/^(\s*(--[^\n]*\n|\/\*[\s\S]*?\*\/))*\s*/, "");
  if (MONITOR.test(text)) return "monitor";
  if (/^(insert|update|delete|merge)\b/i.test(text)) return "write";
  if (/^with\b/i.test(text) && /\b(insert\s+into|delete\s+from|update\s+("[^"]+"|\w+)\s+set)\b/i.test(text)) return "write";
  if (/^(select|with)\b/i.test(text)) return "read";
  return "other";
}

const emptyWork = (): Work => ({ statements: 0, calls: 0, rows: 0, buffers: 0, sharedBlksRead: 0, execMs: 0 });

/** The statements of the `disputes` database since the last reset, read on the cluster's `postgres` database. */
async function serverWork(url: string): Promise<ServerWork> {
  const u = new URL(url);
  u.pathname = "/postgres";
  const client = new pg.Client({ connectionString: u.toString() });
  await client.connect();
  let rows: { query: string; calls: number; rows: number; hit: number; read: number; exec_ms: number }[];
  try {
    rows = (
      await client.query(
        `select s.query, s.calls::float8 as calls, s.rows::float8 as rows, s.shared_blks_hit::float8 as hit, s.shared_blks_read::float8 as read,
                s.total_exec_time::float8 as exec_ms
           from pg_stat_statements s join pg_database d on d.oid = s.dbid
          where d.datname = 'disputes'`,
      )
    ).rows;
  } finally {
    await client.end();
  }
  const work = { read: emptyWork(), write: emptyWork(), monitor: emptyWork(), other: emptyWork() };
  const lines: StatementLine[] = [];
  for (const r of rows) {
    const kind = classify(r.query);
    const w = work[kind];
    w.statements++;
    w.calls += r.calls;
    w.rows += r.rows;
    w.buffers += r.hit + r.read;
    w.sharedBlksRead += r.read;
    w.execMs += r.exec_ms;
    lines.push({ kind, calls: r.calls, rows: r.rows, buffers: r.hit + r.read, execMs: round(r.exec_ms, 2), query: r.query.replace(/\s+/g, " ").trim().slice(0, 400) });
  }
  for (const w of Object.values(work)) w.execMs = round(w.execMs, 2);
  const top = (kind: StatementLine["kind"], n: number) =>
    lines
      .filter((l) => l.kind === kind)
      .sort((a, b) => b.calls - a.calls || b.execMs - a.execMs)
      .slice(0, n);
  return { reads: work.read, writes: work.write, monitor: work.monitor, other: work.other, total: await statementStats(url), topReads: top("read", 12), topWrites: top("write", 6) };
}

// ---------------------------------------------------------------------------------------------
// GET /api/metrics

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

async function scrape(base: URL, token: string): Promise<Sample[]> {
  const res = await fetch(new URL("/api/metrics", base), { headers: { Authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(5000) });
  if (!res.ok) throw new Error(`GET /api/metrics: HTTP ${res.status}`);
  const out: Sample[] = [];
  for (const line of (await res.text()).split("\n")) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

const gauge = (samples: Sample[], name: string, replica: string) => samples.find((s) => s.name === name && s.labels.replica === replica)?.value;

function readBatches(samples: Sample[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples) if (s.name === "database_read_batches_total" && s.labels.server) out[s.labels.server] = s.value;
  return out;
}

function batchesSince(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [server, n] of Object.entries(after)) out[server] = n - (before[server] ?? 0);
  return out;
}

export interface MetricsDuringImport {
  scrapes: number;
  failedScrapes: number;
  /** scrapes where database_replica_up of the standby was 0 (or missing): its reads went elsewhere */
  scrapesReplicaDown: number;
  /** the standby was never left out */
  replicaAlwaysUp: boolean;
  /** the largest database_replica_lag_seconds seen (null: never a number) */
  maxLagSeconds: number | null;
  /** scrapes where the lag gauge was NaN (unknown) */
  unknownLag: number;
  /** database_read_batches_total by server, from the first scrape to the last */
  readBatches: Record<string, number>;
}

class MetricsPoller {
  private scrapes = 0;
  private failed = 0;
  private down = 0;
  private unknownLag = 0;
  private maxLag: number | null = null;
  private first: Record<string, number> | undefined;
  private last: Record<string, number> = {};
  private stopped = false;
  private loop: Promise<void>;

  constructor(
    private readonly base: URL,
    private readonly token: string,
    private readonly replica: string,
  ) {
    this.loop = this.run();
  }

  private async run() {
    while (!this.stopped) {
      const started = Date.now();
      try {
        const samples = await scrape(this.base, this.token);
        this.scrapes++;
        const up = gauge(samples, "database_replica_up", this.replica);
        if (up !== 1) this.down++;
        const lag = gauge(samples, "database_replica_lag_seconds", this.replica);
        if (lag === undefined || Number.isNaN(lag)) this.unknownLag++;
        else this.maxLag = Math.max(this.maxLag ?? 0, lag);
        const batches = readBatches(samples);
        this.first ??= batches;
        this.last = batches;
      } catch {
        this.failed++;
      }
      await sleep(Math.max(0, METRICS_EVERY_MS - (Date.now() - started)));
    }
  }

  async stop(): Promise<MetricsDuringImport> {
    this.stopped = true;
    await this.loop;
    return {
      scrapes: this.scrapes,
      failedScrapes: this.failed,
      scrapesReplicaDown: this.down,
      replicaAlwaysUp: this.scrapes > 0 && this.down === 0,
      maxLagSeconds: this.maxLag === null ? null : round(this.maxLag, 3),
      unknownLag: this.unknownLag,
      readBatches: batchesSince(this.first ?? {}, this.last),
    };
  }
}

// ---------------------------------------------------------------------------------------------
// The two runs of the search classes

export interface ClassTarget {
  p99Ms: number;
  ratio401: number;
}

/** docs/performance.md, "Targets": classes of up to 100 a page, and of 1000 a page. */
export function classTarget(perPage: number): ClassTarget {
  return perPage <= 100 ? { p99Ms: 100, ratio401: 0.6 } : { p99Ms: 400, ratio401: 0.1 };
}

export interface ReplicaClassResult {
  id: string;
  kind: RecordKind;
  letter: string;
  name: string;
  perPage: number;
  stats: Stats;
  /** req/s of this class / req/s of the same server's 401 floor */
  ratio401: number;
  totalElements: number | null;
  totalsConstant: boolean;
  /** the direct SQL count on the primary */
  totalMatchesSql: boolean;
  target: ClassTarget;
  targetMet: boolean;
}

export interface SearchRun {
  /** "A": DATABASE_URL only; "B": DATABASE_REPLICA_URLS names the standby */
  name: "A" | "B";
  serverEnv: string[];
  server: { startSeconds: number; peakRssMb: number };
  floor401: Stats;
  /** wall-clock seconds from the statistics' reset to their reading */
  seconds: number;
  classes: ReplicaClassResult[];
  work: { primary: ServerWork; standby: ServerWork };
  /** database_read_batches_total by server during the classes (B only: A's server keeps none) */
  readBatches?: Record<string, number>;
}

export interface ReplicaResult {
  backend: "postgres";
  databaseVersion: string;
  replicaMaxLagSeconds: number;
  clusters: { note: string; primary: string; standby: string };
  records: Record<RecordKind, number>;
  import: { dailyFiles: ImportFigures; lag: LagFigures };
  runs: { A: SearchRun; B: SearchRun };
  /** the primary's read work, B against A */
  primaryReads: {
    A: Work;
    B: Work;
    /** (A - B) / A in percent */
    reductionPercent: { statements: number; buffers: number; execTime: number };
    targetPercent: number;
    met: boolean;
  };
  /** every class answered the same totals in A and B, the SQL count */
  totalsMatched: boolean;
  importDuringReads: BackendResult["importDuringReads"] & {
    /** the import's own time for the file (its "import file" log line's duration_ms); importSeconds is the command's, start-up included */
    fileSeconds: number;
    /** records / fileSeconds */
    recordsPerSecond: number;
    lag: LagFigures;
    metrics: MetricsDuringImport;
  };
}

/**
 * The import's own time for its file, from the JSON "import file" line `npm run import` writes to
 * standard error (duration_ms), and its records/s; without that line, the command's wall time.
 */
function importFileSeconds(reads: BackendResult["importDuringReads"]): { fileSeconds: number; recordsPerSecond: number } {
  let ms = 0;
  for (const line of reads.output.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      const entry = JSON.parse(line) as { msg?: string; duration_ms?: number };
      if (entry.msg === "import file" && typeof entry.duration_ms === "number") ms += entry.duration_ms;
    } catch {
      // not a log line
    }
  }
  const fileSeconds = ms > 0 ? round(ms / 1000, 2) : reads.importSeconds;
  return { fileSeconds, recordsPerSecond: fileSeconds > 0 ? Math.round(reads.records / fileSeconds) : 0 };
}

const reduction = (a: number, b: number) => (a > 0 ? round(((a - b) / a) * 100, 2) : 0);

interface Setup {
  opts: BenchOptions;
  primary: PrivateCluster;
  standby: Standby;
  classes: BenchClass[];
  credentials: Record<CredentialName, Credential>;
  sqlTotals: Map<string, number>;
  secret: string;
  metricsToken: string;
  cleanup: Cleanup;
}

const signed = (kind: RecordKind, credential: Credential, body: unknown) => (): Call => ({ path: apiPath(kind), body: JSON.stringify(body), credential });

/** The standby's host:port as the product names it in the metrics. */
const replicaName = (standby: Standby) => `127.0.0.1:${standby.port}`;

async function startRun(s: Setup, name: "A" | "B"): Promise<{ server: RunningServer; env: Record<string, string>; stop: () => Promise<void> }> {
  const env: Record<string, string> = {
    DATABASE_URL: s.primary.url,
    // A: no replica whatever the caller's environment holds
    DATABASE_REPLICA_URLS: name === "B" ? s.standby.url : "",
    RATE_LIMIT_PER_MINUTE: "0",
    APP_SECRET: s.secret,
    METRICS_TOKEN: s.metricsToken,
  };
  const server = await startServer(env, (child) => s.cleanup.track(child));
  const stop = s.cleanup.add(`server ${name}`, () => server.stop());
  return { server, env, stop };
}

/** Until the server's monitor reads from the standby (database_replica_up 1), at most 20 s. */
async function replicaUp(base: URL, s: Setup): Promise<void> {
  const deadline = Date.now() + 20_000;
  let last = "no scrape";
  for (;;) {
    try {
      const up = gauge(await scrape(base, s.metricsToken), "database_replica_up", replicaName(s.standby));
      if (up === 1) return;
      last = `database_replica_up ${up}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    if (Date.now() > deadline) throw new Error(`server B never read from the standby within 20 s (${last})`);
    await sleep(250);
  }
}

async function searchRun(s: Setup, name: "A" | "B", server: RunningServer, env: Record<string, string>): Promise<SearchRun> {
  const { opts } = s;
  const base = server.url;
  for (const [credName, c] of Object.entries(s.credentials)) {
    const answer = await sendOnce(base, signed("chargeback", c, {})());
    if (answer.status !== 200) throw new Error(`run ${name}: the ${credName}-shop credential's first request: HTTP ${answer.status} ${answer.error ?? answer.snippet ?? ""}`);
  }
  if (name === "B") await replicaUp(base, s);
  const window = { warmup: opts.warmup, seconds: opts.seconds };
  log(`${name}: the 401 floor`);
  const floor401 = (await load(base, [{ name: "401", connections: opts.concurrency, call: () => ({ path: "/api/chargeback", body: "{}" }), expected: 401 }], window))["401"];

  const batchesBefore = name === "B" ? readBatches(await scrape(base, s.metricsToken)) : undefined;
  await Promise.all([resetStatementStats(s.primary.url), resetStatementStats(s.standby.url)]);
  const started = performance.now();
  const classes: ReplicaClassResult[] = [];
  for (const cls of s.classes) {
    log(`${name}: ${cls.id} ${cls.name}`);
    const stats = (await load(base, [{ name: cls.id, connections: opts.concurrency, call: signed(cls.kind, s.credentials[cls.credential], cls.body), expected: 200 }], window))[cls.id];
    const totalElements = stats.totals.length === 1 ? stats.totals[0] : null;
    const target = classTarget(cls.selection.perPage);
    const r401 = ratio(stats.reqPerSec, floor401.reqPerSec);
    classes.push({
      id: cls.id,
      kind: cls.kind,
      letter: cls.letter,
      name: cls.name,
      perPage: cls.selection.perPage,
      stats,
      ratio401: r401,
      totalElements,
      totalsConstant: stats.totals.length === 1,
      totalMatchesSql: totalElements !== null && totalElements === s.sqlTotals.get(cls.id),
      target,
      targetMet: stats.failures === 0 && stats.p99 <= target.p99Ms && r401 >= target.ratio401,
    });
  }
  const seconds = round((performance.now() - started) / 1000, 2);
  const [primary, standby] = await Promise.all([serverWork(s.primary.url), serverWork(s.standby.url)]);
  const batchesAfter = batchesBefore ? readBatches(await scrape(base, s.metricsToken)) : undefined;
  const peak = server.rss.peak();
  return {
    name,
    serverEnv: Object.entries(env)
      .filter(([k]) => k.startsWith("DATABASE"))
      .map(([k, v]) => `${k}=${v}`),
    server: { startSeconds: server.startSeconds, peakRssMb: peak.peakRssMb },
    floor401,
    seconds,
    classes,
    work: { primary, standby },
    readBatches: batchesBefore && batchesAfter ? batchesSince(batchesBefore, batchesAfter) : undefined,
  };
}

// ---------------------------------------------------------------------------------------------

export async function runReplica(opts: BenchOptions, files: BenchFiles, cleanup: Cleanup): Promise<ReplicaResult> {
  if (!PG_BIN) throw new Error("--replica needs the PostgreSQL server programs (initdb, pg_ctl, pg_basebackup) under /usr/lib/postgresql/<version>/bin, or PG_BIN");
  log("a private primary (replication, pg_stat_statements) and a hot standby of it");
  // The settings of a stock PostgreSQL 15 server (as the other PostgreSQL runs use), not the tests' throwaway ones.
  const primary = await createPrivateCluster({ replication: true, statStatements: true, settings: STOCK_SETTINGS });
  const dropPrimary = cleanup.add("private primary", () => primary.destroy());
  try {
    const standby = await createStandby(primary);
    const dropStandby = cleanup.add("hot standby", () => standby.destroy());
    try {
      return await measure(opts, files, cleanup, primary, standby);
    } finally {
      await dropStandby();
    }
  } finally {
    await dropPrimary();
  }
}

async function measure(opts: BenchOptions, files: BenchFiles, cleanup: Cleanup, primary: PrivateCluster, standby: Standby): Promise<ReplicaResult> {
  log(`importing ${files.history.length} daily files into the primary, the standby's lag sampled every ${LAG_EVERY_MS} ms`);
  // A commit replayed before the import: the standby's last replayed commit is known from the first sample.
  await waitForReplay(primary, standby);
  const sampler = await LagSampler.start(primary.url, standby.url);
  let dailyFiles: ImportFigures;
  let importLag: LagFigures;
  try {
    dailyFiles = await importMeasured(primary.url, files.history);
  } finally {
    importLag = await sampler.stop();
  }
  log(
    `${dailyFiles.records} records in ${dailyFiles.seconds} s = ${dailyFiles.recordsPerSecond} records/s; standby lag max ${importLag.maxLagSeconds} s, ` +
      `p95 ${importLag.p95LagSeconds} s, ${importLag.maxBytesBehind} bytes behind at most`,
  );

  const shops = files.shops.map((s) => s.code);
  const credentials = await createCredentials(primary.url, shops);
  await waitForReplay(primary, standby, 120_000);

  const sql = await openSql(primary.url);
  let version: string;
  let classes: BenchClass[];
  const records = {} as Record<RecordKind, number>;
  const sqlTotals = new Map<string, number>();
  try {
    ({ version, classes } = await classesOf(sql, opts, shops, credentials, records));
    // The exact count of each class, once, for the totals check (no SQL floor in this mode).
    for (const cls of classes) {
      const { count } = floorStatements(cls.selection, "postgres");
      sqlTotals.set(cls.id, Number((await sql.all(count.text, count.params))[0].n));
    }
  } finally {
    await sql.close();
  }

  const setup: Setup = {
    opts,
    primary,
    standby,
    classes,
    credentials,
    sqlTotals,
    secret: process.env.APP_SECRET!,
    metricsToken: crypto.randomBytes(24).toString("hex"),
    cleanup,
  };

  log("A: a server on the primary alone");
  const a = await startRun(setup, "A");
  let runA: SearchRun;
  try {
    runA = await searchRun(setup, "A", a.server, a.env);
  } finally {
    await a.stop();
  }

  log(`B: a server with DATABASE_REPLICA_URLS naming the standby`);
  const b = await startRun(setup, "B");
  let runB: SearchRun;
  let live: ReplicaResult["importDuringReads"];
  try {
    runB = await searchRun(setup, "B", b.server, b.env);
    log(`B: reads while a ${opts.liveImport}-record file imports, lag and metrics sampled`);
    const liveSampler = await LagSampler.start(primary.url, standby.url);
    const poller = new MetricsPoller(b.server.url, setup.metricsToken, replicaName(standby));
    let reads: BackendResult["importDuringReads"];
    let liveLag: LagFigures;
    let metrics: MetricsDuringImport;
    try {
      // The total after the import is read once the standby has replayed it: B reads there.
      reads = await readsDuringImport(b.server.url, primary.url, setup.secret, files.live, opts, signed("chargeback", credentials.all, {}), cleanup, () =>
        waitForReplay(primary, standby, 60_000),
      );
    } finally {
      liveLag = await liveSampler.stop();
      metrics = await poller.stop();
    }
    live = { ...reads, ...importFileSeconds(reads), lag: liveLag, metrics };
    runB.server.peakRssMb = b.server.rss.peak().peakRssMb;
  } finally {
    await b.stop();
  }

  const A = runA.work.primary.reads;
  const B = runB.work.primary.reads;
  const reductionPercent = { statements: reduction(A.calls, B.calls), buffers: reduction(A.buffers, B.buffers), execTime: reduction(A.execMs, B.execMs) };
  const totalsMatched = runA.classes.every((ca, i) => {
    const cb = runB.classes[i];
    return ca.totalsConstant && cb.totalsConstant && ca.totalMatchesSql && cb.totalMatchesSql && ca.totalElements === cb.totalElements;
  });
  return {
    backend: "postgres",
    databaseVersion: version,
    replicaMaxLagSeconds: replicaMaxLagSeconds(),
    clusters: {
      note: `private clusters of scripts/pg-cluster.ts on this machine with a stock server's settings (${STOCK_SETTINGS.join(", ")}); pg_stat_statements.track all`,
      primary: `127.0.0.1:${primary.port}`,
      standby: replicaName(standby),
    },
    records,
    import: { dailyFiles, lag: importLag },
    runs: { A: runA, B: runB },
    primaryReads: {
      A,
      B,
      reductionPercent,
      targetPercent: REDUCTION_TARGET_PERCENT,
      met: Object.values(reductionPercent).every((p) => p >= REDUCTION_TARGET_PERCENT),
    },
    totalsMatched,
    importDuringReads: live,
  };
}
