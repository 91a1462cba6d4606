import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonArrayOf, pageJson, recordJson, sqliteRecordJson } from "@/lib/api/serialize";
import { openDatabase } from "@/lib/data/db";
import { RECORD_TABLES } from "@/lib/data/schema";
import { type FieldDef, FIELDS_BY_KIND, PRE_ARBITRATION_FIELDS, RECORD_KINDS } from "@/lib/domain/fields";
import { MAX_MINOR_UNITS } from "@/lib/domain/money";
import { tempDir } from "../helpers/db";

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
 * SQLite writes a page's records itself (`sqliteRecordJson`): its text must be byte for byte the
 * JavaScript writer's, for every kind of value a record table can hold, on the real schema.
 */
describe("records written by SQLite", () => {
  const TEXT_EDGES = ['"', "\\", "%", "%s", "'", "\n\r\t\b\f", "\u0000\u0001\u001f", "\u007f", "\u2028\u2029", "é 日本 🙂", "0", "1", " ", "null", "1e5", "-0"];
  const text = fc.oneof(fc.constantFrom(...TEXT_EDGES), fc.string({ unit: "binary", maxLength: 30 }), fc.string({ unit: "grapheme-ascii", maxLength: 30 }));
  const valueOf = (def: FieldDef): fc.Arbitrary<unknown> => {
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

  for (const kind of RECORD_KINDS) {
    it(`writes ${kind} records exactly as recordJson does`, async () => {
      const dir = tempDir();
      const db = await openDatabase(`file:${path.join(dir, "json.sqlite")}`);
      try {
        const sqlite = db.sqlite!;
        sqlite.pragma("foreign_keys = OFF");
        const table = RECORD_TABLES[kind];
        const fields = FIELDS_BY_KIND[kind];
        const insert = sqlite.prepare(`insert into "${table}" (id, shop_code, file_id, ${fields.map((f) => `"${f.name}"`).join(", ")}) values (?, 's', 1, ${fields.map(() => "?").join(", ")})`);
        const written = sqlite.prepare(`select ${sqliteRecordJson(kind)} from "${table}" where id = ?`).pluck();
        const stored = sqlite.prepare(`select * from "${table}" where id = ?`);
        let id = 0;
        fc.assert(
          fc.property(fc.tuple(...fields.map(valueOf)), (values) => {
            // SQLite keeps text as UTF-8: a lone surrogate cannot be stored, so none is written.
            const storable = values.map((v) => (typeof v === "string" ? v.toWellFormed() : v));
            insert.run(++id, ...storable);
            const row = stored.get(id) as Record<string, unknown>;
            expect(written.get(id)).toBe(recordJson(kind, row));
          }),
          { numRuns: 400 },
        );
        // And as the reader threads join them: one JSON array that parses.
        const all = sqlite.prepare(`select ${sqliteRecordJson(kind)} from "${table}" order by id`).pluck().all() as string[];
        expect(JSON.parse(jsonArrayOf(all))).toHaveLength(id);
      } finally {
        await db.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
