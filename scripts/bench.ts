/**
 * npm run bench -- [--chargebacks 1000000] [--cases 200000] [--shops 200] [--merchants 50]
 *   [--parents 10] [--days 730] [--seed 7] [--backend sqlite|postgres|both] [--replica] [--seconds 10]
 *   [--concurrency 16] [--smoke] [--out bench/results]
 *
 * The request classes of docs/performance.md on the production server (`npm run build` first), as ratios of floors
 * measured in the same run:
 * 1. generates a history of daily files (every calendar day up to 2026-10-30) over a synthetic
 *    hierarchy of shops, merchants and parents, one single large chargeback file, and a file to
 *    import while reads run;
 * 2. per backend, imports the history (records/s, peak RSS) and the single file into a fresh
 *    database; creates credentials for 1, 3 and all shops; runs each class's ideal SQL directly
 *    (floor 2);
 * 3. starts `next start` on 127.0.0.1 and measures the unauthenticated 401 path (floor 1), every
 *    class on both endpoints at the given concurrency after a warm-up, single requests alone, a
 *    mixed run (default pages beside 1000-row pages) and signed reads while `npm run import`
 *    loads a file (all-or-nothing totals);
 * 4. prints one table per backend and writes JSON to <out>/<backend>-<records>-<time>.json and
 *    <out>/latest-<backend>.json (a --smoke run writes smoke-... files).
 *
 * SQLite always; PostgreSQL too when BENCH_DATABASE_URL names an empty database, or
 * TEST_DATABASE_URL a server where scratch databases may be created (they are dropped after).
 * --smoke: a few thousand records and 0.3 s per class, to check that it all works: exits 1
 *   when a request failed or a total was wrong (scripts/bench/smoke-verdict.ts); `npm test` runs it.
 * --replica (PostgreSQL only, no database URL needed): instead of the backends' runs, a private
 * primary with a hot standby, the primary's read work with and without the standby and the
 * standby's lag during imports (scripts/bench/replica.ts); writes
 * <out>/postgres-replica-<records>-<time>.json.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { generateBenchFiles } from "./bench/data";
import { parseOptions, USAGE, UsageError } from "./bench/options";
import { runReplica } from "./bench/replica";
import { formatReplicaRun, type ReplicaRun, writeReplicaRun } from "./bench/replica-report";
import { type BenchRun, formatRun, machineInfo, writeRun } from "./bench/report";
import { Cleanup, runBackend } from "./bench/run";
import { killGroupNow, ROOT } from "./bench/server";
import { smokeProblems } from "./bench/smoke-verdict";

async function main(cleanup: Cleanup): Promise<void> {
  const parsed = parseOptions(process.argv.slice(2));
  if (parsed === "help") return console.log(USAGE);
  const opts = parsed;
  if (!fs.existsSync(path.join(ROOT, ".next/BUILD_ID"))) throw new Error("no production build: run `npm run build` first");

  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  // One key for the credentials this run creates, shared with the server and the import it starts.
  process.env.APP_SECRET = crypto.randomBytes(24).toString("hex");

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "disputes-bench-"));
  cleanup.add("temporary folder", () => fs.rmSync(dir, { recursive: true, force: true }));
  console.log(`· generating ${opts.chargebacks} chargebacks and ${opts.cases} cases over ${opts.days} days, ${opts.shops} shops`);
  const files = await generateBenchFiles(opts, dir);
  console.log(`· ${files.history.length} files, ${Math.round(files.historyBytes / 1048576)} MB, in ${files.generationSeconds.toFixed(1)} s`);

  const data: BenchRun["data"] = {
    chargebacks: opts.chargebacks,
    cases: opts.cases,
    shops: opts.shops,
    merchants: opts.merchants,
    parents: opts.parents,
    firstDate: files.firstDate,
    lastDate: files.lastDate,
    dailyFiles: files.history.length,
    megabytes: Math.round(files.historyBytes / 1048576),
    generationSeconds: Math.round(files.generationSeconds * 10) / 10,
  };
  const mode = opts.smoke ? "smoke" : "full";

  if (opts.replica) {
    const result = await runReplica(opts, files, cleanup);
    const run: ReplicaRun = { version: 1, kind: "replica", startedAt, finishedAt: new Date().toISOString(), mode, options: opts, machine, data, result };
    console.log(formatReplicaRun(run));
    for (const file of writeReplicaRun(run, opts.out)) console.log(`wrote ${path.relative(process.cwd(), file) || file}`);
    return;
  }

  const broken: string[] = [];
  for (const backend of opts.backends) {
    const result = await runBackend(backend, opts, files, dir, cleanup);
    const run: BenchRun = { version: 1, startedAt, finishedAt: new Date().toISOString(), mode, options: opts, machine, data, result };
    console.log(formatRun(run));
    for (const file of writeRun(run, opts.out)) console.log(`wrote ${path.relative(process.cwd(), file) || file}`);
    if (opts.smoke) broken.push(...smokeProblems(result).map((problem) => `${backend}: ${problem}`));
  }
  if (broken.length > 0) throw new Error(`the smoke run is broken:\n${broken.join("\n")}`);
}

const cleanup = new Cleanup();
let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    console.error(`bench: ${signal}, cleaning up`);
    void cleanup.runAll().finally(() => process.exit(130));
  });
}
// Whatever happens, no server or import started here outlives the benchmark.
process.on("exit", () => {
  for (const child of cleanup.children) killGroupNow(child);
});

main(cleanup).then(
  async () => {
    await cleanup.runAll();
    process.exit(0);
  },
  async (err: unknown) => {
    console.error(`bench: ${err instanceof Error ? err.message : String(err)}`);
    await cleanup.runAll();
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
