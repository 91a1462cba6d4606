import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/data/connection/db";
import { RECORD_JSON_TABLES } from "@/lib/data/connection/schema";
import { backends, dropCreatedDatabases } from "../helpers/db";
import { databaseWithFixture, runAgain } from "../helpers/migrations";
import { expectRecordJsonInStep } from "../helpers/record-checks";

/**
 * Migration 012_record_json on a PostgreSQL database that already holds records: each record
 * gets the JSON the import would have stored (the API's writer), written by the migration with
 * the SQL expression pages used before.
 */
describe.each(backends.filter((b) => b.name === "postgres"))("migration 012_record_json on $name", (backend) => {
  afterAll(async () => {
    await dropCreatedDatabases();
  });

  it("stores the JSON of the records already there, as the import stores it", async () => {
    const url = await databaseWithFixture(backend);
    let db = await openDatabase(url);
    const counts = async () => {
      const n = async (table: string) => Number((await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`.execute(db.db)).rows[0].n);
      return [await n(RECORD_JSON_TABLES.chargeback), await n(RECORD_JSON_TABLES.pre_arbitration)];
    };
    try {
      await expectRecordJsonInStep(db);
      const imported = await counts();
      expect(imported[0]).toBeGreaterThan(100);
      expect(imported[1]).toBeGreaterThan(10);
      // Back to the database before 012: no tables of stored JSON, no line in the migration log.
      db = await runAgain(db, url, "012_record_json", async () => {
        for (const table of Object.values(RECORD_JSON_TABLES)) await sql`drop table ${sql.table(table)}`.execute(db.db);
      });
      expect(await counts()).toEqual(imported);
      await expectRecordJsonInStep(db);
    } finally {
      await db.close();
    }
  });
});
