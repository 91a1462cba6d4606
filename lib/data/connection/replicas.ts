import { sql } from "kysely";
import { type Runner, startJob } from "@/lib/background/runner";
import { replicaMaxLagSeconds, replicaUrls } from "@/lib/config";
import { currentRequest, errorFields, log } from "@/lib/log";
import type { ReadServerState } from "@/lib/metrics";
import { postgresPool, type PostgresPool, postgresReader, type PostgresReader } from "./postgres";
import type { ReadResult, ReadStatement, Remembered } from "./read";
import { hasErrorCode, isDatabaseUnavailable } from "./unavailable";

/**
 * Reads on PostgreSQL streaming replicas (docs/replicas.md). With DATABASE_REPLICA_URLS, the
 * server's reads (Db.read: searches, summaries, worklist, overview, exports, dashboard pages,
 * report) go to a healthy replica, the least busy one; everything that writes, and the reads of
 * what a user changes, stay on DATABASE_URL. One process-wide monitor checks every replica each
 * second in the background: its replay position against the primary's WAL position, read on
 * both. A replica that does not answer within CHECK_TIMEOUT_MS, is not in recovery, or lags more
 * than REPLICA_MAX_LAG_SECONDS is left out; its connections are cut, so a request waiting on a
 * frozen one is retried elsewhere at once. It comes back at the first good check.
 */

export const REPLICA_MONITOR = "replica monitor";
/** How often each replica is checked. */
export const CHECK_EVERY_MS = 1000;
/** A check that takes longer than this finds the replica down (a frozen server answers nothing). */
export const CHECK_TIMEOUT_MS = 1500;
/** A replica's new connection may take this long: a frozen server accepts TCP and then says nothing. */
const REPLICA_CONNECT_TIMEOUT_MS = 2000;
/** The primary's WAL positions kept to date a replica's replay position, a sample a check. */
const SAMPLES = 600;

export type ReplicaHealth = "healthy" | "lagging" | "down" | "unknown";

export interface ReplicaState {
  /** host:port of the replica: never its URL, which may hold a password */
  name: string;
  health: ReplicaHealth;
  /** seconds behind the primary at the last check (0 when it had replayed everything the primary had written); null when unknown */
  lagSeconds: number | null;
  /** why it is left out, for the log and /api/ready */
  problem?: string;
  /** read batches this instance sent it */
  reads: number;
}

/** A WAL position ("16/B374D848") as a number of bytes. */
export function parseLsn(text: string): bigint {
  const [hi, lo] = text.split("/");
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

/**
 * How far behind the primary a replica is, in seconds: 0 when it holds everything the primary had
 * written at the last of `positions` (the primary's WAL insert positions, oldest first, each with
 * the time it was read on our clock). Else the smaller of two bounds on the age of the oldest
 * change it lacks: the age of the newest position it has reached (what it lacks was written after
 * that), and the time since the last commit it replayed (`replayedAtMs`, on our clock; what it
 * lacks was committed after that). The first alone reads a second for a replica a few
 * milliseconds behind a busy primary; the second alone reads hours for one that lacks only a
 * checkpoint record of an idle one. Null when neither is known (it reached no position kept and
 * replayed no commit).
 */
export function replicaLagSeconds(positions: readonly { lsn: bigint; at: number }[], replayed: bigint, replayedAtMs: number | null, now: number): number | null {
  const latest = positions.at(-1);
  if (!latest || replayed >= latest.lsn) return 0;
  const bounds: number[] = [];
  const reached = positions.findLast((position) => position.lsn <= replayed);
  if (reached) bounds.push(now - reached.at);
  if (replayedAtMs !== null) bounds.push(Math.max(0, now - replayedAtMs));
  return bounds.length ? Math.min(...bounds) / 1000 : null;
}

/** A server that reads: the primary, or a replica while it is healthy. */
interface Server {
  name: string;
  reader: PostgresReader;
  inFlight: number;
  reads: number;
}

class Replica implements Server {
  health: ReplicaHealth = "unknown";
  lagSeconds: number | null = null;
  problem: string | undefined = "not checked yet";
  replayed = 0n;
  inFlight = 0;
  reads = 0;
  private connection: PostgresPool;
  reader: PostgresReader;

  constructor(
    readonly url: string,
    readonly name: string,
  ) {
    this.connection = this.connect();
    this.reader = postgresReader(this.connection.db);
  }

  private connect(): PostgresPool {
    return postgresPool(this.url, { server: true, connectTimeoutMs: REPLICA_CONNECT_TIMEOUT_MS, allowExitOnIdle: true });
  }

  get db() {
    return this.connection.db;
  }

  /**
   * Cuts every connection (queries waiting on them fail at once and are retried elsewhere) and
   * starts a fresh pool, so that nothing of the sick server is reused when it comes back.
   */
  reset() {
    const old = this.connection;
    old.severAll();
    void old.db.destroy().catch(() => {});
    this.connection = this.connect();
    this.reader = postgresReader(this.connection.db);
  }

  close() {
    this.connection.severAll();
    return this.connection.db.destroy().catch(() => {});
  }
}

/** The host:port a postgres:// URL names, for logs and metrics. */
function serverName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || "5432"}`;
  } catch {
    return "replica";
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Errors after which a batch is read again on another server: the server is gone or frozen (it is
 * left out), or it cancelled the read to replay the primary's changes, a recovery conflict (it is
 * not). A statement that ran past PG_QUERY_TIMEOUT_SECONDS is not read again: it would take as long
 * elsewhere.
 */
function worthAnotherServer(err: unknown): { down: boolean } | undefined {
  if (hasErrorCode(err, ["40001", "40P01"])) return { down: false };
  if (hasErrorCode(err, ["57014"])) return undefined;
  return isDatabaseUnavailable(err) ? { down: true } : undefined;
}

/**
 * The replicas of this process and their health. One per process (globalThis: the production
 * server and the route handlers Next bundles are different module instances).
 */
export class ReplicaMonitor {
  readonly replicas: Replica[];
  private readonly primary: PostgresPool;
  /** the primary's WAL insert positions, oldest first, with the time each was read */
  private readonly samples: { lsn: bigint; at: number }[] = [];
  /** the primary's clock minus ours, at the last sample */
  private primaryClockOffsetMs = 0;
  private runner: Runner | undefined;
  private checking: Promise<void> | undefined;
  private next = 0;
  /** the primary as a read server (replicaReads gives it), for its read count */
  primaryServer?: Server;

  constructor(
    primaryUrl: string,
    urls: readonly string[],
    readonly maxLagSeconds: number,
  ) {
    this.primary = postgresPool(primaryUrl, { server: true, poolMax: 2, allowExitOnIdle: true });
    this.replicas = urls.map((url) => new Replica(url, serverName(url)));
  }

  /**
   * Checks once (bounded), then every CHECK_EVERY_MS in the background, as a job of the
   * background runner. The server stops the checks on SIGTERM but leaves the connections open:
   * requests still being served read on them until the process exits (a read that fails there
   * leaves its replica out, as always).
   */
  async start(): Promise<void> {
    await this.check();
    this.runner = startJob(REPLICA_MONITOR, () => ({ name: REPLICA_MONITOR, everyMs: CHECK_EVERY_MS, run: () => this.check() }), CHECK_EVERY_MS);
  }

  check(): Promise<void> {
    this.checking ??= this.checkAll().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async checkAll() {
    // The primary's position first: whatever a replica has replayed beyond it is not behind.
    try {
      const { rows } = await withTimeout(
        sql<{ lsn: string; now_ms: string }>`select pg_current_wal_insert_lsn()::text as lsn, (extract(epoch from clock_timestamp()) * 1000)::text as now_ms`.execute(this.primary.db),
        CHECK_TIMEOUT_MS,
        "primary",
      );
      const at = Date.now();
      this.samples.push({ lsn: parseLsn(rows[0].lsn), at });
      this.primaryClockOffsetMs = Number(rows[0].now_ms) - at;
      if (this.samples.length > SAMPLES) this.samples.shift();
    } catch (err) {
      // The replicas are judged against the last position known; reads may go on there.
      this.primary.severAll();
      log.debug(errorFields(err), "replicas: the primary's WAL position could not be read");
    }
    await Promise.all(this.replicas.map((replica) => this.checkReplica(replica)));
  }

  private async checkReplica(replica: Replica) {
    let health: ReplicaHealth;
    let problem: string | undefined;
    try {
      const { rows } = await withTimeout(
        sql<{ recovery: boolean; replay: string | null; replayed_at: string | null }>`select pg_is_in_recovery() as recovery, pg_last_wal_replay_lsn()::text as replay, (extract(epoch from pg_last_xact_replay_timestamp()) * 1000)::text as replayed_at`.execute(replica.db),
        CHECK_TIMEOUT_MS,
        replica.name,
      );
      const { recovery, replay, replayed_at } = rows[0];
      if (!recovery || replay === null) {
        health = "down";
        problem = recovery ? "it has replayed nothing yet" : "it is not a standby (not in recovery)";
        replica.lagSeconds = null;
      } else {
        replica.replayed = parseLsn(replay);
        replica.lagSeconds = this.lagOf(replica.replayed, replayed_at === null ? null : Number(replayed_at));
        health = replica.lagSeconds !== null && replica.lagSeconds <= this.maxLagSeconds ? "healthy" : "lagging";
        problem = health === "lagging" ? `it lags ${replica.lagSeconds === null ? "an unknown time" : `${replica.lagSeconds.toFixed(1)} s`} (REPLICA_MAX_LAG_SECONDS ${this.maxLagSeconds})` : undefined;
      }
    } catch (err) {
      health = "down";
      problem = err instanceof Error ? err.message : String(err);
      replica.lagSeconds = null;
    }
    this.setHealth(replica, health, problem);
  }

  private lagOf(replayed: bigint, replayedAtMs: number | null): number | null {
    return replicaLagSeconds(this.samples, replayed, replayedAtMs === null ? null : replayedAtMs - this.primaryClockOffsetMs, Date.now());
  }

  private setHealth(replica: Replica, health: ReplicaHealth, problem: string | undefined) {
    const was = replica.health;
    replica.health = health;
    replica.problem = problem;
    if (health === was) return;
    if (health === "healthy") log.info({ replica: replica.name, lag_seconds: replica.lagSeconds }, "replica: reads go here again");
    else {
      log.warn({ replica: replica.name, health, problem }, "replica: left out; its reads go to another server");
      // A request waiting on it is retried elsewhere now, not when its own timeout ends.
      if (health === "down") replica.reset();
    }
  }

  /** A request's replica dropped its connection or does not answer: left out until a check finds it well. */
  markDown(replica: Replica, err: unknown) {
    if (replica.health === "down") return;
    this.setHealth(replica, "down", err instanceof Error ? err.message : String(err));
  }

  /** The healthy replica with the fewest reads in flight (in turn among equals), or none. */
  choose(excluding: ReadonlySet<string>): Replica | undefined {
    let best: Replica | undefined;
    const n = this.replicas.length;
    for (let k = 0; k < n; k++) {
      const replica = this.replicas[(this.next + k) % n];
      if (replica.health !== "healthy" || excluding.has(replica.name)) continue;
      if (!best || replica.inFlight < best.inFlight) best = replica;
    }
    if (best) this.next = (this.replicas.indexOf(best) + 1) % n;
    return best;
  }

  find(name: string | undefined): Replica | undefined {
    return name === undefined ? undefined : this.replicas.find((r) => r.name === name && r.health === "healthy");
  }

  /**
   * Waits until every healthy replica has replayed everything the primary had written when this
   * was called (docs/replicas.md, "Freshness"): what was committed before is then found on every
   * server reads go to. A replica that falls behind or stops answering meanwhile is left out by
   * the checks and no longer waited for. At most `maxWaitMs`; answers how long it waited.
   */
  async caughtUp(maxWaitMs: number): Promise<number> {
    const started = Date.now();
    let target: bigint;
    try {
      const { rows } = await withTimeout(sql<{ lsn: string }>`select pg_current_wal_insert_lsn()::text as lsn`.execute(this.primary.db), CHECK_TIMEOUT_MS, "primary");
      target = parseLsn(rows[0].lsn);
    } catch (err) {
      // A query that does not answer keeps its connection: cut it, as the checks do.
      this.primary.severAll();
      throw err;
    }
    let pending = this.replicas.filter((r) => r.health === "healthy" && r.replayed < target);
    while (pending.length > 0 && Date.now() - started < maxWaitMs) {
      const still: Replica[] = [];
      await Promise.all(
        pending.map(async (replica) => {
          try {
            const { rows: r } = await withTimeout(sql<{ replay: string }>`select pg_last_wal_replay_lsn()::text as replay`.execute(replica.db), CHECK_TIMEOUT_MS, replica.name);
            replica.replayed = parseLsn(r[0].replay);
          } catch {
            // the checks will find it down; not waited for
            return;
          }
          if (replica.health === "healthy" && replica.replayed < target) still.push(replica);
        }),
      );
      pending = still;
      if (pending.length > 0) await sleep(20);
    }
    return Date.now() - started;
  }

  states(): ReplicaState[] {
    return this.replicas.map((r) => ({ name: r.name, health: r.health, lagSeconds: r.lagSeconds, problem: r.problem, reads: r.reads }));
  }

  /** The primary and each replica as lib/metrics.ts shows them. */
  readServers(): ReadServerState[] {
    return [{ server: "primary", reads: this.primaryServer?.reads ?? 0 }, ...this.replicas.map((r) => ({ server: r.name, healthy: r.health === "healthy", lagSeconds: r.lagSeconds, reads: r.reads }))];
  }

  /** Stops the checks and closes every connection. */
  async stop() {
    await this.runner?.stop(CHECK_TIMEOUT_MS);
    await this.checking?.catch(() => {});
    await Promise.all(this.replicas.map((r) => r.close()));
    this.primary.severAll();
    await this.primary.db.destroy().catch(() => {});
  }
}

const shared = globalThis as unknown as { __drReplicas?: Promise<ReplicaMonitor | undefined>; __drReplicaMonitor?: ReplicaMonitor };

/** The process's replica monitor, started at the first call; none without DATABASE_REPLICA_URLS. */
export function replicaMonitor(): Promise<ReplicaMonitor | undefined> {
  shared.__drReplicas ??= (async () => {
    const urls = replicaUrls();
    if (urls.length === 0) return undefined;
    const monitor = new ReplicaMonitor(process.env.DATABASE_URL!, urls, replicaMaxLagSeconds());
    await monitor.start();
    shared.__drReplicaMonitor = monitor;
    log.info({ replicas: monitor.states().map((s) => ({ replica: s.name, health: s.health, problem: s.problem })) }, "replicas: reads go to the healthy ones");
    return monitor;
  })();
  return shared.__drReplicas;
}

/**
 * Where this process's reads went and each replica's state, for the metrics: read at each scrape,
 * so a monitor started after the server (the primary was away at its start) is shown once it runs.
 * Empty while none runs.
 */
export function readServerStates(): ReadServerState[] {
  return shared.__drReplicaMonitor?.readServers() ?? [];
}

/** The monitor if one was started in this process (for /api/ready), without starting one. */
export async function startedReplicaMonitor(): Promise<ReplicaMonitor | undefined> {
  return shared.__drReplicas?.catch(() => undefined);
}

/**
 * Freshness before sending news of an import (webhooks, mail): waits until every healthy replica
 * has replayed what the primary holds now, at most `maxWaitMs`. Nothing without replicas.
 */
export async function replicasCaughtUp(maxWaitMs = freshnessWaitMs()): Promise<void> {
  const monitor = await replicaMonitor();
  if (!monitor) return;
  const waited = await monitor.caughtUp(maxWaitMs);
  if (waited >= maxWaitMs) log.warn({ waited_ms: waited }, "replicas: a healthy replica had not replayed the news's commit in time; sending anyway");
}

/** The longest replicasCaughtUp waits: a replica that lags more is left out by then. 0 without replicas. */
export function freshnessWaitMs(): number {
  return replicaUrls().length === 0 ? 0 : (replicaMaxLagSeconds() + 2) * 1000 + CHECK_EVERY_MS + CHECK_TIMEOUT_MS;
}

export interface RoutedReads {
  read(statements: readonly ReadStatement[]): Promise<ReadResult[]>;
  remembered(s: ReadStatement): Remembered | undefined;
}

/**
 * The server's reads with replicas: each request reads on one server (the first it was given,
 * while that stays healthy; RequestContext.readServer), a healthy replica when there is one,
 * else the primary. A batch whose replica fails under it (gone, frozen, or cancelled by a
 * recovery conflict) is read again, whole, on another server. Undefined without replicas.
 */
export async function replicaReads(primaryReader: PostgresReader): Promise<RoutedReads | undefined> {
  const monitor = await replicaMonitor();
  if (!monitor) return undefined;
  const primary: Server = { name: "primary", reader: primaryReader, inFlight: 0, reads: 0 };
  monitor.primaryServer = primary;
  const serverFor = (excluding: ReadonlySet<string>): Server => {
    const context = currentRequest();
    const pinned = context?.readServer === "primary" ? primary : monitor.find(context?.readServer);
    if (pinned && !excluding.has(pinned.name)) return pinned;
    const chosen = monitor.choose(excluding) ?? primary;
    if (context) context.readServer = chosen.name;
    return chosen;
  };
  return {
    read: async (statements) => {
      const tried = new Set<string>();
      for (;;) {
        const server = serverFor(tried);
        server.inFlight++;
        server.reads++;
        try {
          return await server.reader.read(statements);
        } catch (err) {
          const again = server === primary ? undefined : worthAnotherServer(err);
          if (!again) throw err;
          tried.add(server.name);
          if (again.down) monitor.markDown(server as Replica, err);
          log.info({ replica: server.name, ...errorFields(err) }, "replica: a read failed there; reading again on another server");
        } finally {
          server.inFlight--;
        }
      }
    },
    remembered: (s) => serverFor(new Set()).reader.remembered(s),
  };
}
