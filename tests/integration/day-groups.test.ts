import fs from "node:fs";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { dayGroupDims, dayGroupsRead, fromDayGroups } from "@/lib/data/aggregates/day-groups";
import { type Db, openDatabase } from "@/lib/data/connection/db";
import type { Row } from "@/lib/data/connection/read";
import { summaryQuery, writeSummary } from "@/lib/data/queries/summary";
import { generateDemoFiles } from "@/lib/demo/generate";
import type { RecordKind } from "@/lib/domain/fields";
import { parseSummaryRequest } from "@/lib/schemas/summary";
import { runCli } from "../helpers/cli";
import { backends, dropCreatedDatabases, tempDir } from "../helpers/db";
import { runAgain } from "../helpers/migrations";
import { expectDayGroupsInStep } from "../helpers/record-checks";

/**
 * Each day's groups kept for every shop (lib/data/aggregates/day-groups.ts, migration 019): a summary
 * grouped by the file date, alone or with a value dimension, for a scope of every shop, is read
 * from them; it must be the very text the summary writes from record_sums, for any range, after
 * files imported in any order, a second file of a day already there, and the migration's build.
 */

const KINDS: RecordKind[] = ["chargeback", "pre_arbitration"];
const START = "2026-01-19";
const END = "2026-03-06";

/** Demo files over START..END, and a second case file for some of their days (another bank's). */
function writeFiles(dir: string): string[] {
  generateDemoFiles({ out: dir, seed: 31, chargebacks: 1500, preArbitrations: 400, start: START, end: END });
  const second = path.join(dir, "second");
  generateDemoFiles({ out: second, seed: 32, chargebacks: 0, preArbitrations: 100, start: "2026-02-02", end: "2026-02-13" });
  for (const name of fs.readdirSync(second)) {
    if (name.startsWith("PREARB_")) fs.renameSync(path.join(second, name), path.join(dir, name.replace("PREARB_29_", "PREARB_77_")));
  }
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith(".csv"))
    .map((name) => path.join(dir, name));
}

/** A deterministic shuffle. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let a = seed;
  for (let i = out.length - 1; i > 0; i--) {
    a = (a * 1103515245 + 12345) % 2147483648;
    const j = a % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

async function importFiles(url: string, dir: string, files: readonly string[]): Promise<void> {
  const result = await runCli("import.ts", [...files], { DATABASE_URL: url, APP_KEY_FILE: path.join(dir, "app.key") });
  expect(result.code, result.stdout + result.stderr).toBe(0);
}

const everyShop = async (db: Db, kind: RecordKind) =>
  (await sql<{ shop_code: string }>`select shop_code from record_shops where kind = ${kind}`.execute(db.db)).rows.map((r) => r.shop_code);

/** The summary as the summary statement writes it from record_sums (or the records), and as read from the days kept. */
async function bothWays(db: Db, kind: RecordKind, body: Record<string, unknown>, shops: readonly string[]) {
  const parsed = parseSummaryRequest(kind, body);
  if (!parsed.ok) throw new Error(`bad request ${JSON.stringify(body)}`);
  const query = summaryQuery(db.db, db.dialect, kind, parsed.request, shops);
  const computed = writeSummary(kind, parsed.request.group_by, (await db.db.executeQuery<Row>(query)).rows);
  const read = dayGroupsRead(db.dialect, kind, parsed.request, shops);
  if (!read) throw new Error(`not a request of the days kept: ${JSON.stringify(body)}`);
  const kept = fromDayGroups((await read.execute(db.db)).rows);
  return { computed, kept };
}

/** Ranges of START..END and around it: open ends, one day, a day without files, none at all. */
const RANGES: { file_date_from?: string; file_date_to?: string }[] = [
  {},
  { file_date_from: START, file_date_to: END },
  { file_date_from: "2026-02-01" },
  { file_date_to: "2026-01-31" },
  { file_date_from: "2026-02-05", file_date_to: "2026-02-05" },
  { file_date_from: "2026-02-07", file_date_to: "2026-02-08" },
  { file_date_from: "2026-02-03", file_date_to: "2026-03-04" },
  { file_date_from: "2027-01-01" },
];

describe.each(backends)("each day's groups kept, on $name", (backend) => {
  afterAll(async () => {
    await dropCreatedDatabases();
  });

  it("are the summary's own text for every range and dimension, after files imported in any order, and 019 builds them alike", async () => {
    const url = await backend.create();
    const dir = tempDir("disputes-day-groups-");
    const files = shuffled(writeFiles(path.join(dir, "files")), 5);
    // Three commands, in an order that puts later days before earlier ones and the second case file of a day after the first.
    const third = Math.ceil(files.length / 3);
    for (let i = 0; i < files.length; i += third) await importFiles(url, dir, files.slice(i, i + third));
    let db = await openDatabase(url);
    try {
      await expectDayGroupsInStep(db);
      for (const kind of KINDS) {
        const shops = await everyShop(db, kind);
        for (const dim of dayGroupDims(kind)) {
          for (const range of RANGES) {
            const body = { ...range, group_by: dim ? ["file_date", dim] : ["file_date"] };
            const { computed, kept } = await bothWays(db, kind, body, shops);
            expect(kept, JSON.stringify(body)).toBeDefined();
            expect(kept!.tooMany).toBe(false);
            const json = `{"groups":[${kept!.groups.join(",")}],"totalElements":${kept!.total}}`;
            expect(computed.ok && computed.json, `${kind} ${JSON.stringify(body)}`).toBe(json);
          }
        }
        // A scope without every shop is not read from the days kept: the statement says so.
        const { kept } = await bothWays(db, kind, { group_by: ["file_date"] }, shops.slice(1));
        expect(kept).toBeUndefined();
      }
      // Migration 019 builds the same rows for the days already there.
      const all = async () => (await sql<Record<string, unknown>>`select * from record_day_groups order by kind, dim, period`.execute(db.db)).rows.map((r) => JSON.stringify(Object.values(r).map(String)));
      const kept = await all();
      expect(kept.length).toBeGreaterThan(150);
      db = await runAgain(db, url, "019_record_day_groups", async () => {
        await sql`drop table record_day_groups`.execute(db.db);
      });
      expect(await all()).toEqual(kept);
    } finally {
      await db.close();
    }
  });
});
