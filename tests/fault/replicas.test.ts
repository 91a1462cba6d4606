import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREDENTIALS, type Fixture, type Kind, writeFixture } from "../api/fixture";
import { signedHeaders } from "../api/harness";
import { addUser, signIn } from "../helpers/accounts";
import { type CliResult, runCli } from "../helpers/cli";
import { tempDir } from "../helpers/db";
import { createPrivateCluster, createStandby, PG_BIN, type PrivateCluster, query, resetStatementStats, type Standby, statementsMatching, waitForReplay } from "../../scripts/pg-cluster";
import { type Family, parseExposition, sampleValue } from "../helpers/prometheus";
import { startServer, type TestServer } from "../helpers/server";
import { writeFile } from "../helpers/webhooks";

/**
 * Read replicas (docs/replicas.md, "What reads where"; lib/data/connection/replicas.ts) on a
 * private primary with one hot standby (scripts/pg-cluster.ts), served by real production
 * servers with DATABASE_REPLICA_URLS: reads go to the standby and writes never do; a standby whose
 * replay is paused is left out as lagging and comes back; one that is stopped or frozen under load
 * fails and hangs no request; two servers share nonces through the primary; and news of an import
 * (webhooks) waits until the healthy replica holds it. Where each request read is told by the
 * servers' own counters (database_read_batches_total) and by pg_stat_statements on each server.
 * The last: a server started while the primary was down shows the replica in its metrics once it is back.
 * Needs the PostgreSQL programs (initdb, pg_ctl, pg_basebackup); skipped without them.
 */

if (!PG_BIN) console.warn("tests/fault/replicas.test.ts skipped: no PostgreSQL programs (initdb, pg_ctl, pg_basebackup) under /usr/lib/postgresql/*/bin; set PG_BIN");

const TOKEN = "replica-metrics-token-0123456789";
const WIDE = CREDENTIALS.wide;
/** the dashboard user of test 1, with the wide credential's access list */
const USER = { email: "replica-reader@example.test", password: "replica-reader-pw", access: [...WIDE.access] };

// ---- Timing. The monitor (lib/data/connection/replicas.ts) checks each replica every CHECK_EVERY_MS and
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
 * From the primary writing what a paused standby does not replay (a load's nonces from the pause
 * on, an import) to the standby being left out, and so from the end of an import to a search that
 * finds its records: the replica lags more than MAX_LAG_SECONDS that long after the first such
 * write (the monitor dates it by its own samples of the primary's WAL position and the standby's
 * last replayed commit), a check notices within NOTICE_BOUND_MS, and its reads go to the primary.
 */
const STALE_BOUND_MS = MAX_LAG_SECONDS * 1_000 + NOTICE_BOUND_MS;
/**
 * From the end of an import to its webhook delivery being claimed: the dispatcher polls every
 * second (lib/webhooks/dispatcher.ts), and the margin.
 */
const CLAIM_BOUND_MS = 1_000 + MARGIN_MS;
/**
 * How long the test keeps the standby's replay paused once the delivery is claimed: a dispatcher
 * that did not wait for the replica would have sent the event within milliseconds of its claim.
 * Short enough that the paused replica stays healthy (REPLICA_MAX_LAG_SECONDS 5 in that test): the
 * whole pause, import included, stays near 3 s.
 */
const HOLD_AFTER_CLAIM_MS = 1_000;
/** From the replay's resume to the event at the receiver: replaying a small file, the dispatcher's wait polls the replica every 20 ms, then one POST. */
const SEND_AFTER_RESUME_BOUND_MS = 1_000 + MARGIN_MS;
/**
 * From the primary accepting connections again to a server that started while it was down
 * answering ready: the server opens its database at the next request (as postgres-outage.test.ts
 * bounds it, RECOVERY_BOUND_MS).
 */
const PRIMARY_BACK_BOUND_MS = 15_000;
/** every request outside the fault tests: a small search takes tens of ms; this only keeps a hung request from hanging the test */
const REQUEST_TIMEOUT_MS = 15_000;
/** concurrent signed searches of the load, each after a 20 ms breath (startLoad of postgres-outage.test.ts, with totals checked) */
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


interface Answer {
  status: number;
  headers: Headers;
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
  return { status: res.status, headers: res.headers, ms: Date.now() - start, text, json };
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
/** when a /api/ready answer arrived: a state it shows held at the latest then */
const answeredAt = (r: Ready) => r.at + r.ms;

/** The first /api/ready answer that shows the replica in `state`, asked every `every` ms for at most `ms`. */
const readyShowing = (baseUrl: string, state: string, what: string, ms: number, every = 100) =>
  until(
    `/api/ready showing the replica ${what}`,
    async () => {
      const r = await ready(baseUrl);
      return stateOf(r) === state ? r : undefined;
    },
    ms,
    every,
  );

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

/** The server's own view (/api/metrics, lib/metrics.ts): read batches per server, the replica's gauge and lag. */
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
  if (s.status !== 200) problems.push(`${s.kind}: status ${s.status} ${s.error ?? s.body.slice(0, 300)}`);
  else if (s.total !== expected[s.kind]) problems.push(`${s.kind}: totalElements ${s.total}, expected ${expected[s.kind]}`);
  if (ms >= boundMs) problems.push(`${s.kind}: answered after ${ms} ms (bound ${boundMs} ms)`);
  return problems;
}

/** The replica's states as /api/ready showed them in turn, e.g. "healthy>down>healthy". */
const transitions = (seen: ({ status: number } & Partial<Ready>)[]) =>
  seen
    .map((r) => (r.body ? (stateOf(r as Ready) ?? "none") : `status ${r.status}`))
    .filter((state, i, all) => i === 0 || all[i - 1] !== state)
    .join(">");

/** answers by status, e.g. {"200": 812} */
const countBy = (list: { status: number }[]) => {
  const byStatus: Record<string, number> = {};
  for (const s of list) byStatus[s.status] = (byStatus[s.status] ?? 0) + 1;
  return byStatus;
};
const longest = (list: { start: number; end: number }[]) => Math.max(0, ...list.map((s) => s.end - s.start));
const p95 = (list: { start: number; end: number }[]) => {
  const ms = list.map((s) => s.end - s.start).sort((a, b) => a - b);
  return ms.length ? ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.95))] : 0;
};

/** How many records of `kind` match `where`, counted on the primary itself (the test's own connection). */
async function directCount(url: string, kind: Kind, where: string, params: unknown[]): Promise<number> {
  const table = kind === "chargeback" ? "chargebacks" : "pre_arbitrations";
  const [{ n }] = await query<{ n: string }>(url, `select count(*)::text as n from ${table} where ${where}`, params);
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
  /** the same for the primary */
  let primaryStopped = false;

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
    if (primaryStopped) {
      await primary!.start();
      primaryStopped = false;
    }
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
    noProcessErrors(reference);

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

  it("a standby whose replay is paused lags, is left out (its reads on the primary), and comes back once it replays", { timeout: 90_000 }, async () => {
    await waitForReplay(primary!, standby!);
    const server = await startServer(serverEnv());
    const watch = watchReady(server.url);
    const load = startLoad(server.url, REQUEST_TIMEOUT_MS);
    const fresh: Sample[] = [];
    let importEnd = 0;
    let foundAt = 0;
    let laggingAt = 0;
    let pausedAt = 0;
    let resumedAt = 0;
    let healthyAt = 0;
    let whileLagging: { before: ReadCounts; after: ReadCounts } | undefined;
    let afterReturn: { before: ReadCounts; after: ReadCounts; searches: number } | undefined;
    let lagging: ReadCounts | undefined;
    const replayedWhilePaused: string[] = [];
    // A file the fixture does not have: 5 records of the wide credential's shops, 2 of a stranger.
    const file = writeFile("CHB_20260401.csv", "chargeback", { "shop-a": 3, zz: 2, stranger: 2 });
    const newFile = { file_date_from: "2026-04-01", file_date_to: "2026-04-01" };
    try {
      await sleep(WARM_MS);
      await standby!.pauseReplay();
      pausedAt = Date.now();
      replayedWhilePaused.push(await standby!.replayLsn());
      must(await runCli("import.ts", [file], baseEnv), "import of CHB_20260401.csv");
      importEnd = Date.now();
      // A paused standby can never hold the new records: a search that finds them read on the primary.
      await until(
        "a search that finds the new file's records",
        async () => {
          const start = Date.now();
          const a = await signedPost(server.url, "/api/chargeback", newFile);
          const total = (a.json as { totalElements?: number } | undefined)?.totalElements;
          fresh.push({ start, end: Date.now(), kind: "chargeback", status: a.status, total, body: a.text.slice(0, 300) });
          if (total === 5) foundAt = Date.now();
          return total === 5;
        },
        STALE_BOUND_MS,
      );
      const seenLagging = await readyShowing(server.url, "lagging", "lagging", NOTICE_BOUND_MS);
      laggingAt = answeredAt(seenLagging);
      // While it lags, the searches read on the primary and never on the replica.
      const before = await readCounts(server, replicaName);
      for (let i = 0; i < 5; i++) expect((await signedPost(server.url, "/api/chargeback", newFile)).status).toBe(200);
      const after = await readCounts(server, replicaName);
      whileLagging = { before, after };
      lagging = after;
      expect(stateOf(await ready(server.url)), "still lagging after the searches").toBe("lagging");
      replayedWhilePaused.push(await standby!.replayLsn());

      await standby!.resumeReplay();
      resumedAt = Date.now();
      const back = await readyShowing(server.url, "healthy", "healthy again", RETURN_BOUND_MS, 50);
      healthyAt = answeredAt(back);
      // Reads go back to the replica, which now holds the new file too.
      const before2 = await readCounts(server, replicaName);
      const searches = 5;
      for (let i = 0; i < searches; i++) {
        const a = await signedPost(server.url, "/api/chargeback", newFile);
        expect(a.status).toBe(200);
        expect((a.json as { totalElements: number }).totalElements).toBe(5);
      }
      afterReturn = { before: before2, after: await readCounts(server, replicaName), searches };
      await sleep(500);
    } finally {
      await load.stop();
      await watch.stop();
      await server.stop();
      await restoreStandby();
    }
    const samples = load.samples;
    const readyAnswers = watch.seen;
    console.log(
      `paused replay: ${samples.length} load searches ${JSON.stringify(countBy(samples))}, p95 ${p95(samples)} ms, longest ${longest(samples)} ms; ` +
        `new file found ${foundAt - importEnd} ms after the import ended (${fresh.length} tries, totals ${fresh.map((s) => s.total).join(",")}); ` +
        `ready showed lagging ${laggingAt - pausedAt} ms after the pause, ${laggingAt - importEnd} ms after the import ended (lag ${lagging?.lag} s, database_replica_up ${lagging?.up}); ` +
        `while lagging read batches primary +${whileLagging!.after.primary - whileLagging!.before.primary}, replica +${whileLagging!.after.replica - whileLagging!.before.replica}; ` +
        `healthy ${healthyAt - resumedAt} ms after the resume; then replica +${afterReturn!.after.replica - afterReturn!.before.replica}, primary +${afterReturn!.after.primary - afterReturn!.before.primary} for ${afterReturn!.searches} searches; ` +
        `/api/ready ${readyAnswers.length} answers ${JSON.stringify(countBy(readyAnswers))}, states ${transitions(readyAnswers)}`,
    );
    // Every request answered 200 throughout, with the right totals.
    expect(samples.length).toBeGreaterThan(IN_FLIGHT);
    expect(samples.flatMap((s) => answerProblems(s, expected, REQUEST_TIMEOUT_MS))).toEqual([]);
    expect(fresh.filter((s) => s.status !== 200).map((s) => `${s.status} ${s.body}`)).toEqual([]);
    // Replay really was paused: the standby applied nothing meanwhile.
    expect(new Set(replayedWhilePaused).size).toBe(1);
    expect(foundAt - importEnd).toBeLessThan(STALE_BOUND_MS);
    // The load writes a nonce with every search, so the primary's WAL moves on from the pause: the
    // replica lags more than the limit within MAX_LAG_SECONDS of it, and a check notices.
    expect(laggingAt - pausedAt).toBeLessThan(STALE_BOUND_MS);
    // Left out while lagging: reads on the primary, readiness unchanged, the gauge at 0 and the lag above the limit.
    expect(whileLagging!.after.replica).toBe(whileLagging!.before.replica);
    expect(whileLagging!.after.primary - whileLagging!.before.primary).toBeGreaterThanOrEqual(5);
    expect(lagging!.up).toBe(0);
    expect(lagging!.lag!).toBeGreaterThan(MAX_LAG_SECONDS);
    expect(readyAnswers.filter((r) => r.status !== 200 || !("body" in r) || r.body.status !== "ok")).toEqual([]);
    const laggingBody = readyAnswers.find((r) => "body" in r && stateOf(r) === "lagging") as Ready;
    expect(laggingBody.body).toEqual({ status: "ok", replicas: [{ replica: replicaName, state: "lagging", lag_seconds: expect.any(Number) }] });
    expect(laggingBody.body.replicas![0].lag_seconds!).toBeGreaterThan(MAX_LAG_SECONDS);
    // Back: healthy within the bound, and its reads go there again, none to the primary.
    expect(healthyAt - resumedAt).toBeLessThan(RETURN_BOUND_MS);
    expect(afterReturn!.after.replica - afterReturn!.before.replica).toBeGreaterThanOrEqual(afterReturn!.searches);
    expect(afterReturn!.after.primary).toBe(afterReturn!.before.primary);
    expect(afterReturn!.after.up).toBe(1);
    noProcessErrors(server);
  });

  /**
   * A standby that goes away under load: `fault` takes it away and answers what brings it back.
   * Every search must be answered 200 with the right total within `boundMs`; /api/ready stays 200.
   */
  async function underLoad(label: string, opts: { boundMs: number; awayMs: number; env?: Record<string, string>; fault: () => Promise<() => Promise<void>> }) {
    await waitForReplay(primary!, standby!);
    const server = await startServer(serverEnv(opts.env));
    const watch = watchReady(server.url);
    const load = startLoad(server.url, opts.boundMs);
    let faultAt = 0;
    let awayAt = 0;
    let backBegin = 0;
    let backAt = 0;
    let downSeenAt = 0;
    let healthyAt = 0;
    let whileAway: { before: ReadCounts; after: ReadCounts } | undefined;
    let afterReturn: { before: ReadCounts; after: ReadCounts } | undefined;
    try {
      await sleep(WARM_MS);
      const warm = await readCounts(server, replicaName);
      expect(warm.replica, "the load read on the replica before the fault").toBeGreaterThan(0);
      expect(warm.primary).toBe(0);
      faultAt = Date.now();
      const bringBack = await opts.fault();
      awayAt = Date.now();
      downSeenAt = answeredAt(
        await readyShowing(server.url, "down", "down", NOTICE_BOUND_MS, 50),
      );
      // While it is away, no read goes there: all of them on the primary.
      const before = await readCounts(server, replicaName);
      await sleep(Math.max(1_000, awayAt + opts.awayMs - Date.now()));
      whileAway = { before, after: await readCounts(server, replicaName) };
      backBegin = Date.now();
      await bringBack();
      backAt = Date.now();
      healthyAt = answeredAt(
        await readyShowing(server.url, "healthy", "healthy again", RETURN_BOUND_MS, 50),
      );
      const before2 = await readCounts(server, replicaName);
      await sleep(1_500);
      afterReturn = { before: before2, after: await readCounts(server, replicaName) };
    } finally {
      await load.stop();
      await watch.stop();
      await server.stop();
      await restoreStandby();
    }
    const samples = load.samples;
    const away = samples.filter((s) => s.start >= faultAt && s.start < backBegin);
    const readyAnswers = watch.seen;
    console.log(
      `${label}: ${samples.length} searches ${JSON.stringify(countBy(samples))}, ${away.length} sent while the standby was away ${JSON.stringify(countBy(away))}; ` +
        `longest answer ${longest(samples)} ms (${longest(away)} ms while away; p95 ${p95(away)} ms); ` +
        `down in /api/ready ${downSeenAt - faultAt} ms after the fault began; while away read batches primary +${whileAway!.after.primary - whileAway!.before.primary}, replica +${whileAway!.after.replica - whileAway!.before.replica}; ` +
        `healthy ${healthyAt - backAt} ms after it was back, then replica +${afterReturn!.after.replica - afterReturn!.before.replica}, primary +${afterReturn!.after.primary - afterReturn!.before.primary} in 1.5 s; ` +
        `/api/ready ${readyAnswers.length} answers ${JSON.stringify(countBy(readyAnswers))}, longest ${Math.max(...readyAnswers.map((r) => r.ms))} ms, states ${transitions(readyAnswers)}`,
    );
    // Every search: 200, the right total, within the bound; none failed, none hung.
    expect(samples.flatMap((s) => answerProblems(s, expected, opts.boundMs))).toEqual([]);
    expect(away.length).toBeGreaterThanOrEqual(IN_FLIGHT * 2);
    expect(downSeenAt - faultAt).toBeLessThan(NOTICE_BOUND_MS);
    expect(whileAway!.after.replica).toBe(whileAway!.before.replica);
    expect(whileAway!.after.primary - whileAway!.before.primary).toBeGreaterThanOrEqual(IN_FLIGHT);
    // Readiness follows the primary only: 200 "ok" throughout, whatever the replica did, and never slow.
    expect(readyAnswers.filter((r) => r.status !== 200 || !("body" in r) || r.body.status !== "ok" || r.ms >= opts.boundMs)).toEqual([]);
    expect(readyAnswers.some((r) => "body" in r && stateOf(r) === "down")).toBe(true);
    // Back: healthy within the bound, and the reads return to it.
    expect(healthyAt - backAt).toBeLessThan(RETURN_BOUND_MS);
    expect(afterReturn!.after.replica - afterReturn!.before.replica).toBeGreaterThanOrEqual(IN_FLIGHT);
    expect(afterReturn!.after.primary).toBe(afterReturn!.before.primary);
    noProcessErrors(server);
  }

  it.each(["fast", "immediate"] as const)("a standby stopped (%s) under load fails no request, and takes the reads again once started", { timeout: 90_000 }, async (mode) => {
    await underLoad(`standby stopped (${mode})`, {
      boundMs: STOP_ANSWER_BOUND_MS,
      awayMs: DOWN_MS,
      fault: async () => {
        standbyStopped = true;
        await standby!.stop(mode);
        return async () => {
          await standby!.start();
          standbyStopped = false;
        };
      },
    });
  });

  // A host that stops answering without closing its connections (a frozen machine, a dead link):
  // no error ever comes, only the monitor's check timeout ends a wait there.
  it("a frozen standby hangs no request: each answered within the monitor's bound, and it serves again once thawed", { timeout: 90_000 }, async () => {
    await underLoad("standby frozen", {
      boundMs: FROZEN_ANSWER_BOUND_MS,
      awayMs: FROZEN_MS,
      // The driver's own limit (PG_QUERY_TIMEOUT_SECONDS + 1 s) far beyond the bound: only the monitor can save a request.
      env: { PG_QUERY_TIMEOUT_SECONDS: "10" },
      fault: async () => {
        standby!.freeze();
        return async () => standby!.thaw();
      },
    });
  });

  it("two app servers on the same primary and replica share nonces: a request one accepted is a replay for the other", { timeout: 90_000 }, async () => {
    await waitForReplay(primary!, standby!);
    const [a, b] = await Promise.all([startServer(serverEnv()), startServer(serverEnv())]);
    try {
      for (const server of [a, b]) expect(stateOf(await ready(server.url))).toBe("healthy");
      const noncesBefore = await statementsMatching(primary!.url, '%insert into "used_nonces"%');
      const body = { file_date_from: "2026-02-01", per_page: 10 };
      // The 401 of a wrong signature on the second server: a replay must look exactly like it (docs/api.md, "Authentication").
      const wrong = await signedPost(b.url, "/api/chargeback", body, signedHeaders(WIDE.shop, "not-the-password"));
      expect(wrong.status).toBe(401);
      const refusal = (x: Answer) => ({
        status: x.status,
        contentType: x.headers.get("content-type"),
        wwwAuthenticate: x.headers.get("www-authenticate"),
        body: { ...(x.json as Record<string, unknown>), request_id: "-" },
      });
      expect(refusal(wrong)).toEqual({
        status: 401,
        contentType: expect.stringMatching(/^application\/problem\+json/),
        wwwAuthenticate: 'Signature realm="api"',
        body: expect.objectContaining({ status: 401, type: expect.any(String), title: expect.any(String), detail: expect.any(String) }),
      });
      const results: string[] = [];
      // A on first, then the same headers to B; and the other way round.
      for (const [first, second] of [[a, b], [b, a]]) {
        const headers = signedHeaders(WIDE.shop, WIDE.password);
        const accepted = await signedPost(first.url, "/api/chargeback", body, headers);
        const replayed = await signedPost(second.url, "/api/chargeback", body, headers);
        results.push(`${accepted.status}/${replayed.status}`);
        expect(accepted.status, accepted.text.slice(0, 200)).toBe(200);
        expect(refusal(replayed)).toEqual(refusal(wrong));
      }
      // The same signed request to both at once: exactly one is served.
      const headers = signedHeaders(WIDE.shop, WIDE.password);
      const both = await Promise.all([a, b].map((server) => signedPost(server.url, "/api/chargeback", body, headers)));
      results.push(both.map((x) => x.status).join("|"));
      expect(both.map((x) => x.status).sort()).toEqual([200, 401]);
      expect(refusal(both.find((x) => x.status === 401)!)).toEqual(refusal(wrong));
      const served = both.find((x) => x.status === 200)!;
      // (the wide credential's scope: an earlier test imported records of a shop outside it)
      expect((served.json as { totalElements: number }).totalElements).toBe(await directCount(primary!.url, "chargeback", "file_date >= $1 and shop_code = any($2)", ["2026-02-01", WIDE.access]));
      // Both servers read on the replica; the nonces were written, and checked, on the primary only.
      const [ca, cb] = await Promise.all([readCounts(a, replicaName), readCounts(b, replicaName)]);
      const nonces = (await statementsMatching(primary!.url, '%insert into "used_nonces"%')) - noncesBefore;
      console.log(`shared nonces: accepted/replayed ${results.join(", ")}; read batches A replica ${ca.replica} primary ${ca.primary}, B replica ${cb.replica} primary ${cb.primary}; nonce inserts on the primary ${nonces}`);
      for (const c of [ca, cb]) {
        expect(c.replica).toBeGreaterThan(0);
        expect(c.primary).toBe(0);
      }
      // Six correctly signed requests (a replay is correctly signed; the wrong signature spends nothing).
      expect(nonces).toBe(6);
      noProcessErrors(a, b);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it("a receiver that searches as each webhook event arrives finds the import's records (events wait for the healthy replica)", { timeout: 90_000 }, async () => {
    await waitForReplay(primary!, standby!);
    // The receiver: for each event, at once, the search a client would make for the file's records.
    let appUrl = "";
    const received: { at: number; event: { type: string; data: { file_date: string; shop_codes: string[]; count: number } }; searched?: number; status?: number; total?: number }[] = [];
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const hit: (typeof received)[number] = { at: Date.now(), event: JSON.parse(Buffer.concat(chunks).toString("utf8")) };
        received.push(hit);
        const { file_date, shop_codes } = hit.event.data;
        const kind = hit.event.type === "chargebacks.imported" ? "chargeback" : "pre_arbitration";
        void signedPost(appUrl, `/api/${kind}`, { file_date_from: file_date, file_date_to: file_date, shop_codes })
          .then((a) => Object.assign(hit, { searched: Date.now(), status: a.status, total: (a.json as { totalElements?: number } | undefined)?.totalElements }))
          .catch(() => Object.assign(hit, { searched: Date.now(), status: 0 }))
          .finally(() => res.end());
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const out = must(await runCli("admin.ts", ["webhook", "add", WIDE.shop, hookUrl], baseEnv), "webhook add").stdout;
    const endpointId = /webhook (we_[0-9a-f]+) added/.exec(out)?.[1];
    expect(endpointId).toBeDefined();

    // REPLICA_MAX_LAG_SECONDS 5: the standby, paused for about 3 s, stays healthy, so reads keep going to it.
    const server = await startServer(serverEnv({ REPLICA_MAX_LAG_SECONDS: "5" }));
    appUrl = server.url;
    // 4 + 3 records of the wide credential's shops, 2 of a shop outside its access: its event counts 7.
    const file = writeFile("CHB_20260402.csv", "chargeback", { "shop-a": 4, Zeta: 3, stranger: 2 });
    let pausedAt = 0;
    let importEnd = 0;
    let claimedAt = 0;
    let resumedAt = 0;
    let heldReady: Ready | undefined;
    let heldHits = -1;
    const replayed: string[] = [];
    let readsBefore: ReadCounts | undefined;
    let readsAfter: ReadCounts | undefined;
    try {
      expect(stateOf(await ready(server.url))).toBe("healthy");
      await standby!.pauseReplay();
      pausedAt = Date.now();
      replayed.push(await standby!.replayLsn());
      must(await runCli("import.ts", [file], baseEnv), "import of CHB_20260402.csv");
      importEnd = Date.now();
      // The import committed its records and the event together; the dispatcher claims the delivery
      // and then waits for the healthy replica to replay past the primary's WAL position.
      claimedAt = await until(
        "the delivery claimed",
        async () => {
          const rows = await query<{ claimed: boolean }>(primary!.url, "select claim_token is not null as claimed from webhook_deliveries where endpoint_id = $1", [endpointId]);
          return rows.some((r) => r.claimed) ? Date.now() : undefined;
        },
        CLAIM_BOUND_MS,
        20,
      );
      await sleep(HOLD_AFTER_CLAIM_MS);
      heldHits = received.length;
      heldReady = await ready(server.url);
      replayed.push(await standby!.replayLsn());
      readsBefore = await readCounts(server, replicaName);
      await standby!.resumeReplay();
      resumedAt = Date.now();
      await until("the event, and the receiver's search", async () => received.length > 0 && received[0].searched !== undefined, SEND_AFTER_RESUME_BOUND_MS + 5_000, 20);
      readsAfter = await readCounts(server, replicaName);
      await sleep(500);
    } finally {
      await server.stop();
      await new Promise((resolve) => receiver.close(resolve));
      await restoreStandby();
    }
    const [hit] = received;
    console.log(
      `webhook freshness: delivery claimed ${claimedAt - importEnd} ms after the import ended (${claimedAt - pausedAt} ms into the pause); events at the receiver after ${HOLD_AFTER_CLAIM_MS} ms more: ${heldHits}; ` +
        `replica ${stateOf(heldReady!)} (lag ${heldReady!.body.replicas?.[0]?.lag_seconds} s) while paused; event ${hit.at - resumedAt} ms after the resume, ` +
        `its search ${hit.status} totalElements ${hit.total} (event count ${hit.event.data.count}) in ${hit.searched! - hit.at} ms; read batches replica +${readsAfter!.replica - readsBefore!.replica}, primary +${readsAfter!.primary - readsBefore!.primary}`,
    );
    // The premise: the replica was paused (it applied nothing) and healthy, so reads went to it.
    expect(new Set(replayed).size).toBe(1);
    expect(claimedAt - importEnd).toBeLessThan(CLAIM_BOUND_MS);
    expect(heldReady!.body).toEqual({ status: "ok", replicas: [{ replica: replicaName, state: "healthy", lag_seconds: expect.any(Number) }] });
    // Held: nothing was sent while the replica lacked the records, though the delivery was claimed.
    // Without the freshness wait (replicasCaughtUp in lib/webhooks/dispatcher.ts) the event would go
    // out within milliseconds of its claim, while replay is still paused: heldHits would be 1, the
    // event would arrive before the resume, and the receiver's search, read on the healthy but paused
    // replica, would find 0 records instead of 7.
    expect(heldHits).toBe(0);
    expect(received).toHaveLength(1);
    expect(hit.at).toBeGreaterThanOrEqual(resumedAt);
    expect(hit.at - resumedAt).toBeLessThan(SEND_AFTER_RESUME_BOUND_MS);
    expect(hit.event.type).toBe("chargebacks.imported");
    expect(hit.event.data).toEqual({ file_date: "2026-04-02", shop_codes: ["Zeta", "shop-a"].sort(), count: 7 });
    expect(hit.status).toBe(200);
    expect(hit.total).toBe(7);
    // ...read on the replica: the primary served no read meanwhile.
    expect(readsAfter!.replica - readsBefore!.replica).toBeGreaterThanOrEqual(1);
    expect(readsAfter!.primary).toBe(readsBefore!.primary);
    noProcessErrors(server);
  });

  // The replica monitor starts with the server's database (getDb -> openDatabase -> replicaReads),
  // which fails while the primary is down, so it starts later, at the first request after the
  // primary is back. The metrics read the monitor at each scrape (readServerStates), so its series
  // appear then; they were once read only if the monitor ran at the server's start, and never came.
  it("a server started while the primary is down shows the replica's metrics once the primary is back", { timeout: 90_000 }, async () => {
    await waitForReplay(primary!, standby!);
    primaryStopped = true;
    await primary!.stop("fast");
    const server = await startServer(serverEnv(), { waitForHealth: false });
    let whileDown: Ready | undefined;
    let back: Ready | undefined;
    let primaryUpAt = 0;
    let search: Answer | undefined;
    let counts: ReadCounts | undefined;
    try {
      whileDown = await ready(server.url);
      await primary!.start();
      primaryStopped = false;
      primaryUpAt = Date.now();
      back = await until("/api/ready 200 with the replica listed", async () => {
        const r = await ready(server.url);
        return r.status === 200 && r.body.replicas?.length ? r : undefined;
      }, PRIMARY_BACK_BOUND_MS, 200);
      search = await signedPost(server.url, "/api/chargeback", LOAD_BODIES.chargeback);
      counts = await readCounts(server, replicaName);
    } finally {
      await server.stop();
      await restoreStandby();
    }
    console.log(
      `started while the primary was down: /api/ready ${whileDown.status} then ${back.status} ${JSON.stringify(back.body)} ${back.at - primaryUpAt} ms after the primary was back; ` +
        `a search ${search.status}; metrics database_replica_up ${counts.up}, read batches primary ${counts.primary}, replica ${counts.replica}`,
    );
    // What works: 503 while the primary is down, then ready with the replica, and searches served.
    expect(whileDown.status).toBe(503);
    expect(back.body.status).toBe("ok");
    expect(search.status).toBe(200);
    expect((search.json as { totalElements: number }).totalElements).toBe(expected.chargeback);
    expect(server.output()).not.toMatch(/uncaught|unhandled/i);
    // The replica's series appear once its monitor runs, though it started after the server did.
    expect(counts.up, "database_replica_up of the replica").toBeDefined();
    expect(counts.replica, "database_read_batches_total of the replica").not.toBeNaN();
    expect(counts.primary, "database_read_batches_total of the primary").not.toBeNaN();
  });
});
