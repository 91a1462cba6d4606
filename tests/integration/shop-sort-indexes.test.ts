import fs from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb, openDatabase } from "@/lib/data/db";
import { sqlRecordJson } from "@/lib/api/serialize";
import { searchRecords } from "@/lib/data/queries";
import { RECORD_TABLES } from "@/lib/data/schema";
import { generateDemoFiles } from "@/lib/demo/generate";
import type { RecordKind } from "@/lib/domain/fields";
import { importPaths } from "@/lib/import";
import { parseSearchRequest, SORT_KEY_COLUMNS, type SortKey } from "@/lib/schemas/search";
import { dropCreatedDatabases, PG_URL, postgresBackend, tempDir } from "../helpers/db";

/**
 * PostgreSQL (migration 011): a page for a few shops of many, in the order of a sort key whose
 * index does not start with the shop, is read from the per-shop index of that key (each shop's
 * entries, then the top of them) rather than by walking the key's index over every shop. Read off
 * PostgreSQL's own per-index scan counters after real searches through the data module; and each
 * page is the one a plain sort of the scope's records gives.
 */

const SHOPS = ["shop-0003", "shop-0017", "shop-0042"];
const PER_PAGE = 100;
const KEYS: SortKey[] = ["MERCHANT_ID", "ACQ_REF_NR", "PAYMENT_ORDER_NR"];
const short = (kind: RecordKind) => (kind === "chargeback" ? "cb" : "pa");

describe.skipIf(!PG_URL)("per-shop sort indexes on PostgreSQL", () => {
  let url: string;
  let dir: string;
  const previous = process.env.DATABASE_URL;

  beforeAll(async () => {
    url = await postgresBackend.create();
    dir = tempDir("disputes-shop-sort-");
    generateDemoFiles({ out: dir, seed: 5, chargebacks: 24_000, preArbitrations: 6_000, shops: 60, days: 40, everyDay: true, end: "2026-03-31" });
    const db = await openDatabase(url);
    try {
      const lines: string[] = [];
      const result = await importPaths(db, [dir], (line) => lines.push(line));
      expect(result.ok, lines.join("\n")).toBe(true);
    } finally {
      await db.close();
    }
    process.env.DATABASE_URL = url;
  }, 180_000);

  afterAll(async () => {
    await (await getDb().catch(() => undefined))?.close();
    process.env.DATABASE_URL = previous;
    fs.rmSync(dir, { recursive: true, force: true });
    await dropCreatedDatabases();
  });

  it("reads a page of three shops of sixty, 100 a page, from each sort key's per-shop index", { timeout: 120_000 }, async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const scans = async () => {
      await client.query("select pg_stat_clear_snapshot()");
      const { rows } = await client.query<{ name: string; scans: string }>("select indexrelname as name, idx_scan as scans from pg_stat_user_indexes");
      return new Map(rows.map((r) => [r.name, Number(r.scans)]));
    };
    try {
      const before = await scans();
      const expected: string[] = [];
      for (const kind of ["chargeback", "pre_arbitration"] as const) {
        const table = RECORD_TABLES[kind];
        for (const sortKey of KEYS) {
          const column = SORT_KEY_COLUMNS[sortKey];
          const parsed = parseSearchRequest(kind, { shop_codes: SHOPS, per_page: PER_PAGE, sortKey });
          if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
          const page = await searchRecords(kind, parsed.request, SHOPS);
          // The same page by a plain sort of the scope's records (NULL first, then bytewise, then id).
          const { rows } = await client.query<{ id: string; v: string | null }>(`select id, ${column} as v from ${table} where shop_code = any($1)`, [SHOPS]);
          const sorted = rows
            .map((r) => ({ id: Number(r.id), v: r.v }))
            .sort((a, b) => (a.v === b.v ? a.id - b.id : a.v === null ? -1 : b.v === null ? 1 : Buffer.compare(Buffer.from(a.v), Buffer.from(b.v))));
          expect(rows.length).toBeGreaterThan(PER_PAGE);
          expect(page.totalElements).toBe(rows.length);
          const top = sorted.slice(0, PER_PAGE).map((r) => r.id);
          const written = await client.query<{ id: string; j: string }>(`select id, ${sqlRecordJson("postgres", kind)} as j from ${table} where id = any($1)`, [top]);
          const byId = new Map(written.rows.map((r) => [Number(r.id), r.j]));
          expect(Buffer.from(page.content).toString("utf8")).toBe(`[${top.map((id) => byId.get(id)).join(",")}]`);
          expected.push(`ix_${short(kind)}_shop_${column}`);
        }
      }
      // PostgreSQL counts an index's scans when a backend reports its statistics (within seconds).
      let after = await scans();
      for (let waited = 0; waited < 20_000 && expected.some((name) => !((after.get(name) ?? 0) > (before.get(name) ?? 0))); waited += 250) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        after = await scans();
      }
      for (const name of expected) expect({ index: name, scanned: (after.get(name) ?? 0) > (before.get(name) ?? 0) }).toEqual({ index: name, scanned: true });
    } finally {
      await client.end();
    }
  });
});

