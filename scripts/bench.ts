/**
 * npm run bench -- [--records 1000000] [--seconds 10] [--concurrency 8]
 * 1. generates demo acquirer files once, 2. imports them (rows/s, peak RSS of the import),
 * 3. benchmarks the API on that database with `next start` (run `npm run build` first).
 * SQLite always; PostgreSQL too when BENCH_DATABASE_URL names an empty database, or
 * TEST_DATABASE_URL names a server where a scratch database can be made (and is dropped after).
 * The import alone: npx tsx scripts/bench/import.ts --records N
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "@/lib/data/db";
import { generateDemoFiles } from "@/lib/demo/generate";
import { importPaths } from "@/lib/import";
import { benchApi } from "./bench/api";
import { measured, scratchPostgres } from "./bench/import";

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`--${name} must be a whole number of at least 1`);
  return value;
}

async function main() {
  if (!fs.existsSync(".next/BUILD_ID")) throw new Error("run `npm run build` first: the API benchmark serves the production build");
  const records = option("records", 1_000_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "disputes-bench-"));
  const scratch = !process.env.BENCH_DATABASE_URL && process.env.TEST_DATABASE_URL ? await scratchPostgres(process.env.TEST_DATABASE_URL) : undefined;
  try {
    const generated = await measured(async () =>
      generateDemoFiles({ out: path.join(dir, "files"), seed: 7, chargebacks: records, preArbitrations: Math.round(records / 5), end: "2026-10-30", days: 365 }),
    );
    const { files } = generated.result;
    const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);
    console.log(`generated ${files.length} files, ${(bytes / 1048576).toFixed(0)} MB in ${generated.seconds.toFixed(1)} s`);

    const postgres = process.env.BENCH_DATABASE_URL ?? scratch?.url;
    for (const url of [`file:${path.join(dir, "bench.sqlite")}`, ...(postgres ? [postgres] : [])]) {
      const db = await openDatabase(url);
      const run = await measured(() => importPaths(db, files, () => {}));
      await db.close();
      if (!run.result.ok) throw new Error("the import refused a file");
      const total = run.result.results.reduce((n, r) => n + (r.status === "imported" ? r.records : 0), 0);
      console.log(
        `\nimport into ${db.dialect}: ${total} records in ${run.seconds.toFixed(1)} s = ${Math.round(total / run.seconds)} records/s, peak RSS ${Math.round(run.peakRss / 1048576)} MB`,
      );
      await benchApi({ records, databaseUrl: url, seconds: option("seconds", 10), concurrency: option("concurrency", 8) });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await scratch?.drop();
  }
}

main().catch((err: unknown) => {
  console.error(`bench: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
