import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/data/connection/db";
import { backends, dropCreatedDatabases } from "../helpers/db";
import { databaseWithFixture, runAgain } from "../helpers/migrations";
import { expectDisputesInStep } from "../helpers/record-checks";

/**
 * Migration 008_disputes on a database that already holds records: it must build the disputes
 * and their counts exactly as the import would have kept them.
 */
describe.each(backends)("migration 008_disputes on $name", (backend) => {
  afterAll(async () => {
    await dropCreatedDatabases();
  });

  it("builds the disputes of the records already there, as the import keeps them", async () => {
    const url = await databaseWithFixture(backend);
    let db = await openDatabase(url);
    const snapshot = async () => ({
      disputes: (await db.db.selectFrom("disputes").selectAll().orderBy("shop_code").orderBy("acq_ref_nr").execute()).map((d) => JSON.stringify(Object.values(d).map(String))),
      counts: (await db.db.selectFrom("dispute_counts").selectAll().where("n", "<>", 0).orderBy("stage").orderBy("scheme").orderBy("base_day").execute()).map((c) => JSON.stringify(Object.values(c).map(String))),
    });
    try {
      await expectDisputesInStep(db);
      const kept = await snapshot();
      expect(kept.disputes.length).toBeGreaterThan(100);
      // Back to the schema before 008: neither its tables nor its line in the migration log (the
      // later migrations stay: each stands on its own, and they may run out of number order).
      db = await runAgain(db, url, "008_disputes", async () => {
        await sql`drop table disputes`.execute(db.db);
        await sql`drop table dispute_counts`.execute(db.db);
      });
      await expectDisputesInStep(db);
      expect(await snapshot()).toEqual(kept);
    } finally {
      await db.close();
    }
  });
});
