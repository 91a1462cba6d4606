import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Db, openDatabase } from "@/lib/data/connection/db";
import { importColumns, type RecordKind } from "@/lib/domain/fields";
import { runCli } from "../helpers/cli";
import { importLog as fileLog } from "../helpers/import-log";
import { backends, dropCreatedDatabases, tempDir } from "../helpers/db";
import { MINIMAL_ROW } from "../helpers/import-rows";

/**
 * docs/api.md, "Import of acquirer files" through the real `npm run import` command (a child process) on every backend.
 * Each bad input sits in a file of its own after valid rows, so "the whole file is refused" is
 * checked by counting rows: only the good files' rows may land.
 */

type Row = Record<string, string>;

const BASE = MINIMAL_ROW;

const quote = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);

/** CSV text: a header (all columns unless given) and rows, each the base row with overrides. */
function csv(kind: RecordKind, rows: Row[], opts: { columns?: string[]; eol?: string; bom?: boolean } = {}): string {
  const columns = opts.columns ?? importColumns(kind);
  const eol = opts.eol ?? "\n";
  const lines = [columns.join(","), ...rows.map((r) => columns.map((c) => quote({ ...BASE[kind], ...r }[c] ?? "")).join(","))];
  return (opts.bom ? "\uFEFF" : "") + lines.join(eol) + eol;
}

const rows = (n: number, from = 1, extra: Row = {}): Row[] => Array.from({ length: n }, (_, i) => ({ payment_id: `P-${from + i}`, ...extra }));

function write(dir: string, name: string, text: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

async function withDb<T>(url: string, work: (db: Db) => Promise<T>): Promise<T> {
  const db = await openDatabase(url);
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

const count = (db: Db, table: "chargebacks" | "pre_arbitrations" | "imported_files") =>
  db.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as("n"))
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));

const idsAndPayments = (db: Db, table: "chargebacks" | "pre_arbitrations") =>
  db.db
    .selectFrom(table)
    .select(["id", "payment_id"])
    .orderBy("id")
    .execute()
    .then((rs) => rs.map((r) => [Number(r.id), r.payment_id] as const));

const import_ = (url: string, args: string[]) => runCli("import.ts", args, { DATABASE_URL: url });

/** Each summary line of standard output has its log line on standard error, in the same order and with the same outcome. */
function expectOneLogLinePerFile(r: { stdout: string; stderr: string }): void {
  const summaries = [...r.stdout.matchAll(/^(.*): (?:imported (\d+) records|(skipped) \(already imported\)|rejected \((\d+) problems\))$/gm)].map(
    ([, file, records, skipped, problems]) => `${path.basename(file)} ${records !== undefined ? `imported ${records}` : skipped ? "skipped" : `rejected ${problems}`}`,
  );
  expect(summaries.length).toBeGreaterThan(0);
  expect(fileLog(r.stderr).map((line) => line.replace(/ (chargeback|pre_arbitration|unknown) /, " "))).toEqual(summaries);
}

afterAll(() => dropCreatedDatabases());

describe("npm run import without a database change", () => {
  it("prints usage and exits 1 without arguments", async () => {
    const dir = tempDir();
    const r = await import_(`file:${path.join(dir, "db.sqlite")}`, []);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^usage: npm run import -- /);
    expect(r.stdout).toBe("");
  });

  it("refuses a bad IMPORT_GROUP_BYTES in one line before it opens the database", async () => {
    const dir = tempDir();
    const file = path.join(dir, "db.sqlite");
    const r = await runCli("import.ts", [dir], { DATABASE_URL: `file:${file}`, IMPORT_GROUP_BYTES: "16M" });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('import: IMPORT_GROUP_BYTES must be a whole number from 65536 to 1073741824, got "16M"');
    expect(r.stdout).toBe("");
    expect(fs.existsSync(file)).toBe(false);
  });
});

describe.each(backends)("npm run import on $name", (backend) => {
  it("refuses each bad file whole, naming the line and field, and still loads the good files", async () => {
    const url = await backend.create();
    const dir = tempDir();
    const cb = (extra: Row) => [...rows(2, 1), extra];
    const all = importColumns("chargeback");
    const files: Record<string, string> = {
      // line 2 and 3 valid (3 spans lines 3-4), the bad row starts on line 5
      "CHB_20260101.csv": csv("chargeback", [...rows(1), { payment_id: "P-2", comments: 'two\nlines, "quoted"' }, { payment_id: "P-3", chb_proc_date: "2026-02-30" }]),
      // BOM and CRLF, a quoted cell spanning three lines (3-5), the bad row on line 6
      "CHB_20260102.csv": csv("chargeback", [...rows(1), { payment_id: "P-2", comments: "a\r\nb\r\nc" }, { payment_id: "P-3", chb_amount: "1.234" }], { eol: "\r\n", bom: true }),
      "CHB_20260103.csv": csv("chargeback", rows(2), { columns: all.filter((c) => c !== "payment_order_nr") }),
      "CHB_20260104.csv": csv("chargeback", rows(2), { columns: [...all, "surprise"] }),
      "CHB_20260105.csv": csv("chargeback", rows(2), { columns: [...all, "card"] }),
      "CHB_20260106.csv": csv("chargeback", cb({ payment_order_nr: "x".repeat(31) })),
      "CHB_20260107.csv": csv("chargeback", cb({ acq_ref_nr: "" })),
      "CHB_20260108.csv": csv("chargeback", cb({ card: "5123451234561234" })),
      "CHB_20260109.csv": csv("chargeback", cb({ shop_code: "   " })),
      "CHB_20260112.csv": csv("chargeback", cb({ tr_date_time: "2026-01-01 24:00:00" })),
      "CHB_20260113.csv": csv("chargeback", cb({ reason_code: "48.5" })),
      "CHB_20260114.csv": csv("chargeback", cb({ doc_indicator: "2" })),
      "CHB_20260115.csv": csv("chargeback", cb({ rev_indicator: "r" })),
      "CHB_20260116.csv": csv("chargeback", cb({ chb_ccy: "eur" })),
      "CHB_20260119.csv": csv("chargeback", cb({ card_type: "AMEX" })),
      "CHB_20260120.csv": csv("chargeback", cb({ merchant_decision: "accept" })),
      "CHB_20260121.csv": csv("chargeback", cb({ chb_tr_date: "2026-13-01" })),
      "CHB_20260122.csv": csv("chargeback", rows(2)) + "shop-1,only-two-cells\n",
      "CHB_20260123.csv": csv("chargeback", rows(2)) + 'shop-1,"never closed\n',
      "CHB_20260126.csv": "",
      "PREARB_29_20260101.csv": csv("pre_arbitration", [...rows(2), { case_date: "2026-02-29" }]),
      "PREARB_29_20260102.csv": csv("pre_arbitration", [...rows(2), { merchant_decision: "Accept CB" }]),
      "PREARB_29_20260105.csv": csv("pre_arbitration", [...rows(2), { case_stage: "" }]),
      "CHB_20260230.csv": csv("chargeback", rows(1)),
      "chb_20260127.csv": csv("chargeback", rows(1)),
      "PREARB_2-9_20260127.csv": csv("pre_arbitration", rows(1)),
      "PREARB_20260127.csv": csv("pre_arbitration", rows(1)),
      // the good ones: a file before and after the bad ones in name order
      "CHB_20251231.csv": csv("chargeback", rows(3, 100)),
      "PREARB_29_20260201.csv": csv("pre_arbitration", rows(2, 200)),
    };
    for (const [name, text] of Object.entries(files)) write(dir, name, text);

    const r = await import_(url, [dir]);
    expectOneLogLinePerFile(r);
    expect(fileLog(r.stderr)).toEqual(
      expect.arrayContaining([
        "CHB_20251231.csv chargeback imported 3",
        "PREARB_29_20260201.csv pre_arbitration imported 2",
        "PREARB_29_20260105.csv pre_arbitration rejected 1",
        "CHB_20260230.csv unknown rejected 1",
        "PREARB_2-9_20260127.csv unknown rejected 1",
      ]),
    );
    expect(r.code).toBe(1);
    const out = r.stdout;
    const f = (name: string) => path.join(dir, name);
    const expectProblem = (name: string, line: number, field: string, message?: RegExp) => {
      const re = new RegExp(`^${escape(f(name))}:${line}: ${field}: (.*)$`, "m");
      expect(out, `${name}:${line}: ${field}`).toMatch(re);
      if (message) expect(re.exec(out)![1]).toMatch(message);
    };
    const expectRejected = (name: string, problems = 1) => expect(out).toContain(`${f(name)}: rejected (${problems} problems)\n`);

    expectProblem("CHB_20260101.csv", 5, "chb_proc_date", /real date/);
    expectProblem("CHB_20260102.csv", 6, "chb_amount", /two decimals/);
    expectProblem("CHB_20260103.csv", 1, "payment_order_nr", /missing/);
    expectProblem("CHB_20260104.csv", 1, "surprise", /unknown column/);
    expectProblem("CHB_20260105.csv", 1, "card", /more than once/);
    expectProblem("CHB_20260106.csv", 4, "payment_order_nr", /at most 30/);
    expectProblem("CHB_20260107.csv", 4, "acq_ref_nr", /required/);
    expectProblem("CHB_20260108.csv", 4, "card", /masked/);
    expectProblem("CHB_20260109.csv", 4, "shop_code", /required/);
    expectProblem("CHB_20260112.csv", 4, "tr_date_time", /date and time/);
    expectProblem("CHB_20260113.csv", 4, "reason_code", /whole number/);
    expectProblem("CHB_20260114.csv", 4, "doc_indicator");
    expectProblem("CHB_20260115.csv", 4, "rev_indicator");
    expectProblem("CHB_20260116.csv", 4, "chb_ccy", /currency/);
    expectProblem("CHB_20260119.csv", 4, "card_type");
    expectProblem("CHB_20260120.csv", 4, "merchant_decision");
    expectProblem("CHB_20260121.csv", 4, "chb_tr_date");
    expectProblem("CHB_20260122.csv", 4, "row", /2 cells/);
    expectProblem("CHB_20260123.csv", 4, "csv", /never closed/);
    expectProblem("CHB_20260126.csv", 1, "header", /empty/);
    expectProblem("PREARB_29_20260101.csv", 4, "case_date", /real date/);
    expectProblem("PREARB_29_20260102.csv", 4, "merchant_decision");
    expectProblem("PREARB_29_20260105.csv", 4, "case_stage", /required/);
    for (const name of ["CHB_20260230.csv", "chb_20260127.csv", "PREARB_2-9_20260127.csv", "PREARB_20260127.csv"]) {
      expect(out).toContain(`${f(name)}: file name must be CHB_<YYYYMMDD>.csv or PREARB_<BANKID>_<YYYYMMDD>.csv`);
    }
    for (const name of Object.keys(files).filter((n) => n !== "CHB_20251231.csv" && n !== "PREARB_29_20260201.csv")) {
      expectRejected(name);
    }
    expect(out).toContain(`${f("CHB_20251231.csv")}: imported 3 records\n`);
    expect(out).toContain(`${f("PREARB_29_20260201.csv")}: imported 2 records\n`);
    // one summary line per file, and nothing printed twice
    expect(out.match(/: (imported \d+ records|rejected \(\d+ problems\)|skipped \(already imported\))$/gm)).toHaveLength(Object.keys(files).length);

    await withDb(url, async (db) => {
      expect(await idsAndPayments(db, "chargebacks")).toEqual([
        [1, "P-100"],
        [2, "P-101"],
        [3, "P-102"],
      ]);
      expect(await idsAndPayments(db, "pre_arbitrations")).toEqual([
        [1, "P-200"],
        [2, "P-201"],
      ]);
      const names = await db.db.selectFrom("imported_files").select("name").orderBy("name").execute();
      expect(names.map((n) => n.name)).toEqual(["CHB_20251231.csv", "PREARB_29_20260201.csv"]);
    });
  });

  it("stores values exactly: padded amounts, spaces-only indicators, empty cells as null, trimmed text, ids and names from the file name", async () => {
    const url = await backend.create();
    const dir = tempDir();
    const cbFile = write(
      dir,
      "CHB_20260310.csv",
      csv("chargeback", [
        {
          payment_id: "P-1",
          chb_amount: "   120.5",
          chb_settl_amount: "  0.01",
          tr_amount: "999999999999.99",
          rev_amount: "7",
          doc_indicator: "   ",
          rev_indicator: " ",
          chb_tr_date: "0000-00-00",
          merchant_name: "  ACME, Riga  ",
          comments: 'said "no"\nthen left',
          payment_order_nr: "x".repeat(30),
          tr_date_time: "2026-02-28 23:59:59",
        },
        { payment_id: "P-2", doc_indicator: "1", rev_indicator: "R", merchant_decision: "Represent CR processed", card_type: "VISA", reason_code: "83" },
        { payment_id: "P-3", doc_indicator: "0", rev_indicator: "" },
      ]),
    );
    const paFile = write(dir, "PREARB_ABC9_20260311.csv", csv("pre_arbitration", [{ amount: "    5.5", merchant_decision: "rebuttal" }]));
    const r = await import_(url, [cbFile, paFile]);
    expect(fileLog(r.stderr)).toEqual(["CHB_20260310.csv chargeback imported 3", "PREARB_ABC9_20260311.csv pre_arbitration imported 1"]);
    expect(r.stdout).toBe(`${cbFile}: imported 3 records\n${paFile}: imported 1 records\n`);
    expect(r.code).toBe(0);

    await withDb(url, async (db) => {
      const cbs = await db.db.selectFrom("chargebacks").selectAll().orderBy("id").execute();
      expect(cbs.map((c) => Number(c.id))).toEqual([1, 2, 3]);
      const [a, b, c] = cbs;
      expect(a).toMatchObject({ bank_id: "29", file_date: "2026-03-10", shop_code: "shop-1", payment_id: "P-1", reason_code: 4837, function_code: 450 });
      expect([a.chb_amount, a.chb_settl_amount, a.tr_amount, a.rev_amount, a.chb_amount_transaction_ccy].map((v) => (v === null ? null : Number(v)))).toEqual([
        12050, 1, 99999999999999, 700, null,
      ]);
      expect(a).toMatchObject({
        doc_indicator: " ",
        rev_indicator: " ",
        chb_tr_date: "0000-00-00",
        merchant_name: "ACME, Riga",
        comments: 'said "no"\nthen left',
        payment_order_nr: "x".repeat(30),
        tr_date_time: "2026-02-28 23:59:59",
        xid: null,
        merchant_decision: null,
        rev_ccy: null,
      });
      expect(b).toMatchObject({ doc_indicator: "1", rev_indicator: "R", merchant_decision: "Represent CR processed", card_type: "VISA", reason_code: 83 });
      expect(c).toMatchObject({ doc_indicator: "0", rev_indicator: null });

      const pa = await db.db.selectFrom("pre_arbitrations").selectAll().executeTakeFirstOrThrow();
      expect(pa).toMatchObject({ bank_id: "ABC9", file_date: "2026-03-11", merchant_decision: "rebuttal" });
      expect(Number(pa.amount)).toBe(550);
    });
  });

  it("skips a re-import, refuses the same name with other content and the same content under another name, allows a header-only twin", async () => {
    const url = await backend.create();
    const dir = tempDir();
    const first = write(dir, "CHB_20260401.csv", csv("chargeback", rows(3)));
    const headerOnly = write(dir, "CHB_20260402.csv", csv("chargeback", []));
    expect((await import_(url, [first, headerOnly])).code).toBe(0);
    const snapshot = () => withDb(url, async (db) => ({ rows: await idsAndPayments(db, "chargebacks"), files: await db.db.selectFrom("imported_files").selectAll().orderBy("id").execute() }));
    const before = await snapshot();
    expect(before.rows).toHaveLength(3);

    const again = await import_(url, [first]);
    expect(again).toMatchObject({ code: 0, stdout: `${first}: skipped (already imported)\n` });
    expect(fileLog(again.stderr)).toEqual(["CHB_20260401.csv chargeback skipped"]);

    const changed = write(tempDir(), "CHB_20260401.csv", csv("chargeback", rows(4)));
    const sameName = await import_(url, [changed]);
    expect(sameName.code).toBe(1);
    expect(sameName.stdout).toContain(`${changed}: a different file named CHB_20260401.csv was imported before`);
    expect(sameName.stdout).toContain(`${changed}: rejected (1 problems)`);

    const resent = write(dir, "CHB_20260403.csv", fs.readFileSync(first, "utf8"));
    const sameContent = await import_(url, [resent]);
    expect(sameContent.code).toBe(1);
    expect(sameContent.stdout).toContain(`${resent}: the same content was imported before as CHB_20260401.csv`);
    expect(sameContent.stdout).toContain(`${resent}: rejected (1 problems)`);

    expect(await snapshot()).toEqual(before);

    const emptyTwin = write(dir, "CHB_20260404.csv", fs.readFileSync(headerOnly, "utf8"));
    expect(await import_(url, [emptyTwin])).toMatchObject({ code: 0, stdout: `${emptyTwin}: imported 0 records\n` });
  });

  it("imports a folder in name order with ids 1..N in import order and no gap after a refused file", async () => {
    const url = await backend.create();
    const dir = tempDir();
    const folder = path.join(dir, "in");
    write(folder, "CHB_20260503.csv", csv("chargeback", rows(2, 30)));
    write(folder, "CHB_20260501.csv", csv("chargeback", rows(2, 10)));
    write(folder, "CHB_20260502.csv", csv("chargeback", [...rows(150, 20), { chb_amount: "x" }]));
    write(folder, "PREARB_29_20260502.csv", csv("pre_arbitration", rows(2, 50)));
    write(folder, "notes.txt", "not a csv");
    fs.mkdirSync(path.join(folder, "sub.csv"));
    const r = await import_(url, [folder]);
    expect(r.code).toBe(1);
    const summaries = r.stdout.split("\n").filter((l) => / (imported|rejected|skipped)/.test(l));
    expect(summaries).toEqual([
      `${path.join(folder, "CHB_20260501.csv")}: imported 2 records`,
      `${path.join(folder, "CHB_20260502.csv")}: rejected (1 problems)`,
      `${path.join(folder, "CHB_20260503.csv")}: imported 2 records`,
      `${path.join(folder, "PREARB_29_20260502.csv")}: imported 2 records`,
    ]);
    // a later command continues the numbering
    const later = write(dir, "CHB_20260401.csv", csv("chargeback", rows(1, 40)));
    expect((await import_(url, [later])).code).toBe(0);
    await withDb(url, async (db) => {
      expect(await idsAndPayments(db, "chargebacks")).toEqual([
        [1, "P-10"],
        [2, "P-11"],
        [3, "P-30"],
        [4, "P-31"],
        [5, "P-40"],
      ]);
      expect((await idsAndPayments(db, "pre_arbitrations")).map(([id]) => id)).toEqual([1, 2]);
    });
  });

  it("prints at most 100 problems and then the count", async () => {
    const url = await backend.create();
    const dir = tempDir();
    const file = write(dir, "CHB_20260601.csv", csv("chargeback", [...rows(5), ...rows(149, 10, { chb_ccy: "euro" }), { card: "1234" }]));
    const r = await import_(url, [file]);
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(102);
    expect(lines[0]).toBe(`${file}:7: chb_ccy: must be a three-letter currency code such as EUR`);
    expect(lines[99]).toBe(`${file}:106: chb_ccy: must be a three-letter currency code such as EUR`);
    expect(lines[100]).toBe(`${file}: ... and 50 more problems`);
    expect(lines[101]).toBe(`${file}: rejected (150 problems)`);
    await withDb(url, async (db) => expect(await count(db, "chargebacks")).toBe(0));
  });

  it("reports a path that cannot be read and loads the other paths", async () => {
    const url = await backend.create();
    const dir = tempDir();
    const good = write(dir, "CHB_20260701.csv", csv("chargeback", rows(1)));
    const missing = path.join(dir, "CHB_20260702.csv");
    const r = await import_(url, [missing, good]);
    expect(r.code).toBe(1);
    expect(fileLog(r.stderr)).toEqual(["CHB_20260702.csv chargeback rejected 1", "CHB_20260701.csv chargeback imported 1"]);
    expect(r.stdout).toBe(`${missing}: cannot be read: no such file or folder\n${missing}: rejected (1 problems)\n${good}: imported 1 records\n`);
  });

  it("keeps ids dense when two commands import at the same time", async () => {
    const url = await backend.create();
    // migrate first, so that the two commands race on the import and not on creating the schema
    await withDb(url, async () => {});
    const dir = tempDir();
    const a = write(dir, "CHB_20260801.csv", csv("chargeback", rows(300, 1000)));
    const b = write(dir, "CHB_20260802.csv", csv("chargeback", rows(300, 2000)));
    const results = await Promise.all([import_(url, [a, b]), import_(url, [b, a])]);
    for (const r of results) {
      expectOneLogLinePerFile(r);
      expect(r.code).toBe(0);
    }
    const outputs = results.map((r) => r.stdout).join("");
    expect(outputs.match(/imported 300 records/g)).toHaveLength(2);
    expect(outputs.match(/skipped \(already imported\)/g)).toHaveLength(2);
    await withDb(url, async (db) => {
      const ids = await idsAndPayments(db, "chargebacks");
      expect(ids.map(([id]) => id)).toEqual(Array.from({ length: 600 }, (_, i) => i + 1));
      // each file's rows are contiguous and in file order
      const payments = ids.map(([, p]) => p);
      const firstFile = payments[0].startsWith("P-1") ? 1000 : 2000;
      const secondFile = firstFile === 1000 ? 2000 : 1000;
      expect(payments).toEqual([...rows(300, firstFile), ...rows(300, secondFile)].map((r) => r.payment_id));
    });
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
