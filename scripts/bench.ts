/**
 * npm run bench -- [--records 1000000] [--seconds 10] [--concurrency 8]
 * 1. generates demo acquirer files, 2. imports them (rows/s, peak RSS of the import),
 * 3. benchmarks the API on that database with `next start` (needs `npm run build` first).
 * SQLite always; PostgreSQL too when BENCH_DATABASE_URL names an empty database.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "@/lib/data/db";
import { generateDemoFiles } from "@/lib/demo/generate";
import { importPaths } from "@/lib/import";
import { benchApi } from "./bench/api";

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

async function benchImport(files: string[], databaseUrl: string, records: number) {
  const db = await openDatabase(databaseUrl);
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  const started = performance.now();
  const { ok } = await importPaths(db, files, () => {});
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  await db.close();
  if (!ok) throw new Error("import failed");
  console.log(`import into ${databaseUrl.startsWith("postgres") ? "PostgreSQL" : "SQLite"}: ${records} records in ${seconds.toFixed(1)} s = ${Math.round(records / seconds)} records/s, peak RSS ${Math.round(peak / 1048576)} MB`);
}

async function main() {
  if (!fs.existsSync(".next/BUILD_ID")) throw new Error("run `npm run build` first: the API benchmark serves the production build");
  const records = option("records", 1_000_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "disputes-bench-"));
  let started = performance.now();
  const { files } = generateDemoFiles({ out: path.join(dir, "files"), seed: 7, chargebacks: records, preArbitrations: Math.round(records / 5), end: "2026-10-30", days: 365 });
  const total = records + Math.round(records / 5);
  const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);
  console.log(`generated ${files.length} files, ${total} records, ${(bytes / 1048576).toFixed(0)} MB in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const targets = [`file:${path.join(dir, "bench.sqlite")}`];
  if (process.env.BENCH_DATABASE_URL) targets.push(process.env.BENCH_DATABASE_URL);
  for (const url of targets) {
    started = performance.now();
    await benchImport(files, url, total);
    await benchApi({ records, databaseUrl: url, seconds: option("seconds", 10), concurrency: option("concurrency", 8) });
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(`bench: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
