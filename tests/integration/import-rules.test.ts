import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDatabase } from "@/lib/data/connection/db";
import { DEFAULT_MAX_TEXT, FIELDS_BY_KIND, importColumns, type RecordKind } from "@/lib/domain/fields";
import { MAX_RECORD_CHARS } from "@/lib/import/csv-records";
import { type CliResult, runCli } from "../helpers/cli";
import { backends, dropCreatedDatabases, tempDir } from "../helpers/db";
import { MINIMAL_ROW } from "../helpers/import-rows";
import { expectDenseIds, expectRecordCountsInStep } from "../helpers/record-checks";

/**
 * Every rule of docs/api.md, "Import of acquirer files", through the real import command (a child process) on each backend.
 * Each bad input is its own small file with a date of its own, so "the whole file refused"
 * can be checked by name (imported_files) and by file date (no record of it anywhere).
 */

type Row = Record<string, string>;

const VALID = MINIMAL_ROW;

const TABLE = { chargeback: "chargebacks", pre_arbitration: "pre_arbitrations" } as const;

const quote = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
const csvLine = (cells: string[]) => cells.map(quote).join(",");

/** A CSV file text: header plus rows, each row the valid row of its kind with overrides. */
function csv(kind: RecordKind, rows: Row[], opts: { columns?: string[]; eol?: string } = {}): string {
  const columns = opts.columns ?? importColumns(kind);
  const eol = opts.eol ?? "\n";
  const lines = [csvLine(columns), ...rows.map((r) => csvLine(columns.map((c) => ({ ...VALID[kind], ...r })[c] ?? "")))];
  return lines.join(eol) + eol;
}

const row = (i: number, extra: Row = {}): Row => ({ payment_id: `P-${i}`, ...extra });

/** A chargeback with every text cell at its longest, the 4000-character comments all quotes (doubled in the file). */
const LONGEST_ROW: Row = Object.fromEntries([
  ["shop_code", "s".repeat(100)],
  ...FIELDS_BY_KIND.chargeback
    .filter((d) => d.kind === "text" && !("fromFileName" in d && d.fromFileName))
    .map((d) => [d.name, (d.maxLength ?? DEFAULT_MAX_TEXT) === 4000 ? '"'.repeat(4000) : "L".repeat(d.maxLength ?? DEFAULT_MAX_TEXT)]),
]);

/** File names with dates no other file of the test uses. */
let dayCounter = 0;
function nextName(kind: RecordKind, bankId = "77"): { name: string; fileDate: string } {
  const d = new Date(Date.UTC(2024, 0, 1) + dayCounter++ * 86_400_000);
  const fileDate = d.toISOString().slice(0, 10);
  const ymd = fileDate.replaceAll("-", "");
  return { name: kind === "chargeback" ? `CHB_${ymd}.csv` : `PREARB_${bankId}_${ymd}.csv`, fileDate };
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

interface Problem {
  line: number;
  field: string;
  message: string;
}

/** Every output line about `file`. */
const linesFor = (out: string, file: string) => out.split("\n").filter((l) => l.startsWith(`${file}:`));

/** The `<file>:<line>: <field>: <message>` lines about `file`. */
function problemsOf(out: string, file: string): Problem[] {
  const re = new RegExp(`^${escapeRe(file)}:(\\d+): ([^:]+): (.+)$`);
  return linesFor(out, file)
    .map((l) => re.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ line: Number(m[1]), field: m[2], message: m[3] }));
}

async function countWhere(db: Db, kind: RecordKind, fileDate: string): Promise<number> {
  const r = await db.db
    .selectFrom(TABLE[kind])
    .select((eb) => eb.fn.countAll().as("n"))
    .where("file_date", "=", fileDate)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

async function importedFileNames(db: Db): Promise<string[]> {
  return (await db.db.selectFrom("imported_files").select("name").execute()).map((r) => r.name);
}

interface RejectCase {
  title: string;
  kind: RecordKind;
  name: string;
  /** the file date of the name, when the name is valid */
  fileDate?: string;
  /** null: the file does not exist */
  content: string | Buffer | null;
  /** "name": refused for its name (a message, no line); otherwise the exact problems (field undefined: any) */
  expect: "name" | { line: number; field?: string; message?: RegExp }[];
}

interface AcceptCase {
  title: string;
  kind: RecordKind;
  name: string;
  fileDate: string;
  content: string | Buffer;
  records: number;
}

function buildCases() {
  const rejects: RejectCase[] = [];
  const accepts: AcceptCase[] = [];

  // ---- File names
  const goodChb = csv("chargeback", [row(1)]);
  for (const [title, name] of [
    ["another prefix", "DISPUTES_20250101.csv"],
    ["a date that does not exist (CHB_20260230.csv)", "CHB_20260230.csv"],
    ["an upper-case extension", "CHB_20250102.CSV"],
    ["a lower-case prefix", "chb_20250103.csv"],
    ["a date of seven digits", "CHB_2025010.csv"],
    ["a chargeback file with a bank id", "CHB_29_20250104.csv"],
    ["no extension", "CHB_20250105"],
  ] as const) {
    rejects.push({ title: `file name: ${title}`, kind: "chargeback", name, content: goodChb, expect: "name" });
  }
  rejects.push({
    title: "file name: PREARB without bank id",
    kind: "pre_arbitration",
    name: "PREARB_20250106.csv",
    content: csv("pre_arbitration", [row(1)]),
    expect: "name",
  });
  rejects.push({ title: "file name: PREARB with an empty bank id", kind: "pre_arbitration", name: "PREARB__20250107.csv", content: csv("pre_arbitration", [row(1)]), expect: "name" });
  {
    const n = nextName("chargeback");
    rejects.push({ title: "a file that does not exist", kind: "chargeback", ...n, content: null, expect: [] });
  }

  // ---- Header
  const header = (title: string, kind: RecordKind, columns: string[], field: string, message: RegExp) => {
    const n = nextName(kind);
    rejects.push({ title, kind, ...n, content: csv(kind, [row(1), row(2)], { columns }), expect: [{ line: 1, field, message }] });
  };
  header("a missing column", "chargeback", importColumns("chargeback").filter((c) => c !== "xid"), "xid", /missing/);
  header("a missing required column (pre-arbitration)", "pre_arbitration", importColumns("pre_arbitration").filter((c) => c !== "case_stage"), "case_stage", /missing/);
  header("a missing shop_code column", "chargeback", importColumns("chargeback").filter((c) => c !== "shop_code"), "shop_code", /missing/);
  header("an unknown column", "chargeback", [...importColumns("chargeback"), "foo"], "foo", /unknown/);
  header("bank_id is not a column of the file", "pre_arbitration", [...importColumns("pre_arbitration"), "bank_id"], "bank_id", /unknown/);
  header("a duplicate column", "chargeback", [...importColumns("chargeback"), "merchant_name"], "merchant_name", /twice|more than once|duplicate/i);
  {
    const n = nextName("chargeback");
    rejects.push({ title: "an empty file", kind: "chargeback", ...n, content: "", expect: [{ line: 1 }] });
  }
  {
    const n = nextName("pre_arbitration");
    rejects.push({ title: "a file of empty lines only", kind: "pre_arbitration", ...n, content: "\n\n", expect: [{ line: 1 }] });
  }

  // ---- One bad row (line 3) between good rows (lines 2 and 4): the whole file is refused
  const badRow = (title: string, kind: RecordKind, override: Row, field: string, message?: RegExp) => {
    const n = nextName(kind);
    const content = csv(kind, [row(1), row(2, override), row(3)]);
    rejects.push({ title, kind, ...n, content, expect: [{ line: 3, field, message }] });
  };
  const required = {
    chargeback: ["shop_code", "card", "acq_ref_nr", "merchant_id", "payment_id", "reason_code", "function_code", "card_type", "chb_proc_date", "chb_amount", "chb_ccy"],
    pre_arbitration: ["shop_code", "card", "acq_ref_nr", "merchant_id", "payment_id", "amount", "ccy", "case_date", "case_stage"],
  } as const;
  for (const kind of ["chargeback", "pre_arbitration"] as const) {
    for (const field of required[kind]) badRow(`${kind}: required ${field} empty`, kind, { [field]: "" }, field, /required/);
  }
  badRow("a required cell of only spaces is empty", "chargeback", { card: "    " }, "card", /required/);
  badRow("a required shop_code of only spaces is empty", "pre_arbitration", { shop_code: "   " }, "shop_code", /required/);
  badRow("amount with three decimals", "chargeback", { chb_amount: "12.345" }, "chb_amount");
  badRow("amount with a decimal comma", "chargeback", { chb_amount: "1,50" }, "chb_amount");
  badRow("optional amount with three decimals", "chargeback", { tr_amount: "0.001" }, "tr_amount");
  badRow("pre-arbitration amount with three decimals", "pre_arbitration", { amount: "5.125" }, "amount");
  badRow("pre-arbitration amount that is not a number", "pre_arbitration", { amount: "12 EUR" }, "amount");
  badRow("date 2026-02-30", "chargeback", { chb_proc_date: "2026-02-30" }, "chb_proc_date");
  badRow("chb_proc_date may not be 0000-00-00", "chargeback", { chb_proc_date: "0000-00-00" }, "chb_proc_date");
  badRow("chb_tr_date 2026-02-30", "chargeback", { chb_tr_date: "2026-02-30" }, "chb_tr_date");
  badRow("a date not in YYYY-MM-DD", "chargeback", { merchant_resp_date: "02.01.2026" }, "merchant_resp_date");
  badRow("pre-arbitration case_date 2026-02-30", "pre_arbitration", { case_date: "2026-02-30" }, "case_date");
  badRow("datetime with a T", "chargeback", { tr_date_time: "2026-01-01T10:00:00" }, "tr_date_time");
  badRow("datetime without seconds", "chargeback", { rev_date_time: "2026-01-01 10:00" }, "rev_date_time");
  badRow("datetime hour 24", "chargeback", { tr_date_time: "2026-01-01 24:00:00" }, "tr_date_time");
  badRow("datetime on 2026-02-30", "pre_arbitration", { tr_date_time: "2026-02-30 10:00:00" }, "tr_date_time");
  badRow("reason_code not an integer (letters)", "chargeback", { reason_code: "48a7" }, "reason_code");
  badRow("reason_code not an integer (decimal)", "chargeback", { reason_code: "12.5" }, "reason_code");
  badRow("function_code not an integer", "chargeback", { function_code: "450.0" }, "function_code");
  badRow("payment_order_nr of 31 characters", "chargeback", { payment_order_nr: "A".repeat(31) }, "payment_order_nr");
  badRow("pre-arbitration payment_order_nr of 31 characters", "pre_arbitration", { payment_order_nr: "B".repeat(31) }, "payment_order_nr");
  badRow("a full PAN in card", "chargeback", { card: "5123451234561234" }, "card");
  badRow("a full PAN in card (pre-arbitration)", "pre_arbitration", { card: "4111111111111111" }, "card");
  {
    // Two bad cells in one row: two problems, both named by the row's line.
    const n = nextName("chargeback");
    const content = csv("chargeback", [row(1), row(2, { reason_code: "x", chb_ccy: "euro" })]);
    rejects.push({ title: "two bad cells of one row", kind: "chargeback", ...n, content, expect: [{ line: 3, field: "chb_ccy" }, { line: 3, field: "reason_code" }] });
  }
  {
    const n = nextName("chargeback");
    const cols = importColumns("chargeback");
    const good = (i: number) => csvLine(cols.map((c) => ({ ...VALID.chargeback, ...row(i) })[c] ?? ""));
    const short = cols.map((c) => ({ ...VALID.chargeback, ...row(2) })[c] ?? "").slice(0, -1);
    const content = [csvLine(cols), good(1), csvLine(short), good(3), csvLine([...cols.map(() => ""), "extra"])].join("\n") + "\n";
    rejects.push({
      title: "rows with the wrong number of cells",
      kind: "chargeback",
      ...n,
      content,
      expect: [
        { line: 3, message: /cells/ },
        { line: 5, message: /cells/ },
      ],
    });
  }
  {
    // Lines 2-4 are one good record, lines 5-6 a bad one, line 7 another bad one.
    const n = nextName("chargeback");
    const content = csv("chargeback", [
      row(1, { comments: "first\nsecond\nthird" }),
      row(2, { comments: "multi\nline", reason_code: "abc" }),
      row(3, { chb_ccy: "eur" }),
    ]);
    if (content.split("\n").length !== 8) throw new Error("the multi-line fixture must span lines 1-7");
    rejects.push({
      title: "a multi-line record is named by its first line",
      kind: "chargeback",
      ...n,
      content,
      expect: [
        { line: 5, field: "reason_code" },
        { line: 7, field: "chb_ccy" },
      ],
    });
  }
  {
    const n = nextName("chargeback");
    const cols = importColumns("chargeback");
    const r = (i: number, extra: Row = {}) => csvLine(cols.map((c) => ({ ...VALID.chargeback, ...row(i), ...extra })[c] ?? ""));
    const content = [csvLine(cols), r(1), "", r(2, { card_type: "AMEX" })].join("\n") + "\n";
    rejects.push({ title: "an empty line still counts as a line", kind: "chargeback", ...n, content, expect: [{ line: 4, field: "card_type" }] });
  }
  {
    const n = nextName("pre_arbitration");
    const content = csv("pre_arbitration", [row(1), row(2, { merchant_decision: "maybe" })], { eol: "\r\n" });
    rejects.push({ title: "CRLF line ends: lines are counted the same", kind: "pre_arbitration", ...n, content, expect: [{ line: 3, field: "merchant_decision" }] });
  }
  {
    // A CRLF inside a quoted cell is one line break: lines 2-3 are one record, line 4 the bad one.
    const n = nextName("chargeback");
    const content = csv("chargeback", [row(1, { comments: "a\r\nb" }), row(2, { chb_ccy: "" }), row(3, { comments: "c\nd" }), row(4, { card_type: "" })], { eol: "\r\n" });
    rejects.push({
      title: "a CRLF inside a quoted cell counts as one line",
      kind: "chargeback",
      ...n,
      content,
      expect: [
        { line: 4, field: "chb_ccy" },
        { line: 7, field: "card_type" },
      ],
    });
  }
  {
    const n = nextName("chargeback");
    const content = csv("chargeback", [row(1)]) + `shop-1,"512345%1234,ARN-1\n`;
    rejects.push({ title: "an unclosed quote", kind: "chargeback", ...n, content, expect: [{ line: 3 }] });
  }
  {
    // An unclosed quote on line 4 would read every later line into one cell; the parser stops at
    // MAX_RECORD_CHARS and names the record's first line.
    const n = nextName("chargeback");
    const rest = csv("chargeback", Array.from({ length: 1200 }, (_, i) => row(100 + i))).split("\n").slice(1).join("\n");
    if (rest.length <= MAX_RECORD_CHARS) throw new Error("the swallowed lines must be longer than MAX_RECORD_CHARS");
    const content = csv("chargeback", [row(1), row(2)]) + `shop-1,"512345%1234,ARN-1\n` + rest;
    rejects.push({
      title: "a record longer than MAX_RECORD_CHARS (an unclosed quote swallowing the rest of the file)",
      kind: "chargeback",
      ...n,
      content,
      expect: [{ line: 4, field: "csv", message: new RegExp(`^record longer than ${MAX_RECORD_CHARS} characters \\(an unclosed quote\\?\\)$`) }],
    });
  }

  // ---- Files that load
  {
    const n = nextName("chargeback");
    accepts.push({
      title: "value rules",
      kind: "chargeback",
      ...n,
      content: csv("chargeback", [
        row(1, { payment_id: "PAD", chb_amount: "   12.5", tr_amount: "7", chb_settl_amount: "  0.05", rev_amount: "1000000.99" }),
        row(2, { payment_id: "ZERO", chb_tr_date: "0000-00-00" }),
        row(3, { payment_id: "ORDER30", payment_order_nr: "O".repeat(30) }),
        row(4, {
          payment_id: "  TRIM  ",
          shop_code: "  shop-x  ",
          merchant_name: "  Foo Bar  ",
          acq_ref_nr: " ARN-9 ",
          doc_indicator: "   ",
          rev_indicator: " ",
          comments: "   ",
          mcc_code: "",
        }),
        row(5, { payment_id: "IND", doc_indicator: "1", rev_indicator: "R", chb_tr_date: "2025-12-31" }),
        row(6, { payment_id: "MULTI", comments: 'line one\nline "two", with comma' }),
        row(7, { payment_id: "DT", tr_date_time: "2025-12-31 23:59:59", rev_date_time: "2026-01-01 00:00:00" }),
      ]),
      records: 7,
    });
  }
  {
    const n = nextName("chargeback");
    accepts.push({ title: "a BOM", kind: "chargeback", ...n, content: "\uFEFF" + csv("chargeback", [row(1, { payment_id: "BOM" })]), records: 1 });
  }
  {
    const n = nextName("pre_arbitration", "31");
    const columns = [...importColumns("pre_arbitration")].reverse();
    accepts.push({
      title: "columns in another order",
      kind: "pre_arbitration",
      ...n,
      content: csv("pre_arbitration", [row(1, { payment_id: "REV-1", amount: "  0.5", case_stage: "Pre-arbitration response", merchant_name: "Rev" }), row(2, { payment_id: "REV-2" })], { columns }),
      records: 2,
    });
  }
  {
    const n = nextName("chargeback");
    accepts.push({ title: "CRLF line ends", kind: "chargeback", ...n, content: csv("chargeback", [row(1, { payment_id: "CRLF", comments: "a\r\nb" })], { eol: "\r\n" }), records: 1 });
  }
  {
    const n = nextName("chargeback");
    accepts.push({ title: "a header-only file", kind: "chargeback", ...n, content: csv("chargeback", []), records: 0 });
  }
  {
    const n = nextName("chargeback");
    const content = csv("chargeback", [row(1), LONGEST_ROW]);
    const longest = content.split("\n")[2].length;
    if (longest < 20_000 || longest > MAX_RECORD_CHARS) throw new Error(`the longest valid record has ${longest} characters`);
    accepts.push({ title: "the longest record the rules allow", kind: "chargeback", ...n, content, records: 2 });
  }

  // ---- The 100-problem cap
  const cap = nextName("chargeback");
  const capContent = csv("chargeback", Array.from({ length: 150 }, (_, i) => row(i, { chb_ccy: "eu" })));
  return { rejects, accepts, cap: { ...cap, content: capContent } };
}

describe.each(backends)("import rules on $name", (backend) => {
  afterAll(async () => {
    await dropCreatedDatabases();
  });

  describe("one command over many good and bad files", () => {
    const { rejects, accepts, cap } = buildCases();
    let dir: string;
    let result: CliResult;
    let db: Db;
    const pathOf = (name: string) => path.join(dir, name);

    beforeAll(async () => {
      dir = tempDir("disputes-import-rules-");
      const url = await backend.create();
      for (const c of [...rejects, ...accepts, cap]) if (c.content !== null) fs.writeFileSync(pathOf(c.name), c.content);
      // Good files first, in the middle and last: refusals do not stop the others.
      const order = [accepts[0], ...rejects.slice(0, 20), accepts[1], cap, ...rejects.slice(20), ...accepts.slice(2)];
      result = await runCli("import.ts", order.map((c) => pathOf(c.name)), { DATABASE_URL: url, APP_KEY_FILE: path.join(dir, "app.key") });
      db = await openDatabase(url);
    });
    afterAll(async () => {
      await db?.close();
    });

    it("exits 1 because files were refused, and prints one summary line per file", () => {
      expect(result.code, result.stderr).toBe(1);
      const summaries = result.stdout.split("\n").filter((l) => /: (imported \d+ records|skipped \(already imported\)|rejected \(\d+ problems\))$/.test(l));
      expect(summaries).toHaveLength(rejects.length + accepts.length + 1);
    });

    it.each(rejects.map((c) => [c.title, c] as const))("refuses %s", async (_title, c) => {
      const file = pathOf(c.name);
      const lines = linesFor(result.stdout, file);
      const problems = problemsOf(result.stdout, file);
      if (c.expect === "name") {
        expect(problems).toEqual([]);
        const messages = lines.filter((l) => !/: rejected \(\d+ problems\)$/.test(l));
        expect(messages.length).toBeGreaterThanOrEqual(1);
        expect(messages.join("\n")).toMatch(/name/i);
        expect(lines.at(-1)).toBe(`${file}: rejected (${messages.length} problems)`);
      } else if (c.content === null) {
        expect(lines.at(-1)).toMatch(new RegExp(`^${escapeRe(file)}: rejected \\(1 problems\\)$`));
        expect(lines.length).toBe(2);
      } else {
        const sortKey = (p: { line: number; field?: string }) => `${String(p.line).padStart(6, "0")}|${p.field ?? ""}`;
        const got = [...problems].sort((a, b) => sortKey(a).localeCompare(sortKey(b)));
        const want = [...c.expect].sort((a, b) => sortKey(a).localeCompare(sortKey(b)));
        expect(got.map((p) => p.line)).toEqual(want.map((p) => p.line));
        want.forEach((w, i) => {
          if (w.field) expect(got[i].field).toBe(w.field);
          expect(got[i].message.trim().length).toBeGreaterThan(0);
          if (w.message) expect(got[i].message).toMatch(w.message);
        });
        // Problems come before the summary, which is the file's last line.
        expect(lines.at(-1)).toBe(`${file}: rejected (${c.expect.length} problems)`);
        expect(lines).toHaveLength(c.expect.length + 1);
      }
      expect(await importedFileNames(db)).not.toContain(c.name);
      if (c.fileDate) expect(await countWhere(db, c.kind, c.fileDate)).toBe(0);
    });

    it.each(accepts.map((c) => [c.title, c] as const))("loads a file with %s", async (_title, c) => {
      const file = pathOf(c.name);
      expect(linesFor(result.stdout, file)).toEqual([`${file}: imported ${c.records} records`]);
      expect(await countWhere(db, c.kind, c.fileDate)).toBe(c.records);
      const row = await db.db.selectFrom("imported_files").selectAll().where("name", "=", c.name).executeTakeFirst();
      expect(row).toMatchObject({ kind: c.kind });
      expect(Number(row!.record_count)).toBe(c.records);
    });

    it("holds no record of a refused file: the only records are those of the loaded files", async () => {
      const total = async (t: "chargebacks" | "pre_arbitrations") =>
        Number((await db.db.selectFrom(t).select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
      const want = (kind: RecordKind) => accepts.filter((a) => a.kind === kind).reduce((s, a) => s + a.records, 0);
      expect(await total("chargebacks")).toBe(want("chargeback"));
      expect(await total("pre_arbitrations")).toBe(want("pre_arbitration"));
      expect((await importedFileNames(db)).sort()).toEqual(accepts.map((a) => a.name).sort());
    });

    it("prints at most 100 problems, then how many more, and counts them all in the summary", async () => {
      const file = pathOf(cap.name);
      const lines = linesFor(result.stdout, file);
      const problems = problemsOf(result.stdout, file);
      expect(problems).toHaveLength(100);
      expect(problems.map((p) => p.line)).toEqual(Array.from({ length: 100 }, (_, i) => i + 2));
      expect(new Set(problems.map((p) => p.field))).toEqual(new Set(["chb_ccy"]));
      expect(lines).toHaveLength(102);
      expect(lines[100]).toBe(`${file}: ... and 50 more problems`);
      expect(lines[101]).toBe(`${file}: rejected (150 problems)`);
      expect(await countWhere(db, "chargeback", cap.fileDate)).toBe(0);
    });

    it("stores amounts exactly in minor units, left padding allowed", async () => {
      const r = await db.db.selectFrom("chargebacks").selectAll().where("payment_id", "=", "PAD").executeTakeFirstOrThrow();
      expect(Number(r.chb_amount)).toBe(1250);
      expect(Number(r.tr_amount)).toBe(700);
      expect(Number(r.chb_settl_amount)).toBe(5);
      expect(Number(r.rev_amount)).toBe(100000099);
      const pa = await db.db.selectFrom("pre_arbitrations").selectAll().where("payment_id", "=", "REV-1").executeTakeFirstOrThrow();
      expect(Number(pa.amount)).toBe(50);
    });

    it("accepts chb_tr_date 0000-00-00, a 30-character payment_order_nr and date-times", async () => {
      const get = (id: string) => db.db.selectFrom("chargebacks").selectAll().where("payment_id", "=", id).executeTakeFirstOrThrow();
      expect((await get("ZERO")).chb_tr_date).toBe("0000-00-00");
      expect((await get("ORDER30")).payment_order_nr).toBe("O".repeat(30));
      expect(await get("DT")).toMatchObject({ tr_date_time: "2025-12-31 23:59:59", rev_date_time: "2026-01-01 00:00:00" });
    });

    it("trims cells, keeps indicators of only spaces as one space, and stores empty cells as null", async () => {
      const trimmed = await db.db.selectFrom("chargebacks").selectAll().where("payment_id", "=", "TRIM").executeTakeFirstOrThrow();
      expect(trimmed).toMatchObject({
        shop_code: "shop-x",
        merchant_name: "Foo Bar",
        acq_ref_nr: "ARN-9",
        doc_indicator: " ",
        rev_indicator: " ",
        comments: null,
        mcc_code: null,
        xid: null,
        payment_order_nr: null,
        chb_tr_date: null,
      });
      const ind = await db.db.selectFrom("chargebacks").selectAll().where("payment_id", "=", "IND").executeTakeFirstOrThrow();
      expect(ind).toMatchObject({ doc_indicator: "1", rev_indicator: "R", chb_tr_date: "2025-12-31" });
      const plain = await db.db.selectFrom("chargebacks").selectAll().where("payment_id", "=", "ZERO").executeTakeFirstOrThrow();
      expect(plain).toMatchObject({ doc_indicator: null, rev_indicator: null });
    });

    it("loads the longest record the rules allow, every cell whole", async () => {
      const r = await db.db.selectFrom("chargebacks").selectAll().where("payment_id", "=", LONGEST_ROW.payment_id).executeTakeFirstOrThrow();
      for (const [name, value] of Object.entries(LONGEST_ROW)) expect((r as Record<string, unknown>)[name], name).toBe(value);
    });

    it("keeps quoted line breaks, quotes and commas inside a cell", async () => {
      const r = await db.db.selectFrom("chargebacks").selectAll().where("payment_id", "=", "MULTI").executeTakeFirstOrThrow();
      expect(r.comments).toBe('line one\nline "two", with comma');
      const crlf = await db.db.selectFrom("chargebacks").selectAll().where("payment_id", "=", "CRLF").executeTakeFirstOrThrow();
      expect(crlf.comments).toBe("a\r\nb");
    });

    it("reads the first column of a file with a BOM by its name", async () => {
      const r = await db.db.selectFrom("chargebacks").selectAll().where("payment_id", "=", "BOM").executeTakeFirstOrThrow();
      expect(r).toMatchObject({ shop_code: "shop-1", card: "512345%1234", bank_id: "29" });
    });

    it("maps columns by name whatever their order, and takes bank_id and file_date from the name", async () => {
      const c = accepts.find((a) => a.title === "columns in another order")!;
      const r = await db.db.selectFrom("pre_arbitrations").selectAll().where("payment_id", "=", "REV-1").executeTakeFirstOrThrow();
      expect(r).toMatchObject({
        bank_id: "31",
        file_date: c.fileDate,
        shop_code: "shop-1",
        card: "411111%0001",
        acq_ref_nr: "ARN-2",
        merchant_id: "M2",
        merchant_name: "Rev",
        ccy: "EUR",
        case_date: "2026-02-01",
        case_stage: "Pre-arbitration response",
        payment_order_nr: null,
      });
      const chb = await db.db.selectFrom("chargebacks").selectAll().where("payment_id", "=", "PAD").executeTakeFirstOrThrow();
      expect(chb).toMatchObject({ bank_id: "29", file_date: accepts[0].fileDate, reason_code: 4837, function_code: 450, card_type: "MC" });
      expect(Number(chb.reason_code)).toBe(4837);
    });

    it("keeps record_counts in step with the rows after refused files", async () => {
      await expectRecordCountsInStep(db);
    });
  });

  describe("repeated imports, ids and folders", () => {
    let dir: string;
    let env: Record<string, string>;
    let db: Db;
    const cb = (p: string, extra: Row = {}) => row(0, { payment_id: p, ...extra });
    const files = {
      A: { name: "CHB_20260101.csv", content: csv("chargeback", [cb("A-1"), cb("A-2", { shop_code: "shop-2" }), cb("A-3")]) },
      B: { name: "PREARB_29_20260101.csv", content: csv("pre_arbitration", [cb("B-1"), cb("B-2")]) },
      Cbad: { name: "CHB_20260102.csv", content: csv("chargeback", [cb("C-1"), cb("C-2", { chb_amount: "1.234" })]) },
      D: { name: "CHB_20260103.csv", content: csv("chargeback", [cb("D-1"), cb("D-2", { shop_code: "shop-2" })]) },
      H1: { name: "CHB_20260104.csv", content: csv("chargeback", []) },
    };
    const p = (sub: string, name: string) => path.join(dir, sub, name);
    const write = (sub: string, name: string, content: string) => {
      fs.mkdirSync(path.join(dir, sub), { recursive: true });
      fs.writeFileSync(p(sub, name), content);
      return p(sub, name);
    };

    async function snapshot() {
      return {
        chargebacks: (await db.db.selectFrom("chargebacks").select(["id", "file_id", "payment_id", "file_date"]).orderBy("id").execute()).map((r) => ({ ...r, id: Number(r.id), file_id: Number(r.file_id) })),
        pre_arbitrations: (await db.db.selectFrom("pre_arbitrations").select(["id", "file_id", "payment_id", "file_date"]).orderBy("id").execute()).map((r) => ({ ...r, id: Number(r.id), file_id: Number(r.file_id) })),
        files: (await db.db.selectFrom("imported_files").selectAll().orderBy("id").execute()).map((r) => ({ ...r, id: Number(r.id), record_count: Number(r.record_count), imported_at: Number(r.imported_at) })),
        counts: (await db.db.selectFrom("record_counts").selectAll().orderBy("kind").orderBy("shop_code").orderBy("file_date").execute()).map((r) => ({ ...r, n: Number(r.n) })),
      };
    }

    beforeAll(async () => {
      dir = tempDir("disputes-import-seq-");
      env = { DATABASE_URL: await backend.create(), APP_KEY_FILE: path.join(dir, "app.key") };
      for (const f of Object.values(files)) write("in", f.name, f.content);
    });
    afterAll(async () => {
      await db?.close();
    });

    it("loads the good files around a refused one, with ids 1..N in import order and no gap", async () => {
      const r = await runCli("import.ts", ["A", "B", "Cbad", "D", "H1"].map((k) => p("in", files[k as keyof typeof files].name)), env);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toContain(`${p("in", files.A.name)}: imported 3 records`);
      expect(r.stdout).toContain(`${p("in", files.B.name)}: imported 2 records`);
      expect(r.stdout).toContain(`${p("in", files.Cbad.name)}:3: chb_amount: `);
      expect(r.stdout).toContain(`${p("in", files.Cbad.name)}: rejected (1 problems)`);
      expect(r.stdout).toContain(`${p("in", files.D.name)}: imported 2 records`);
      expect(r.stdout).toContain(`${p("in", files.H1.name)}: imported 0 records`);
      db = await openDatabase(env.DATABASE_URL);
      const s = await snapshot();
      expect(s.chargebacks.map((x) => [x.id, x.payment_id])).toEqual([
        [1, "A-1"],
        [2, "A-2"],
        [3, "A-3"],
        [4, "D-1"],
        [5, "D-2"],
      ]);
      expect(s.pre_arbitrations.map((x) => [x.id, x.payment_id, x.file_date])).toEqual([
        [1, "B-1", "2026-01-01"],
        [2, "B-2", "2026-01-01"],
      ]);
      expect(s.files.map((f) => [f.name, f.kind, f.record_count])).toEqual([
        [files.A.name, "chargeback", 3],
        [files.B.name, "pre_arbitration", 2],
        [files.D.name, "chargeback", 2],
        [files.H1.name, "chargeback", 0],
      ]);
      // Each record points at its own file.
      const idOf = (name: string) => s.files.find((f) => f.name === name)!.id;
      expect(s.chargebacks.map((x) => x.file_id)).toEqual([idOf(files.A.name), idOf(files.A.name), idOf(files.A.name), idOf(files.D.name), idOf(files.D.name)]);
      await expectDenseIds(db);
      await expectRecordCountsInStep(db);
    });

    it("skips a file imported before (same name and content): exit 0, nothing changes", async () => {
      const before = await snapshot();
      const r = await runCli("import.ts", [p("in", files.A.name), p("in", files.H1.name)], env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.trim().split("\n")).toEqual([`${p("in", files.A.name)}: skipped (already imported)`, `${p("in", files.H1.name)}: skipped (already imported)`]);
      expect(await snapshot()).toEqual(before);
    });

    it("refuses the same name with other content and the same content under another name; allows a header-only twin; loads a corrected refused file", async () => {
      const before = await snapshot();
      const sameName = write("other", files.A.name, csv("chargeback", [cb("A2-1")]));
      const sameContent = write("other", "CHB_20260105.csv", files.A.content);
      const headerTwin = write("other", "CHB_20260106.csv", files.H1.content);
      const fixedC = write("other", files.Cbad.name, csv("chargeback", [cb("C-1"), cb("C-2")]));
      const r = await runCli("import.ts", [sameName, sameContent, headerTwin, fixedC], env);
      expect(r.code, r.stderr).toBe(1);
      const sameNameLines = linesFor(r.stdout, sameName);
      expect(sameNameLines.at(-1)).toBe(`${sameName}: rejected (1 problems)`);
      expect(sameNameLines.length).toBe(2);
      const sameContentLines = linesFor(r.stdout, sameContent);
      expect(sameContentLines.at(-1)).toBe(`${sameContent}: rejected (1 problems)`);
      expect(sameContentLines[0]).toContain(files.A.name);
      expect(linesFor(r.stdout, headerTwin)).toEqual([`${headerTwin}: imported 0 records`]);
      expect(linesFor(r.stdout, fixedC)).toEqual([`${fixedC}: imported 2 records`]);

      const after = await snapshot();
      // Nothing of the refused files; the earlier rows unchanged; the corrected file continues the ids.
      expect(after.chargebacks.slice(0, 5)).toEqual(before.chargebacks);
      expect(after.chargebacks.slice(5).map((x) => [x.id, x.payment_id, x.file_date])).toEqual([
        [6, "C-1", "2026-01-02"],
        [7, "C-2", "2026-01-02"],
      ]);
      expect(after.pre_arbitrations).toEqual(before.pre_arbitrations);
      expect(after.files.slice(0, 4)).toEqual(before.files);
      expect(after.files.slice(4).map((f) => [f.name, f.record_count])).toEqual([
        ["CHB_20260106.csv", 0],
        [files.Cbad.name, 2],
      ]);
      expect(after.chargebacks.some((x) => x.payment_id === "A2-1" || x.file_date === "2026-01-05")).toBe(false);
      await expectDenseIds(db);
      await expectRecordCountsInStep(db);
    });

    it("imports every *.csv of a folder in name order and ignores other files", async () => {
      const before = await snapshot();
      // Written out of name order.
      write("folder", "PREARB_31_20260115.csv", csv("pre_arbitration", [cb("F-P1")]));
      write("folder", "CHB_20260201.csv", csv("chargeback", [cb("F-201-1"), cb("F-201-2")]));
      write("folder", "notes.txt", "not a csv file at all");
      write("folder", "CHB_20260120.csv.bak", "garbage");
      write("folder", "README", "garbage");
      write("folder", "CHB_20260110.csv", csv("chargeback", [cb("F-110-1"), cb("F-110-2")]));
      fs.mkdirSync(path.join(dir, "folder", "nested"));
      const r = await runCli("import.ts", [path.join(dir, "folder")], env);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout.trim().split("\n")).toEqual([
        `${p("folder", "CHB_20260110.csv")}: imported 2 records`,
        `${p("folder", "CHB_20260201.csv")}: imported 2 records`,
        `${p("folder", "PREARB_31_20260115.csv")}: imported 1 records`,
      ]);
      const after = await snapshot();
      expect(after.chargebacks.slice(before.chargebacks.length).map((x) => [x.id, x.payment_id])).toEqual([
        [8, "F-110-1"],
        [9, "F-110-2"],
        [10, "F-201-1"],
        [11, "F-201-2"],
      ]);
      expect(after.pre_arbitrations.slice(before.pre_arbitrations.length).map((x) => [x.id, x.payment_id])).toEqual([[3, "F-P1"]]);
      const pa = await db.db.selectFrom("pre_arbitrations").select(["bank_id", "file_date"]).where("id", "=", 3).executeTakeFirstOrThrow();
      expect(pa).toEqual({ bank_id: "31", file_date: "2026-01-15" });
      await expectDenseIds(db);
      await expectRecordCountsInStep(db);
    });
  });
});
