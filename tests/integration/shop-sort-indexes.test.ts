import fs from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/data/connection/db";
import { sqlRecordJson } from "@/lib/data/connection/record-json";
import { searchRecords } from "@/lib/data/queries/search";
import { RECORD_TABLES } from "@/lib/data/connection/schema";
import { generateDemoFiles } from "@/lib/demo/generate";
import type { RecordKind } from "@/lib/domain/fields";
import { parseSearchRequest, SORT_KEY_COLUMNS, SORT_KEYS, type SortKey } from "@/lib/schemas/search";
import { dropCreatedDatabases, PG_URL, postgresBackend, tempDir } from "../helpers/db";
import { importInto } from "../helpers/import-folder";

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
    await importInto(url, [dir]);
    process.env.DATABASE_URL = url;
  }, 180_000);

  afterAll(async () => {
    await (await getDb().catch(() => undefined))?.close();
    process.env.DATABASE_URL = previous;
    fs.rmSync(dir, { recursive: true, force: true });
    await dropCreatedDatabases();
  });

  /** Asks the data module for a page and requires the page a plain sort of the scope's records gives. */
  async function expectModelPage(client: pg.Client, kind: RecordKind, body: Record<string, unknown>, shops: string[]): Promise<number> {
    const parsed = parseSearchRequest(kind, { shop_codes: shops, ...body });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const request = parsed.request;
    const column = SORT_KEY_COLUMNS[request.sortKey];
    const table = RECORD_TABLES[kind];
    const result = await searchRecords(kind, request, shops);
    const { rows } = await client.query<{ id: string; v: string | null }>(
      `select id, ${column}::text as v from ${table} where shop_code = any($1) and ($2::text is null or file_date >= $2) and ($3::text is null or file_date <= $3)`,
      [shops, request.file_date_from ?? null, request.file_date_to ?? null],
    );
    // NULL first, then bytewise (ids as numbers), then id; descending is the whole order reversed.
    const value = (v: string | null) => (column === "id" ? Number(v) : v);
    const ascending = rows
      .map((r) => ({ id: Number(r.id), v: value(r.v) }))
      .sort((a, b) =>
        a.v === b.v ? a.id - b.id : a.v === null ? -1 : b.v === null ? 1 : typeof a.v === "number" ? a.v - (b.v as number) : Buffer.compare(Buffer.from(a.v), Buffer.from(b.v as string)),
      );
    const ordered = request.sortOrder === "desc" ? ascending.reverse() : ascending;
    const ids = ordered.slice(request.page * request.per_page, (request.page + 1) * request.per_page).map((r) => r.id);
    const written = await client.query<{ id: string; j: string }>(`select id, ${sqlRecordJson("postgres", kind)} as j from ${table} where id = any($1)`, [ids]);
    const byId = new Map(written.rows.map((r) => [Number(r.id), r.j]));
    expect(result.totalElements, JSON.stringify(body)).toBe(rows.length);
    expect(Buffer.from(result.content).toString("utf8"), JSON.stringify({ kind, shops, ...body })).toBe(`[${ids.map((id) => byId.get(id)).join(",")}]`);
    return rows.length;
  }

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
        for (const sortKey of KEYS) {
          expect(await expectModelPage(client, kind, { per_page: PER_PAGE, sortKey }, SHOPS)).toBeGreaterThan(PER_PAGE);
          expected.push(`ix_${short(kind)}_shop_${SORT_KEY_COLUMNS[sortKey]}`);
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

  it("gives the model's page for 1 to 10 shops, every sort key and order, deep pages and file-date bounds", { timeout: 120_000 }, async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const all = Array.from({ length: 60 }, (_, i) => `shop-${String(i + 1).padStart(4, "0")}`);
      let n = 0;
      for (const kind of ["chargeback", "pre_arbitration"] as const) {
        for (const count of [1, 2, 3, 5, 8, 9, 10]) {
          // The shops a request names, with one named twice, and one without records of the kind.
          const shops = [...all.slice(count, 2 * count), ...(count >= 3 ? [all[count], "shop-9999"] : [])];
          for (const sortKey of SORT_KEYS[kind]) {
            for (const [i, sortOrder] of (["asc", "desc"] as const).entries()) {
              const bounds = (n + i) % 3 === 0 ? { file_date_from: "2026-03-05", file_date_to: "2026-03-20" } : (n + i) % 3 === 1 ? { file_date_to: "2026-03-10" } : {};
              for (const [page, per_page] of [[0, 10], [3, 25], [1, 100], [40, 10]]) {
                await expectModelPage(client, kind, { sortKey, sortOrder, page, per_page, ...bounds }, shops);
                n++;
              }
            }
          }
        }
      }
      expect(n).toBeGreaterThan(500);
    } finally {
      await client.end();
    }
  });
});
