import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { type Db, openDatabase } from "@/lib/data/connection/db";
import { backends, dropCreatedDatabases } from "../helpers/db";
import { databaseWithFixture, runAgain } from "../helpers/migrations";
import { expectRecordSumsInStep } from "../helpers/record-checks";

/**
 * Migrations 010_record_sums_pairs, 015_record_sums_all_pairs, 017_record_sums_months_documents
 * and 018_record_sums_totals on a database that already holds records: each must add its rows
 * exactly as the import would have kept them. The pairs are typed out here: 010's two of
 * chargebacks, 015's four more and the cases' one, 017's four with the documents extension; 017
 * also adds the month rows of each kind's latest month (2026-03 in the fixture), which had day
 * rows only before it; 018 the running totals (grain "total") of every dimension and month.
 */
const PAIRS_010 = ["card_type,reason_code", "merchant_id,card_type"];
const PAIRS_015 = ["merchant_id,reason_code", "merchant_id,function_code", "card_type,function_code", "reason_code,function_code", "merchant_id,case_stage"];
const PAIRS_017 = ["merchant_id,documents", "card_type,documents", "reason_code,documents", "function_code,documents"];
const OPEN_MONTH = "2026-03";

/** Takes away what 017 added (its pairs, the latest month's month rows) and its line in the log. */
async function undo017(db: Db): Promise<void> {
  await sql`delete from record_sums where dim in (${sql.join(PAIRS_017)})`.execute(db.db);
  await sql`delete from record_sums where grain = 'month' and period = ${OPEN_MONTH}`.execute(db.db);
  await sql`delete from kysely_migration where name = '017_record_sums_months_documents'`.execute(db.db);
}

/** Takes away what 018 added (every running total) and its line in the log: it runs again after any earlier one. */
async function undo018(db: Db): Promise<void> {
  await sql`delete from record_sums where grain = 'total'`.execute(db.db);
  await sql`delete from kysely_migration where name = '018_record_sums_totals'`.execute(db.db);
}

describe.each(backends)("migrations of the stored pairs and months on $name", (backend) => {
  afterAll(async () => {
    await dropCreatedDatabases();
  });

  for (const [migration, pairs] of [
    ["010_record_sums_pairs", PAIRS_010],
    ["015_record_sums_all_pairs", PAIRS_015],
    ["017_record_sums_months_documents", PAIRS_017],
    ["018_record_sums_totals", []],
  ] as const) {
    it(`${migration} adds its sums of the records already there, as the import keeps them`, async () => {
      const url = await databaseWithFixture(backend);
      let db = await openDatabase(url);
      const allRows = async () =>
        (await sql<Record<string, unknown>>`select * from record_sums order by kind, dim, grain, period, shop_code, value, ccy`.execute(db.db)).rows.map((r) =>
          JSON.stringify(Object.values(r).map(String)),
        );
      try {
        await expectRecordSumsInStep(db);
        const kept = await allRows();
        // Every dimension's totals at every month of the fixture (2026-01 to 2026-03).
        for (const kind of ["chargeback", "pre_arbitration"]) {
          const totals = kept.map((r) => JSON.parse(r) as string[]).filter((r) => r[0] === kind && r[2] === "total");
          expect(new Set(totals.map((r) => r[4])), kind).toEqual(new Set(["2026-01", "2026-02", "2026-03"]));
          expect(new Set(totals.map((r) => r[1])).size, kind).toBe(new Set(kept.map((r) => JSON.parse(r) as string[]).filter((r) => r[0] === kind).map((r) => r[1])).size);
        }
        for (const pair of pairs) {
          const kind = pair === "merchant_id,case_stage" ? "pre_arbitration" : "chargeback";
          const of = kept.filter((r) => r.startsWith(`["${kind}","${pair}",`));
          expect(of.filter((r) => r.includes('"month"')).length, pair).toBeGreaterThan(10);
          expect(of.filter((r) => r.includes('"day"')).length, pair).toBeGreaterThan(50);
        }
        for (const kind of ["chargeback", "pre_arbitration"]) {
          // Columns kind, dim, grain, shop_code, period, ...
          const open = kept.map((r) => JSON.parse(r) as string[]).filter((r) => r[0] === kind && r[1] === "" && r[2] === "month" && r[4] === OPEN_MONTH);
          expect(open.length, kind).toBeGreaterThan(3);
        }
        // Back to the database before the migration (and before 017 and 018, which an earlier
        // one's rerun comes before): none of its rows, no line in the migration log; the rest stays.
        db = await runAgain(db, url, migration, async () => {
          if (migration === "018_record_sums_totals") return undo018(db);
          if (migration !== "017_record_sums_months_documents") await sql`delete from record_sums where dim in (${sql.join(pairs)})`.execute(db.db);
          await undo017(db);
          await undo018(db);
        });
        await expectRecordSumsInStep(db);
        expect(await allRows()).toEqual(kept);
      } finally {
        await db.close();
      }
    });
  }
});
