import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/**
 * The server's Prometheus metrics (docs/api.md, "Metrics"), made with prom-client. One registry per
 * process, on globalThis: the production server (server/main.ts, which times every request and
 * answers the scrape) and the code Next bundles (the dispatchers, the import) are different module
 * instances. Counters count what this process did; the backlog gauges are read from the database
 * when a scrape asks (setBacklogReader), so every instance shows the same figure.
 */

/** Request durations from 5 ms to 10 s (docs/api.md, "Metrics"). */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const IMPORT_KINDS = ["chargeback", "pre_arbitration", "unknown"] as const;
export const IMPORT_RESULTS = ["imported", "skipped", "rejected"] as const;
/** What became of one delivery attempt: accepted, failed with another attempt scheduled, or given up. */
export const ATTEMPT_RESULTS = ["delivered", "retry", "failed"] as const;

export type ImportKind = (typeof IMPORT_KINDS)[number];
export type ImportResult = (typeof IMPORT_RESULTS)[number];
export type AttemptResult = (typeof ATTEMPT_RESULTS)[number];

/** The backlogs as the database holds them now: deliveries and messages neither delivered nor given up. */
export interface Backlogs {
  webhooks: number;
  mail: number;
}

/** A read server as the metrics show it (lib/data/connection/replicas.ts): the primary, or one replica. */
export interface ReadServerState {
  /** "primary", or a replica's host:port */
  server: string;
  /** replicas only: whether reads go there now, and how far behind it was at its last check (null: unknown) */
  healthy?: boolean;
  lagSeconds?: number | null;
  /** read batches this instance sent it */
  reads: number;
}

interface Metrics {
  registry: Registry;
  httpRequests: Counter<"route" | "method" | "status">;
  httpDuration: Histogram<"route" | "method">;
  importFiles: Counter<"kind" | "result">;
  importRecords: Counter<"kind">;
  webhookDeliveries: Counter<"result">;
  mailMessages: Counter<"result">;
  webhookBacklog: Gauge;
  mailBacklog: Gauge;
  replicaUp: Gauge<"replica">;
  replicaLag: Gauge<"replica">;
  readBatches: Counter<"server">;
  processMetrics: boolean;
  backlogs?: () => Promise<Backlogs>;
  readServers?: () => ReadServerState[];
}

const shared = globalThis as unknown as { __drMetrics?: Metrics };

function create(): Metrics {
  const registry = new Registry();
  const m: Metrics = {
    registry,
    httpRequests: new Counter({ name: "http_requests_total", help: "HTTP requests answered by this instance, by route pattern, method and status", labelNames: ["route", "method", "status"], registers: [registry] }),
    httpDuration: new Histogram({ name: "http_request_duration_seconds", help: "Time from a request's arrival to the end of its answer, by route pattern and method", labelNames: ["route", "method"], buckets: DURATION_BUCKETS, registers: [registry] }),
    importFiles: new Counter({ name: "import_files_total", help: "Files this instance imported from the inbox, by kind and result (npm run import is not counted)", labelNames: ["kind", "result"], registers: [registry] }),
    importRecords: new Counter({ name: "import_records_total", help: "Records of the files this instance imported from the inbox, by kind", labelNames: ["kind"], registers: [registry] }),
    webhookDeliveries: new Counter({ name: "webhook_deliveries_total", help: "Webhook delivery attempts this instance made, by result (delivered, retry, failed)", labelNames: ["result"], registers: [registry] }),
    mailMessages: new Counter({ name: "mail_messages_total", help: "Mail attempts this instance made, by result (delivered, retry, failed)", labelNames: ["result"], registers: [registry] }),
    webhookBacklog: new Gauge({ name: "webhook_backlog", help: "Webhook deliveries neither delivered nor given up (due or waiting for a retry), read from the database at scrape time: aggregate with max", registers: [registry] }),
    mailBacklog: new Gauge({ name: "mail_backlog", help: "Mail messages neither delivered nor given up (due or waiting for a retry), read from the database at scrape time: aggregate with max", registers: [registry] }),
    replicaUp: new Gauge({ name: "database_replica_up", help: "1 while reads go to this PostgreSQL replica (it answers, is a standby and lags at most REPLICA_MAX_LAG_SECONDS), else 0", labelNames: ["replica"], registers: [registry] }),
    replicaLag: new Gauge({ name: "database_replica_lag_seconds", help: "How far this PostgreSQL replica's replay was behind the primary at its last check (NaN: unknown, e.g. it does not answer)", labelNames: ["replica"], registers: [registry] }),
    readBatches: new Counter({ name: "database_read_batches_total", help: "Read batches (one per search, summary, page...) this instance sent to each database server: primary or a replica", labelNames: ["server"], registers: [registry] }),
    processMetrics: false,
  };
  // Every series of a known label set exists from the start at 0, so rate() sees its first increase.
  for (const kind of IMPORT_KINDS) for (const result of IMPORT_RESULTS) m.importFiles.inc({ kind, result }, 0);
  for (const kind of IMPORT_KINDS) if (kind !== "unknown") m.importRecords.inc({ kind }, 0);
  for (const result of ATTEMPT_RESULTS) {
    m.webhookDeliveries.inc({ result }, 0);
    m.mailMessages.inc({ result }, 0);
  }
  return m;
}

const metrics = (): Metrics => (shared.__drMetrics ??= create());

/**
 * The production server's start: the registry with the client library's default process metrics
 * (CPU, memory, start time, event loop, heap). Commands never call it.
 */
export function startMetrics(): void {
  const m = metrics();
  if (m.processMetrics) return;
  collectDefaultMetrics({ register: m.registry });
  m.processMetrics = true;
}

/** Where the backlog gauges come from (instrumentation.ts sets it: it reads the database through the server's connection). */
export function setBacklogReader(read: () => Promise<Backlogs>): void {
  metrics().backlogs = read;
}

/** Where the replica gauges and read counts come from (the replica monitor, when DATABASE_REPLICA_URLS is set). */
export function setReadServerReader(read: () => ReadServerState[]): void {
  metrics().readServers = read;
}

/** One answered request: `route` is a route pattern or "unmatched", never a path. */
export function observeRequest(route: string, method: string, status: number, seconds: number): void {
  const m = metrics();
  m.httpRequests.inc({ route, method, status: String(status) });
  m.httpDuration.observe({ route, method }, seconds);
}

/** One file imported by this server (the inbox), whatever became of it. */
export function countImportedFile(kind: ImportKind, result: ImportResult, records: number): void {
  const m = metrics();
  m.importFiles.inc({ kind, result });
  if (result === "imported" && kind !== "unknown") m.importRecords.inc({ kind }, records);
}

export function countWebhookAttempt(result: AttemptResult): void {
  metrics().webhookDeliveries.inc({ result });
}

export function countMailAttempt(result: AttemptResult): void {
  metrics().mailMessages.inc({ result });
}

/**
 * The exposition (text format 0.0.4) and its content type. The backlogs are read first; when the
 * database cannot answer they are NaN (unknown) and the rest is served all the same, so a scrape
 * still shows the process when the database is away.
 */
export async function exposition(): Promise<{ contentType: string; body: string; backlogError?: unknown }> {
  const m = metrics();
  let backlogError: unknown;
  try {
    const backlogs = m.backlogs ? await m.backlogs() : { webhooks: NaN, mail: NaN };
    m.webhookBacklog.set(backlogs.webhooks);
    m.mailBacklog.set(backlogs.mail);
  } catch (err) {
    backlogError = err;
    m.webhookBacklog.set(NaN);
    m.mailBacklog.set(NaN);
  }
  if (m.readServers) {
    const states = m.readServers();
    // The counts are kept by the monitor; the counter shows them as they are now.
    m.readBatches.reset();
    for (const state of states) {
      m.readBatches.inc({ server: state.server }, state.reads);
      if (state.healthy === undefined) continue;
      m.replicaUp.set({ replica: state.server }, state.healthy ? 1 : 0);
      m.replicaLag.set({ replica: state.server }, state.lagSeconds ?? NaN);
    }
  }
  return { contentType: m.registry.contentType, body: await m.registry.metrics(), backlogError };
}
