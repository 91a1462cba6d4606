import path from "node:path";
import { sql } from "kysely";
import { expect } from "vitest";
import { type Db, openDatabase } from "@/lib/data/connection/db";
import { writeFixture } from "../api/fixture";
import { runCli } from "./cli";
import { type Backend, tempDir } from "./db";

/**
 * For tests of a migration that builds data for records already there: a database holding the
 * API fixture (imported by the real command), and a way back to before the migration.
 */

/** A new database of the backend with the fixture imported; its URL. */
export async function databaseWithFixture(backend: Backend): Promise<string> {
  const url = await backend.create();
  const dir = tempDir("disputes-migration-");
  const imported = await runCli("import.ts", writeFixture(path.join(dir, "files")).files, { DATABASE_URL: url, APP_KEY_FILE: path.join(dir, "app.key") });
  expect(imported.code, imported.stdout + imported.stderr).toBe(0);
  return url;
}

/**
 * Undoes migration `name` (`undo` removes what it made, and its line leaves the migration log),
 * closes the database and opens it again, which runs the migration once more.
 */
export async function runAgain(db: Db, url: string, name: string, undo: () => Promise<void>): Promise<Db> {
  await undo();
  await sql`delete from kysely_migration where name = ${name}`.execute(db.db);
  await db.close();
  return openDatabase(url);
}
