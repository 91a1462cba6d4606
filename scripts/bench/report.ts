/**
 * The benchmark's output: one table per backend (one row per class, with its ratios to the two
 * floors), and the whole result as JSON with the machine it ran on.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Stats } from "./http";
import type { BenchOptions } from "./options";
import type { BackendResult } from "./run";
import { ROOT } from "./server";

export interface MachineInfo {
  os: string;
  cpuModel: string;
  cpus: number;
  totalMemoryMb: number;
  node: string;
  commit: string | null;
  /** the work tree had changes that are not committed */
  dirty: boolean | null;
}

function git(args: string[]): string | null {
  try {
    return execFileSync("git", args, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return null;
  }
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  const status = git(["status", "--porcelain"]);
  return {
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    cpuModel: cpus[0]?.model.trim() ?? "unknown",
    cpus: cpus.length,
    totalMemoryMb: Math.round(os.totalmem() / 1048576),
    node: process.version,
    commit: git(["rev-parse", "HEAD"]),
    dirty: status === null ? null : status.length > 0,
  };
}

export interface BenchRun {
  version: 1;
  startedAt: string;
  finishedAt: string;
  mode: "smoke" | "full";
  options: BenchOptions;
  machine: MachineInfo;
  data: {
    chargebacks: number;
    cases: number;
    shops: number;
    merchants: number;
    parents: number;
    firstDate: string;
    lastDate: string;
    dailyFiles: number;
    megabytes: number;
    generationSeconds: number;
  };
  result: BackendResult;
}

export const n = (x: number) => x.toLocaleString("en-US");
export const fixed = (x: number, digits = 1) => x.toFixed(digits);

function row(name: string, s: Stats, extra: { total?: string; ratio401?: string; alone?: string; sql?: string; overSql?: string }): string[] {
  return [
    name,
    fixed(s.reqPerSec),
    fixed(s.p50),
    fixed(s.p95),
    fixed(s.p99),
    fixed(s.max),
    String(s.failures),
    extra.total ?? "",
    extra.ratio401 ?? "",
    extra.alone ?? "",
    extra.sql ?? "",
    extra.overSql ?? "",
  ];
}

export function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`;
  return [line(rows[0]), rule, ...rows.slice(1).map(line)].join("\n");
}

export function formatRun(run: BenchRun): string {
  const r = run.result;
  const o = run.options;
  const single = "skipped" in r.import.singleFile ? `skipped (${r.import.singleFile.skipped})` : importLine(r.import.singleFile);
  const live = r.importDuringReads;
  const lines = [
    "",
    `## ${r.backend} (${r.databaseVersion}), ${run.mode} run`,
    `${n(r.records.chargeback)} chargebacks + ${n(r.records.pre_arbitration)} cases, ${o.shops} shops / ${o.merchants} merchants / ${o.parents} parents, ` +
      `${run.data.dailyFiles} files ${run.data.firstDate} .. ${run.data.lastDate}; concurrency ${o.concurrency}, ${o.seconds} s per class after ${o.warmup} s warm-up`,
    `machine: ${run.machine.cpus} x ${run.machine.cpuModel}, ${n(run.machine.totalMemoryMb)} MB, ${run.machine.os}, node ${run.machine.node}, commit ${run.machine.commit?.slice(0, 10) ?? "?"}${run.machine.dirty ? " (with uncommitted changes)" : ""}`,
    `import, daily files: ${importLine(r.import.dailyFiles)}`,
    `import, one file of ${n(o.single)} chargebacks into a fresh database: ${single}`,
    ...(r.firstRun
      ? [
          `first run after the import: ${r.firstRun.id} on a fresh server before anything else read the data, ${o.seconds} s without warm-up; ` +
            `its first request alone ${fixed(r.firstRun.firstRequestMs)} ms` +
            (r.firstRun.walBytesAfterImport === undefined ? "" : `; -wal file after the import ${n(r.firstRun.walBytesAfterImport)} bytes`),
        ]
      : []),
    `server: peak RSS ${r.server.peakRssMb} MB (${r.server.processes} process${r.server.processes === 1 ? "" : "es"}), ready in ${r.server.startSeconds} s`,
    `reads during the import of ${n(live.records)} records: all-or-nothing ${live.allOrNothing ? "yes" : "no"} (totals seen ${JSON.stringify(live.totalsSeen)}, ` +
      `before ${live.before}, after ${live.after}), ${live.reads.failures} failed, p99 ${fixed(live.reads.p99)} ms, max ${fixed(live.reads.max)} ms, import exit ${live.exitCode} after ${live.importSeconds} s`,
    "",
  ];
  const rows: string[][] = [["class", "req/s", "p50 ms", "p95 ms", "p99 ms", "max ms", "fail", "totalElements", "x 401", "alone ms", "SQL ms", "p50 / SQL"]];
  rows.push(row("401 floor: unauthenticated POST /api/chargeback", r.floor401, { ratio401: "1.00" }));
  for (const c of r.classes) {
    rows.push(
      row(`${c.id} ${c.name}`, c.stats, {
        total: c.totalsConstant ? n(c.totalElements ?? 0) + (c.totalMatchesSql ? "" : ` (SQL ${n(c.sql.total)}!)`) : `varied ${JSON.stringify(c.stats.totals)}`,
        ratio401: fixed(c.ratio401, 2),
        alone: fixed(c.aloneMs),
        sql: fixed(c.sql.medianMs, 2),
        overSql: fixed(c.p50OverSql, 1),
      }),
    );
  }
  if (r.firstRun) {
    const f = r.firstRun;
    rows.push(row(`first run after the import, no warm-up: ${f.id}`, f.stats, {
        total: f.stats.totals.map(n).join(", "),
        ratio401: fixed(f.ratio401, 2),
        alone: fixed(f.firstRequestMs),
      }));
  }
  const m = r.mixed;
  rows.push(row(`mixed: default page, ${m.connections.defaultPage} connections`, m.defaultPage, { total: m.defaultPage.totals.map(n).join(", ") }));
  rows.push(row(`mixed: 1000 a page, ${m.connections.page1000} connections`, m.page1000, { total: m.page1000.totals.map(n).join(", ") }));
  rows.push(row(`default page during import (all-or-nothing: ${live.allOrNothing ? "yes" : "no"})`, live.reads, { total: live.totalsSeen.map(n).join(", ") }));
  lines.push(table(rows));
  for (const c of r.classes) if (c.stats.failureSamples.length) lines.push(`${c.id} failures: ${c.stats.failureSamples.join(" | ")}`);
  if (live.reads.failureSamples.length) lines.push(`during import, failures: ${live.reads.failureSamples.join(" | ")}`);
  if (live.exitCode !== 0) lines.push(`the import during reads ended with ${live.exitCode}: ${live.output.slice(-500)}`);
  return lines.join("\n");
}

export function importLine(f: { records: number; seconds: number; recordsPerSecond: number; peakRssMb: number; files: number }): string {
  return `${n(f.records)} records from ${n(f.files)} file${f.files === 1 ? "" : "s"} in ${f.seconds} s = ${n(f.recordsPerSecond)} records/s, peak RSS ${f.peakRssMb} MB`;
}

/** Writes <out>/<backend>-<records>-<timestamp>.json and <out>/latest-<backend>.json (smoke runs: smoke-...). */
export function writeRun(run: BenchRun, out: string): string[] {
  const dir = path.resolve(out);
  fs.mkdirSync(dir, { recursive: true });
  const prefix = run.mode === "smoke" ? "smoke-" : "";
  const stamp = run.startedAt.replace(/[:.]/g, "-");
  const text = `${JSON.stringify(run, null, 2)}\n`;
  const files = [path.join(dir, `${prefix}${run.result.backend}-${run.options.chargebacks}-${stamp}.json`), path.join(dir, `latest-${prefix}${run.result.backend}.json`)];
  for (const file of files) fs.writeFileSync(file, text);
  return files;
}
