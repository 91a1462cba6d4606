import fs from "node:fs";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/data/connection/db";
import { backends, dropCreatedDatabases } from "../helpers/db";

/**
 * The migrations are frozen (lib/data/migrations/): the schema a fresh database gets from them is
 * the one in schema-snapshot.json, byte for byte, so a change to today's code moves no old
 * migration. The snapshot was taken from the migrations before they were split into files; to
 * take it again on purpose, run this file with UPDATE_SCHEMA_SNAPSHOT=1.
 */

const SNAPSHOT = path.join(import.meta.dirname, "schema-snapshot.json");

type Snapshot = Record<string, unknown>;

const read = (): Snapshot => (fs.existsSync(SNAPSHOT) ? (JSON.parse(fs.readFileSync(SNAPSHOT, "utf8")) as Snapshot) : {});

async function schemaOf(url: string, backend: "sqlite" | "postgres"): Promise<unknown> {
  const db = await openDatabase(url);
  try {
    const migrations = (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db.db)).rows.map((r) => r.name);
    if (backend === "sqlite") {
      const master = async (schema: "main" | "state") =>
        (await sql`select type, name, tbl_name, sql from ${sql.raw(schema)}.sqlite_master order by name`.execute(db.db)).rows;
      return { migrations, main: await master("main"), state: await master("state") };
    }
    const columns = (
      await sql`select table_name, ordinal_position, column_name, data_type, collation_name, is_nullable, column_default
        from information_schema.columns where table_schema = 'public' order by table_name, ordinal_position`.execute(db.db)
    ).rows;
    const indexes = (await sql`select tablename, indexname, indexdef from pg_indexes where schemaname = 'public' order by tablename, indexname`.execute(db.db)).rows;
    const constraints = (
      await sql`select t.relname as table_name, c.conname as name, pg_get_constraintdef(c.oid) as definition
        from pg_constraint c join pg_class t on t.oid = c.conrelid join pg_namespace n on n.oid = t.relnamespace
        where n.nspname = 'public' order by t.relname, c.conname`.execute(db.db)
    ).rows;
    return { migrations, columns, indexes, constraints };
  } finally {
    await db.close();
  }
}

describe.each(backends)("the schema of a fresh $name database", (backend) => {
  afterAll(async () => {
    await dropCreatedDatabases();
  });

  it("is the committed snapshot", async () => {
    const schema = await schemaOf(await backend.create(), backend.name);
    if (process.env.UPDATE_SCHEMA_SNAPSHOT === "1") {
      fs.writeFileSync(SNAPSHOT, JSON.stringify({ ...read(), [backend.name]: schema }, null, 2) + "\n");
    }
    expect(schema).toEqual(read()[backend.name]);
  });
});
