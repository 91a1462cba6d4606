/**
 * Import benchmark: generates N demo chargebacks into a temporary folder and imports them into a
 * fresh SQLite database, and into PostgreSQL too: BENCH_DATABASE_URL names an empty database to
 * use as it is; otherwise TEST_DATABASE_URL names a server on which a scratch database is created
 * and dropped afterwards. Prints rows/s, wall time and the peak RSS of this process during the import.
 *
 *   npx tsx scripts/bench/import.ts [--records 1000000]
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { openDatabase } from "@/lib/data/db";
import { generateDemoFiles } from "@/lib/demo/generate";
import { importPaths } from "@/lib/import";

export interface BenchImportOptions {
  /** chargeback records to generate and import */
  records: number;
  /** databases to import into, each expected empty */
  databaseUrls: string[];
}

const mb = (bytes: number) => `${Math.round(bytes / 1048576)} MB`;

/** Samples the RSS while `work` runs; the import is streaming, so this should stay flat. */
export async function measured<T>(work: () => Promise<T>): Promise<{ result: T; seconds: number; peakRss: number }> {
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
  const started = performance.now();
  try {
    const result = await work();
    return { result, seconds: (performance.now() - started) / 1000, peakRss: Math.max(peakRss, process.memoryUsage().rss) };
  } finally {
    clearInterval(sampler);
  }
}

export async function benchImport(opts: BenchImportOptions): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "disputes-bench-import-"));
  try {
    const generated = await measured(async () =>
      generateDemoFiles({ out: path.join(dir, "files"), seed: 7, chargebacks: opts.records, preArbitrations: 0, end: "2026-10-30", days: 365 }),
    );
    const files = generated.result.files.filter((f) => path.basename(f).startsWith("CHB_"));
    const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);
    console.log(`generated ${opts.records} chargebacks in ${files.length} files (${mb(bytes)}) in ${generated.seconds.toFixed(1)} s`);

    for (const url of opts.databaseUrls) {
      const db = await openDatabase(url);
      try {
        const run = await measured(() => importPaths(db, files, () => {}));
        if (!run.result.ok) throw new Error(`the import into ${db.dialect} refused a file`);
        const records = run.result.results.reduce((n, r) => n + (r.status === "imported" ? r.records : 0), 0);
        console.log(
          `import into ${db.dialect}: ${records} records in ${run.seconds.toFixed(1)} s = ${Math.round(records / run.seconds)} rows/s, peak RSS ${mb(run.peakRss)}`,
        );
      } finally {
        await db.close();
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A fresh database on the server `serverUrl` names; the returned drop() removes it. */
export async function scratchPostgres(serverUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `disputes_bench_${crypto.randomBytes(4).toString("hex")}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

async function main(argv: string[]): Promise<void> {
  const i = argv.indexOf("--records");
  const records = i >= 0 ? Number(argv[i + 1]) : 1_000_000;
  if (!Number.isSafeInteger(records) || records < 1) throw new Error("--records must be a whole number of at least 1");

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "disputes-bench-db-"));
  const given = process.env.BENCH_DATABASE_URL;
  const scratch = !given && process.env.TEST_DATABASE_URL ? await scratchPostgres(process.env.TEST_DATABASE_URL) : undefined;
  const postgres = given ?? scratch?.url;
  try {
    await benchImport({ records, databaseUrls: [`file:${path.join(dir, "bench.sqlite")}`, ...(postgres ? [postgres] : [])] });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await scratch?.drop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(`bench:import: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
