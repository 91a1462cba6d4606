import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/data/connection/db";
import { backends, dropCreatedDatabases } from "../helpers/db";
import { databaseWithFixture, runAgain } from "../helpers/migrations";
import { expectRecordSumsInStep } from "../helpers/record-checks";

/**
 * Migrations 010_record_sums_pairs and 015_record_sums_all_pairs on a database that already holds
 * records: each must add its stored pairs' day and month rows exactly as the import would have
 * kept them. The pairs are typed out here: 010's two of chargebacks, 015's four more and the
 * cases' one.
 */
const PAIRS_010 = ["card_type,reason_code", "merchant_id,card_type"];
const PAIRS_015 = ["merchant_id,reason_code", "merchant_id,function_code", "card_type,function_code", "reason_code,function_code", "merchant_id,case_stage"];

describe.each(backends)("migrations of the stored pairs on $name", (backend) => {
  afterAll(async () => {
    await dropCreatedDatabases();
  });

  for (const [migration, pairs] of [
    ["010_record_sums_pairs", PAIRS_010],
    ["015_record_sums_all_pairs", PAIRS_015],
  ] as const) {
    it(`${migration} adds its pairs' sums of the records already there, as the import keeps them`, async () => {
      const url = await databaseWithFixture(backend);
      let db = await openDatabase(url);
      const pairRows = async () =>
        (await sql<Record<string, unknown>>`select * from record_sums where dim like '%,%' order by kind, dim, grain, period, shop_code, value, ccy`.execute(db.db)).rows.map((r) =>
          JSON.stringify(Object.values(r).map(String)),
        );
      try {
        await expectRecordSumsInStep(db);
        const kept = await pairRows();
        for (const pair of pairs) {
          const kind = pair === "merchant_id,case_stage" ? "pre_arbitration" : "chargeback";
          const of = kept.filter((r) => r.startsWith(`["${kind}","${pair}",`));
          expect(of.filter((r) => r.includes('"month"')).length, pair).toBeGreaterThan(10);
          expect(of.filter((r) => r.includes('"day"')).length, pair).toBeGreaterThan(50);
        }
        // Back to the database before the migration: none of its pairs' rows, no line in the
        // migration log; the other pairs stay.
        db = await runAgain(db, url, migration, async () => {
          await sql`delete from record_sums where dim in (${sql.join(pairs)})`.execute(db.db);
        });
        await expectRecordSumsInStep(db);
        expect(await pairRows()).toEqual(kept);
      } finally {
        await db.close();
      }
    });
  }
});
