/**
 * Shared pieces of the benchmark (`scratchPostgres`, `freshDatabase`), and the import alone:
 *
 *   npx tsx scripts/bench/import.ts [bench flags: --chargebacks N --cases N --shops N --days N --backend ... --smoke]
 *
 * generates the benchmark's history of daily files and one single large file, imports each into
 * a fresh database per backend and prints records/s, seconds and the peak RSS of the import.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { openDatabase } from "@/lib/data/connection/db";
import { importPaths } from "@/lib/import";
import { measured } from "./measure";
import type { Backend } from "./options";

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

export interface ImportFigures {
  files: number;
  records: number;
  seconds: number;
  recordsPerSecond: number;
  peakRssMb: number;
}

/** Imports `files` into the (empty) database `url` with the import library, measured. */
export async function importMeasured(url: string, files: string[]): Promise<ImportFigures> {
  const db = await openDatabase(url);
  try {
    const problems: string[] = [];
    const run = await measured(() =>
      importPaths(db, files, (line) => {
        if (problems.length < 5 && !/: (imported \d+ records|skipped \(already imported\))$/.test(line)) problems.push(line);
      }),
    );
    if (!run.result.ok) throw new Error(`the import into ${db.dialect} refused a file: ${problems.join("; ")}`);
    const records = run.result.results.reduce((n, r) => n + (r.status === "imported" ? r.records : 0), 0);
    return {
      files: files.length,
      records,
      seconds: round(run.seconds, 2),
      recordsPerSecond: Math.round(records / run.seconds),
      peakRssMb: Math.round(run.peakRss / 1048576),
    };
  } finally {
    await db.close();
  }
}

export const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

/** A fresh, empty database per backend; `drop()` removes it. */
export async function freshDatabase(backend: Backend, dir: string, label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  if (backend === "sqlite") {
    // A folder of its own: the database may keep companion files beside its main file.
    const folder = fs.mkdtempSync(path.join(dir, `${label}-`));
    return { url: `file:${path.join(folder, "disputes.sqlite")}`, drop: async () => fs.rmSync(folder, { recursive: true, force: true }) };
  }
  const server = process.env.TEST_DATABASE_URL || process.env.BENCH_DATABASE_URL;
  if (!server) throw new Error("PostgreSQL needs TEST_DATABASE_URL or BENCH_DATABASE_URL");
  return scratchPostgres(server);
}

async function main(argv: string[]): Promise<void> {
  const { parseOptions, USAGE } = await import("./options");
  const { generateBenchFiles } = await import("./data");
  const opts = parseOptions(argv);
  if (opts === "help") return console.log(USAGE);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "disputes-bench-import-"));
  try {
    const files = await generateBenchFiles(opts, dir);
    console.log(`generated ${files.history.length} files (${Math.round(files.historyBytes / 1048576)} MB) in ${files.generationSeconds.toFixed(1)} s`);
    for (const backend of opts.backends) {
      for (const [label, list] of [
        ["daily files", files.history],
        ["one single file", [files.single]],
      ] as const) {
        const fresh = await freshDatabase(backend, dir, label.replaceAll(" ", "-"));
        try {
          const f = await importMeasured(fresh.url, [...list]);
          console.log(`${backend}, ${label}: ${f.records} records in ${f.seconds} s = ${f.recordsPerSecond} records/s, peak RSS ${f.peakRssMb} MB`);
        } finally {
          await fresh.drop();
        }
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(`bench:import: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
