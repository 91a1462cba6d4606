import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDatabase } from "@/lib/data/connection/db";
import { formatMinor } from "@/lib/domain/money";
import { writeFixture, type Fixture } from "../api/fixture";
import { runCli } from "../helpers/cli";
import { type Backend, backends, dropCreatedDatabases, sqliteBackend, tempDir } from "../helpers/db";

/**
 * The same acquirer files loaded into two databases read back identically: SQLite against
 * PostgreSQL when TEST_DATABASE_URL is set, else two separate SQLite files (so this always runs).
 */

type Value = string | number | null;
type Rows = Record<string, Value>[];

interface Dump {
  chargebacks: Rows;
  pre_arbitrations: Rows;
  imported_files: Rows;
}

/** Both drivers hand back numbers for BIGINT here; anything else is normalised to compare equal. */
function normalise(row: Record<string, unknown>): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const key of Object.keys(row).sort()) {
    const v = row[key];
    if (v === null || v === undefined) out[key] = null;
    else if (typeof v === "bigint") out[key] = Number(v);
    else if (typeof v === "number" || typeof v === "string") out[key] = v;
    else throw new Error(`unexpected ${typeof v} in column ${key}`);
  }
  return out;
}

async function dump(db: Db): Promise<Dump> {
  const chargebacks = await db.db.selectFrom("chargebacks").selectAll().orderBy("id").execute();
  const pre = await db.db.selectFrom("pre_arbitrations").selectAll().orderBy("id").execute();
  const files = await db.db.selectFrom("imported_files").select(["id", "name", "sha256", "kind", "record_count"]).orderBy("id").execute();
  return {
    chargebacks: chargebacks.map((r) => normalise(r)),
    pre_arbitrations: pre.map((r) => normalise(r)),
    imported_files: files.map((r) => normalise(r)),
  };
}

const pairs: [Backend, Backend] = backends.length > 1 ? [backends[0], backends[1]] : [sqliteBackend, sqliteBackend];

describe(`the same files read back identically from ${pairs[0].name} and ${pairs[1].name}`, () => {
  let fixture: Fixture;
  const dumps: Dump[] = [];

  beforeAll(async () => {
    const dir = tempDir("disputes-roundtrip-");
    fixture = writeFixture(path.join(dir, "files"));
    const urls = await Promise.all(pairs.map((b) => b.create()));
    expect(new Set(urls).size).toBe(2);
    const results = await Promise.all(urls.map((url, i) => runCli("import.ts", fixture.files, { DATABASE_URL: url, APP_KEY_FILE: path.join(dir, `app-${i}.key`) })));
    for (const r of results) expect(r.code, r.stdout + r.stderr).toBe(0);
    for (const url of urls) {
      const db = await openDatabase(url);
      try {
        dumps.push(await dump(db));
      } finally {
        await db.close();
      }
    }
  });
  afterAll(async () => {
    await dropCreatedDatabases();
  });

  it("loads every record of the fixture into both", () => {
    for (const d of dumps) {
      expect(d.chargebacks).toHaveLength(fixture.records.chargeback.length);
      expect(d.pre_arbitrations).toHaveLength(fixture.records.pre_arbitration.length);
      expect(d.imported_files.map((f) => f.name)).toEqual(fixture.files.map((f) => path.basename(f)));
    }
    expect(dumps[0].chargebacks.length).toBeGreaterThan(100);
  });

  it("stores the fixture's values (ids, shops, exact amounts, file dates)", () => {
    for (const d of dumps) {
      d.chargebacks.forEach((row, i) => {
        const model = fixture.records.chargeback[i];
        expect(row.id).toBe(model.__id);
        expect(row.shop_code).toBe(model.__shop);
        expect(row.payment_id).toBe(model.payment_id);
        expect(row.file_date).toBe(model.file_date);
        expect(formatMinor(row.chb_amount as number)).toBe(model.chb_amount);
        expect(row.tr_amount === null ? null : formatMinor(row.tr_amount)).toBe(model.tr_amount);
        expect(row.comments).toBe(model.comments);
        expect(row.chb_tr_date).toBe(model.chb_tr_date);
      });
      d.pre_arbitrations.forEach((row, i) => {
        const model = fixture.records.pre_arbitration[i];
        expect(row.id).toBe(model.__id);
        expect(row.bank_id).toBe(model.bank_id);
        expect(formatMinor(row.amount as number)).toBe(model.amount);
        expect(row.fdl_comments).toBe(model.fdl_comments);
      });
    }
  });

  it("has identical chargebacks", () => {
    expect(dumps[1].chargebacks).toEqual(dumps[0].chargebacks);
  });

  it("has identical pre-arbitrations", () => {
    expect(dumps[1].pre_arbitrations).toEqual(dumps[0].pre_arbitrations);
  });

  it("has identical imported_files (apart from imported_at)", () => {
    expect(dumps[1].imported_files).toEqual(dumps[0].imported_files);
  });

  it("keeps numbers as numbers on both backends", () => {
    for (const d of dumps) {
      const row = d.chargebacks[0];
      for (const key of ["id", "file_id", "reason_code", "function_code", "chb_amount"]) expect(typeof row[key], key).toBe("number");
      expect(typeof d.imported_files[0].record_count).toBe("number");
    }
  });
});
