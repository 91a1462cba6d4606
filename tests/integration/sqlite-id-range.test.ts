import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqlRecordJson } from "@/lib/data/connection/record-json";
import { type Db, openDatabase } from "@/lib/data/connection/db";
import { sqlitePage } from "@/lib/data/queries/pages-sqlite";
import { VERSION_STATEMENT, versionKey } from "@/lib/data/connection/read";
import { generateDemoFiles } from "@/lib/demo/generate";
import { parseSearchRequest } from "@/lib/schemas/search";
import { tempDir } from "../helpers/db";
import { importInto } from "../helpers/import-folder";

/**
 * SQLite: a page in id order over a scope that holds every record is a range of ids, computed
 * from counts read in an earlier snapshot (lib/data/queries/pages-sqlite.ts sqlitePage). It must be the page a
 * plain sort gives, and when an import commits between the counts and the page, the reader thread
 * must run the walk instead: the range computed before would show the previous version's page.
 */

describe("pages as ranges of ids on SQLite", () => {
  let dir: string;
  let file: string;
  let db: Db;
  let shops: string[];

  const importDir = (out: string) => importInto(`file:${file}`, [out]);

  beforeAll(async () => {
    dir = tempDir("disputes-id-range-");
    file = path.join(dir, "d.sqlite");
    generateDemoFiles({ out: path.join(dir, "first"), seed: 3, chargebacks: 600, preArbitrations: 100, shops: 6, days: 10, everyDay: true, end: "2026-03-10" });
    await importDir(path.join(dir, "first"));
    const raw = new BetterSqlite3(file, { readonly: true });
    shops = (raw.prepare("select distinct shop_code from chargebacks order by 1").pluck().all() as string[]);
    raw.close();
    db = await openDatabase(`file:${file}`, { readers: 1 });
  }, 120_000);

  afterAll(async () => {
    await db?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The page of the scope's chargebacks in id order, as the API writes it, from a plain query. */
  function modelPage(order: "asc" | "desc", page: number, perPage: number): string {
    const raw = new BetterSqlite3(file, { readonly: true });
    try {
      const rows = raw
        .prepare(`select ${sqlRecordJson("sqlite", "chargeback")} as j from chargebacks where shop_code in (select value from json_each(?)) order by id ${order} limit ? offset ?`)
        .pluck()
        .all(JSON.stringify(shops), perPage, page * perPage) as string[];
      return `[${rows.join(",")}]`;
    } finally {
      raw.close();
    }
  }

  const records = () => {
    const raw = new BetterSqlite3(file, { readonly: true });
    try {
      return raw.prepare("select count(*) from chargebacks").pluck().get() as number;
    } finally {
      raw.close();
    }
  };

  const request = (order: "asc" | "desc", page: number, perPage: number) => {
    const parsed = parseSearchRequest("chargeback", { sortOrder: order, page, per_page: perPage });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    return parsed.request;
  };

  const text = (bytes: unknown) => Buffer.from(bytes as Uint8Array).toString("utf8");

  it("answers the page a plain sort gives, in both orders and on the last, partial page", async () => {
    const [version] = await db.read([VERSION_STATEMENT]);
    const n = records();
    expect(n).toBeGreaterThan(500);
    for (const order of ["asc", "desc"] as const) {
      for (const [page, perPage] of [[0, 10], [3, 13], [Math.floor(n / 11), 11], [Math.floor(n / 11) + 1, 11]]) {
        const statement = sqlitePage(db.db, "chargeback", request(order, page, perPage), shops, "walkEvery", { version: versionKey(version), records: n });
        // The range was chosen (the walk is only its fallback).
        expect(statement.onlyAt?.version).toBe(versionKey(version));
        const [, content] = await db.read([VERSION_STATEMENT, statement]);
        expect(text(content), JSON.stringify({ order, page, perPage })).toBe(modelPage(order, page, perPage));
      }
    }
  });

  it("walks instead when an import committed after the counts were read", async () => {
    const [version] = await db.read([VERSION_STATEMENT]);
    const n = records();
    const statements = (["asc", "desc"] as const).map((order) => ({
      order,
      statement: sqlitePage(db.db, "chargeback", request(order, 0, 10), shops, "walkEvery", { version: versionKey(version), records: n }),
    }));
    generateDemoFiles({ out: path.join(dir, "later"), seed: 4, chargebacks: 60, preArbitrations: 0, shops: 6, days: 2, everyDay: true, end: "2026-03-12" });
    await importDir(path.join(dir, "later"));
    expect(records()).toBeGreaterThan(n);
    for (const { order, statement } of statements) {
      const [, content] = await db.read([VERSION_STATEMENT, statement]);
      // Descending, the new records come first: the range found before would miss them.
      expect(text(content), order).toBe(modelPage(order, 0, 10));
    }
  });
});
