import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/data/db";
import { backends, dropCreatedDatabases } from "../helpers/db";
import { databaseWithFixture, runAgain } from "../helpers/migrations";
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
    const url = await databaseWithFixture(backend);
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
      db = await runAgain(db, url, "010_record_sums_pairs", async () => {
        await sql`delete from record_sums where dim like '%,%'`.execute(db.db);
      });
      await expectRecordSumsInStep(db);
      expect(await pairRows()).toEqual(kept);
    } finally {
      await db.close();
    }
  });
});
