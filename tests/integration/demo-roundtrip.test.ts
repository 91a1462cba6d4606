import fs from "node:fs";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/data/connection/db";
import { CHARGEBACK_FIELDS, PRE_ARBITRATION_FIELDS, type RecordKind } from "@/lib/domain/fields";
import { generateDemoFiles } from "@/lib/demo/generate";
import { parseFileName } from "@/lib/import/file-name";
import { rowValidator } from "@/lib/import/validate";
import { runCli } from "../helpers/cli";
import { importLog } from "../helpers/import-log";
import { backends, dropCreatedDatabases, tempDir } from "../helpers/db";

/**
 * Demo files through the real import into every backend, read back in id order: each backend
 * holds exactly the files' records (every column), and all backends hold the same.
 */

type Value = string | null;
type Record_ = Record<string, Value>;
type Dump = Record<RecordKind, Record_[]>;

const TABLE = { chargeback: "chargebacks", pre_arbitration: "pre_arbitrations" } as const;
const COLUMNS: Record<RecordKind, string[]> = {
  chargeback: ["id", "file", "shop_code", ...CHARGEBACK_FIELDS.map((f) => f.name)],
  pre_arbitration: ["id", "file", "shop_code", ...PRE_ARBITRATION_FIELDS.map((f) => f.name)],
};

/** Numbers and bigints as decimal text, so that both drivers and the expectation compare alike. */
function normalise(kind: RecordKind, row: Record<string, unknown>): Record_ {
  const out: Record_ = {};
  for (const column of COLUMNS[kind]) {
    const v = row[column];
    if (v === null) out[column] = null;
    else if (typeof v === "string") out[column] = v;
    else if (typeof v === "number" || typeof v === "bigint") out[column] = String(v);
    else throw new Error(`unexpected ${typeof v} in ${column}`);
  }
  return out;
}

/** What the files say: records in name order, ids counted per kind, values as the validator reads them. */
function expected(files: string[]): Dump {
  const out: Dump = { chargeback: [], pre_arbitration: [] };
  for (const file of [...files].sort()) {
    const name = path.basename(file);
    const { kind, bankId, fileDate } = parseFileName(name)!;
    const validator = rowValidator(kind);
    for (const cells of parse(fs.readFileSync(file), { bom: true, from_line: 2 }) as string[][]) {
      const result = validator.validate(cells, 0);
      if ("problems" in result) throw new Error(`${name}: ${JSON.stringify(result.problems)}`);
      out[kind].push(normalise(kind, { ...result.values, id: out[kind].length + 1, file: name, bank_id: bankId, file_date: fileDate }));
    }
  }
  return out;
}

async function dump(url: string): Promise<Dump> {
  const db = await openDatabase(url);
  try {
    const fileNames = new Map((await db.db.selectFrom("imported_files").select(["id", "name"]).execute()).map((f) => [Number(f.id), f.name]));
    const out: Dump = { chargeback: [], pre_arbitration: [] };
    for (const kind of ["chargeback", "pre_arbitration"] as const) {
      const rows: Record<string, unknown>[] = await db.db.selectFrom(TABLE[kind]).selectAll().orderBy("id").execute();
      out[kind] = rows.map((r) => normalise(kind, { ...r, file: fileNames.get(Number(r.file_id)) }));
    }
    return out;
  } finally {
    await db.close();
  }
}

describe(`demo files read back identically from ${backends.map((b) => b.name).join(" and ")}`, () => {
  let want: Dump;
  const dumps: Dump[] = [];

  beforeAll(async () => {
    const dir = path.join(tempDir("disputes-roundtrip-"), "files");
    const { files } = generateDemoFiles({ out: dir, seed: 5, chargebacks: 600, preArbitrations: 120, end: "2026-05-29", days: 45 });
    want = expected(files);
    const urls = await Promise.all(backends.map((b) => b.create()));
    const results = await Promise.all(urls.map((url) => runCli("import.ts", [dir], { DATABASE_URL: url })));
    for (const r of results) {
      // standard error: the one "import file" line of each file, in name order (docs/api.md, "Import of acquirer files")
      const names = files.map((file) => path.basename(file)).sort();
      expect(importLog(r.stderr).map((line) => line.replace(/ \d+$/, ""))).toEqual(names.map((name) => `${name} ${parseFileName(name)!.kind} imported`));
      expect(r.code, r.stdout).toBe(0);
    }
    for (const url of urls) dumps.push(await dump(url));
  });
  afterAll(() => dropCreatedDatabases());

  it("holds every record of the files, every column as delivered", () => {
    expect(want.chargeback).toHaveLength(600);
    expect(want.pre_arbitration).toHaveLength(120);
    expect(dumps).toHaveLength(backends.length);
    for (const d of dumps) {
      expect(d.chargeback).toEqual(want.chargeback);
      expect(d.pre_arbitration).toEqual(want.pre_arbitration);
    }
  });

  it("holds the same rows on every backend", () => {
    for (const d of dumps.slice(1)) expect(d).toEqual(dumps[0]);
  });
});
