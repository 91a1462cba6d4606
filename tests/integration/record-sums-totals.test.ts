import fs from "node:fs";
import path from "node:path";
import { stringify } from "csv-stringify/sync";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { sumsInsert } from "@/lib/data/aggregates/record-sums";
import { type Db, openDatabase } from "@/lib/data/connection/db";
import type { Row } from "@/lib/data/connection/read";
import { visibleShops } from "@/lib/data/queries/selection";
import { rangePieces, summaryQuery, writeSummary } from "@/lib/data/queries/summary";
import { parseSummaryRequest } from "@/lib/schemas/summary";
import { chargebackFile, type Kind, type ModelRecord, preArbitrationFile, prng, SHOPS } from "../api/fixture";
import { modelSummary } from "../api/summary-model";
import { backends, dropCreatedDatabases, tempDir } from "../helpers/db";
import { importInto } from "../helpers/import-folder";
import { expectRecordSumsInStep } from "../helpers/record-checks";

/**
 * The running totals of record_sums (grain "total", lib/data/aggregates/record-sums.ts) under
 * imports in any order: files of random days from 2025-09 to 2026-05, none of 2025-12 and 2026-03
 * (gap months inside the history), imported shuffled, so that many are back-dated (a month before
 * the latest total) and some jump over a gap. After every file each total row must be the sum of
 * the month rows up to its month, densely (expectRecordSumsInStep); the rebuild statement must
 * build the same rows; and summaries over random ranges, groupings and scopes (a third of them read through the totals) must answer the model's exact text (docs/api.md, "Summaries").
 */

const MONTHS = ["2025-09", "2025-10", "2025-11", "2026-01", "2026-02", "2026-04", "2026-05"];
const DIMS: Record<Kind, string[]> = {
  chargeback: ["month", "shop_code", "merchant_id", "card_type", "reason_code", "function_code", "documents"],
  pre_arbitration: ["month", "shop_code", "merchant_id", "case_stage"],
};
// Every shop; one (a look-up per shop); six of eight (the period range, keeping the scope's shops).
const SCOPES: readonly (readonly string[])[] = [SHOPS, [SHOPS[4]], SHOPS.slice(0, 6)];

const dayOf = (r: ReturnType<typeof prng>, month: string) => `${month}-${String(r.int(1, month.endsWith("-02") ? 28 : 30)).padStart(2, "0")}`;

/** Files of random days (a day at most once per kind), shuffled, with every record of them. */
function writeFiles(dir: string, r: ReturnType<typeof prng>): { files: string[]; records: Record<Kind, ModelRecord[]> } {
  const files: string[] = [];
  const records: Record<Kind, ModelRecord[]> = { chargeback: [], pre_arbitration: [] };
  for (const kind of ["chargeback", "pre_arbitration"] as const) {
    const days = new Set<string>();
    for (const month of MONTHS) for (let i = r.int(1, 3); i > 0; i--) days.add(dayOf(r, month));
    for (const day of days) {
      const built = kind === "chargeback" ? chargebackFile(r, day, r.int(3, 12), 1) : preArbitrationFile(r, "29", day, r.int(3, 10), 1);
      const file = path.join(dir, kind === "chargeback" ? `CHB_${day.replaceAll("-", "")}.csv` : `PREARB_29_${day.replaceAll("-", "")}.csv`);
      fs.writeFileSync(file, stringify([built.header, ...built.rows]));
      files.push(file);
      records[kind].push(...built.records);
    }
  }
  for (let i = files.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [files[i], files[j]] = [files[j], files[i]];
  }
  return { files, records };
}

const totalRows = async (db: Db) =>
  (await sql<Record<string, unknown>>`select * from record_sums where grain = 'total' order by kind, dim, period, shop_code, value, ccy`.execute(db.db)).rows.map((row) =>
    JSON.stringify(Object.values(row).map(String)),
  );

describe.each(backends)("running totals of record_sums on $name", (backend) => {
  afterAll(async () => {
    await dropCreatedDatabases();
  });

  it("stay the sums of the months up to theirs, densely, whatever order the files come in; the summaries read through them answer the model", { timeout: 300_000 }, async () => {
    const r = prng(31);
    const url = await backend.create();
    const { files, records } = writeFiles(tempDir("disputes-totals-"), r);
    const latest = files.map((file) => file.match(/(\d{8})\.csv$/)![1]);
    expect(latest.some((date, i) => i > 0 && date.slice(0, 6) < latest.slice(0, i).sort().at(-1)!.slice(0, 6)), "a back-dated file").toBe(true);
    for (const file of files) {
      await importInto(url, [file]);
      const db = await openDatabase(url);
      try {
        await expectRecordSumsInStep(db);
      } finally {
        await db.close();
      }
    }

    const db = await openDatabase(url);
    try {
      // Dense: both kinds have totals at every month from 2025-09 to 2026-05, the gap months too.
      const months = (await sql<{ kind: string; period: string }>`select distinct kind, period from record_sums where grain = 'total' order by kind, period`.execute(db.db)).rows;
      for (const kind of ["chargeback", "pre_arbitration"]) {
        expect(months.filter((m) => m.kind === kind).map((m) => m.period)).toEqual(["2025-09", "2025-10", "2025-11", "2025-12", "2026-01", "2026-02", "2026-03", "2026-04", "2026-05"]);
      }

      let throughTotals = 0;
      let requests = 0;
      const day = (lo: string, hi: string) => {
        const a = Date.parse(`${lo}T00:00:00Z`);
        return new Date(a + r.int(0, (Date.parse(`${hi}T00:00:00Z`) - a) / 86_400_000) * 86_400_000).toISOString().slice(0, 10);
      };
      for (const kind of ["chargeback", "pre_arbitration"] as const) {
        const dims = DIMS[kind];
        const groupings = [[], ...dims.map((d) => [d]), ...dims.flatMap((a, i) => dims.slice(i + 1).map((b) => [a, b]))];
        for (let i = 0; i < 120; i++) {
          // Bounds from before the first file to after the last (a month without totals yet), or none.
          let from: string | undefined = r.chance(0.1) ? undefined : day("2025-08-01", "2026-06-30");
          let to: string | undefined = r.chance(0.1) ? undefined : day("2025-08-01", "2026-06-30");
          if (from && to && from > to) [from, to] = [to, from];
          const group_by = r.pick(groupings);
          const scope = r.pick(SCOPES);
          const body = { ...(from ? { file_date_from: from } : {}), ...(to ? { file_date_to: to } : {}), group_by };
          const parsed = parseSummaryRequest(kind, body);
          if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
          const request = parsed.request;
          if (rangePieces(request.file_date_from, request.file_date_to, request.group_by).some((piece) => piece.grain === "total")) throughTotals++;
          requests++;
          const query = summaryQuery(db.db, db.dialect, kind, request, visibleShops(request, scope));
          const { rows } = await db.db.executeQuery<Row>(query);
          const answer = writeSummary(kind, request.group_by, rows);
          expect(answer.ok && answer.json, JSON.stringify({ kind, body, scope })).toBe(modelSummary(kind, records[kind], body, scope));
        }
      }
      // A third of them read through the totals (a range of a few months or more, not by month).
      expect(throughTotals / requests).toBeGreaterThan(0.25);

      // The rebuild (every record of a kind at once) builds the same totals.
      const kept = await totalRows(db);
      await sql`delete from record_sums`.execute(db.db);
      for (const kind of ["chargeback", "pre_arbitration"] as const) await sumsInsert(db.dialect, kind).execute(db.db);
      await expectRecordSumsInStep(db);
      expect(await totalRows(db)).toEqual(kept);
    } finally {
      await db.close();
    }
  });
});
