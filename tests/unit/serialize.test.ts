import fc from "fast-check";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { pageJson } from "@/lib/api/serialize";
import { jsonArrayBytes, recordJson, sqlRecordJson } from "@/lib/data/connection/record-json";
import { openDatabase } from "@/lib/data/connection/db";
import { RECORD_TABLES } from "@/lib/data/connection/schema";
import { type FieldDef, FIELDS_BY_KIND, PRE_ARBITRATION_FIELDS, RECORD_KINDS } from "@/lib/domain/fields";
import { MAX_MINOR_UNITS } from "@/lib/domain/money";
import { backends, dropCreatedDatabases } from "../helpers/db";

describe("page serialization", () => {
  it("writes amounts as numbers with two decimals and every field, null where empty", () => {
    const row: Record<string, unknown> = { bank_id: "31", file_date: "2026-01-02", amount: 12050, ccy: "EUR", merchant_decision: null };
    const text = pageJson("pre_arbitration", [row], 1, 1);
    expect(text).toContain('"amount":120.50');
    const parsed = JSON.parse(text);
    expect(Object.keys(parsed.content[0])).toEqual(PRE_ARBITRATION_FIELDS.map((f) => f.name));
    expect(parsed.content[0].card).toBeNull();
    expect(parsed).toMatchObject({ totalPages: 1, totalElements: 1 });
  });

  it("writes doc_indicator 0/1 as numbers and a delivered space as a string", () => {
    const text = (doc: string | null) => pageJson("chargeback", [{ doc_indicator: doc, chb_amount: 0, reason_code: "4837" }], 1, 1);
    expect(text("1")).toContain('"doc_indicator":1,');
    expect(text("0")).toContain('"doc_indicator":0,');
    expect(text(" ")).toContain('"doc_indicator":" ",');
    expect(text(null)).toContain('"doc_indicator":null,');
    expect(text("1")).toContain('"chb_amount":0.00,');
    expect(text("1")).toContain('"reason_code":4837,');
  });

  it("escapes strings", () => {
    const text = pageJson("pre_arbitration", [{ fdl_comments: 'say "hi"\nbye', amount: 1 }], 1, 1);
    expect(JSON.parse(text).content[0].fdl_comments).toBe('say "hi"\nbye');
  });
});

/**
 * The database writes a page's records itself (`sqlRecordJson`): its text must be byte for byte
 * the JavaScript writer's, for every kind of value a record table can hold, on the real schema of
 * each backend.
 */
describe("a page's records as bytes", () => {
  it("are the UTF-8 of the JSON array of the records' texts, in a buffer of its own", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "binary", maxLength: 40 }).map((v) => JSON.stringify(v.toWellFormed())), { maxLength: 30 }), (records) => {
        const bytes = jsonArrayBytes(records);
        expect(bytes.equals(Buffer.from(`[${records.join(",")}]`, "utf8"))).toBe(true);
        // A reader thread transfers the memory whole: it must not be a slice of a shared pool.
        expect(bytes.byteOffset).toBe(0);
        expect(bytes.buffer.byteLength).toBe(bytes.length);
      }),
      { numRuns: 500 },
    );
    expect(jsonArrayBytes([]).toString()).toBe("[]");
  });
});

describe("records written by the database", () => {
  afterAll(dropCreatedDatabases);
  const TEXT_EDGES = ['"', "\\", "%", "%s", "'", "\n\r\t\b\f", "\u0001\u001f", "\u007f", "\u2028\u2029", "é 日本 🙂", "0", "1", " ", "null", "1e5", "-0"];
  const valueOf = (def: FieldDef, text: fc.Arbitrary<string>): fc.Arbitrary<unknown> => {
    const present: fc.Arbitrary<unknown> =
      def.kind === "amount"
        ? fc.bigInt({ min: -MAX_MINOR_UNITS, max: MAX_MINOR_UNITS }).chain((v) => fc.constantFrom(v, v % 1000n))
        : def.kind === "integer"
          ? fc.integer({ min: 0, max: 999_999_999 })
          : def.kind === "docIndicator"
            ? fc.oneof(fc.constantFrom("0", "1", " "), text)
            : text;
    return def.required ? present : fc.option(present, { nil: null });
  };

  for (const backend of backends) {
    for (const kind of RECORD_KINDS) {
      it(`writes ${kind} records exactly as recordJson does on ${backend.name}`, async () => {
        const db = await openDatabase(await backend.create());
        // Stored text is UTF-8 (no lone surrogate) and, on PostgreSQL, without U+0000.
        const storable = (v: string) => (backend.name === "postgres" ? v.toWellFormed().replaceAll("\u0000", "") : v.toWellFormed());
        const text = fc.oneof(fc.constantFrom(...TEXT_EDGES, "\u0000"), fc.string({ unit: "binary", maxLength: 30 }), fc.string({ unit: "grapheme-ascii", maxLength: 30 })).map(storable);
        try {
          const file = await db.db
            .insertInto("imported_files")
            .values({ name: "x.csv", sha256: "0".repeat(64), kind, record_count: 0, imported_at: 0 })
            .returning("id")
            .executeTakeFirstOrThrow();
          const table = RECORD_TABLES[kind];
          const fields = FIELDS_BY_KIND[kind];
          const written = (id: number) => sql<{ j: string }>`select ${sql.raw(sqlRecordJson(backend.name, kind))} as j from ${sql.table(table)} where id = ${id}`.execute(db.db);
          let id = 0;
          await fc.assert(
            fc.asyncProperty(fc.tuple(...fields.map((def) => valueOf(def, text))), async (values) => {
              const row = Object.fromEntries([["id", ++id], ["shop_code", "s"], ["file_id", file.id], ...fields.map((def, i) => [def.name, values[i]])]);
              await db.db.insertInto(table).values(row as never).execute();
              const stored = await db.db.selectFrom(table).selectAll().where("id", "=", id).executeTakeFirstOrThrow();
              expect((await written(id)).rows[0].j).toBe(recordJson(kind, stored));
            }),
            { numRuns: 300 },
          );
          // And as the readers join them: one JSON array that parses.
          const all = await sql<{ j: string }>`select ${sql.raw(sqlRecordJson(backend.name, kind))} as j from ${sql.table(table)} order by id`.execute(db.db);
          expect(JSON.parse(jsonArrayBytes(all.rows.map((r) => r.j)).toString("utf8"))).toHaveLength(id);
        } finally {
          await db.close();
        }
      });
    }
  }
});
