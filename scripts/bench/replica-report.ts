/**
 * The output of `npm run bench -- --replica`: a readable summary (the primary's read work with and
 * without the standby, the standby's lag during imports, each class in both runs against its
 * target) and the whole run as JSON.
 */
import fs from "node:fs";
import path from "node:path";
import type { Stats } from "./http";
import type { BenchOptions } from "./options";
import type { LagFigures, ReplicaResult, SearchRun, Work } from "./replica";
import { type BenchRun, fixed, importLine, type MachineInfo, n, table } from "./report";

export interface ReplicaRun {
  version: 1;
  /** tells this file from a backend run's */
  kind: "replica";
  startedAt: string;
  finishedAt: string;
  mode: "smoke" | "full";
  options: BenchOptions;
  machine: MachineInfo;
  data: BenchRun["data"];
  result: ReplicaResult;
}

const pct = (x: number) => `${fixed(x, 2)}%`;
const yes = (ok: boolean) => (ok ? "met" : "MISSED");

function lagLine(lag: LagFigures): string {
  return (
    `standby lag max ${fixed(lag.maxLagSeconds, 2)} s, p95 ${fixed(lag.p95LagSeconds, 2)} s (limit ${lag.limitSeconds} s: ${yes(lag.withinLimit)}), ` +
    `bytes behind max ${n(lag.maxBytesBehind)} (p95 ${n(lag.p95BytesBehind)}); behind in ${lag.behind} of ${lag.samples} samples every ${lag.everyMs} ms ` +
    `(largest gap ${lag.maxGapMs} ms, ${lag.unknown} unknown); bounds: replayed position's age max ${fixed(lag.maxPositionAgeSeconds, 2)} s, ` +
    `since last replayed commit max ${fixed(lag.maxReplayAgeSeconds, 2)} s` +
    // absent in runs before 2026-11-27
    (lag.walBytes === undefined ? "" : `; WAL written ${n(lag.walBytes)} bytes`)
  );
}

function workRow(name: string, w: Work): string[] {
  return [name, n(w.statements), n(w.calls), n(w.rows), n(w.buffers), n(w.sharedBlksRead), fixed(w.execMs, 1)];
}

function batches(b: Record<string, number> | undefined): string {
  if (!b || Object.keys(b).length === 0) return "none counted";
  return Object.entries(b)
    .map(([server, count]) => `${server} ${n(count)}`)
    .join(", ");
}

function statsCells(s: Stats, ratio401: string): string[] {
  return [fixed(s.reqPerSec), fixed(s.p50), fixed(s.p95), fixed(s.p99), ratio401, String(s.failures)];
}

export function formatReplicaRun(run: ReplicaRun): string {
  const r = run.result;
  const o = run.options;
  const { A, B } = r.runs;
  const live = r.importDuringReads;
  const pr = r.primaryReads;
  const lines = [
    "",
    `## postgres with a hot standby (${r.databaseVersion}), ${run.mode} run`,
    `${n(r.records.chargeback)} chargebacks + ${n(r.records.pre_arbitration)} cases, ${o.shops} shops / ${o.merchants} merchants / ${o.parents} parents, ` +
      `${run.data.dailyFiles} files ${run.data.firstDate} .. ${run.data.lastDate}; concurrency ${o.concurrency}, ${o.seconds} s per class after ${o.warmup} s warm-up`,
    `machine: ${run.machine.cpus} x ${run.machine.cpuModel}, ${n(run.machine.totalMemoryMb)} MB, ${run.machine.os}, node ${run.machine.node}, commit ${run.machine.commit?.slice(0, 10) ?? "?"}${run.machine.dirty ? " (with uncommitted changes)" : ""}`,
    `clusters: primary ${r.clusters.primary}, standby ${r.clusters.standby} (${r.clusters.note}); REPLICA_MAX_LAG_SECONDS ${r.replicaMaxLagSeconds}`,
    `import, daily files into the primary: ${importLine(r.import.dailyFiles)}`,
    `  during it: ${lagLine(r.import.lag)}`,
    `import of ${n(live.records)} records while B reads: exit ${live.exitCode}, the file in ${live.fileSeconds} s = ${n(live.recordsPerSecond)} records/s (the command ${live.importSeconds} s, start-up included)`,
    `  during it: ${lagLine(live.lag)}`,
    `  metrics (${live.metrics.scrapes} scrapes every 0.5 s, ${live.metrics.failedScrapes} failed): the standby ${live.metrics.replicaAlwaysUp ? "was never left out" : `was LEFT OUT in ${live.metrics.scrapesReplicaDown} scrapes`} ` +
      `(database_replica_up), database_replica_lag_seconds max ${live.metrics.maxLagSeconds ?? "unknown"}${live.metrics.unknownLag ? ` (${live.metrics.unknownLag} unknown)` : ""}; read batches ${batches(live.metrics.readBatches)}`,
    `  reads: all-or-nothing ${live.allOrNothing ? "yes" : "no"} (totals seen ${JSON.stringify(live.totalsSeen)}, before ${live.before}, after ${live.after}), ` +
      `${live.reads.requests} requests, ${live.reads.failures} failed, p99 ${fixed(live.reads.p99)} ms, max ${fixed(live.reads.max)} ms`,
    "",
    `Work of the search classes (pg_stat_statements of database disputes, reset before each run; A ${A.seconds} s, B ${B.seconds} s). ` +
      `A: ${A.serverEnv.join(" ")}; B: ${B.serverEnv.join(" ")}`,
    "",
  ];
  const work: string[][] = [["server, run, statements", "distinct", "calls", "rows", "buffers (hit+read)", "of which read", "exec ms"]];
  work.push(workRow("primary, A, reads", A.work.primary.reads));
  work.push(workRow("primary, B, reads", B.work.primary.reads));
  work.push([
    `primary reads, A to B: less by (target >= ${pr.targetPercent}%: ${yes(pr.met)})`,
    "",
    pct(pr.reductionPercent.statements),
    "",
    pct(pr.reductionPercent.buffers),
    "",
    pct(pr.reductionPercent.execTime),
  ]);
  work.push(workRow("standby, B, reads", B.work.standby.reads));
  work.push(workRow("standby, A, reads", A.work.standby.reads));
  work.push(workRow("primary, A, writes", A.work.primary.writes));
  work.push(workRow("primary, B, writes", B.work.primary.writes));
  work.push(workRow("primary, B, replica monitor", B.work.primary.monitor));
  work.push(workRow("standby, B, replica monitor", B.work.standby.monitor));
  work.push(workRow("primary, A, other (begin, commit...)", A.work.primary.other));
  work.push(workRow("primary, B, other (begin, commit...)", B.work.primary.other));
  lines.push(table(work));
  lines.push(`read batches during B's classes (database_read_batches_total): ${batches(B.readBatches)}`);
  lines.push("");

  const head = ["class", "A req/s", "A p50", "A p95", "A p99", "A x 401", "A fail", "B req/s", "B p50", "B p95", "B p99", "B x 401", "B fail", "target", "A", "B", "totalElements"];
  const rows: string[][] = [head];
  rows.push(["401 floor: unauthenticated POST /api/chargeback", ...statsCells(A.floor401, "1.00"), ...statsCells(B.floor401, "1.00"), "", "", "", ""]);
  for (let i = 0; i < A.classes.length; i++) {
    const a = A.classes[i];
    const b = B.classes[i];
    const same = a.totalsConstant && b.totalsConstant && a.totalElements === b.totalElements;
    const total = same ? n(a.totalElements ?? 0) + (a.totalMatchesSql ? "" : " (not the SQL count!)") : `A ${JSON.stringify(a.stats.totals)} B ${JSON.stringify(b.stats.totals)}!`;
    rows.push([
      `${a.id} ${a.name}`,
      ...statsCells(a.stats, fixed(a.ratio401, 2)),
      ...statsCells(b.stats, fixed(b.ratio401, 2)),
      `p99 <= ${a.target.p99Ms}, x 401 >= ${fixed(a.target.ratio401, 2)}`,
      yes(a.targetMet),
      yes(b.targetMet),
      total,
    ]);
  }
  lines.push(table(rows));
  lines.push(`totals: ${r.totalsMatched ? "every class answered the SQL count, the same in A and B" : "MISMATCH (see the table)"}`);
  lines.push(...leftOnPrimary(B));
  for (const run of [A, B]) {
    for (const c of run.classes) if (c.stats.failureSamples.length) lines.push(`${run.name} ${c.id} failures: ${c.stats.failureSamples.join(" | ")}`);
  }
  if (live.reads.failureSamples.length) lines.push(`during import, failures: ${live.reads.failureSamples.join(" | ")}`);
  if (live.exitCode !== 0) lines.push(`the import during reads ended with ${live.exitCode}: ${live.output.slice(-500)}`);
  return lines.join("\n");
}

/** The reads B still sent the primary, statement by statement. */
function leftOnPrimary(B: SearchRun): string[] {
  const reads = B.work.primary.topReads;
  if (reads.length === 0) return ["reads left on the primary in B: none"];
  return [
    "reads left on the primary in B (most executed first):",
    ...reads.map((s) => `  ${n(s.calls)} calls, ${n(s.buffers)} buffers, ${fixed(s.execMs, 1)} ms: ${s.query.slice(0, 200)}`),
  ];
}

/** Writes <out>/postgres-replica-<records>-<timestamp>.json and <out>/latest-postgres-replica.json (smoke runs: smoke-...). */
export function writeReplicaRun(run: ReplicaRun, out: string): string[] {
  const dir = path.resolve(out);
  fs.mkdirSync(dir, { recursive: true });
  const prefix = run.mode === "smoke" ? "smoke-" : "";
  const stamp = run.startedAt.replace(/[:.]/g, "-");
  const text = `${JSON.stringify(run, null, 2)}\n`;
  const files = [path.join(dir, `${prefix}postgres-replica-${run.options.chargebacks}-${stamp}.json`), path.join(dir, `latest-${prefix}postgres-replica.json`)];
  for (const file of files) fs.writeFileSync(file, text);
  return files;
}
