import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/data/connection/db";
import { RECORD_JSON_TABLES } from "@/lib/data/connection/schema";
import { importColumns } from "@/lib/domain/fields";
import { importPaths } from "@/lib/import";
import { dropCreatedDatabases, PG_URL, postgresBackend, sqliteBackend, tempDir } from "../helpers/db";
import { MINIMAL_ROW } from "../helpers/import-rows";

/**
 * What an import leaves behind for the reads after it (docs/performance.md, "After an import"):
 * SQLite's log copied back and truncated, PostgreSQL's checkpoint done or skipped for a reason,
 * and every table the import filled vacuumed and analysed.
 */

afterAll(() => dropCreatedDatabases());

function chargebackFile(dir: string, day: string, n: number): string {
  const columns = importColumns("chargeback");
  const lines = [columns.join(",")];
  for (let i = 0; i < n; i++) {
    const row: Record<string, string> = { ...MINIMAL_ROW.chargeback, payment_id: `P-${day}-${i}`, acq_ref_nr: `ARN-${day}-${i}`, chb_proc_date: "2026-01-02" };
    lines.push(columns.map((c) => row[c] ?? "").join(","));
  }
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `CHB_${day}.csv`);
  fs.writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

describe("after an import on SQLite", () => {
  it("leaves an empty log, even while another connection is open", async () => {
    const url = await sqliteBackend.create();
    const file = url.slice("file:".length);
    const db = await openDatabase(url);
    // Another connection (as a server's) keeps the log from being removed when the import closes.
    const other = new BetterSqlite3(file, { readonly: true });
    try {
      const r = await importPaths(db, [chargebackFile(tempDir(), "20260102", 500)], () => {});
      expect(r.ok).toBe(true);
      expect(r.checkpoint).toEqual({ done: true, note: "log copied back and truncated" });
      expect(fs.statSync(`${file}-wal`).size).toBe(0);
      expect(other.prepare("select count(*) as n from chargebacks").get()).toEqual({ n: 500 });
    } finally {
      other.close();
      await db.close();
    }
  });

  it("does not wait for a reader that holds an older snapshot, and says so", async () => {
    const url = await sqliteBackend.create();
    const file = url.slice("file:".length);
    const db = await openDatabase(url);
    const reader = new BetterSqlite3(file, { readonly: true });
    try {
      reader.exec("begin");
      reader.prepare("select count(*) from chargebacks").get();
      const started = Date.now();
      const r = await importPaths(db, [chargebackFile(tempDir(), "20260102", 50)], () => {});
      expect(Date.now() - started).toBeLessThan(5000);
      expect(r.ok).toBe(true);
      expect(r.checkpoint?.done).toBe(false);
      expect(r.checkpoint?.note).toMatch(/^a reader held an older snapshot: \d+ of \d+ log frames copied back$/);
      expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(0);
      reader.exec("commit");
    } finally {
      reader.close();
      await db.close();
    }
  });

  it("does nothing when no file was imported", async () => {
    const url = await sqliteBackend.create();
    const db = await openDatabase(url);
    try {
      const r = await importPaths(db, [path.join(tempDir(), "CHB_20260102.csv")], () => {});
      expect(r.ok).toBe(false);
      expect(r.checkpoint).toBeUndefined();
    } finally {
      await db.close();
    }
  });
});

describe.skipIf(!PG_URL)("after an import on PostgreSQL", () => {
  it("checkpoints when the role may, else says why not; vacuums and analyses the records' JSON too", async () => {
    const url = await postgresBackend.create();
    const db = await openDatabase(url);
    try {
      const r = await importPaths(db, [chargebackFile(tempDir(), "20260102", 500)], () => {});
      expect(r.ok).toBe(true);
      const may = await sql<{ may: boolean }>`select rolsuper or exists (select 1 from pg_roles g where g.rolname = 'pg_checkpoint' and pg_has_role(current_user, g.oid, 'usage')) as may from pg_roles where rolname = current_user`.execute(db.db);
      if (may.rows[0].may) expect(r.checkpoint).toEqual({ done: true, note: "checkpoint" });
      else expect(r.checkpoint).toEqual({ done: false, note: expect.stringMatching(/^skipped: .*(superuser|pg_checkpoint)/) });
      const stats = await sql<{ relname: string; vacuumed: boolean; analysed: boolean }>`
        select relname, last_vacuum is not null as vacuumed, last_analyze is not null as analysed from pg_stat_user_tables
        where relname in (${RECORD_JSON_TABLES.chargeback}, 'chargebacks') order by relname`.execute(db.db);
      expect(stats.rows).toEqual([
        { relname: "chargebacks", vacuumed: true, analysed: true },
        { relname: RECORD_JSON_TABLES.chargeback, vacuumed: true, analysed: true },
      ]);
    } finally {
      await db.close();
    }
  });
});
