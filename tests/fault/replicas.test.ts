import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { parse } from "csv-parse/sync";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREDENTIALS, type Fixture, type Kind, writeFixture } from "../api/fixture";
import { signedHeaders } from "../api/harness";
import { addUser, signIn } from "../helpers/accounts";
import { type CliResult, runCli } from "../helpers/cli";
import { tempDir } from "../helpers/db";
import { createPrivateCluster, createStandby, PG_BIN, type PrivateCluster, resetStatementStats, type Standby, statementsMatching, waitForReplay } from "../helpers/pg-cluster";
import { type Family, parseExposition, sampleValue } from "../helpers/prometheus";
import { startServer, type TestServer } from "../helpers/server";
import { writeFile } from "../helpers/webhooks";

/**
 * Read replicas (CONTRACT.md section 14, "Read replicas (PostgreSQL)"; lib/data/replicas.ts) on a
 * private primary with one hot standby (tests/helpers/pg-cluster.ts), served by real production
 * servers with DATABASE_REPLICA_URLS: reads go to the standby and writes never do; a standby whose
 * replay is paused is left out as lagging and comes back; one that is stopped or frozen under load
 * fails and hangs no request; two servers share nonces through the primary; and news of an import
 * (webhooks) waits until the healthy replica holds it. Where each request read is told by the
 * servers' own counters (database_read_batches_total) and by pg_stat_statements on each server.
 * Needs the PostgreSQL programs (initdb, pg_ctl, pg_basebackup); skipped without them.
 */

if (!PG_BIN) console.warn("tests/fault/replicas.test.ts skipped: no PostgreSQL programs (initdb, pg_ctl, pg_basebackup) under /usr/lib/postgresql/*/bin; set PG_BIN");

const TOKEN = "replica-metrics-token-0123456789";
const WIDE = CREDENTIALS.wide;
/** the dashboard user of test 1, with the wide credential's access list */
const USER = { email: "replica-reader@example.test", password: "replica-reader-pw", access: [...WIDE.access] };

// ---- Timing. The monitor (lib/data/replicas.ts) checks each replica every CHECK_EVERY_MS and
// finds it down when a check takes longer than CHECK_TIMEOUT_MS; restated here as the capability
// promises them, so that a change of the monitor's rhythm shows up as a failing bound.

/** the monitor checks each replica this often */
const CHECK_EVERY_MS = 1_000;
/** a check that has not answered within this finds the replica down */
const CHECK_TIMEOUT_MS = 1_500;
/** REPLICA_MAX_LAG_SECONDS of the servers (the least allowed is 1; 2 keeps a paused replica's exclusion quick) */
const MAX_LAG_SECONDS = 2;
/**
 * Slack for a shared 2-core machine (two PostgreSQL servers, the app server, the test and other
 * work): one scheduling hiccup of a busy event loop, never a whole check period.
 */
const MARGIN_MS = 1_500;
/** From the monitor's view changing (a replica down, lagging, healthy again) to a check that notices: one period, a check that may be timing out, and the margin. */
const NOTICE_BOUND_MS = CHECK_EVERY_MS + CHECK_TIMEOUT_MS + MARGIN_MS;
/**
 * A replica stopped (fast or immediate) fails its queries at once with an error (57P01, a reset
 * connection, a refused one) and the batch is read again on the primary: an answer costs two reads
 * at most, never a wait. 3 s is far above the ~100-300 ms such an answer takes under this load, and
 * far below the 4 s (PG_QUERY_TIMEOUT_SECONDS 3 + 1) after which the driver gives up on its own.
 */
const STOP_ANSWER_BOUND_MS = 3_000;
/**
 * A frozen replica answers nothing and no error comes: a request waiting there is saved only by the
 * monitor, whose check times out (CHECK_TIMEOUT_MS, at most CHECK_EVERY_MS after the freeze) and
 * cuts the replica's connections, so the read is retried on the primary. 5 s = 1 s + 1.5 s + 2.5 s
 * of margin. The freeze test runs with PG_QUERY_TIMEOUT_SECONDS 10 (the driver would give up only
 * after 11 s), so this bound can only be met by the monitor's cut, not by a query timeout.
 */
const FROZEN_ANSWER_BOUND_MS = CHECK_EVERY_MS + CHECK_TIMEOUT_MS + 2_500;
/** how long the standby stays stopped, and frozen: several check periods, enough requests to mean something */
const DOWN_MS = 4_000;
const FROZEN_MS = 8_000;
/**
 * From a standby accepting connections again (or thawing) to /api/ready showing it healthy: a check
 * period, a check that may have started against the server while it was still away and times out,
 * replaying the WAL the primary wrote meanwhile, and the margin.
 */
const RETURN_BOUND_MS = CHECK_EVERY_MS + CHECK_TIMEOUT_MS + 2 * MARGIN_MS;
/**
 * From the end of an import on the primary (the standby's replay paused before it) to a search that
 * finds its records: the replica lags more than MAX_LAG_SECONDS at most that long after the import's
 * first write, a check notices within NOTICE_BOUND_MS, and its reads go to the primary.
 */
const STALE_BOUND_MS = MAX_LAG_SECONDS * 1_000 + NOTICE_BOUND_MS;
/** every request outside the fault tests: a small search takes tens of ms; this only keeps a hung request from hanging the test */
const REQUEST_TIMEOUT_MS = 15_000;
/** concurrent signed searches of the load, each after a 20 ms breath (as postgres-outage.test.ts) */
const IN_FLIGHT = 6;
/** load before a fault: the pool connections to the replica are open and in use */
const WARM_MS = 1_500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, check: () => Promise<T | undefined | false>, ms: number, every = 100): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(every);
  }
}

function must(result: CliResult, what: string): CliResult {
  if (result.code !== 0) throw new Error(`${what} failed (${result.code}):\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** One query on a server's `disputes` database (the test's own connection, not the app's). */
async function queryOn<R extends pg.QueryResultRow>(url: string, text: string, params: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, params)).rows;
  } finally {
    await client.end();
  }
}

interface Answer {
  status: number;
  ms: number;
  text: string;
  json?: unknown;
}

async function send(url: string, init: RequestInit = {}, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Answer> {
  const start = Date.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // CSV, HTML
  }
  return { status: res.status, ms: Date.now() - start, text, json };
}

/** A signed POST of the wide credential (docs/api.md, "Authentication"). */
function signedPost(baseUrl: string, route: string, body: unknown, headers: Record<string, string> = signedHeaders(WIDE.shop, WIDE.password)): Promise<Answer> {
  return send(`${baseUrl}${route}`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });
}

interface Ready {
  at: number;
  ms: number;
  status: number;
  body: { status?: string; replicas?: { replica: string; state: string; lag_seconds: number | null }[] };
}

async function ready(baseUrl: string): Promise<Ready> {
  const at = Date.now();
  const a = await send(`${baseUrl}/api/ready`);
  return { at, ms: a.ms, status: a.status, body: (a.json ?? {}) as Ready["body"] };
}

const stateOf = (r: Ready) => r.body.replicas?.[0]?.state;

/** /api/ready every 250 ms until stopped: every answer kept, so a fault shows whether readiness ever wavered. */
function watchReady(baseUrl: string) {
  const seen: (Ready | { at: number; ms: number; status: 0; error: string })[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const at = Date.now();
      try {
        seen.push(await ready(baseUrl));
      } catch (err) {
        seen.push({ at, ms: Date.now() - at, status: 0, error: String(err) });
      }
      await sleep(250);
    }
  })();
  return {
    seen,
    async stop() {
      running = false;
      await loop;
    },
  };
}

interface ReadCounts {
  primary: number;
  replica: number;
  up: number | undefined;
  lag: number | undefined;
}

/** The server's own view (docs: lib/metrics.ts): read batches per server, the replica's gauge and lag. */
async function readCounts(server: TestServer, replica: string): Promise<ReadCounts> {
  const res = await send(`${server.url}/api/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  const families: Map<string, Family> = parseExposition(res.text);
  const batches = families.get("database_read_batches_total");
  return {
    primary: sampleValue(batches, { server: "primary" }) ?? NaN,
    replica: sampleValue(batches, { server: replica }) ?? NaN,
    up: sampleValue(families.get("database_replica_up"), { replica }),
    lag: sampleValue(families.get("database_replica_lag_seconds"), { replica }),
  };
}

// ---- Load

interface Sample {
  start: number;
  end: number;
  kind: Kind;
  /** 0 when no answer came (timeout or network error) */
  status: number;
  total?: number;
  error?: string;
  body: string;
}

/** The load's searches: filters and a sort, over the fixture's files only, so later imports do not change their totals. */
const LOAD_BODIES: Record<Kind, Record<string, unknown>> = {
  chargeback: { file_date_to: "2026-03-31", sortKey: "FILE_DATE", sortOrder: "desc", per_page: 10 },
  pre_arbitration: { file_date_to: "2026-03-31", sortKey: "MERCHANT_ID", per_page: 10 },
};

/** IN_FLIGHT callers, each sending signed searches (chargebacks and cases in turn) one after another until stopped. */
function startLoad(baseUrl: string, boundMs: number) {
  const samples: Sample[] = [];
  let running = true;
  const worker = async (w: number) => {
    for (let i = w; running; i++) {
      const kind: Kind = i % 2 === 0 ? "chargeback" : "pre_arbitration";
      const start = Date.now();
      try {
        const res = await fetch(`${baseUrl}/api/${kind}`, {
          method: "POST",
          headers: { "Content-Type": "application/json", ...signedHeaders(WIDE.shop, WIDE.password) },
          body: JSON.stringify(LOAD_BODIES[kind]),
          // Never hang the test: an answer slower than this is recorded as none.
          signal: AbortSignal.timeout(boundMs + 5_000),
        });
        const body = await res.text();
        let total: number | undefined;
        try {
          total = (JSON.parse(body) as { totalElements?: number }).totalElements;
        } catch {
          // reported as a problem below
        }
        samples.push({ start, end: Date.now(), kind, status: res.status, total, body });
      } catch (err) {
        samples.push({ start, end: Date.now(), kind, status: 0, error: String(err), body: "" });
      }
      await sleep(20);
    }
  };
  const workers = Array.from({ length: IN_FLIGHT }, (_, w) => worker(w));
  return {
    samples,
    async stop() {
      running = false;
      await Promise.all(workers);
    },
  };
}

/** What is wrong with one answer of the load: anything but a 200 with the right total within the bound. */
function answerProblems(s: Sample, expected: Record<Kind, number>, boundMs: number): string[] {
  const ms = s.end - s.start;
  const problems: string[] = [];
  if (s.status !== 200) problems.push(`${s.kind} at +${s.start % 100_000}: status ${s.status} ${s.error ?? s.body.slice(0, 300)}`);
  else if (s.total !== expected[s.kind]) problems.push(`${s.kind}: totalElements ${s.total}, expected ${expected[s.kind]}`);
  if (ms >= boundMs) problems.push(`${s.kind}: answered after ${ms} ms (bound ${boundMs} ms)`);
  return problems;
}

const longest = (list: { start: number; end: number }[]) => Math.max(0, ...list.map((s) => s.end - s.start));
const p95 = (list: { start: number; end: number }[]) => {
  const ms = list.map((s) => s.end - s.start).sort((a, b) => a - b);
  return ms.length ? ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.95))] : 0;
};

/** How many direct rows a search of the fixture's files selects, read on the primary itself. */
async function directCount(url: string, kind: Kind, where: string, params: unknown[]): Promise<number> {
  const table = kind === "chargeback" ? "chargebacks" : "pre_arbitrations";
  const [{ n }] = await queryOn<{ n: string }>(url, `select count(*)::text as n from ${table} where ${where}`, params);
  return Number(n);
}

describe.skipIf(!PG_BIN)("read replicas: a private primary with a hot standby", () => {
  let primary: PrivateCluster | undefined;
  let standby: Standby | undefined;
  let fixture: Fixture;
  /** DATABASE_URL (the primary), key file, no rate limit: the commands' environment */
  let baseEnv: Record<string, string>;
  /** the replica's name in /api/ready and the metrics */
  let replicaName = "";
  /** the load searches' totals, counted on the primary */
  const expected: Record<Kind, number> = { chargeback: 0, pre_arbitration: 0 };
  /** true while the test has the standby stopped (so that a failed test's finally starts it again) */
  let standbyStopped = false;

  const serverEnv = (extra: Record<string, string> = {}) => ({
    ...baseEnv,
    DATABASE_REPLICA_URLS: standby!.url,
    REPLICA_MAX_LAG_SECONDS: String(MAX_LAG_SECONDS),
    PG_QUERY_TIMEOUT_SECONDS: "3",
    METRICS_TOKEN: TOKEN,
    SHUTDOWN_TIMEOUT_SECONDS: "5",
    ...extra,
  });

  /** Whatever a test did to the standby, it serves and replays again, caught up with the primary. */
  async function restoreStandby() {
    standby!.thaw();
    if (standbyStopped) {
      await standby!.start();
      standbyStopped = false;
    }
    await standby!.resumeReplay().catch(() => {});
    await waitForReplay(primary!, standby!);
  }

  function noProcessErrors(...servers: TestServer[]) {
    for (const server of servers) expect(server.output()).not.toMatch(/uncaught|unhandled/i);
  }

  beforeAll(async () => {
    primary = await createPrivateCluster({ replication: true, statStatements: true });
    standby = await createStandby(primary);
    replicaName = `127.0.0.1:${standby.port}`;
    const dir = tempDir("disputes-replicas-");
    baseEnv = { DATABASE_URL: primary.url, APP_KEY_FILE: path.join(dir, "app.key"), RATE_LIMIT_PER_MINUTE: "0" };
    fixture = writeFixture(path.join(dir, "files"));
    // The fixture through the real import command, on the primary; the standby gets it by streaming.
    must(await runCli("import.ts", fixture.files, baseEnv), "import");
    for (const cred of Object.values(CREDENTIALS)) {
      must(await runCli("admin.ts", ["shop", "add", cred.shop, "--password", cred.password, "--access", cred.access.join(",")], baseEnv), "admin shop add");
    }
    await addUser(baseEnv, USER.email, USER.password, USER.access);
    await waitForReplay(primary, standby);
    expected.chargeback = await directCount(primary.url, "chargeback", "file_date <= $1", ["2026-03-31"]);
    expected.pre_arbitration = await directCount(primary.url, "pre_arbitration", "file_date <= $1", ["2026-03-31"]);
    // The same figures from the fixture's own model: the import loaded every record.
    expect(expected.chargeback).toBe(fixture.records.chargeback.length);
    expect(expected.pre_arbitration).toBe(fixture.records.pre_arbitration.length);
  });

  afterAll(async () => {
    // The standby first: it would otherwise keep trying to reach its primary.
    try {
      await standby?.destroy();
    } finally {
      await primary?.destroy();
    }
  });

  it("reads on the standby, writes never: every read endpoint, a dashboard page and an export", { timeout: 90_000 }, async () => {
    await waitForReplay(primary!, standby!);
    const P = primary!.url;
    const S = standby!.url;
    const shops3 = ["shop-a", "Zeta", "zz"];
    // Each request of the mix, with what a direct count on the primary says its total must be.
    const mix: { route: string; body: Record<string, unknown>; total: number }[] = [
      {
        route: "/api/chargeback",
        body: { shop_codes: shops3, file_date_from: "2026-01-06", file_date_to: "2026-03-01", sortKey: "MERCHANT_ID", sortOrder: "desc", per_page: 20 },
        total: await directCount(P, "chargeback", "shop_code = any($1) and file_date between $2 and $3", [shops3, "2026-01-06", "2026-03-01"]),
      },
      {
        route: "/api/pre_arbitration",
        body: { file_date_from: "2026-02-01", merchant_id: "M001", sortKey: "SHOP_CODE", sortOrder: "asc" },
        total: await directCount(P, "pre_arbitration", "file_date >= $1 and merchant_id = $2", ["2026-02-01", "M001"]),
      },
      {
        route: "/api/chargeback/summary",
        body: { file_date_from: "2026-01-01", file_date_to: "2026-02-28", group_by: ["month", "card_type"] },
        total: await directCount(P, "chargeback", "file_date between $1 and $2", ["2026-01-01", "2026-02-28"]),
      },
      {
        route: "/api/pre_arbitration/summary",
        body: { shop_codes: shops3, group_by: ["case_stage"] },
        total: await directCount(P, "pre_arbitration", "shop_code = any($1)", [shops3]),
      },
      // The worklist counts disputes, not rows: its answer is compared with the primary's below.
      { route: "/api/worklist", body: { statuses: ["due", "overdue", "expired"], as_of: "2026-02-10", per_page: 20 }, total: -1 },
      {
        route: "/api/overview",
        body: { file_date_from: "2026-01-01", file_date_to: "2026-03-31" },
        total: await directCount(P, "chargeback", "file_date between $1 and $2", ["2026-01-01", "2026-03-31"]),
      },
      { route: "/api/shops", body: {}, total: -1 },
    ];
    const exportRows = await directCount(P, "chargeback", "shop_code = any($1)", [USER.access]);
    const overviewPage = "/overview?from=2026-01-01&to=2026-03-31";

    // The same requests answered by a server without replicas (every read on the primary): the
    // replica's answers must be the same, byte for byte once parsed.
    const [reference, server] = await Promise.all([startServer({ ...baseEnv, PG_QUERY_TIMEOUT_SECONDS: "3" }), startServer(serverEnv())]);
    const primaryAnswers: unknown[] = [];
    try {
      for (const { route, body } of mix) {
        const a = await signedPost(reference.url, route, body);
        expect(a.status, `${route} on the reference server: ${a.text.slice(0, 200)}`).toBe(200);
        primaryAnswers.push(a.json);
      }
    } finally {
      await reference.stop();
    }

    try {
      const readyBefore = await ready(server.url);
      expect(readyBefore.status).toBe(200);
      expect(readyBefore.body).toEqual({ status: "ok", replicas: [{ replica: replicaName, state: "healthy", lag_seconds: expect.any(Number) }] });
      expect(readyBefore.body.replicas![0].lag_seconds!).toBeLessThanOrEqual(MAX_LAG_SECONDS);

      // From here on, every statement either server runs is counted.
      await Promise.all([resetStatementStats(P), resetStatementStats(S)]);
      let signed = 0;
      const perRequest: string[] = [];
      /** Runs one request and checks, with the server's own counters, that its reads went to the replica only. */
      const onReplica = async <T>(label: string, request: () => Promise<T>): Promise<T> => {
        const before = await readCounts(server, replicaName);
        const result = await request();
        const after = await readCounts(server, replicaName);
        perRequest.push(`${label} +${after.replica - before.replica}`);
        expect(after.replica - before.replica, `${label}: read batches on the replica`).toBeGreaterThanOrEqual(1);
        expect(after.primary, `${label}: read batches on the primary`).toBe(0);
        return result;
      };

      for (const [i, { route, body, total }] of mix.entries()) {
        const a = await onReplica(route, () => signedPost(server.url, route, body));
        signed++;
        expect(a.status, `${route}: ${a.text.slice(0, 300)}`).toBe(200);
        expect(a.json, `${route}: the replica's answer is the primary's`).toEqual(primaryAnswers[i]);
        const json = a.json as { totalElements?: number; chargebacks?: { totalElements: number }; groups?: { count: number }[]; content?: unknown[] };
        if (route === "/api/overview") expect(json.chargebacks!.totalElements).toBe(total);
        else if (total >= 0) expect(json.totalElements, route).toBe(total);
        if (json.groups) expect(json.groups.reduce((n, g) => n + g.count, 0)).toBe(json.totalElements);
        if (route === "/api/worklist") expect(json.totalElements).toBeGreaterThan(0);
      }
      // Every mix total was worth checking: no selection was empty.
      for (const { route, total } of mix) if (total !== -1) expect(total, route).toBeGreaterThan(0);

      // A dashboard user: the sign-in writes a session on the primary; the page and the export read on the replica.
      const cookie = await signIn(server.url, USER.email, USER.password);
      const page = await onReplica("overview page", () => send(`${server.url}${overviewPage}`, { headers: { cookie } }));
      expect(page.status).toBe(200);
      // The page carries the overview it read while rendering (an RSC payload: its JSON's quotes escaped).
      expect(page.text).toMatch(new RegExp(`\\\\"chargebacks\\\\":\\{\\\\"groups\\\\":.*?\\\\"totalElements\\\\":${mix[5].total}\\}`));
      const csv = await onReplica("CSV export", () => send(`${server.url}/api/export/chargeback?sort=ID&dir=asc`, { headers: { cookie } }));
      expect(csv.status).toBe(200);
      const rows = parse(csv.text, { bom: true, columns: true }) as Record<string, string>[];
      expect(rows).toHaveLength(exportRows);

      // pg_stat_statements: the records' tables, their totals and sums, the worklist's disputes and
      // the data version were read on the standby and never on the primary. The patterns name the
      // read statements only: the primary's own statements (nonces, sessions, sign-in throttle,
      // users, saved views, the webhook claim, readiness's `select "id" from "imported_files"`, the
      // monitor's WAL position) match none of them.
      const READS = [
        '%from "chargebacks"%',
        '%from "pre_arbitrations"%',
        '%"chargebacks_json"%',
        "%record_sums%",
        "%record_counts%",
        "%record_shops%",
        "%from disputes%",
        "%shop_directory%",
        '%max("id") from "imported_files"%',
      ];
      const onPrimary: Record<string, number> = {};
      const onStandby: Record<string, number> = {};
      for (const pattern of READS) {
        onPrimary[pattern] = await statementsMatching(P, pattern);
        onStandby[pattern] = await statementsMatching(S, pattern);
      }
      const nonces = { primary: await statementsMatching(P, '%insert into "used_nonces"%'), standby: await statementsMatching(S, '%insert into "used_nonces"%') };
      const sessions = { primary: await statementsMatching(P, '%insert into "sessions"%'), standby: await statementsMatching(S, '%insert into "sessions"%') };
      const readyAfter = await ready(server.url);
      const counts = await readCounts(server, replicaName);
      console.log(
        `reads on the standby: ${mix.length} signed requests, a page and an export, all 200; read batches replica ${counts.replica}, primary ${counts.primary} (${perRequest.join(", ")}); ` +
          `read statements standby ${JSON.stringify(onStandby)}, primary ${Object.values(onPrimary).reduce((a, b) => a + b, 0)}; nonce inserts primary ${nonces.primary}, standby ${nonces.standby}; session inserts primary ${sessions.primary}`,
      );

      for (const pattern of READS) {
        expect(onPrimary[pattern], `primary ran ${pattern}`).toBe(0);
        expect(onStandby[pattern], `standby ran ${pattern}`).toBeGreaterThan(0);
      }
      // Writes on the primary: one nonce per signed request, the session of the sign-in.
      expect(nonces).toEqual({ primary: signed, standby: 0 });
      expect(sessions).toEqual({ primary: 1, standby: 0 });
      expect(readyAfter.status).toBe(200);
      expect(readyAfter.body).toEqual({ status: "ok", replicas: [{ replica: replicaName, state: "healthy", lag_seconds: expect.any(Number) }] });
      expect(counts.up).toBe(1);
      expect(counts.replica).toBeGreaterThan(0);
      expect(counts.primary).toBe(0);
      noProcessErrors(server);
    } finally {
      await server.stop();
    }
  });
});
