import fs from "node:fs";
import path from "node:path";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openDatabase, stateFileOf } from "@/lib/data/connection/db";
import { writeFixture } from "../api/fixture";
import { runCli } from "../helpers/cli";
import { tempDir } from "../helpers/db";

/**
 * SQLite keeps nonces, sessions and throttles in a state file beside the database. They are
 * disposable: a database whose state file was lost (or copied without it) opens with empty state
 * tables instead of failing on every request ("no such table: sessions").
 */
describe("the SQLite state file", () => {
  it("is created afresh when it is missing, and the records are untouched", async () => {
    const dir = tempDir("disputes-state-");
    const file = path.join(dir, "d.sqlite");
    const env = { DATABASE_URL: `file:${file}`, APP_KEY_FILE: path.join(dir, "app.key") };
    const imported = await runCli("import.ts", writeFixture(path.join(dir, "files")).files, env);
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);

    let db = await openDatabase(env.DATABASE_URL);
    const records = async () => Number((await sql<{ n: number }>`select count(*) as n from chargebacks`.execute(db.db)).rows[0].n);
    const before = await records();
    await sql`insert into state.sessions (token_hash, user_id, created_at, expires_at) values ('h', 1, 1, 2)`.execute(db.db);
    await db.close();

    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(stateFileOf(file) + suffix, { force: true });
    db = await openDatabase(env.DATABASE_URL);
    try {
      for (const table of ["used_nonces", "sessions", "login_throttle", "rate_buckets"]) {
        const { rows } = await sql<{ n: number }>`select count(*) as n from state.${sql.id(table)}`.execute(db.db);
        expect(Number(rows[0].n), table).toBe(0);
      }
      await sql`insert into state.sessions (token_hash, user_id, created_at, expires_at) values ('h', 1, 1, 2)`.execute(db.db);
      expect(await records()).toBe(before);
      expect(fs.existsSync(stateFileOf(file))).toBe(true);
    } finally {
      await db.close();
    }
  });
});
