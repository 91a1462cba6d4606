import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/data/connection/db";
import { worklistPage } from "@/lib/data/queries/worklist";
import { addDays } from "@/lib/domain/calendar";
import { DEFAULT_DEADLINE_CONFIG, type DisputeStatus } from "@/lib/domain/deadlines";
import { DEMO_SHOPS, generateDemoFiles } from "@/lib/demo/generate";
import { parseWorklistRequest } from "@/lib/schemas/worklist";
import { runCli } from "../helpers/cli";
import { tempDir } from "../helpers/db";

/**
 * The demo shows every worklist status on the day it is run (docs/api.md, "Worklist"): disputes
 * due this week and later, overdue but still answerable, expired recently and long ago. A set
 * made on an earlier day is first brought up to today by `npm run demo`, as an acquirer's daily
 * files would, so the same holds a month later. Through the real command and the data module.
 */

const ALL_SHOPS = DEMO_SHOPS.map((s) => s.code);
const today = new Date().toISOString().slice(0, 10);

/** `date` itself, or the Friday before it when it falls on a weekend. */
function lastBusinessDay(date: string): string {
  const dow = new Date(`${date}T00:00:00Z`).getUTCDay();
  return (dow === 6 ? addDays(date, -1) : dow === 0 ? addDays(date, -2) : date)!;
}

/** The totals of the worklist on `today` for the sets of statuses and ranges a person looks at. */
async function statusCounts(asOf: string) {
  const total = async (body: Record<string, unknown>) => {
    const parsed = parseWorklistRequest({ ...body, as_of: asOf });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    return (await worklistPage(parsed.request, ALL_SHOPS, DEFAULT_DEADLINE_CONFIG)).totalElements;
  };
  const only = (status: DisputeStatus) => ({ statuses: [status] });
  return {
    dueThisWeek: await total({ ...only("due"), answer_by_to: addDays(asOf, 7) }),
    dueLater: await total({ ...only("due"), answer_by_from: addDays(asOf, 8) }),
    overdue: await total(only("overdue")),
    expiredRecently: await total({ ...only("expired"), expiry_from: addDays(asOf, -30), expiry_to: addDays(asOf, -1) }),
    expiredLongAgo: await total({ ...only("expired"), expiry_to: addDays(asOf, -31) }),
  };
}

describe("the demo on the day it is run", () => {
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = tempDir("disputes-demo-statuses-");
    file = path.join(dir, "demo.sqlite");
    // A demo set made 40 days ago, as `npm run demo -- --records 1400` wrote it then.
    const files = path.join(dir, "files");
    const made = generateDemoFiles({ out: files, seed: 42, chargebacks: 1200, preArbitrations: 200, end: addDays(today, -40), days: 120 });
    const manifest = { seed: 42, records: 1400, files: made.files.map((f) => path.basename(f)), end: made.end, serialEnd: made.serialEnd };
    fs.writeFileSync(path.join(files, "demo.json"), JSON.stringify(manifest));
    const run = await runCli("demo.ts", ["--no-serve", "--records", "1400"], { DATABASE_URL: `file:${file}`, DEMO_FILES_DIR: files, APP_SECRET: "", APP_KEY_FILE: "" });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`added \\d+ files of ${addDays(today, -39)} to ${today}`));
    process.env.DATABASE_URL = `file:${file}`;
  }, 180_000);

  afterAll(async () => {
    await (await getDb()).close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("has disputes of every status today, after catching up on the days since the set was made", async () => {
    const counts = await statusCounts(today);
    for (const [name, n] of Object.entries(counts)) expect(n, `${name}: ${JSON.stringify(counts)}`).toBeGreaterThan(0);
  });

  it("goes on with new payment ids and order numbers, and the manifest ends today", () => {
    const raw = new BetterSqlite3(file, { readonly: true });
    try {
      const [rows, distinct] = raw.prepare("select count(*), count(distinct payment_id) from chargebacks where rev_indicator is not 'R'").raw().get() as [number, number];
      expect(distinct).toBe(rows);
      // Chargeback files arrive on business days (lib/demo/generate.ts): on a weekend the latest is Friday's.
      expect(raw.prepare("select max(file_date) from chargebacks").pluck().get()).toBe(lastBusinessDay(today));
    } finally {
      raw.close();
    }
    expect(JSON.parse(fs.readFileSync(path.join(dir, "files", "demo.json"), "utf8")).end).toBe(today);
  });
});
