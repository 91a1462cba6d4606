import path from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/data/db";
import { writeFixture } from "../api/fixture";
import { runCli } from "../helpers/cli";
import { backends, dropCreatedDatabases, tempDir } from "../helpers/db";
import { expectRecordSumsInStep } from "../helpers/record-checks";

/**
 * Migration 010_record_sums_pairs on a database that already holds records: it must add the
 * stored pairs' day and month rows exactly as the import would have kept them.
 */
describe.each(backends)("migration 010_record_sums_pairs on $name", (backend) => {
  afterAll(async () => {
    await dropCreatedDatabases();
  });

  it("adds the pairs' sums of the records already there, as the import keeps them", async () => {
    const url = await backend.create();
    const dir = tempDir("disputes-migration-");
    const fixture = writeFixture(path.join(dir, "files"));
    const imported = await runCli("import.ts", fixture.files, { DATABASE_URL: url, APP_KEY_FILE: path.join(dir, "app.key") });
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);

    let db = await openDatabase(url);
    const pairRows = async () =>
      (await sql<Record<string, unknown>>`select * from record_sums where dim like '%,%' order by kind, dim, grain, period, shop_code, value, ccy`.execute(db.db)).rows.map((r) =>
        JSON.stringify(Object.values(r).map(String)),
      );
    try {
      await expectRecordSumsInStep(db);
      const kept = await pairRows();
      expect(kept.filter((r) => r.includes('"month"')).length).toBeGreaterThan(10);
      expect(kept.filter((r) => r.includes('"day"')).length).toBeGreaterThan(100);
      // Back to the database before 010: no pair rows, no line in the migration log.
      await sql`delete from record_sums where dim like '%,%'`.execute(db.db);
      await sql`delete from kysely_migration where name = '010_record_sums_pairs'`.execute(db.db);
      await db.close();
      db = await openDatabase(url);
      await expectRecordSumsInStep(db);
      expect(await pairRows()).toEqual(kept);
    } finally {
      await db.close();
    }
  });
});
