/**
 * npm run import -- <path>...   Loads acquirer report files, or every *.csv of a folder in name
 * order, into the database DATABASE_URL names (docs/api.md, "Import of acquirer files"). Exit 0 when no file was refused.
 * Standard output holds the lines that section describes; standard error one JSON line per file ("import file").
 */
import { importGroupBytes } from "@/lib/config";
import { openDatabase } from "@/lib/data/connection/db";
import { importPaths, logImportFile } from "@/lib/import";
import { stderrLog } from "@/lib/log";

async function main(paths: string[]): Promise<number> {
  if (paths.length === 0) {
    console.error("usage: npm run import -- <file.csv | folder>...");
    return 1;
  }
  // The import's settings, checked before the database is opened (a bad one throws its message).
  importGroupBytes();
  const db = await openDatabase();
  try {
    const logger = stderrLog();
    const { ok } = await importPaths(
      db,
      paths,
      (line) => console.log(line),
      (outcome, durationMs) => logImportFile(logger, "command", outcome, durationMs),
    );
    return ok ? 0 : 1;
  } finally {
    await db.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`import: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
