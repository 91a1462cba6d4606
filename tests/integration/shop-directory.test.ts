import fs from "node:fs";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { type Db, getDb, openDatabase } from "@/lib/data/connection/db";
import { shopDirectory } from "@/lib/data/aggregates/shop-directory";
import { importColumns, type RecordKind } from "@/lib/domain/fields";
import { importPaths } from "@/lib/import";
import { backends, dropCreatedDatabases, tempDir } from "../helpers/db";
import { MINIMAL_ROW } from "../helpers/import-rows";
import { databaseWithFixture, runAgain } from "../helpers/migrations";

/**
 * The shop directory (docs/api.md, "Shop directory"; migration 013, lib/data/aggregates/shop-directory.ts)
 * on each backend, against a model worked out here from the rows the test writes: per shop, the
 * merchant of its last row in its latest file of either kind, the parent of its last row in its
 * latest chargeback file, "latest" being the greatest (file date, import order). Files arrive in
 * groups and one by one, late and refused; then the directory is dropped and migration 013 builds
 * it again from the records alone.
 */

interface Cells {
  shop: string;
  merchant: string;
  name?: string;
  parent?: string;
  parentName?: string;
}

interface File {
  kind: RecordKind;
  name: string;
  fileDate: string;
  rows: Cells[];
  /** a row the import refuses: the whole file is refused */
  broken?: true;
}

const quote = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);

function write(dir: string, file: File): string {
  const columns = importColumns(file.kind);
  const lines = [columns.join(",")];
  file.rows.forEach((r, i) => {
    const cells: Record<string, string> = {
      ...MINIMAL_ROW[file.kind],
      shop_code: r.shop,
      acq_ref_nr: `ARN-${file.name}-${i}`,
      merchant_id: r.merchant,
      merchant_name: r.name ?? "",
      ...(file.kind === "chargeback" ? { parent_mrch_id: r.parent ?? "", parent_mrch_name: r.parentName ?? "" } : {}),
      ...(file.broken && i === file.rows.length - 1 ? { card: "5123451234561234" } : {}),
    };
    lines.push(columns.map((c) => quote(cells[c] ?? "")).join(","));
  });
  const target = path.join(dir, file.name);
  fs.writeFileSync(target, lines.join("\n") + "\n");
  return target;
}

const chb = (date: string, rows: Cells[], broken?: true): File => ({ kind: "chargeback", name: `CHB_${date.replaceAll("-", "")}.csv`, fileDate: date, rows, broken });
const prearb = (bank: string, date: string, rows: Cells[]): File => ({ kind: "pre_arbitration", name: `PREARB_${bank}_${date.replaceAll("-", "")}.csv`, fileDate: date, rows });

/** Import steps, each one command run (one group of files); the order is the import order. */
const STEPS: File[][] = [
  [
    chb("2026-01-10", [
      { shop: "S1", merchant: "M1", name: "Alpha", parent: "P1", parentName: "Parent One" },
      { shop: "S2", merchant: "M2", name: "Beta", parent: "P2", parentName: "Parent Two" },
      // Within one file the shop's last row speaks for it.
      { shop: "S1", merchant: "M1", name: "Alpha Ltd", parent: "P1", parentName: "Parent One" },
      { shop: "S3", merchant: "M3", name: "Gamma" },
      { shop: "Zeta", merchant: "MZ", name: "Zeta, \"Inc.\"", parent: "PZ" },
      { shop: "alpha", merchant: "Ma", name: "lower" },
      { shop: "Älpha", merchant: "Mä", name: "Ünïcode" },
    ]),
    // The merchant name changes between files; the parent too.
    chb("2026-01-15", [{ shop: "S1", merchant: "M1", name: "Alpha Renamed", parent: "P9", parentName: "Parent Nine" }]),
  ],
  [
    // A case changes the merchant (newer file), never the parent; a shop only with cases has none.
    prearb("B1", "2026-01-20", [
      { shop: "S1", merchant: "M1", name: "Alpha from a case" },
      { shop: "S4", merchant: "M4", name: "Delta" },
    ]),
  ],
  [
    // An older file imported late changes nothing its newer files said; a shop new to it is added.
    chb("2026-01-05", [
      { shop: "S1", merchant: "M0", name: "Old Alpha", parent: "P0", parentName: "Old Parent" },
      { shop: "S2", merchant: "M2", name: "Old Beta", parent: "P0" },
      { shop: "S5", merchant: "M5", name: "Epsilon", parent: "P5", parentName: "Parent Five" },
    ]),
    // Same date as the first chargeback file, imported later: later (greater file id), so it wins the merchant.
    prearb("B2", "2026-01-10", [{ shop: "S2", merchant: "M2b", name: "Beta from a case" }]),
    // An older case: the shop's chargeback of 01-10 stays its merchant.
    prearb("B1", "2026-01-01", [{ shop: "S3", merchant: "M3x", name: "Gamma old case" }]),
    // A chargeback file after a case of the same shop: parent added, merchant replaced.
    chb("2026-01-25", [{ shop: "S4", merchant: "M4", name: "Delta again", parent: "P4", parentName: "Parent Four" }]),
  ],
  [
    // Refused: nothing of it anywhere.
    chb("2026-02-01", [
      { shop: "S2", merchant: "M2", name: "Refused Beta", parent: "PX" },
      { shop: "S6", merchant: "M6", name: "Refused shop" },
    ], true),
  ],
  [
    // A later chargeback with empty names and no parent: the latest file wins, empty as it is.
    chb("2026-02-02", [{ shop: "S5", merchant: "M5" }]),
  ],
];

interface Entry {
  shop_code: string;
  merchant_id: string | null;
  merchant_name: string | null;
  parent_merchant_id: string | null;
  parent_merchant_name: string | null;
}

/** The model: per shop the greatest (file date, import order) file, its last row; the parent from chargeback files only. */
function model(): Map<string, Entry> {
  const merchant = new Map<string, { at: [string, number]; row: Cells }>();
  const parent = new Map<string, { at: [string, number]; row: Cells }>();
  const later = (a: [string, number], b: [string, number]) => a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);
  let order = 0;
  for (const file of STEPS.flat()) {
    order++;
    if (file.broken) continue;
    const at: [string, number] = [file.fileDate, order];
    for (const row of file.rows) {
      // Rows in file order: a later row of the same file replaces an earlier one.
      const m = merchant.get(row.shop);
      if (!m || !later(m.at, at)) merchant.set(row.shop, { at, row });
      const p = parent.get(row.shop);
      if (file.kind === "chargeback" && (!p || !later(p.at, at))) parent.set(row.shop, { at, row });
    }
  }
  const out = new Map<string, Entry>();
  for (const [shop, { row }] of merchant) {
    const p = parent.get(shop)?.row;
    out.set(shop, {
      shop_code: shop,
      merchant_id: row.merchant,
      merchant_name: row.name || null,
      parent_merchant_id: p?.parent || null,
      parent_merchant_name: p?.parentName || null,
    });
  }
  return out;
}

const bytewise = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

async function directoryRows(db: Db): Promise<Entry[]> {
  const rows = await db.db.selectFrom("shop_directory").select(["shop_code", "merchant_id", "merchant_name", "parent_merchant_id", "parent_merchant_name"]).execute();
  return rows.sort((a, b) => bytewise(a.shop_code, b.shop_code));
}

/** Every column, for comparing a directory before and after (file dates and ids included). */
async function fullRows(db: Db): Promise<string[]> {
  const rows = await db.db.selectFrom("shop_directory").selectAll().execute();
  return rows.map((r) => JSON.stringify(Object.values(r).map((v) => (v === null ? null : String(v))))).sort();
}

const forgetServerDb = () => {
  (globalThis as { __disputesDb?: unknown }).__disputesDb = undefined;
};

describe.each(backends)("shop directory on $name", (backend) => {
  const previousUrl = process.env.DATABASE_URL;

  afterAll(async () => {
    await (await getDb().catch(() => undefined))?.close();
    forgetServerDb();
    process.env.DATABASE_URL = previousUrl;
    await dropCreatedDatabases();
  });

  it("keeps per shop the merchant and parent of its latest file, through the import and migration 013", { timeout: 120_000 }, async () => {
    const url = await backend.create();
    const dir = tempDir("disputes-shop-directory-");
    let db = await openDatabase(url);
    try {
      for (const step of STEPS) {
        const before = await fullRows(db);
        const lines: string[] = [];
        const result = await importPaths(db, step.map((file) => write(dir, file)), (line) => lines.push(line));
        const refused = step.some((file) => file.broken);
        expect(result.ok, lines.join("\n")).toBe(!refused);
        if (refused) expect(await fullRows(db), "a refused file changes nothing").toEqual(before);
      }
      const expected = [...model().values()].sort((a, b) => bytewise(a.shop_code, b.shop_code));
      expect(expected.find((e) => e.shop_code === "S1")).toEqual({
        shop_code: "S1", merchant_id: "M1", merchant_name: "Alpha from a case", parent_merchant_id: "P9", parent_merchant_name: "Parent Nine",
      });
      expect(expected.some((e) => e.shop_code === "S6")).toBe(false);
      expect(await directoryRows(db)).toEqual(expected);

      // Through the server's read path: the access list's shops in bytewise order, nulls for one without records.
      process.env.DATABASE_URL = url;
      forgetServerDb();
      const access = ["S5", "ghost-shop", "Älpha", "S1", "alpha", "Zeta", "S6", "S4", "S1"];
      const entries = await shopDirectory(access);
      const none = (shop: string): Entry => ({ shop_code: shop, merchant_id: null, merchant_name: null, parent_merchant_id: null, parent_merchant_name: null });
      const byShop = model();
      expect(entries).toEqual([...new Set(access)].sort(bytewise).map((shop) => byShop.get(shop) ?? none(shop)));
      expect(entries.map((e) => e.shop_code)).toEqual(["S1", "S4", "S5", "S6", "Zeta", "alpha", "ghost-shop", "Älpha"]);
      expect(await shopDirectory([])).toEqual([]);
      await (await getDb()).close();
      forgetServerDb();

      // A database whose records came before migration 013: the migration builds the same directory.
      const kept = await fullRows(db);
      db = await runAgain(db, url, "013_shop_directory", async () => {
        await sql`drop table shop_directory`.execute(db.db);
      });
      expect(await fullRows(db)).toEqual(kept);
      expect(await directoryRows(db)).toEqual(expected);
    } finally {
      await db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("builds, in migration 013, what the import kept for the API fixture's history", async () => {
    const url = await databaseWithFixture(backend);
    let db = await openDatabase(url);
    try {
      const kept = await fullRows(db);
      const shops = await sql<{ shop_code: string }>`select shop_code from chargebacks union select shop_code from pre_arbitrations`.execute(db.db);
      expect(kept.length).toBe(shops.rows.length);
      db = await runAgain(db, url, "013_shop_directory", async () => {
        await sql`drop table shop_directory`.execute(db.db);
      });
      expect(await fullRows(db)).toEqual(kept);
    } finally {
      await db.close();
    }
  });
});
